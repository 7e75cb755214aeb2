import Foundation
import FoundationModelsRuntime
import Schema
import XCTest

/// A model that replays fixed turns, each with the usage it reports, so the
/// session's accounting can be checked against exact numbers.
private struct TurnReplayModel: LanguageModel {
    struct Turn: Sendable {
        var events: [LanguageModelEvent]
        var usage: Usage
    }

    private final class Queue: @unchecked Sendable {
        let lock = NSLock()
        var turns: [Turn]
        init(_ turns: [Turn]) { self.turns = turns }
        func next() -> Turn { lock.withLock { turns.removeFirst() } }
    }

    private let queue: Queue
    var name: String { "turn replay" }
    var identity: String { "turn-replay" }
    var contextSize: Int { 4096 }
    var availability: SystemLanguageModel.Availability { .available }

    init(_ turns: [Turn]) { queue = Queue(turns) }

    func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int { entries.count }

    func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error> {
        let turn = queue.next()
        return AsyncThrowingStream { continuation in
            for event in turn.events { continuation.yield(event) }
            continuation.yield(.finished(GenerationStatistics(usage: turn.usage)))
            continuation.finish()
        }
    }
}

final class UsageTests: XCTestCase {
    private let call = Transcript.ToolCall(toolName: "getWeather", arguments: GeneratedContent(properties: [("city", GeneratedContent("Paris"))]))

    func testToolRoundsCountEachPromptTokenOnce() async throws {
        // Turn 1 reads 100 prompt tokens (40 reused from before the request) and calls a tool.
        // Turn 2 reads 130 tokens, 110 of them the KV cache still holds from turn 1.
        let model = TurnReplayModel([
            .init(events: [.toolCalls([call])], usage: Usage(promptTokens: 100, cachedTokens: 40, responseTokens: 10)),
            .init(events: [.text("It is sunny.", tokenCount: 4)], usage: Usage(promptTokens: 130, cachedTokens: 110, responseTokens: 4)),
        ])
        let session = LanguageModelSession(model: model, tools: [weatherTool])
        let response = try await session.respond(to: "Weather in Paris?")
        XCTAssertEqual(response.toolCalls.count, 1)
        XCTAssertEqual(response.usage, Usage(promptTokens: 120, cachedTokens: 40, responseTokens: 14),
                       "prompt = 100 + the 20 new tokens of turn 2; cached = reuse from before the response; response = both turns")
    }

    func testSingleTurnUsageIsTheModelsOwn() async throws {
        let model = TurnReplayModel([
            .init(events: [.text("Hello", tokenCount: 1)], usage: Usage(promptTokens: 31, cachedTokens: 12, responseTokens: 1)),
        ])
        let response = try await LanguageModelSession(model: model).respond(to: "Hi")
        XCTAssertEqual(response.usage, Usage(promptTokens: 31, cachedTokens: 12, responseTokens: 1))
    }

    func testScriptedToolResponseUsageMatchesTheFinalContext() async throws {
        let model = ScriptedLanguageModel()
        let session = LanguageModelSession(model: model, tools: [weatherTool], instructions: "Help travellers.")
        let response = try await session.respond(to: "Weather in Lisbon?")
        XCTAssertEqual(model.receivedRequests.count, 2)
        // The scripted model reads the transcript as whitespace-separated words; the second turn
        // reads everything up to the tool output, which is what the response's prompt covers.
        let finalPrompt = model.receivedRequests[1].transcript.map(\.description).joined(separator: "\n")
            .split(whereSeparator: \.isWhitespace).count
        XCTAssertEqual(response.usage.promptTokens, finalPrompt)
        XCTAssertEqual(response.usage.cachedTokens, 0, "nothing was cached before the first request")

        let second = try await session.respond(to: "And in Porto?")
        XCTAssertGreaterThan(second.usage.cachedTokens, 0, "the second request reuses the first one's prefix")
        XCTAssertLessThanOrEqual(second.usage.cachedTokens, second.usage.promptTokens)
    }
}
