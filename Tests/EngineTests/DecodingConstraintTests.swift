import Inference
import XCTest

/// The decoding loop's constraint hook (`DecodingConstraint`), with a scripted constraint
/// on a tiny model: forced runs, masks, the finishing choice, finishing and rejection.
final class DecodingConstraintTests: XCTestCase {
    /// Forces `forced[n]` after n accepted tokens, allows only `allowed` otherwise, must finish
    /// with `finishing` within `finishWithin` tokens of the budget, and cannot finish after `vetoed`.
    struct Rejected: Error, Equatable { let token: Int32 }

    final class ScriptedConstraint: DecodingConstraint {
        let session: InferenceSession
        var forced: [Int: [Int32]] = [:]
        var allowed: Set<Int32> = []
        var finishWithin = 0
        var finishing: Int32 = 0
        var vetoed: Set<Int32> = []
        var finishedAfter = Int.max
        var rejected: Set<Int32> = []
        var accepted: [Int32] = []
        /// The session's cache size at each token the loop chose from logits.
        var cacheCountAtChoices: [Int] = []

        init(session: InferenceSession) { self.session = session }

        var maskVocabularySize: Int { 96 }
        var isFinished: Bool { accepted.count >= finishedAfter }
        var isComplete: Bool { isFinished }
        func forcedTokens() -> [Int32] { forced[accepted.count] ?? [] }
        func fillMask(_ mask: inout TokenMask) {
            mask.removeAll()
            for token in allowed { mask.insert(token) }
        }
        func mustFinish(remainingTokens: Int) -> Bool {
            cacheCountAtChoices.append(session.count)
            return remainingTokens <= finishWithin
        }
        func canFinish(after token: Int32, remainingTokens: Int) -> Bool { !vetoed.contains(token) }
        func finishingToken(logits: UnsafeBufferPointer<Float>, mask: TokenMask) -> Int32 { finishing }
        func accept(_ token: Int32) throws {
            if rejected.contains(token) { throw Rejected(token: token) }
            accepted.append(token)
        }
    }

    let prompt: [Int32] = [1, 2, 3]

    func makeModel() throws -> InferenceModel {
        try TinyModel(spec: .forType("llama", .q8_0), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode).load()
    }

    /// The greedy choice among `allowed` after `prompt + before`, from a fresh session.
    func greedy(_ model: InferenceModel, after before: [Int32], allowed: Set<Int32>? = nil) throws -> Int32 {
        let session = model.makeSession(contextSize: 64)
        try session.prefill(prompt + before)
        return try session.withLogits { logits in
            Int32(logits.indices.filter { allowed?.contains(Int32($0)) ?? true }.max { logits[$0] < logits[$1] }!)
        }
    }

    func run(_ generation: TokenGeneration) throws -> [Range<Int>] {
        var runs: [Range<Int>] = []
        while let run = try generation.advance() { runs.append(run) }
        return runs
    }

    func testForcedRunsAreTakenWholeAndSampledTokensFollowTheMask() throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 64)
        let constraint = ScriptedConstraint(session: session)
        constraint.forced = [0: [7, 8, 9], 3: [11, 12], 6: [20, 21, 22]]  // the last run does not fit in 8
        constraint.allowed = Set((0..<96).filter { $0 % 5 == 0 }.map { Int32($0) })
        let generation = try session.generate(prompt: prompt, sampling: .greedy, maxTokens: 8, constraint: constraint)
        let runs = try run(generation)
        let tokens = generation.tokens
        XCTAssertEqual(runs, [0..<3, 3..<5, 5..<6, 6..<7, 7..<8])
        XCTAssertEqual(Array(tokens[..<5]), [7, 8, 9, 11, 12])
        for index in 5..<8 {
            XCTAssertEqual(tokens[index], try greedy(model, after: Array(tokens[..<index]), allowed: constraint.allowed),
                           "token \(index): the greedy choice among the allowed tokens")
        }
        XCTAssertEqual(constraint.accepted, tokens)
        XCTAssertEqual(constraint.cacheCountAtChoices, [3 + 5, 3 + 6, 3 + 7], "forced runs are evaluated before the next choice")
        XCTAssertEqual(session.count, 3 + 7, "the last token is not evaluated")
        XCTAssertEqual(generation.stopReason, .length)
    }

    func testFinishingChoiceNearTheBudgetAndAfterAVetoedToken() throws {
        let model = try makeModel()
        let first = try greedy(model, after: [])
        let session = model.makeSession(contextSize: 64)
        let constraint = ScriptedConstraint(session: session)
        constraint.allowed = Set((0..<96).map { Int32($0) })
        constraint.finishWithin = 2
        constraint.finishing = first == 42 ? 43 : 42
        constraint.vetoed = [first]
        let generation = try session.generate(prompt: prompt, sampling: .greedy, maxTokens: 6, constraint: constraint)
        _ = try run(generation)
        let tokens = generation.tokens
        XCTAssertEqual(tokens.count, 6)
        XCTAssertEqual(tokens[0], constraint.finishing, "the vetoed greedy token is replaced by the finishing choice")
        for index in 1..<4 where !constraint.vetoed.contains(tokens[index]) {
            XCTAssertEqual(tokens[index], try greedy(model, after: Array(tokens[..<index])))
        }
        XCTAssertEqual(Array(tokens[4...]), [constraint.finishing, constraint.finishing], "within 2 tokens of the budget")
    }

    func testAFinishedConstraintStopsAndARejectedTokenThrows() async throws {
        let model = try makeModel()
        let session = model.makeSession(contextSize: 64)
        let constraint = ScriptedConstraint(session: session)
        constraint.forced = [0: [30, 31]]
        constraint.allowed = Set((0..<96).map { Int32($0) })
        constraint.finishedAfter = 4
        let generation = try session.generate(prompt: prompt, sampling: .greedy, maxTokens: 20, constraint: constraint)
        var streamed: [Int32] = []
        for try await piece in generation { streamed.append(piece.token) }
        XCTAssertEqual(streamed, generation.tokens, "a forced run streams one token at a time")
        XCTAssertEqual(Array(streamed.prefix(2)), [30, 31])
        XCTAssertEqual(streamed.count, 4)
        XCTAssertEqual(generation.stopReason, .constraintFinished)

        let second = model.makeSession(contextSize: 64)
        let rejecting = ScriptedConstraint(session: second)
        rejecting.allowed = constraint.allowed
        rejecting.rejected = [streamed[2]]
        rejecting.forced = [0: [30, 31]]
        let refused = try second.generate(prompt: prompt, sampling: .greedy, maxTokens: 20, constraint: rejecting)
        XCTAssertThrowsError(try run(refused)) { XCTAssertEqual($0 as? Rejected, Rejected(token: streamed[2])) }
        XCTAssertEqual(refused.tokens, [30, 31], "a rejected token is not taken")
    }
}
