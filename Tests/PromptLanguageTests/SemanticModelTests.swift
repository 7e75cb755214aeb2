import PromptLanguage
import Schema
import XCTest

final class SemanticModelTests: XCTestCase {
    func testGenerableToolAndPlaygroundAreModelled() throws {
        let text = """
            import FoundationModels

            @Generable(description: "A trip plan")
            struct Itinerary {
                @Guide(description: "Where to", .anyOf(["Tokyo", "Kyoto"]))
                var destination: String
                @Guide(.range(1...7))
                var days: Int
                var notes: String?
                var relatedItineraries: [Itinerary]
                var kind: Kind

                @Generable
                enum Kind {
                    case relaxed
                    case busy(activities: [String])
                }
            }

            struct GetWeatherTool: Tool {
                let name = "getWeather"
                let description = "Weather for a city"
                @Generable
                struct Arguments {
                    var city: String
                }
                func call(arguments: Arguments) async throws -> String { "sunny" }
            }

            let cities = ["Tokyo", "Kyoto"]

            #Playground("trip") {
                let session = LanguageModelSession(tools: [GetWeatherTool()], instructions: "Plan trips.")
                let response = try await session.respond(to: "Plan", generating: Itinerary.self)
            }
            """
        let analysis = PromptAnalyzer.analyze(text)
        let file = analysis.file
        XCTAssertEqual(file.imports.map(\.module), ["FoundationModels"])
        XCTAssertEqual(file.types.map(\.qualifiedName), ["Itinerary", "Itinerary.Kind", "GetWeatherTool", "GetWeatherTool.Arguments"])
        let itinerary = try XCTUnwrap(file.type(named: "Itinerary"))
        XCTAssertTrue(itinerary.isGenerable)
        XCTAssertEqual(itinerary.generableAttribute?.description, "A trip plan")
        XCTAssertEqual(itinerary.properties.map(\.name), ["destination", "days", "notes", "relatedItineraries", "kind"])
        XCTAssertEqual(itinerary.properties[0].guideDescription, "Where to")
        XCTAssertEqual(itinerary.properties[0].guides.map(\.kind), [.anyOf(["Tokyo", "Kyoto"])])
        XCTAssertEqual(itinerary.properties[1].guides.map(\.kind), [.range(1, 7)])
        XCTAssertEqual(itinerary.properties[0].nameRange.start.line, 6)
        XCTAssertEqual(itinerary.properties[0].nameRange.start.column, 9)
        let kind = try XCTUnwrap(file.type(named: "Itinerary.Kind"))
        XCTAssertEqual(kind.cases.map(\.name), ["relaxed", "busy"])
        XCTAssertEqual(kind.cases[1].associatedValues.map(\.label), ["activities"])

        let tool = try XCTUnwrap(file.type(named: "GetWeatherTool")?.tool)
        XCTAssertEqual(tool.name, "getWeather")
        XCTAssertEqual(tool.description, "Weather for a city")
        XCTAssertEqual(tool.argumentsType, "GetWeatherTool.Arguments")
        XCTAssertEqual(tool.call?.returnType?.text, "String")
        XCTAssertFalse(tool.returnsLegacyToolOutput)

        XCTAssertEqual(file.constants.map(\.name), ["cities"])
        XCTAssertEqual(file.constants[0].literalValue, .array([.string("Tokyo"), .string("Kyoto")]))

        XCTAssertEqual(file.playgrounds.count, 1)
        let block = file.playgrounds[0]
        XCTAssertEqual(block.name, "trip")
        XCTAssertEqual(block.sessions.count, 1)
        XCTAssertEqual(block.sessions[0].variableName, "session")
        XCTAssertEqual(block.sessions[0].tools.map(\.typeName), ["GetWeatherTool"])
        XCTAssertEqual(block.sessions[0].instructions?.staticText, "Plan trips.")
        XCTAssertEqual(block.calls.map(\.method), [.respond])
        XCTAssertEqual(block.calls[0].generatingType, "Itinerary")
        XCTAssertEqual(block.calls[0].receiver, "session")

        let schema = try XCTUnwrap(file.schemas["Itinerary"])
        XCTAssertEqual(schema.root, .reference("Itinerary"))
        XCTAssertEqual(schema.definitions.map(\.name), ["Itinerary", "Itinerary.Kind"])
        guard case .object(let properties) = schema.definitions[0].kind else { return XCTFail("not an object") }
        XCTAssertEqual(properties[0].type, .string(StringGuides(anyOf: ["Tokyo", "Kyoto"])))
        XCTAssertEqual(properties[1].type, .integer(NumberGuides(minimum: 1, maximum: 7)))
        XCTAssertTrue(properties[2].isOptional)
        XCTAssertEqual(properties[3].type, .array(element: .reference("Itinerary"), guides: .none))
    }

