import Inference
import XCTest

/// `TokenGeneration`: the AsyncSequence of sampled tokens.
final class InferenceGenerationTests: XCTestCase {
    func makeModel() throws -> InferenceModel {
        try TinyModel(spec: .forType("llama", .q8_0), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode).load()
    }

    func collect(_ model: InferenceModel, seed: UInt64, maxTokens: Int) async throws -> ([Int32], StopReason?) {
        let session = model.makeSession(contextSize: 64)
        let generation = try session.generate(prompt: [1, 2, 3],
                                              sampling: SamplingParameters(temperature: 1, topK: 20, topP: 0.9, minP: 0.01, seed: seed),
                                              maxTokens: maxTokens)
        var tokens: [Int32] = []
        for try await piece in generation { tokens.append(piece.token) }
        XCTAssertEqual(tokens, generation.tokens)
        return (tokens, generation.stopReason)
    }

    func testSeededGenerationIsReproducibleAndStopsAtTheLimit() async throws {
        let model = try makeModel()
        let (first, reason) = try await collect(model, seed: 77, maxTokens: 12)
        XCTAssertEqual(first.count, 12)
        XCTAssertEqual(reason, .length)
        let (second, _) = try await collect(model, seed: 77, maxTokens: 12)
        XCTAssertEqual(first, second, "same seed, same tokens")
        let (other, _) = try await collect(model, seed: 78, maxTokens: 12)
        XCTAssertNotEqual(first, other, "another seed gives other tokens")
    }

    func testGreedyGenerationEqualsStepwiseArgmax() async throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 64)
        var generated: [Int32] = []
        for try await piece in try session.generate(prompt: [4, 5], sampling: .greedy, maxTokens: 6) {
            generated.append(piece.token)
        }
        let manual = model.makeSession(contextSize: 64)
        try manual.prefill([4, 5])
        var expected: [Int32] = []
        for _ in 0..<6 {
            let token = try manual.withLogits { logits in logits.indices.max { logits[$0] < logits[$1] }! }
            expected.append(Int32(token))
            try manual.evaluate([Int32(token)])
        }
        XCTAssertEqual(generated, expected)
    }

    func testCancellationStopsWithinOneToken() async throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 256)
        let generation = try session.generate(prompt: [1], sampling: .greedy, maxTokens: 200)
        let task = Task {
            var received = 0
            do {
                for try await _ in generation {
                    received += 1
                    if received == 3 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return (received, false)
            } catch is CancellationError {
                return (received, true)
            }
        }
        let (received, cancelled) = try await task.value
        XCTAssertTrue(cancelled, "the sequence ends with CancellationError")
        XCTAssertEqual(received, 3, "no token after the cancellation")
        XCTAssertEqual(session.count, 3, "the prompt and the first two generated tokens were evaluated, nothing after")
    }
}
