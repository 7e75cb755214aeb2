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
            // maxBatch 4 makes the aligned chunk 4 tokens: of the five shared tokens, the whole chunk [0, 4) is reused.
            XCTAssertEqual(try reused.prefill(second), 4, "\(architecture): the shared whole chunk is reused")
            XCTAssertEqual(reused.tokens, second)

            let fresh = model.makeSession(contextSize: 32, maxBatch: 4)
            try fresh.prefill(second)
            XCTAssertEqual(try reused.logits, try fresh.logits, "\(architecture): prefix reuse changes no logit")
        }
    }

    func testIdenticalPromptReusesEverythingAndGrowingPromptComputesTheTail() throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 32, maxBatch: 4)
        let prompt: [Int32] = [1, 2, 3, 4, 5]
        try session.prefill(prompt)
        let logits = try session.logits
        XCTAssertEqual(try session.prefill(prompt), 5)
        XCTAssertEqual(try session.logits, logits)
        XCTAssertEqual(try session.prefill(prompt + [9, 9]), 4, "whole chunks only: [0, 4) is reused, [4, 7) recomputed")
        XCTAssertEqual(session.count, 7)
    }

    func testPrefixOfCacheRecomputesTheChunkOfTheLastToken() throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 32, maxBatch: 4)
        try session.prefill([1, 2, 3, 4, 5, 6])
        XCTAssertEqual(try session.prefill([1, 2, 3, 4, 5]), 4, "the chunk holding the last token is recomputed for its logits")
        let fresh = model.makeSession(contextSize: 32, maxBatch: 4)
        try fresh.prefill([1, 2, 3, 4, 5])
        XCTAssertEqual(try session.logits, try fresh.logits)
    }

    /// One result per prompt: whatever the session computed before (other prompts, generated
    /// tokens, a longer prompt, nothing), a prompt's logits are the same bits. With the F16
    /// cache, batches of 64+ tokens take another attention path, so this needs the aligned chunks.
    func testLogitsDoNotDependOnWhatTheCacheHeld() throws {
        let model = try TinyModel(spec: .forType("llama", .f32), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode).load()
        let prompt: [Int32] = (0..<150).map { Int32(1 + ($0 * 7) % 60) }
        let fresh = model.makeSession(contextSize: 400, cacheType: .f16)
        try fresh.prefill(prompt)
        let expected = try fresh.logits
        let histories: [[Int32]] = [
            Array(prompt.prefix(70)), Array(prompt.prefix(129)), prompt + [3, 4, 5], Array(prompt.prefix(100)) + [9, 9, 9], [2, 2],
        ]
        for history in histories {
            let session = model.makeSession(contextSize: 400, cacheType: .f16)
            try session.prefill(history)
            try session.evaluate([7, 8])  // generated tokens are never reused
            try session.prefill(prompt)
            XCTAssertEqual(try session.logits, expected, "after a prefill of \(history.count) tokens")
        }
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
