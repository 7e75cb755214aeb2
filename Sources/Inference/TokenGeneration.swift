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
}

/// Tokens sampled one at a time from a session, as an `AsyncSequence`.
///
/// Each step evaluates the previously yielded token, then samples the next,
/// so a consumer that stops (or a cancelled task) never pays for a token it
/// does not take: cancellation is checked before every step and stops the
/// sequence within one token by throwing `CancellationError`. The last
/// yielded token is not evaluated into the cache; `stopReason` tells why the
/// sequence ended and `finalText` flushes any held-back bytes.
public final class TokenGeneration: AsyncSequence, @unchecked Sendable {
    public typealias Element = GeneratedToken

    public let session: InferenceSession
    public let maxTokens: Int
    private var sampler: Sampler
    private let mask: (@Sendable ([Int32]) -> TokenMask?)?
    private var detokenizer: StreamingDetokenizer
    private var pending: Int32?
    public private(set) var tokens: [Int32] = []
    public private(set) var stopReason: StopReason?

    /// Generates after the session's current logits (call `prefill` first).
    /// `mask`, when given, is asked before each token for the allowed set,
    /// given the tokens generated so far.
    public init(session: InferenceSession, sampling: SamplingParameters, maxTokens: Int,
                mask: (@Sendable ([Int32]) -> TokenMask?)? = nil) {
        self.session = session
        self.maxTokens = maxTokens
        sampler = Sampler(parameters: sampling, vocabularySize: session.model.vocabularySize)
        self.mask = mask
        detokenizer = StreamingDetokenizer(tokenizer: session.model.tokenizer)
        tokens.reserveCapacity(Swift.max(0, maxTokens))
    }

    /// Bytes held back at the end (an unfinished character), as text.
    public func finalText() -> String { detokenizer.finish() }

    /// The next token, or nil at the end. Throws `CancellationError` when the task is cancelled.
    public func step() throws -> GeneratedToken? {
        guard stopReason == nil else { return nil }
        try Task.checkCancellation()
        if tokens.count >= maxTokens {
            stopReason = .length
            return nil
        }
        if let pending {
            try session.evaluate([pending])
            self.pending = nil
        }
        let token = try session.sample(&sampler, mask: mask?(tokens))
        if session.model.tokenizer.isEndOfGeneration(token) {
            stopReason = .endOfGeneration
            return nil
        }
        tokens.append(token)
        pending = token
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
    /// that follow it, sampled with `sampling`.
    public func generate(prompt: [Int32], sampling: SamplingParameters, maxTokens: Int,
                         mask: (@Sendable ([Int32]) -> TokenMask?)? = nil) throws -> TokenGeneration {
        try prefill(prompt)
        return TokenGeneration(session: self, sampling: sampling, maxTokens: maxTokens, mask: mask)
    }
}
