import FoundationModelsRuntime
import Schema
import XCTest

let searchSchema = GenerationSchema(
    root: .reference("SearchSuggestions"),
    definitions: [Definition(name: "SearchSuggestions", kind: .object([
        Property(name: "searchTerms", type: .array(element: .string(.none), guides: ArrayGuides(minimumCount: 4, maximumCount: 4))),
        Property(name: "mood", type: .string(StringGuides(anyOf: ["happy", "sad"]))),
        Property(name: "rating", type: .integer(NumberGuides(minimum: 3, maximum: 5))),
    ]))])

let weatherTool = ClosureTool(
    name: "getWeather", description: "Weather for a city",
    parameters: GenerationSchema(root: .reference("Arguments"), definitions: [
        Definition(name: "Arguments", kind: .object([Property(name: "city", type: .string(.none))])),
    ])) { arguments in
    GeneratedContent("It is 21°C in \(arguments["city"]?.stringValue ?? "?").")
}

struct Failure: Error, CustomStringConvertible { var description: String { "no network" } }

final class SessionTests: XCTestCase {
    func testTextResponseRecordsPromptAndResponse() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel(), instructions: "Be brief.")
        let response = try await session.respond(to: "Name a trip to Paris")
        XCTAssertEqual(response.content, "Scripted reply to \"Name a trip to Paris\".")
        XCTAssertEqual(response.transcriptEntries.map(\.kindName), ["prompt", "response"])
        XCTAssertEqual(session.transcript.map(\.kindName), ["instructions", "prompt", "response"])
        XCTAssertEqual(session.transcript.map(\.id), ["1", "2", "3"])
        XCTAssertEqual(response.usage.responseTokens, 8)
        XCTAssertGreaterThan(response.usage.promptTokens, 0)
        XCTAssertEqual(session.transcript.description, """
            (Instructions) Be brief.
            (Prompt) Name a trip to Paris
            (Response) Scripted reply to "Name a trip to Paris".
            """)
    }

    func testGuidedResponseSatisfiesGuides() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel())
        let response = try await session.respond(to: "Suggest searches", schema: searchSchema)
        XCTAssertEqual(searchSchema.violations(of: response.content), [])
        XCTAssertEqual(response.content["searchTerms"]?.arrayValue?.count, 4)
        guard case .prompt(let prompt) = session.transcript[0] else { return XCTFail("expected a prompt") }
        XCTAssertEqual(prompt.responseFormat?.name, "SearchSuggestions")
        guard case .response(let entry) = session.transcript[1], case .structure(let segment) = entry.segments[0] else {
            return XCTFail("expected a structured response")
        }
        XCTAssertEqual(segment.source, "SearchSuggestions")
    }

    func testMultiTurnKeepsTranscriptAndReportsCachedTokens() async throws {
        let model = ScriptedLanguageModel()
        let session = LanguageModelSession(model: model, instructions: "Write haiku.")
        _ = try await session.respond(to: "About the sea")
        let second = try await session.respond(to: "Now about mountains")
        XCTAssertEqual(session.transcript.map(\.kindName), ["instructions", "prompt", "response", "prompt", "response"])
        XCTAssertEqual(model.receivedRequests.count, 2)
        XCTAssertEqual(model.receivedRequests[1].transcript.count, 4)
        XCTAssertGreaterThan(second.usage.cachedTokens, 0)
        XCTAssertLessThan(second.usage.cachedTokens, second.usage.promptTokens)
    }

    func testToolLoopRunsToolAndContinues() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel(), tools: [weatherTool], instructions: "Help travellers.")
        let response = try await session.respond(to: "Weather in Lisbon?")
        XCTAssertEqual(response.transcriptEntries.map(\.kindName), ["prompt", "toolCalls", "toolOutput", "response"])
        XCTAssertEqual(response.toolCalls.count, 1)
        XCTAssertEqual(response.toolCalls[0].call.toolName, "getWeather")
        XCTAssertEqual(response.toolCalls[0].output, "It is 21°C in weather in.")
        XCTAssertTrue(response.content.contains("using getWeather: It is 21°C"))
        guard case .instructions(let instructions) = session.transcript[0] else { return XCTFail() }
        XCTAssertEqual(instructions.toolDefinitions.map(\.name), ["getWeather"])
    }

    func testToolCallingModes() async throws {
        let disallowed = LanguageModelSession(model: ScriptedLanguageModel(), tools: [weatherTool])
        let answer = try await disallowed.respond(to: "Hi", options: GenerationOptions(toolCallingMode: .disallowed))
        XCTAssertEqual(answer.toolCalls.count, 0)

        let required = LanguageModelSession(model: ScriptedLanguageModel(), tools: [weatherTool], maximumToolRounds: 3)
        do {
            _ = try await required.respond(to: "Hi", options: GenerationOptions(toolCallingMode: .required))
            XCTFail("expected the bounded loop to stop")
        } catch let error as GenerationError {
            XCTAssertEqual(error.caseName, "decodingFailure")
            XCTAssertTrue(error.context.debugDescription.contains("3 rounds"))
        }
        XCTAssertEqual(required.transcript.map(\.kindName), ["instructions"], "a failed request rolls the transcript back")
    }

    func testThrowingToolGivesToolCallError() async throws {
        let broken = ClosureTool(name: "broken", description: "fails", parameters: GenerationSchema(root: .any)) { _ in throw Failure() }
        let session = LanguageModelSession(model: ScriptedLanguageModel(), tools: [broken])
        do {
            _ = try await session.respond(to: "Go")
            XCTFail("expected ToolCallError")
        } catch let error as ToolCallError {
            XCTAssertEqual(error.toolName, "broken")
            XCTAssertEqual("\(error.underlyingError)", "no network")
        }
        XCTAssertFalse(session.isResponding)
    }

    func testContextWindowErrorReportsRealSize() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel(contextSize: 5))
        do {
            _ = try await session.respond(to: "one two three four five six seven")
            XCTFail("expected exceededContextWindowSize")
        } catch GenerationError.exceededContextWindowSize(let context) {
            XCTAssertTrue(context.debugDescription.contains("context size of 5 tokens"), context.debugDescription)
        }
    }

    func testDecodingFailureForInvalidOrTruncatedOutput() async throws {
        let invalid = LanguageModelSession(model: ScriptedLanguageModel(script: [.text("{\"searchTerms\": 3}")]))
        do {
            _ = try await invalid.respond(to: "x", schema: searchSchema)
            XCTFail()
        } catch GenerationError.decodingFailure(let context) {
            XCTAssertTrue(context.debugDescription.contains("$.searchTerms: expected an array"), context.debugDescription)
        }
        let truncated = LanguageModelSession(model: ScriptedLanguageModel())
        do {
            _ = try await truncated.respond(to: "x", schema: searchSchema, options: GenerationOptions(maximumResponseTokens: 2))
            XCTFail()
        } catch GenerationError.decodingFailure(let context) {
            XCTAssertTrue(context.debugDescription.contains("ended before the value was complete"))
        }
    }

    func testUnsupportedGuideFromModel() async throws {
        let schema = GenerationSchema(root: .string(StringGuides(pattern: "(?=lookahead)x")))
        let session = LanguageModelSession(model: ScriptedLanguageModel())
        do {
            _ = try await session.respond(to: "x", schema: schema)
            XCTFail()
        } catch GenerationError.unsupportedGuide {}
    }

    func testPatternGuideGetsShortestMatch() async throws {
        for (pattern, expected) in [(#"\+[0-9 ]{6,15}"#, "+000000"), ("(ab|c)d?[x-z]", "cx"), (#"^\w+@\w+\.com$"#, "a@a.com")] {
            let session = LanguageModelSession(model: ScriptedLanguageModel())
            let response = try await session.respond(to: "x", schema: GenerationSchema(root: .string(StringGuides(pattern: pattern))))
            XCTAssertEqual(response.content.stringValue, expected, pattern)
        }
    }

    func testConcurrentRequestsWhileResponding() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel(tokenDelay: .milliseconds(20)))
        let stream = session.streamResponse(to: "Tell me a long story about the sea")
        var sawError = false
        for try await _ in stream where !sawError {
            XCTAssertTrue(session.isResponding)
            do {
                _ = try await session.respond(to: "again")
            } catch GenerationError.concurrentRequests {
                sawError = true
            }
        }
        XCTAssertTrue(sawError)
        XCTAssertFalse(session.isResponding)
    }

    func testTextStreamYieldsCumulativeSnapshots() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel())
        var snapshots: [String] = []
        for try await snapshot in session.streamResponse(to: "Plan a day") {
            snapshots.append(snapshot.content)
        }
        XCTAssertEqual(snapshots.first, "Scripted")
        XCTAssertEqual(snapshots.last, "Scripted reply to \"Plan a day\".")
        for (a, b) in zip(snapshots, snapshots.dropFirst()) { XCTAssertTrue(b.hasPrefix(a)) }
        XCTAssertEqual(session.transcript.count, 2)
    }

    func testGuidedStreamSnapshotsGrowAndCollect() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel())
        let stream = session.streamResponse(to: "Suggest searches", schema: searchSchema)
        var snapshots: [GeneratedContent] = []
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        XCTAssertGreaterThan(snapshots.count, 3)
        XCTAssertFalse(snapshots[0].isComplete)
        XCTAssertTrue(snapshots.last!.isComplete)
        // Numbers appear only once complete; keys appear in declaration order.
        for snapshot in snapshots { XCTAssertNotEqual(snapshot["rating"]?.numberValue.map { $0 < 3 }, true) }
        let response = try await stream.collect()
        XCTAssertEqual(response.content, snapshots.last)
    }

    func testCollectWithoutIterating() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel())
        let response = try await session.streamResponse(to: "Hello there").collect()
        XCTAssertEqual(response.content, "Scripted reply to \"Hello there\".")
    }

    func testCancellingStreamStopsRequest() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel(tokenDelay: .milliseconds(5)))
        let task = Task {
            var count = 0
            for try await _ in session.streamResponse(to: Prompt(String(repeating: "word ", count: 500))) {
                count += 1
                if count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        _ = try? await task.value
        for _ in 0..<100 where session.isResponding { try await Task.sleep(nanoseconds: 1_000_000) }
        XCTAssertFalse(session.isResponding)
        XCTAssertEqual(session.transcript.count, 0)
    }

    func testUnavailableSystemModel() async throws {
        let model = SystemLanguageModel(base: nil)
        XCTAssertEqual(model.availability, .unavailable(.modelNotReady))
        XCTAssertFalse(model.isAvailable)
        do {
            _ = try await LanguageModelSession(model: model).respond(to: "hi")
            XCTFail()
        } catch GenerationError.assetsUnavailable(let context) {
            XCTAssertTrue(context.debugDescription.contains("make setup"))
        }
    }

    func testContentTaggingAddsBuiltInInstructions() async throws {
        let model = SystemLanguageModel(base: ScriptedLanguageModel(), useCase: .contentTagging)
        let session = LanguageModelSession(model: model, instructions: "Tag this.")
        guard case .instructions(let instructions) = session.transcript[0] else { return XCTFail() }
        XCTAssertEqual(instructions.segments.map(\.text), [SystemLanguageModel.contentTaggingInstructions, "Tag this."])
        XCTAssertNotEqual(model.identity, SystemLanguageModel(base: ScriptedLanguageModel()).identity)
    }
}
