import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// FoundationModels 27.0 forms from Apple's documentation, run on the scripted model.
final class AgenticAPITests: XCTestCase {
    func testToolCallingModeKind() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let options = GenerationOptions(toolCallingMode: .required)
                let mode = options.toolCallingMode ?? .allowed
                print(mode.kind)
                print(mode.kind == .required, mode.kind == .allowed, mode.kind != .disallowed)
                switch mode.kind {
                case .allowed: print("allowed")
                case .required: print("required")
                case .disallowed: print("disallowed")
                }
                let kind: GenerationOptions.ToolCallingMode.Kind = .disallowed
                print(kind == GenerationOptions.ToolCallingMode.disallowed.kind, kind == GenerationOptions.ToolCallingMode.Kind.allowed)
            }
            """)
        XCTAssertEqual(prints(result), ["required", "true false true", "required", "true false"])
    }

    /// The type erasers keep a dynamic profile dynamic: its body is still evaluated before every inference.
    func testTypeErasedProfilesAndInstructions() async {
        let result = await evaluate("""
            import FoundationModels
            struct Parts: DynamicInstructions {
                var topic: String
                var body: some DynamicInstructions {
                    Instructions("Talk about \\(topic).")
                    EmptyDynamicInstructions()
                }
            }
            final class State { var expert = false }
            struct Coach: LanguageModelSession.DynamicProfile {
                let state: State
                var body: some DynamicProfile {
                    if state.expert {
                        Profile { AnyDynamicInstructions(Parts(topic: "advanced folds")) }
                    } else {
                        Profile { AnyDynamicInstructions(erasing: Parts(topic: "basic folds")) }
                    }
                }
            }
            #Playground {
                let state = State()
                let session = LanguageModelSession(profile: AnyDynamicProfile(Coach(state: state)))
                _ = try await session.respond(to: "Hi")
                print(session.transcript.first!)
                state.expert = true
                _ = try await session.respond(to: "More")
                print(session.transcript.first!)
                let plain = LanguageModelSession(profile: LanguageModelSession.AnyDynamicProfile(erasing: Profile { EmptyDynamicInstructions() }))
                print(try await plain.respond(to: "Plain").content)
            }
            """)
        XCTAssertEqual(prints(result), ["(Instructions) Talk about basic folds.", "(Instructions) Talk about advanced folds.",
                                        "Scripted reply to \"Plain\"."])
    }

    func testAnyDynamicProfileNeedsAProfile() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession(profile: AnyDynamicProfile(42))
                print(session)
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertTrue(result.blocks.first?.error?.contains("AnyDynamicProfile wraps a dynamic profile") == true, result.blocks.first?.error ?? "")
    }

    func testToolCallErrorNamesTheToolThatThrew() async {
        let result = await evaluate("""
            import FoundationModels
            struct Broken: Tool {
                let name = "broken"
                let description = "Always fails"
                @Generable
                struct Arguments { var city: String }
                func call(arguments: Arguments) async throws -> String { throw CancellationError() }
            }
            #Playground {
                let session = LanguageModelSession(tools: [Broken()])
                do {
                    _ = try await session.respond(to: "Weather in Paris?", options: GenerationOptions(toolCallingMode: .required))
                } catch let error as LanguageModelSession.ToolCallError {
                    print(error.tool.name, error.tool.description, error.tool is Broken)
                    print(error.underlyingError)
                }
            }
            """)
        XCTAssertEqual(prints(result), ["broken Always fails true", "CancellationError()"])
    }

    /// Apple's PlannerTool ("Composing dynamic sessions"): every session has properties, and a tool given to a plain
    /// `LanguageModelSession(tools:)` reads and writes that session's through `@SessionProperty`; another session's
    /// are its own.
    func testToolsOfAPlainSessionUseItsProperties() async {
        let source = """
            import FoundationModels
            extension SessionPropertyValues {
                @SessionPropertyEntry
                var activatedSkills: [String: Bool] = [:]
            }
            struct PlannerTool: Tool {
                let description = "Update the state of the activated skills"
                @SessionProperty(\\.activatedSkills)
                var activatedSkills
                @Generable
                struct Arguments {
                    var skills: [String]
                }
                func call(arguments: Arguments) -> String {
                    for skill in arguments.skills {
                        activatedSkills[skill] = true
                    }
                    return "Activated: \\(arguments.skills.joined(separator: ", "))"
                }
            }
            #Playground {
                let session = LanguageModelSession(tools: [PlannerTool()])
                let other = LanguageModelSession(tools: [PlannerTool()])
                _ = try await session.respond(to: "Activate cooking")
                print(session.properties.activatedSkills, other.properties.activatedSkills)
            }
            """
        let model = ScriptedLanguageModel(script: [
            .toolCall(name: "PlannerTool", arguments: GeneratedContent(properties: [("skills", GeneratedContent(elements: [GeneratedContent("cooking")]))])),
            .text("Done"),
        ])
        let result = await evaluate(source, model: model)
        XCTAssertEqual(prints(result), [#"["cooking": true] [:]"#])
    }

    /// 27.0's `metadata:` (for a model's executor) is accepted on every respond/streamResponse form and checked.
    func testMetadataIsAcceptedAndChecked() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                print(try await session.respond(to: "Hi", metadata: ["requestID": "42", "attempt": 1]).content)
                print(try await session.respond(to: "Again", options: GenerationOptions(), contextOptions: ContextOptions(), metadata: [:]).content)
                let stream = session.streamResponse(to: "Streamed", metadata: ["draft": true])
                print(try await stream.collect().content)
                print(try await session.respond(metadata: ["k": "v"]) { "Builder" }.content)
            }
            #Playground {
                let session = LanguageModelSession()
                _ = try await session.respond(to: "Hi", metadata: "not a dictionary")
            }
            """)
        XCTAssertEqual(prints(result), ["Scripted reply to \"Hi\".", "Scripted reply to \"Again\".", "Scripted reply to \"Streamed\".",
                                        "Scripted reply to \"Builder\"."])
        XCTAssertEqual(result.blocks.last?.status, .error)
        XCTAssertTrue(result.blocks.last?.error?.contains("metadata: takes a dictionary") == true, result.blocks.last?.error ?? "")
    }

    /// `Transcript.HistoryView` as a type is the entries as an array; removeFirst(_:)/removeLast(_:) edit it.
    func testHistoryViewAndRemovingEntries() async {
        let result = await evaluate("""
            import FoundationModels
            func count(_ history: Transcript.HistoryView) -> Int { history.count }
            #Playground {
                let session = LanguageModelSession(instructions: "Be brief.")
                _ = try await session.respond(to: "One")
                _ = try await session.respond(to: "Two")
                let history: Transcript.HistoryView = session.transcript.history
                print(count(history))
                var transcript = session.transcript
                transcript.history.removeFirst(2)
                print(transcript.history.count, transcript.count)
                transcript.history.removeLast(1)
                session.transcript = transcript
                print(session.transcript.count)
            }
            #Playground {
                var numbers = [1, 2, 3]
                numbers.removeFirst(4)
            }
            """)
        XCTAssertEqual(prints(result), ["4", "2 3", "2"])
        XCTAssertTrue(result.blocks.last?.error?.contains("can't remove 4 elements from a collection of 3") == true, result.blocks.last?.error ?? "")
    }
}
