import Tokenizer

/// One generated token and the text it completes (empty while a UTF-8
/// character is still split across tokens).
public struct GeneratedToken: Sendable, Equatable {
    public let token: Int32
    public let text: String
}

/// Why a generation ended.
public enum StopReason: String, Sendable, Equatable {
    /// The model produced an end-of-generation token (not yielded).
    case endOfGeneration = "eos"
    /// `maxTokens` tokens were produced.
    case length
    /// The constraint allows nothing more: its value is finished.
    case constraintFinished = "finished"
}

/// What restricts the tokens of a `TokenGeneration` (guided generation: EmbeddedModel's
/// `GrammarConstraint` over a Guidance grammar). The loop asks it at every step; it owns
/// the token budget, the mask and the logits, the constraint decides what is allowed and
/// how the value finishes in time. Declared here so the engine does not depend on Guidance.
public protocol DecodingConstraint: AnyObject {
    /// The vocabulary size of the mask `fillMask` writes (the loop's mask is at least the model's).
    var maskVocabularySize: Int { get }
    /// Nothing may follow: the generation stops (`StopReason.constraintFinished`).
    var isFinished: Bool { get }
    /// The tokens accepted so far form a complete value (an end of generation may end it here).
    var isComplete: Bool { get }
    /// The tokens that must come next because nothing else is allowed, or empty when there is a
    /// choice. The loop accepts them without sampling and evaluates them with the next batch.
    func forcedTokens() -> [Int32]
    /// Writes the set of allowed next tokens into `mask` (all of its bits, in place).
    func fillMask(_ mask: inout TokenMask)
    /// Whether `remainingTokens` is so short that the next token must be `finishingToken`'s choice.
    func mustFinish(remainingTokens: Int) -> Bool
    /// Whether the value can still be completed within `remainingTokens` after taking `token`.
    func canFinish(after token: Int32, remainingTokens: Int) -> Bool
    /// The allowed token (given the filled mask) that best moves the value towards completion.
    func finishingToken(logits: UnsafeBufferPointer<Float>, mask: TokenMask) -> Int32
    /// Records a token the loop takes (forced, sampled or finishing); throws when it is not allowed.
    func accept(_ token: Int32) throws
}

/// The decoding loop: tokens generated one step at a time from a session,
/// optionally under a `DecodingConstraint`, as an `AsyncSequence`.
///
/// Each step is one sampled token or one run of forced tokens. Accepted tokens
/// are evaluated only when the next logits are needed, in one batch (a sampled
/// token and the forced run after it reach the model together), so a consumer
/// that stops (or a cancelled task) never pays for a token it does not take:
/// cancellation is checked before every step and stops the sequence within one
/// token by throwing `CancellationError`. The tokens of the last step are not
/// evaluated into the cache; `stopReason` tells why the sequence ended and
/// `finalText` flushes any held-back bytes. Nothing here allocates per token
/// (the constraint's forced runs aside).
public final class TokenGeneration: AsyncSequence, @unchecked Sendable {
    public typealias Element = GeneratedToken

    public let session: InferenceSession
    public let maxTokens: Int
    public let constraint: (any DecodingConstraint)?
    private var sampler: Sampler
    private var mask: TokenMask
    private var detokenizer: StreamingDetokenizer
    /// `tokens[..<evaluated]` are in the session's cache.
    private var evaluated = 0
    /// `tokens[..<yielded]` were handed out by `step()`.
    private var yielded = 0
    public private(set) var tokens: [Int32] = []
    public private(set) var stopReason: StopReason?

    /// Generates after the session's current logits (call `prefill` first).
    public init(session: InferenceSession, sampling: SamplingParameters, maxTokens: Int,
                constraint: (any DecodingConstraint)? = nil) {
        self.session = session
        self.maxTokens = maxTokens
        self.constraint = constraint
        let vocabularySize = session.model.vocabularySize
        sampler = Sampler(parameters: sampling, vocabularySize: vocabularySize)
        mask = TokenMask(vocabularySize: constraint.map { Swift.max(vocabularySize, $0.maskVocabularySize) } ?? 0)
        detokenizer = StreamingDetokenizer(tokenizer: session.model.tokenizer)
        tokens.reserveCapacity(Swift.max(0, maxTokens))
    }

    /// Bytes held back at the end (an unfinished character), as text.
    public func finalText() -> String { detokenizer.finish() }

    /// The text `tokens[range]` complete, through the generation's streaming detokenizer
    /// (call it once per range, in order: held-back bytes carry over).
    public func text(of range: Range<Int>) -> String {
        var text = ""
        for index in range { text += detokenizer.append(tokens[index]) }
        return text
    }

    /// One step of the loop: a run of forced tokens, or one sampled token. Returns the
    /// range of `tokens` it added, or nil at the end (`stopReason` says why). Throws
    /// `CancellationError` when the task is cancelled, and what the constraint throws.
    public func advance() throws -> Range<Int>? {
        guard stopReason == nil else { return nil }
        try Task.checkCancellation()
        let start = tokens.count
        if start >= maxTokens {
            stopReason = .length
            return nil
        }
        if let constraint {
            if constraint.isFinished {
                stopReason = .constraintFinished
                return nil
            }
            let forced = constraint.forcedTokens()
            if !forced.isEmpty, start + forced.count <= maxTokens {
                for token in forced { try constraint.accept(token) }
                tokens += forced
                return start..<tokens.count
            }
            constraint.fillMask(&mask)
        }
        if evaluated < start {
            try session.evaluate(tokens[evaluated..<start])
            evaluated = start
        }
        let token = try choose(remainingTokens: maxTokens - start)
        if session.model.tokenizer.isEndOfGeneration(token) {
            stopReason = .endOfGeneration
            return nil
        }
        try constraint?.accept(token)
        tokens.append(token)
        return start..<start + 1
    }

    /// The next token from the current logits: sampled (under the constraint's mask), or the
    /// constraint's finishing choice when the budget left could not complete the value otherwise.
    private func choose(remainingTokens: Int) throws -> Int32 {
        guard let constraint else { return try session.sample(&sampler) }
        let finishing = constraint.mustFinish(remainingTokens: remainingTokens)
        let token = try session.withLogits { logits in
            finishing ? constraint.finishingToken(logits: logits, mask: mask) : try sampler.sample(logits: logits, mask: mask)
        }
        if finishing || session.model.tokenizer.isEndOfGeneration(token)
            || constraint.canFinish(after: token, remainingTokens: remainingTokens) {
            return token
        }
        return try session.withLogits { constraint.finishingToken(logits: $0, mask: mask) }
    }

    /// The next token with its text, or nil at the end (`advance`, one token at a time;
    /// use one or the other).
    public func step() throws -> GeneratedToken? {
        if yielded == tokens.count {
            guard try advance() != nil else { return nil }
        } else {
            try Task.checkCancellation()
        }
        let token = tokens[yielded]
        yielded += 1
        return GeneratedToken(token: token, text: detokenizer.append(token))
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let generation: TokenGeneration

        public mutating func next() async throws -> GeneratedToken? {
            try generation.step()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(generation: self) }
}

extension InferenceSession {
    /// Prefills `prompt` (reusing the cached prefix) and returns the tokens
    /// that follow it, sampled with `sampling` under `constraint` if given.
    public func generate(prompt: [Int32], sampling: SamplingParameters, maxTokens: Int,
                         constraint: (any DecodingConstraint)? = nil) throws -> TokenGeneration {
        try prefill(prompt)
        return TokenGeneration(session: self, sampling: sampling, maxTokens: maxTokens, constraint: constraint)
    }
}
