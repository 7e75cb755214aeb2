import FoundationModelsRuntime
import XCTest

final class DeferredLanguageModelTests: XCTestCase {
    final class Counter: @unchecked Sendable {
        var loads = 0
    }

    func testLoadsOnceOnFirstUse() async throws {
        let counter = Counter()
        let model = DeferredLanguageModel(name: "m", identity: "m#1") {
            counter.loads += 1
            return ScriptedLanguageModel(contextSize: 2048)
        }
        XCTAssertEqual(model.identity, "m#1")
        XCTAssertEqual(model.availability, .available)
        XCTAssertEqual(counter.loads, 0, "identity and availability must not load")
        let session = LanguageModelSession(model: model)
        _ = try await session.respond(to: "hello")
        _ = try await session.respond(to: "again")
        XCTAssertEqual(model.contextSize, 2048)
        XCTAssertEqual(counter.loads, 1)
    }

    func testFailedLoadIsUnavailableWithTheReason() async throws {
        struct Corrupt: Error, CustomStringConvertible { var description: String { "bad magic in m.gguf" } }
        let model = DeferredLanguageModel(name: "m.gguf", identity: "m") { throw Corrupt() }
        do {
            _ = try await LanguageModelSession(model: model).respond(to: "hi")
            XCTFail("expected assetsUnavailable")
        } catch GenerationError.assetsUnavailable(let context) {
            XCTAssertEqual(context.debugDescription, "the model m.gguf could not be loaded: bad magic in m.gguf")
        }
        XCTAssertEqual(model.availability, .unavailable(.modelNotReady))
    }
}
