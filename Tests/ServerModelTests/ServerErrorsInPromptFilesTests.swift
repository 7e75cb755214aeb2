import FoundationModelsRuntime
import PlaygroundEvaluator
import PlaygroundResults
import XCTest
@testable import ServerModel

/// Server failures as prompt files see them: `catch` by case with the
/// case's payload bound, and results that saw them are never cached.
final class ServerErrorsInPromptFilesTests: XCTestCase {
    func evaluator(replies: [FakeServer.Reply], cache: ResultCache? = nil) throws -> PlaygroundEvaluator {
        let server = FakeServer(replies)
        try server.start()
        addTeardownBlock { server.stop() }
        let backend = OpenAICompatibleModel(settings: ServerSettings(baseURL: server.baseURL, requestTimeout: 10, probeTimeout: 2,
                                                                     maximumAttempts: 1, initialBackoff: 0.05))
        return PlaygroundEvaluator(configuration: EvaluationConfiguration(
            model: ScriptedLanguageModel(), serverModel: PrivateCloudComputeLanguageModel(backend: backend), cache: cache))
    }

    func evaluate(_ evaluator: PlaygroundEvaluator) async throws -> BlockResult {
        let result = await evaluator.evaluate(source: Self.source, path: "errors.fmplay")
        return try XCTUnwrap(result.blocks.first)
    }

    static let source = """
        import FoundationModels
        import Playgrounds

        #Playground("Errors") {
            let session = LanguageModelSession(model: PrivateCloudComputeLanguageModel())
            do {
                let answer = try await session.respond(to: "Hi")
                print(answer.content)
            } catch PrivateCloudComputeLanguageModel.Error.quotaLimitReached(let info) {
                print("quota: \\(info.resetDate != nil) \\(info.limitIncreaseSuggestion == nil) \\(info.resetDate.map { $0.timeIntervalSince1970 > 1_700_000_000 } ?? false)")
            } catch PrivateCloudComputeLanguageModel.Error.serviceUnavailable(let info) {
                print("service: \\(info.debugDescription.contains("maintenance"))")
            }
        }

        """

    func testCaughtErrorsBindTheirPayload() async throws {
        let quota = try await evaluate(evaluator(replies: [
            .status(429, body: #"{"error":{"message":"quota","type":"insufficient_quota"}}"#, headers: [("x-ratelimit-reset-requests", "1h")]),
        ]))
        XCTAssertEqual(quota.status, .ok, quota.error ?? "")
        XCTAssertEqual(quota.results.filter { $0.kind == .print }.map(\.text), ["quota: true true true"])

        let service = try await evaluate(evaluator(replies: [.status(503, body: #"{"error":{"message":"down for maintenance"}}"#)]))
        XCTAssertEqual(service.results.filter { $0.kind == .print }.map(\.text), ["service: true"])
    }

    func testResultsThatSawAServerFailureAreNotCached() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-server-cache-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let ok = #"{"choices":[{"message":{"role":"assistant","content":"Fine."},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":2}}"#
        // One server (one URL, so one cache key): a failure, then answers.
        let evaluator = try evaluator(replies: [.status(503, body: #"{"error":{"message":"down for maintenance"}}"#),
                                                .status(200, body: ok)], cache: ResultCache(directory: directory.path))
        let failed = try await evaluate(evaluator)
        XCTAssertEqual(failed.results.filter { $0.kind == .print }.map(\.text), ["service: true"])
        let answered = try await evaluate(evaluator)
        XCTAssertFalse(answered.cached, "the failure was not replayed")
        XCTAssertEqual(answered.results.filter { $0.kind == .print }.map(\.text), ["Fine."])
        let replayed = try await evaluate(evaluator)
        XCTAssertTrue(replayed.cached, "an answer is cached")
        XCTAssertEqual(replayed.results.filter { $0.kind == .print }.map(\.text), ["Fine."])
    }
}
