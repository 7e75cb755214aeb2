import FoundationModelsRuntime
import PlaygroundEvaluator
import PromptLanguage
import XCTest

/// Session properties written from app code, transcript entries built, edited and saved as Apple documents them
/// (audit 10: findings 6, 7, 11, 16, 17, 29), run on the scripted model.
final class SessionPropertiesAndTranscriptTests: XCTestCase {
    private func lintErrors(_ source: String) -> [String] {
        PromptAnalyzer.analyze(source).diagnostics.filter { $0.severity == .error }.map(\.message)
    }

    /// `SessionPropertyValues` is a final class: `session.properties.mode = ...` and a write through a local both
    /// reach the session, and the next request's dynamic instructions read the new value.
    func testSessionPropertiesWrittenOutsideTheSession() async {
        let result = await evaluate("""
            import FoundationModels
            extension SessionPropertyValues {
                @SessionPropertyEntry
                var mode: String = "casual"
                @SessionPropertyEntry
                var count: Int = 0
            }
            struct ModeInstructions: DynamicInstructions {
                @SessionProperty(\\.mode) var mode
                var body: some DynamicInstructions {
                    if mode == "formal" { Instructions("Answer formally.") } else { Instructions("Answer casually.") }
                }
            }
            #Playground {
                let session = LanguageModelSession(dynamicInstructions: ModeInstructions())
                _ = try await session.respond(to: "Hi")
                if case .instructions(let i) = session.transcript.first { print(i) }
                let values = session.properties
                values.mode = "formal"
                print(session.properties.mode, values.mode)
                _ = try await session.respond(to: "Hello again")
                if case .instructions(let i) = session.transcript.first { print(i) }
                session.properties.mode = "casual"
                session.properties.count += 2
                print(values.mode, values.count)
                _ = try await session.respond(to: "Third")
                if case .instructions(let i) = session.transcript.first { print(i) }
                let other = LanguageModelSession(dynamicInstructions: ModeInstructions())
                print(other.properties.mode, other.properties.count)
            }
            """)
        XCTAssertEqual(prints(result), ["(Instructions) Answer casually.", "formal formal", "(Instructions) Answer formally.",
                                        "casual 2", "(Instructions) Answer casually.", "casual 0"], result.blocks.first?.error ?? "")
    }

