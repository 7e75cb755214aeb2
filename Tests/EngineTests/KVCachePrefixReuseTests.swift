import Inference
import XCTest

/// Reusing a cached prefix must give exactly the logits of a full recompute.
final class KVCachePrefixReuseTests: XCTestCase {
    func makeModel(_ architecture: String = "gemma3") throws -> InferenceModel {
        try TinyModel(spec: .forType(architecture, .f32), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode).load()
    }

    func testSharedPrefixComputesOnlyTheSuffixWithIdenticalLogits() throws {
        for architecture in ["llama", "gemma3"] {
            let model = try makeModel(architecture)
            let first: [Int32] = [5, 6, 7, 8, 9, 10, 11, 12]
            let second: [Int32] = [5, 6, 7, 8, 9, 40, 41, 42, 43, 44]

            let reused = model.makeSession(contextSize: 32, maxBatch: 4)
            XCTAssertEqual(try reused.prefill(first), 0)
            XCTAssertEqual(try reused.prefill(second), 5, "\(architecture): the five shared tokens are reused")
            XCTAssertEqual(reused.tokens, second)

            let fresh = model.makeSession(contextSize: 32, maxBatch: 4)
            try fresh.prefill(second)
            XCTAssertEqual(try reused.logits, try fresh.logits, "\(architecture): prefix reuse changes no logit")
        }
    }

    func testIdenticalPromptReusesEverythingAndGrowingPromptComputesTheTail() throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 32)
        let prompt: [Int32] = [1, 2, 3, 4]
        try session.prefill(prompt)
        let logits = try session.logits
        XCTAssertEqual(try session.prefill(prompt), 4)
        XCTAssertEqual(try session.logits, logits)
        XCTAssertEqual(try session.prefill(prompt + [9, 9]), 4)
        XCTAssertEqual(session.count, 6)
    }

    func testPrefixOfCacheRecomputesOnlyTheLastToken() throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 32)
        try session.prefill([1, 2, 3, 4, 5, 6])
        XCTAssertEqual(try session.prefill([1, 2, 3]), 2, "the last prompt token is recomputed for its logits")
        let fresh = model.makeSession(contextSize: 32)
        try fresh.prefill([1, 2, 3])
        XCTAssertEqual(try session.logits, try fresh.logits)
    }

    func testTruncateThenContinueMatchesFreshSequence() throws {
        let model = try makeModel("llama")
        let session = model.makeSession(contextSize: 32)
        try session.evaluate([1, 2, 3, 4, 5, 6, 7])
        session.truncate(to: 3)
        XCTAssertEqual(session.tokens, [1, 2, 3])
        XCTAssertThrowsError(try session.logits, "truncation drops the logits")
        try session.evaluate([50, 51])
        let fresh = model.makeSession(contextSize: 32)
        try fresh.evaluate([1, 2, 3, 50, 51])
        XCTAssertEqual(try session.logits, try fresh.logits)
    }
}
