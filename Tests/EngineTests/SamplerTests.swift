import Inference
import XCTest

final class SamplerTests: XCTestCase {
    let logits: [Float] = [0.5, 2.0, 1.9, -1.0, 1.0, 0.0, 1.95, -3.0]

    func sample(_ parameters: SamplingParameters, mask: TokenMask? = nil, count: Int = 200) throws -> [Int32] {
        var sampler = Sampler(parameters: parameters, vocabularySize: logits.count)
        return try logits.withUnsafeBufferPointer { buffer in
            try (0..<count).map { _ in try sampler.sample(logits: buffer, mask: mask) }
        }
    }

    func testGreedyPicksTheHighestLogit() throws {
        XCTAssertEqual(Set(try sample(.greedy)), [1])
    }

    func testGreedyRespectsTheMask() throws {
        let mask = TokenMask(vocabularySize: 8, allowing: [0, 3, 4])
        XCTAssertEqual(Set(try sample(.greedy, mask: mask)), [4])
    }

    func testSameSeedSameTokensDifferentSeedDifferentTokens() throws {
        let parameters = SamplingParameters(temperature: 1.5, topK: 0, topP: 1, minP: 0, seed: 1234)
        XCTAssertEqual(try sample(parameters), try sample(parameters))
        var other = parameters
        other.seed = 99
        XCTAssertNotEqual(try sample(parameters), try sample(other))
    }

    func testTopKLimitsTheCandidates() throws {
        let tokens = Set(try sample(SamplingParameters(temperature: 5, topK: 2, topP: 1, minP: 0, seed: 7), count: 500))
        XCTAssertEqual(tokens, [1, 6])
    }

    func testTopPKeepsTheSmallestNucleus() throws {
        // Probabilities at temperature 1: tokens 1, 6, 2 hold about 0.28 + 0.27 + 0.26.
        let tokens = Set(try sample(SamplingParameters(temperature: 1, topK: 0, topP: 0.5, minP: 0, seed: 3), count: 500))
        XCTAssertEqual(tokens, [1, 6])
    }

    func testMinPDropsUnlikelyTokens() throws {
        // exp(1.0 - 2.0) = 0.37 >= 0.3 keeps token 4; exp(0.5 - 2.0) = 0.22 drops token 0.
        let tokens = Set(try sample(SamplingParameters(temperature: 1, topK: 0, topP: 1, minP: 0.3, seed: 5), count: 2000))
        XCTAssertEqual(tokens, [1, 2, 4, 6])
    }

    func testMaskWithTemperatureSamplesOnlyAllowedTokens() throws {
        let mask = TokenMask(vocabularySize: 8, allowing: [3, 7])
        let tokens = Set(try sample(SamplingParameters(temperature: 10, topK: 0, topP: 1, minP: 0, seed: 11), mask: mask, count: 500))
        XCTAssertEqual(tokens, [3, 7])
    }

    func testEmptyMaskIsAnError() throws {
        let mask = TokenMask(vocabularySize: 8)
        XCTAssertThrowsError(try sample(.greedy, mask: mask, count: 1)) { XCTAssertEqual($0 as? InferenceError, .maskAllowsNoToken) }
        XCTAssertThrowsError(try sample(SamplingParameters(seed: 1), mask: mask, count: 1))
    }

    func testTokenMaskBits() {
        var mask = TokenMask(vocabularySize: 130, allowed: true)
        XCTAssertEqual(mask.allowedCount, 130)
        XCTAssertTrue(mask.contains(129))
        XCTAssertFalse(mask.contains(130))
        mask.remove(64)
        XCTAssertFalse(mask.contains(64))
        XCTAssertEqual(mask.allowedCount, 129)
    }
}
