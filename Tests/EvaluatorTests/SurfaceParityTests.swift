import FoundationModelsRuntime
import PlaygroundEvaluator
import PromptLanguage
import Surface
import XCTest

/// The surface table and the evaluator's implementations agree, entry for entry.
final class SurfaceParityTests: XCTestCase {
    func testEveryTableEntryHasAnImplementationAndEveryImplementationAnEntry() {
        let declared = Set(Surface.table.allMembers.map(\.id))
        let implemented = PlaygroundEvaluator.implementedSurfaceIDs
        XCTAssertGreaterThan(declared.count, 150)
        XCTAssertEqual(declared.subtracting(implemented).sorted(), [], "table entries without an implementation (add them under Sources/PlaygroundLibrary)")
        XCTAssertEqual(implemented.subtracting(declared).sorted(), [], "implementations without a table entry (declare them in Sources/Surface/Table)")
    }

    func testEveryEntryIsDocumentedAndNamesKnownTypes() {
        for member in Surface.table.allMembers {
            XCTAssertFalse(member.documentation.isEmpty, "\(member.id) has no documentation")
            XCTAssertTrue(member.documentation.hasSuffix(".") || member.documentation.hasSuffix(")"), "\(member.id): documentation is one sentence")
            // A qualified result type (`LanguageModelSession.Response`) must be in the table.
            if let result = member.result?.replacingOccurrences(of: "?", with: ""), result.contains("."), !result.hasPrefix("["),
               !result.hasPrefix("Content"), !result.hasSuffix(".Type") {
                XCTAssertNotNil(Surface.table.type(named: result), "\(member.id) returns \(result), which is not in the table")
            }
        }
        for type in Surface.table.types {
            XCTAssertFalse(type.documentation.isEmpty, "\(type.name) has no documentation")
            if let dot = type.name.lastIndex(of: ".") {
                XCTAssertNotNil(Surface.table.type(named: String(type.name[..<dot])), "\(type.name) is nested in a type the table does not declare")
            }
        }
    }

    func testDeclarationsParseIntoSelectorsAndParameters() throws {
        let respond = try XCTUnwrap(Surface.table.entry(id: "LanguageModelSession.respond(to:generating:includeSchemaInPrompt:options:)"))
        XCTAssertEqual(respond.kind, .method)
        XCTAssertEqual(respond.result, "LanguageModelSession.Response")
        XCTAssertEqual(respond.parameters?.map(\.hasDefault), [false, false, true, true])
        let print = try XCTUnwrap(Surface.table.entry(id: "print(_:separator:)"))
        XCTAssertEqual(print.kind, .function)
        XCTAssertEqual(Surface.table.entry(id: "SystemLanguageModel.default")?.kind, .staticProperty)
        XCTAssertEqual(Surface.table.entry(id: "SystemLanguageModel.Availability.unavailable(_:)")?.kind, .enumCase)
    }

    func testResolutionPicksTheOverloadByLabels() {
        let table = Surface.table
        guard case .found(let text) = table.resolveCall(type: "LanguageModelSession", name: "respond", labels: ["to"], trailingClosure: false, isStatic: false),
              case .found(let typed) = table.resolveCall(type: "LanguageModelSession", name: "respond", labels: ["to", "generating"], trailingClosure: false, isStatic: false),
              case .found(let builder) = table.resolveCall(type: "LanguageModelSession", name: "respond", labels: [], trailingClosure: true, isStatic: false),
              case .found(let printing) = table.resolveFunction(name: "print", labels: [nil, nil, nil, "separator"], trailingClosure: false)
        else { return XCTFail("a supported form did not resolve") }
        XCTAssertEqual(text.selector, "respond(to:options:)")
        XCTAssertEqual(typed.selector, "respond(to:generating:includeSchemaInPrompt:options:)")
        XCTAssertEqual(builder.selector, "respond(options:prompt:)")
        XCTAssertEqual(printing.selector, "print(_:separator:)")
        guard case .noMatchingOverload(_, let unknown) = table.resolveCall(type: "LanguageModelSession", name: "respond", labels: ["to", "opitons"],
                                                                           trailingClosure: false, isStatic: false) else { return XCTFail("opitons: resolved") }
        XCTAssertEqual(unknown?.label, "opitons")
        XCTAssertEqual(unknown?.suggestion, "options")
        guard case .unknownMember(let suggestion) = table.resolveCall(type: "LanguageModelSession", name: "respnd", labels: ["to"],
                                                                      trailingClosure: false, isStatic: false) else { return XCTFail("respnd resolved") }
        XCTAssertEqual(suggestion, "respond")
        guard case .unknownMember(let none) = table.resolveValue(type: "LanguageModelSession", name: "frobnicate", isStatic: false) else {
            return XCTFail("frobnicate resolved")
        }
        XCTAssertNil(none)
    }

    func testEditDistance() {
        XCTAssertEqual(SurfaceTable.editDistance("respond", "respnod"), 1)
        XCTAssertEqual(SurfaceTable.editDistance("respond", "rspond"), 1)
        XCTAssertEqual(SurfaceTable.editDistance("abc", "xyz"), 3)
        XCTAssertEqual(SurfaceTable.editDistance("", "abc"), 3)
        XCTAssertEqual(SurfaceTable.closest(to: "defualt", among: ["default", "general"]), "default")
        XCTAssertNil(SurfaceTable.closest(to: "x", among: ["default"]))
    }

    /// `Int.min`, `Int.max`, `Double.nan` and `.infinity` lint clean and run, printing as Swift prints them.
    func testNumericStaticsRun() async {
        let source = """
        #Playground {
            print(Int.min, Int.max)
            print(-Int.max, Double.infinity, -Double.infinity, Double.nan)
            let d: Double = .infinity
            print(d > 1e308, Double.pi > 3.14, Float.infinity)
        }
        """
        XCTAssertEqual(PromptAnalyzer.analyze(source).diagnostics.map(\.message), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["-9223372036854775808 9223372036854775807", "-9223372036854775807 inf -inf nan", "true true inf"])
    }

    /// A member the table does not have fails at run time with the same did-you-mean as lint.
    func testUnknownMembersFailAtRunTimeWithASuggestion() async throws {
        let result = await evaluate("""
        #Playground {
            let text = "abc"
            let n = text.cuont
        }
        """)
        let block = try XCTUnwrap(result.blocks.first)
        XCTAssertEqual(block.status, .error)
        XCTAssertTrue(block.error?.contains("did you mean 'count'?") == true, block.error ?? "")
    }
}
