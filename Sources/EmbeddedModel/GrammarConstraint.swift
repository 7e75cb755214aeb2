import FoundationModelsRuntime
import Guidance
import Inference
import Tokenizer

/// Guidance's `GrammarMatcher` as the decoding loop's `DecodingConstraint` (Inference's
/// `TokenGeneration`): forced text tokenized by the model's tokenizer, the matcher's
/// mask written into the loop's `TokenMask` in place, and the finishing choice that
/// completes the value within the token budget.
final class GrammarConstraint: DecodingConstraint {
    let matcher: GrammarMatcher
    let tokenizer: Tokenizer
    var maskVocabularySize: Int { matcher.vocabulary.vocabularySize }

    init(matcher: GrammarMatcher, tokenizer: Tokenizer) {
        self.matcher = matcher
        self.tokenizer = tokenizer
    }

    var isFinished: Bool { matcher.isFinished }
    var isComplete: Bool { matcher.isComplete }

    func forcedTokens() -> [Int32] {
        matcher.forcedTokens { bytes in
            tokenizer.tokenize(bytes: bytes, addSpecial: false, parseSpecial: false).map(Int.init)
        }.map { Int32($0) }
    }

    func fillMask(_ mask: inout TokenMask) {
        mask.withUnsafeMutableWords { matcher.fillMask($0) }
    }

    /// Within two tokens of the fewest bytes that complete the value (a token spells at least one byte).
    func mustFinish(remainingTokens: Int) -> Bool {
        matcher.minimumCompletionBytes() + 2 >= remainingTokens
    }

    func canFinish(after token: Int32, remainingTokens: Int) -> Bool {
        (matcher.completionBytes(after: Int(token)) ?? .max) <= remainingTokens - 2
    }

    /// Near the end of the token budget: the most likely allowed token that
    /// brings the value closer to complete, so it completes within the budget
    /// (a single byte on the shortest completion always qualifies).
    func finishingToken(logits: UnsafeBufferPointer<Float>, mask: TokenMask) -> Int32 {
        let remaining = matcher.minimumCompletionBytes()
        let endings = matcher.vocabulary.endOfSequenceTokens
        if remaining == 0, let end = endings.first { return Int32(end) }
        let candidates = (0..<mask.vocabularySize).filter { mask.contains(Int32($0)) && !endings.contains($0) }
            .sorted { logits[$0] > logits[$1] }
        for token in candidates {
            if let after = matcher.completionBytes(after: token), after < remaining { return Int32(token) }
        }
        return Int32(candidates.first ?? endings.first ?? 0)
    }

    func accept(_ token: Int32) throws {
        guard matcher.accept(token: Int(token)) else {
            throw GenerationError.decodingFailure(.init(debugDescription: "the sampler chose token \(token), which the grammar does not allow"))
        }
    }
}