    func testHalfTypedCodeStillYieldsAModel() {
        let analysis = PromptAnalyzer.analyze("@Generable struct A {\n  var x: \n  var y: Int\n#Playground {\n let s = ")
        XCTAssertTrue(analysis.hasErrors)
        XCTAssertEqual(analysis.file.types.first?.name, "A")
        XCTAssertTrue(analysis.diagnostics.allSatisfy { $0.code == .syntaxError || $0.code.rawValue.hasPrefix("FM") })
    }
}

final class GuideFormTests: XCTestCase {
    func guides(_ attribute: String, type: String = "String") -> [Guide.Kind] {
        let file = PromptAnalyzer.analyze("@Generable\nstruct T {\n    \(attribute)\n    var p: \(type)\n}\n").file
        return file.types.first?.properties.first?.guides.map(\.kind) ?? []
    }

    func testEveryGuideForm() {
        XCTAssertEqual(guides("@Guide(.anyOf([\"a\", \"b\"]))"), [.anyOf(["a", "b"])])
        XCTAssertEqual(guides("@Guide(.constant(\"v1\"))"), [.constant("v1")])
        XCTAssertEqual(guides("@Guide(.pattern(/[a-z]+/))"), [.pattern("[a-z]+")])
        XCTAssertEqual(guides("@Guide(.pattern(#/a/b/#))"), [.pattern("a/b")])
        XCTAssertEqual(guides("@Guide(.pattern(\"[0-9]+\"))"), [.pattern("[0-9]+")])
        XCTAssertEqual(guides("@Guide(try! Regex(\"x+\"))"), [.pattern("x+")])
        XCTAssertEqual(guides("@Guide(.minimum(-2), .maximum(3.5))", type: "Double"), [.minimum(-2), .maximum(3.5)])
        XCTAssertEqual(guides("@Guide(.range(0.5...1.5))", type: "Double"), [.range(0.5, 1.5)])
        XCTAssertEqual(guides("@Guide(.count(3))", type: "[String]"), [.count(3)])
        XCTAssertEqual(guides("@Guide(.count(3...8))", type: "[String]"), [.countRange(3, 8)])
        XCTAssertEqual(guides("@Guide(.minimumCount(1), .maximumCount(20))\n    @Guide(description: \"d\")", type: "[String]"), [.minimumCount(1), .maximumCount(20)])
        if case .element(let inner)? = guides("@Guide(.element(.range(1...5)))", type: "[Int]").first {
            XCTAssertEqual(inner.kind, .range(1, 5))
        } else {
            XCTFail("expected .element")
        }
    }

    func testRegexBuilderTranslation() {
        let builder = """
            @Guide(Regex {
                    Optionally { "+" }
                    Repeat(.digit, count: 3)
                    ZeroOrMore(.whitespace)
                    OneOrMore(.anyOf("ab-"))
                    Repeat(1...2) { "x" }
                })
            """
        XCTAssertEqual(guides(builder), [.pattern("(?:\\+)?(?:\\d){3}(?:\\s)*(?:[ab\\-])+x{1,2}")])
        guard case .unrecognized(let reason)? = guides("@Guide(Regex { Lookahead { \"a\" } })").first else {
            return XCTFail("an unsupported builder component must be reported")
        }
        XCTAssertTrue(reason.contains("Lookahead"), reason)
    }

    func testDescriptionsAndSchemaNames() throws {
        let file = PromptAnalyzer.analyze("""
            @Generable(name: "Ticket", description: "A ticket")
            struct T {
                @Guide(description: "The seat")
                var seat: String
            }
            @Generable
            enum E {
                @Guide(description: "first")
                case a
                case b(Int, label: String)
            }
            """).file
        XCTAssertEqual(file.type(named: "T")?.generableAttribute?.schemaName, "Ticket")
        XCTAssertEqual(file.schemas["T"]?.definitions.first?.name, "Ticket")
        XCTAssertEqual(file.schemas["T"]?.definitions.first?.description, "A ticket")
        let enumSchema = try XCTUnwrap(file.schemas["E"]?.definitions.first)
        guard case .enumeration(let cases) = enumSchema.kind else { return XCTFail("not an enum") }
        XCTAssertEqual(cases.map(\.description), ["first", nil])
        XCTAssertEqual(cases[1].associatedValues.map(\.name), ["_0", "label"])
    }
}
