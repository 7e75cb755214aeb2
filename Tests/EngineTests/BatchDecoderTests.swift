import GGUF
import Inference
import XCTest

/// Batched decoding (`BatchDecoder`): several sequences in one forward pass give, bit for
/// bit, the logits each sequence gets alone; shared prefixes through `InferenceSession.copy`;
/// clear errors for batches it cannot serve.
final class BatchDecoderTests: XCTestCase {
    func testBatchedLogitsEqualSequentialBitForBit() throws {
        for architecture in InferenceTinyModelTests.architectures {
            for type in [GGMLType.f32, .q4_1, .q8_0] {
                let tiny = try TinyModel(spec: .forType(architecture, type), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
                let model = try tiny.load()
                for cacheType in KVCacheType.allCases {
                    // Three sequences with prompts of different lengths, so positions differ per row.
                    let prompts: [[Int32]] = [[3, 17, 5], [88, 42, 9, 61, 0], [33]]
                    let alone = prompts.map { _ in model.makeSession(contextSize: 16, cacheType: cacheType) }
                    let together = prompts.map { _ in model.makeSession(contextSize: 16, cacheType: cacheType) }
                    for (index, prompt) in prompts.enumerated() {
                        try alone[index].prefill(prompt)
                        try together[index].prefill(prompt)
                    }
                    let decoder = BatchDecoder(model: model, maxSequences: 4, contextSize: 16)
                    for step in 0..<6 {
                        let next: [Int32] = prompts.indices.map { Int32((step * 31 + $0 * 7 + 2) % 96) }
                        for (index, token) in next.enumerated() { try alone[index].evaluate([token]) }
                        try decoder.evaluate(next, in: together)
                        for index in prompts.indices {
                            let expected = try alone[index].logits, actual = try together[index].logits
                            XCTAssertEqual(expected.map(\.bitPattern), actual.map(\.bitPattern),
                                           "\(architecture) \(type) \(cacheType) sequence \(index) step \(step)")
                            XCTAssertEqual(alone[index].tokens, together[index].tokens)
                        }
                    }
                }
            }
        }
    }

    func testCopiedSessionSharesThePrefix() throws {
        let tiny = try TinyModel(spec: .forType("llama", .q4_1), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
        let model = try tiny.load()
        let root = model.makeSession(contextSize: 16)
        try root.prefill([3, 17, 5, 88])
        let copies = [root.copy(), root.copy()]
        XCTAssertEqual(try copies[0].logits, try root.logits)
        try BatchDecoder(model: model, maxSequences: 2, contextSize: 16).evaluate([9, 61], in: copies)
        let reference = model.makeSession(contextSize: 16)
        try reference.prefill([3, 17, 5, 88, 61])
        XCTAssertEqual(try copies[1].logits.map(\.bitPattern), try reference.logits.map(\.bitPattern))
        XCTAssertEqual(copies[1].tokens, [3, 17, 5, 88, 61])
        XCTAssertEqual(root.tokens, [3, 17, 5, 88], "decoding a copy leaves the original alone")
    }

    func testInvalidBatchesAreClearErrors() throws {
        let tiny = try TinyModel(spec: .forType("llama", .f32), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
        let model = try tiny.load()
        let decoder = BatchDecoder(model: model, maxSequences: 2, contextSize: 4)
        let a = model.makeSession(contextSize: 4), b = model.makeSession(contextSize: 4), c = model.makeSession(contextSize: 4)
        func expect(_ error: InferenceError, _ body: () throws -> Void, line: UInt = #line) {
            XCTAssertThrowsError(try body(), line: line) { XCTAssertEqual($0 as? InferenceError, error, line: line) }
        }
        expect(.invalidBatch("1 tokens for 2 sessions; give one token per session")) { try decoder.evaluate([1], in: [a, b]) }
        expect(.invalidBatch("3 sessions, but this decoder takes at most 2; make it with a larger maxSequences")) {
            try decoder.evaluate([1, 2, 3], in: [a, b, c])
        }
        expect(.invalidBatch("a session appears twice; give each sequence its own session")) { try decoder.evaluate([1, 2], in: [a, a]) }
        expect(.invalidToken(96, vocabularySize: 96)) { try decoder.evaluate([1, 96], in: [a, b]) }
        expect(.invalidBatch("a session's context (8) is larger than the decoder's (4)")) {
            try decoder.evaluate([1], in: [model.makeSession(contextSize: 8)])
        }
        try a.prefill([1, 2, 3, 4])
        expect(.contextFull(capacity: 4, requested: 5)) { try decoder.evaluate([1, 2], in: [a, b]) }
        XCTAssertEqual(b.count, 0, "a failed step leaves every session unchanged")
    }
}
