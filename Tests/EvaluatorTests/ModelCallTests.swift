import FoundationModelsRuntime
import JSON
import PlaygroundEvaluator
import XCTest

let travelTypes = """
    import FoundationModels
    import Playgrounds

    @Generable
    enum Mood {
        case calm, lively
    }

    @Generable
    struct Suggestions {
        @Guide(description: "Searches", .count(3))
        var searchTerms: [String]
        var mood: Mood
        @Guide(.range(1...5))
        var stars: Int
    }

    """

final class ModelCallTests: XCTestCase {
    func testGuidedRespondRecordsTypedResult() async {
        let result = await evaluate(travelTypes + """
            #Playground("search") {
                let session = LanguageModelSession(instructions: "Help travellers.")
                let response = try await session.respond(to: "Ideas for Porto", generating: Suggestions.self)
                print(response.content.searchTerms.count, response.content.mood, response.content.stars)
                print(response.usage.responseTokens > 0)
            }
            """)
        XCTAssertEqual(prints(result), ["3 calm 5", "true"])
        let call = result.blocks[0].results[0]
        XCTAssertEqual(call.kind, .response)
        XCTAssertEqual(call.typeName, "Suggestions")
        XCTAssertEqual(call.line, 19)
        XCTAssertEqual(call.column, 30)
        XCTAssertEqual(call.content["searchTerms"]?.arrayValue?.count, 3)
        XCTAssertEqual(call.text, #"Suggestions(searchTerms: ["ideas for", "porto ideas", "for porto"], mood: calm, stars: 5)"#)
        XCTAssertEqual(call.usage?.responseTokens, 4)
        XCTAssertNotNil(call.transcript)
        XCTAssertEqual(result.blocks[0].name, "search")
    }

    func testToolBodiesRunInTheInterpreter() async {
        let result = await evaluate("""
            let forecasts = ["what is": "sunny", "Oslo": "rain"]

            struct WeatherTool: Tool {
                let name = "getWeather"
                let description = "Weather for a city"
                let unit: String

                @Generable
                struct Arguments {
                    var city: String
                }

                func call(arguments: Arguments) async throws -> String {
                    let forecast = forecasts[arguments.city] ?? "unknown"
                    return "\\(arguments.city): \\(forecast) in \\(unit)"
                }
            }

            struct PlacesTool: Tool {
                let name = "findPlaces"
                let description = "Places near a city"

                @Generable
                struct Arguments {
                    var city: String
                }

                func call(arguments: Arguments) async throws -> GeneratedContent {
                    GeneratedContent(properties: ["city": arguments.city, "places": ["museum", "park"]])
                }
            }

            #Playground {
                let session = LanguageModelSession(tools: [WeatherTool(unit: "celsius")], instructions: "Use tools.")
                let response = try await session.respond(to: "What is the weather?")
                print(response.content)
                let places = LanguageModelSession(tools: [PlacesTool()])
                let found = try await places.respond(to: "Visit Oslo")
                print(found.content)
            }
            """)
        XCTAssertEqual(prints(result), [
            #"Scripted reply to "What is the weather?" using getWeather: what is: sunny in celsius."#,
            #"Scripted reply to "Visit Oslo" using findPlaces: {"city":"visit oslo","places":["museum","park"]}."#,
        ])
        let calls = result.blocks[0].results[0].toolCalls
        XCTAssertEqual(calls.count, 1)
        XCTAssertEqual(calls[0].name, "getWeather")
        XCTAssertEqual(calls[0].arguments, ["city": "what is"])
        XCTAssertEqual(calls[0].output, "what is: sunny in celsius")
    }

    func testThrowingToolIsToolCallErrorAtCallSite() async {
        let result = await evaluate("""
            enum LookupError: Error {
                case unknownCity
            }

            struct FailingTool: Tool {
                let name = "lookup"
                let description = "Always fails"

                @Generable
                struct Arguments {
                    var city: String
                }

                func call(arguments: Arguments) async throws -> String {
                    throw LookupError.unknownCity
                }
            }

            #Playground("caught") {
                let session = LanguageModelSession(tools: [FailingTool()])
                do {
                    _ = try await session.respond(to: "Where?")
                } catch {
                    print("tool failed: \\(error)")
                }
            }

            #Playground("uncaught") {
                let session = LanguageModelSession(tools: [FailingTool()])
                let answer = try await session.respond(to: "Where?")
                print(answer.content)
            }
            """)
        XCTAssertEqual(prints(result, block: 0), ["tool failed: ToolCallError: tool 'lookup' failed: unknownCity"])
        let uncaught = result.blocks[1]
        XCTAssertEqual(uncaught.status, .error)
        XCTAssertEqual(uncaught.results.last?.kind, .error)
        XCTAssertEqual(uncaught.results.last?.line, 30)
        XCTAssertEqual(uncaught.error, "test.fmplay:30:5: uncaught ToolCallError: tool 'lookup' failed: unknownCity")
    }

    func testMultiTurnTranscriptAndPrint() async {
        let result = await evaluate("""
            #Playground {
                let session = LanguageModelSession(instructions: "Write haiku.")
                let first = try await session.respond(to: "About rain")
                let second = try await session.respond(to: "About snow")
                print(session.transcript.count, second.usage.cachedTokens > 0)
                print(session.transcript)
                _ = first
            }
            """)
        XCTAssertEqual(prints(result), ["5 true", """
            (Instructions) Write haiku.
            (Prompt) About rain
            (Response) Scripted reply to "About rain".
            (Prompt) About snow
            (Response) Scripted reply to "About snow".
            """])
    }

    func testStreamSnapshotsArePublishedAndRecorded() async {
        let log = EventLog()
        let result = await evaluate(travelTypes + """
            #Playground {
                let session = LanguageModelSession()
                var seen = 0
                for try await partial in session.streamResponse(to: "Ideas", generating: Suggestions.self) {
                    seen += 1
                    if seen == 1 { print(partial.content.stars == nil) }
                }
                print(seen)
                let text = try await session.streamResponse(to: "Say hi").collect()
                print(text.content)
            }
            """, log: log)
        let printed = prints(result)
        XCTAssertEqual(printed.first, "true")
        let streams = result.blocks[0].results.filter { $0.kind == .stream }
        XCTAssertEqual(streams.count, 2)
        XCTAssertEqual(String(streams[0].snapshots), printed[1])
        XCTAssertGreaterThan(streams[0].snapshots, 3)
        XCTAssertEqual(streams[0].typeName, "Suggestions")
        XCTAssertEqual(log.snapshotCount, streams[0].snapshots + streams[1].snapshots)
        XCTAssertEqual(printed.last, #"Scripted reply to "Say hi"."#)
    }

    func testOptionsAndContentTagging() async {
        let model = ScriptedLanguageModel()
        let result = await evaluate("""
            #Playground {
                let options = GenerationOptions(sampling: .random(top: 5, seed: 7), temperature: 0.5, maximumResponseTokens: 3)
                let tagger = LanguageModelSession(model: SystemLanguageModel(useCase: .contentTagging))
                let tags = try await tagger.respond(to: "I love the sea", options: options)
                print(tags.content)
            }
            """, model: model, seed: 99)
        XCTAssertEqual(prints(result), ["Scripted reply to"])
        let request = model.receivedRequests[0]
        XCTAssertEqual(request.options.temperature, 0.5)
        XCTAssertEqual(request.effectiveSeed, 7)
        XCTAssertEqual(request.seed, 99)
        guard case .instructions(let instructions) = request.transcript[0] else { return XCTFail() }
        XCTAssertEqual(instructions.segments.first?.text, SystemLanguageModel.contentTaggingInstructions)
    }

    func testDynamicSchemas() async {
        let result = await evaluate("""
            #Playground {
                let answer = DynamicGenerationSchema(name: "Answer", properties: [
                    DynamicGenerationSchema.Property(name: "text", schema: DynamicGenerationSchema(type: String.self)),
                ])
                let riddle = DynamicGenerationSchema(name: "Riddle", properties: [
                    DynamicGenerationSchema.Property(name: "question", schema: DynamicGenerationSchema(type: String.self)),
                    DynamicGenerationSchema.Property(
                        name: "answers", schema: DynamicGenerationSchema(arrayOf: .init(referenceTo: "Answer"), minimumElements: 3)),
                ])
                let schema = try GenerationSchema(root: riddle, dependencies: [answer])
                let session = LanguageModelSession()
                let response = try await session.respond(to: "A riddle about the moon", schema: schema)
                let question = try response.content.value(String.self, forProperty: "question")
                print(question)
                do {
                    _ = try GenerationSchema(root: riddle, dependencies: [])
                } catch {
                    print(error)
                }
            }
            """)
        XCTAssertEqual(prints(result), [
            "a riddle", "undefinedReferences(schema: \"Riddle\", references: [\"Answer\"], "
                + "context: GenerationSchema.SchemaError.Context(debugDescription: \"Answer is not defined; pass it in dependencies:\"))",
        ])
        let call = result.blocks[0].results[0]
        XCTAssertEqual(call.typeName, "Riddle")
        XCTAssertEqual(call.content["answers"]?.arrayValue?.count, 3)
    }

    func testDynamicAnyOfOfObjectSchemas() async {
        // Members may be built inline; their nested definitions (here a string enum) come along.
        let model = ScriptedLanguageModel()
        let result = await evaluate("""
            #Playground {
                let tone = DynamicGenerationSchema(name: "Tone", anyOf: ["warm", "dry"])
                let reply = DynamicGenerationSchema(name: "Reply", description: "What to say", anyOf: [
                    DynamicGenerationSchema(name: "Answer", description: "An answer", properties: [
                        DynamicGenerationSchema.Property(name: "text", schema: DynamicGenerationSchema(type: String.self)),
                        DynamicGenerationSchema.Property(name: "tone", schema: tone),
                    ]),
                    DynamicGenerationSchema(name: "Refusal", properties: [
                        DynamicGenerationSchema.Property(name: "reason", schema: DynamicGenerationSchema(type: String.self), isOptional: true),
                    ]),
                ])
                let response = try await LanguageModelSession().respond(to: "Say hi", schema: try GenerationSchema(root: reply, dependencies: []))
                print(response.content)
                print(try response.content.value(String.self, forProperty: "text"))
            }
            """, model: model)
        let printed = prints(result)
        XCTAssertEqual(printed.count, 2)
        let call = result.blocks[0].results[0]
        XCTAssertEqual(call.typeName, "Reply")
        // Exactly one member, under its name; the scripted model picks the first.
        XCTAssertNil(call.content["Refusal"])
        XCTAssertNotNil(call.content["Answer"]?["tone"]?.stringValue)
        XCTAssertTrue(printed[0].hasPrefix("Answer(text: "), printed[0])
        XCTAssertEqual(printed[1], call.content["Answer"]?["text"]?.stringValue)
        guard let schema = model.receivedRequests.first?.schema else { return XCTFail("no schema sent") }
        guard case .enumeration(let cases)? = schema.definition(named: "Reply")?.kind else { return XCTFail("Reply is not a union") }
        XCTAssertEqual(cases.map(\.name), ["Answer", "Refusal"])
        XCTAssertEqual(cases[0].associatedValues.map(\.name), ["text", "tone"])
        XCTAssertEqual(cases[0].description, "An answer")
        XCTAssertEqual(cases[1].associatedValues.first?.isOptional, true)
        XCTAssertNotNil(schema.definition(named: "Tone"))
    }

    func testUnsupportedDynamicSchemasAreRefusedWithTheLintMessage() async {
        // Through a variable, lint cannot see the member; the evaluator refuses it with FM309's message.
        let result = await evaluate("""
            #Playground {
                let names = DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(type: String.self))
                let choice = DynamicGenerationSchema(name: "Choice", anyOf: [names])
                print(choice)
            }
            """)
        XCTAssertEqual(result.blocks[0].status, .error)
        XCTAssertTrue(result.blocks[0].error?.contains(
            "anyOf: members must be object schemas, DynamicGenerationSchema(name:properties:), but this one is an array schema (arrayOf:)") == true,
            result.blocks[0].error ?? "")
        // Written inline, lint reports FM309 and the block does not run.
        let gated = await evaluate("""
            #Playground {
                let maybe = DynamicGenerationSchema.Property(name: "x", schema: .null)
                print(maybe)
            }
            """)
        XCTAssertEqual(gated.blocks[0].status, .error)
        XCTAssertTrue(gated.blocks[0].error?.contains("FM309") == true || gated.blocks[0].error?.contains("DynamicGenerationSchema.null cannot be generated") == true,
                      gated.blocks[0].error ?? "")
        XCTAssertFalse(gated.blocks[0].results.contains { $0.kind == .print })
    }
}