    func testUndeclaredSessionPropertyWriteIsAnError() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                session.properties.mood = "happy"
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertTrue(result.blocks.first?.error?.contains("no session property 'mood'") == true, result.blocks.first?.error ?? "")
    }

    /// 27's entry fields: a prompt records the call's context options and metadata; responses and tool calls have
    /// metadata (fmplay's models produce none); the 27 initializers set them.
    func testEntryMetadataAndContextOptions() async {
        let source = """
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                _ = try await session.respond(to: "Hi", contextOptions: ContextOptions(includeSchemaInPrompt: false), metadata: ["requestID": "abc", "n": 2])
                for entry in session.transcript {
                    switch entry {
                    case .prompt(let p):
                        print("prompt", p.metadata.count, p.metadata["requestID"]?.jsonString ?? "-", p.contextOptions.includeSchemaInPrompt ?? true)
                        print(p.contextOptions.reasoningLevel == nil)
                    case .response(let r): print("response", r.metadata.count)
                    default: break
                    }
                }
                let prompt = Transcript.Prompt(id: "p1", metadata: ["source": "test"], segments: [.text(Transcript.TextSegment(content: "Hi"))],
                                               options: GenerationOptions(), responseFormat: nil, contextOptions: ContextOptions(reasoningLevel: .deep))
                print(prompt.id, prompt.metadata.count, prompt.contextOptions.reasoningLevel.map { "\\($0)" } ?? "nil")
                let call = Transcript.ToolCall(id: "c1", metadata: ["k": 1], toolName: "t", arguments: GeneratedContent(properties: [:]))
                print(call.metadata.count, call.toolName)
                let response = Transcript.Response(id: "r1", metadata: ["why": "test"], segments: [])
                print(response.metadata.count)
                let reasoning = Transcript.Reasoning(id: "r2", metadata: [:], segments: [.text(Transcript.TextSegment(content: "Thinking..."))], signature: nil)
                print(reasoning.segments.count, reasoning.signature == nil)
                let t = Transcript(entries: [.prompt(prompt), .reasoning(reasoning), .toolCalls(Transcript.ToolCalls([call])), .response(response)])
                for e in t {
                    if case .toolCalls(let calls) = e { print(calls.first?.metadata.count ?? -1) }
                }
            }
            """
        XCTAssertEqual(lintErrors(source), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["prompt 2 \"abc\" false", "true", "response 0", "p1 1 deep", "1 t", "1", "1 true", "1"],
                       result.blocks.first?.error ?? "")
    }

    /// Apple's transcript constructors: a hand-built transcript with `ToolDefinition(tool:)`, `(name:description:parameters:)`
    /// and `ResponseFormat(type:)` rehydrates a session.
    func testDocumentedTranscriptConstructors() async {
        let source = """
            import FoundationModels
            struct WeatherTool: Tool {
                let name = "getWeather"
                let description = "Gets the weather for a city."
                @Generable
                struct Arguments { var city: String }
                func call(arguments: Arguments) async throws -> String { "Sunny in \\(arguments.city)" }
            }
            @Generable
            struct Forecast { var summary: String }
            #Playground {
                let def = Transcript.ToolDefinition(tool: WeatherTool())
                let def2 = Transcript.ToolDefinition(name: "lookup", description: "Look up a word", parameters: Forecast.generationSchema)
                print(def.name, def.description, def.parameters.debugDescription.contains("city"))
                print(def2.name, def2.description, def2.parameters.debugDescription.contains("summary"))
                let format = Transcript.ResponseFormat(type: Forecast.self)
                print(format.name)
                let instructions = Transcript.Instructions(segments: [.text(Transcript.TextSegment(content: "Weather bot."))], toolDefinitions: [def])
                let transcript = Transcript(entries: [.instructions(instructions)])
                let session = LanguageModelSession(tools: [WeatherTool()], transcript: transcript)
                _ = try await session.respond(to: "Hello")
                if case .instructions(let i) = session.transcript.first { print(i.toolDefinitions.map(\\.name)) }
            }
            """
        XCTAssertEqual(lintErrors(source), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["getWeather Gets the weather for a city. true", "lookup Look up a word true", "Forecast", "[\"getWeather\"]"],
                       result.blocks.first?.error ?? "")
    }

    /// A nested type that has no initializer is named in the message (not "type 'X.Y' has no member 'Y'").
    func testNestedTypeWithoutInitializerIsNamed() {
        let errors = lintErrors("""
            import FoundationModels
            #Playground {
                let t = Transcript.Entry(kind: 1)
                print(t)
            }
            """)
        XCTAssertEqual(errors.count, 1, "\(errors)")
        XCTAssertTrue(errors.first?.hasPrefix("'Transcript.Entry' cannot be created with Transcript.Entry(kind:) in prompt files: it has no initializer") == true,
                      "\(errors)")
    }

    /// Apple's cache-friendly history transform: entries rebuilt as `.prompt(Transcript.Prompt(...))`, or a copy's
    /// `segments` and a text segment's `content` changed in place, reach the model.
    func testHistoryTransformReturnsRebuiltAndMutatedEntries() async {
        let source = """
            import FoundationModels
            func rebuild(_ history: [Transcript.Entry]) -> [Transcript.Entry] {
                history.map { entry in
                    guard case .prompt(let prompt) = entry else { return entry }
                    return .prompt(Transcript.Prompt(id: prompt.id, segments: prompt.segments, options: prompt.options, responseFormat: prompt.responseFormat))
                }
            }
            func clearDebugFromHistory(_ history: [Transcript.Entry]) -> [Transcript.Entry] {
                history.map { entry in
                    guard case .prompt(var prompt) = entry else { return entry }
                    prompt.segments = prompt.segments.map { segment in
                        if case .text(var text) = segment {
                            text.content = text.content.replacingOccurrences(of: "[debug]", with: "")
                            return .text(text)
                        }
                        return segment
                    }
                    return .prompt(prompt)
                }
            }
            struct P: LanguageModelSession.DynamicProfile {
                var body: some LanguageModelSession.DynamicProfile {
                    Profile { Instructions("Hi.") }
                        .historyTransform { history in rebuild(history) }
                        .historyTransform { history in clearDebugFromHistory(history) }
                }
            }
            #Playground {
                let session = LanguageModelSession(profile: P())
                print(try await session.respond(to: "Hello [debug]there").content)
                var text = Transcript.TextSegment(content: "a")
                text.content = "b"
                print(text.content)
            }
            """
        XCTAssertEqual(lintErrors(source), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["Scripted reply to \"Hello there\".", "b"], result.blocks.first?.error ?? "")
    }

    /// `Transcript` and `GenerationSchema` are Codable: a saved conversation restores into a session, equal entry by
    /// entry (ids, options, response formats, tool definitions with their schemas).
    func testTranscriptAndSchemaCodableRoundTrip() async {
        let source = """
            import FoundationModels
            @Generable
            struct Cat {
                @Guide(description: "The cat's name")
                var name: String
                @Guide(.range(1...20))
                var age: Int
                var mood: Mood?
            }
            @Generable
            enum Mood { case happy, grumpy }
            struct Lookup: Tool {
                let name = "lookup"
                let description = "Looks a word up."
                @Generable
                struct Arguments { var word: String }
                func call(arguments: Arguments) async throws -> String { "a word" }
            }
            #Playground {
                let session = LanguageModelSession(tools: [Lookup()], instructions: "Be brief.")
                _ = try await session.respond(to: "Hello", options: GenerationOptions(sampling: .random(top: 3, seed: 7), temperature: 0.5))
                _ = try await session.respond(to: "A cat", generating: Cat.self)
                let data = try JSONEncoder().encode(session.transcript)
                let restored = try JSONDecoder().decode(Transcript.self, from: data)
                print(restored.count == session.transcript.count, restored.count)
                print(zip(restored, session.transcript).allSatisfy { $0.0.id == $0.1.id })
                for entry in restored {
                    switch entry {
                    case .instructions(let i): print(i.toolDefinitions.map(\\.name), i.toolDefinitions.first?.parameters.debugDescription.contains("word") ?? false)
                    case .prompt(let p): print(p.options.temperature ?? 0.0, p.responseFormat?.name ?? "text")
                    default: break
                    }
                }
                let resumed = LanguageModelSession(tools: [Lookup()], transcript: restored)
                _ = try await resumed.respond(to: "Again")
                print(resumed.transcript.count)
                let schemaData = try JSONEncoder().encode(Cat.generationSchema)
                let schema = try JSONDecoder().decode(GenerationSchema.self, from: schemaData)
                print(schema.debugDescription == Cat.generationSchema.debugDescription)
                let cat = try await LanguageModelSession().respond(to: "A cat", schema: schema).content
                print(try cat.value(Int.self, forProperty: "age") >= 1)
                do {
                    _ = try JSONDecoder().decode(Transcript.self, from: Data("{\\"entries\\": 3}".utf8))
                } catch {
                    print("decoding failed")
                }
            }
            """
        XCTAssertEqual(lintErrors(source), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["true 9", "true", "[\"lookup\"] true", "0.5 text", "0.0 Cat", "13", "true", "true", "decoding failed"],
                       result.blocks.first?.error ?? "")
    }

    /// Collection index APIs of a history (an array of entries) and of a transcript (27: RangeReplaceableCollection).
    func testHistoryAndTranscriptIndexAPIs() async {
        let source = """
            import FoundationModels
            #Playground {
                let session = LanguageModelSession(instructions: "Be brief.")
                _ = try await session.respond(to: "First")
                _ = try await session.respond(to: "Second")
                let history = session.transcript.history
                print(history.indices.last ?? -1, history.startIndex, history.endIndex, history.index(before: history.endIndex))
                print(history[history.index(before: history.endIndex)...].count, (0..<0).last == nil, (2...4).first ?? -1)
                var t = session.transcript
                print(t.indices, t.startIndex, t.endIndex, t.index(after: t.startIndex))
                t.removeSubrange(1..<3)
                print(t.count)
                var h = history
                h.removeSubrange(0...1)
                print(h.count)
                session.transcript = t
                print(session.transcript.count)
            }
            """
        XCTAssertEqual(lintErrors(source), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["3 0 4 3", "1 true 2", "0..<5 0 5 1", "3", "2", "3"], result.blocks.first?.error ?? "")
    }

    func testRemoveSubrangeOutOfBoundsIsARuntimeError() async {
        let result = await evaluate("""
            #Playground {
                var a = [1, 2, 3]
                a.removeSubrange(2..<5)
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertTrue(result.blocks.first?.error?.contains("out of bounds") == true, result.blocks.first?.error ?? "")
    }

    /// Inside `for try await` over a stream the request is still running: `isResponding` is true, and setting the
    /// transcript there fails the request with `transcriptMutationWhileResponding`.
    func testStreamLoopBodyRunsWhileResponding() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                var sawResponding = false
                do {
                    for try await _ in session.streamResponse(to: "Write a long story") {
                        if session.isResponding { sawResponding = true }
                        session.transcript = Transcript()
                    }
                    print("no error")
                } catch LanguageModelSession.Error.transcriptMutationWhileResponding {
                    print("mutation while responding")
                }
                print(sawResponding, session.isResponding, session.transcript.count)
                var snapshots = 0
                for try await _ in session.streamResponse(to: "Again") {
                    snapshots += 1
                    if snapshots == 2 { break }
                }
                print(snapshots, session.isResponding)
                print(try await session.respond(to: "Third").content)
                let stream = session.streamResponse(to: "Fourth one")
                for try await _ in stream {
                    print(try await stream.collect().content)
                    break
                }
            }
            """)
        XCTAssertEqual(prints(result), ["mutation while responding", "true false 0", "2 false", "Scripted reply to \"Third\".",
                                        "Scripted reply to \"Fourth one\"."],
                       result.blocks.first?.error ?? "")
    }

    /// A tool with `Arguments = GeneratedContent` declares its schema as a computed `parameters`: the model is
    /// constrained to it, and the transcript's tool definition returns it.
    func testToolParametersSchemaIsWhatTheModelSees() async {
        let result = await evaluate("""
            import FoundationModels
            struct DynamicLookupTool: Tool {
                let name = "lookup"
                let description = "Looks up a term in the glossary."
                var parameters: GenerationSchema {
                    let root = DynamicGenerationSchema(name: "LookupArguments", properties: [
                        DynamicGenerationSchema.Property(name: "term", description: "The term to look up", schema: DynamicGenerationSchema(type: String.self))
                    ])
                    return try! GenerationSchema(root: root, dependencies: [])
                }
                func call(arguments: GeneratedContent) async throws -> String {
                    "got \\(try arguments.value(String.self, forProperty: "term"))"
                }
            }
            #Playground {
                let session = LanguageModelSession(tools: [DynamicLookupTool()], instructions: "Use lookup.")
                _ = try await session.respond(to: "Define idempotent")
                if case .instructions(let i) = session.transcript.first {
                    for d in i.toolDefinitions { print(d.name, d.parameters.debugDescription.contains("term")) }
                }
                for entry in session.transcript {
                    if case .toolOutput(let o) = entry { print(o.segments.count) }
                }
                print(Transcript.ToolDefinition(tool: DynamicLookupTool()).parameters.debugDescription.contains("LookupArguments"))
            }
            """)
        XCTAssertEqual(prints(result).first, "lookup true", result.blocks.first?.error ?? "")
        XCTAssertEqual(prints(result).last, "true", result.blocks.first?.error ?? "")
        XCTAssertNotEqual(result.blocks.first?.status, .error, result.blocks.first?.error ?? "")
    }
}
