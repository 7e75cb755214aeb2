import Foundation
import Kernels

/// Batched decoding: one token for each of several sequences of the same model in one
/// forward pass. Each sequence keeps its own `InferenceSession` (KV cache, logits);
/// the pass reads every weight matrix once for all of them, which is where decoding
/// spends its time, so N sequences cost far less than N passes.
///
/// Results are bit-identical to evaluating each session alone (`InferenceSession.evaluate`):
/// the matrix products give every row the same value whatever the batch, and each row
/// attends only over its own cache. Prompts are prefilled per session as usual
/// (`prefill`), also to share a prefix: prefill one session, then `copy` it.
///
/// A decoder is not tied to particular sessions; calls are serialized by a lock, and each
/// call locks its sessions (in a fixed order) for its duration.
public final class BatchDecoder: @unchecked Sendable {
    public let model: InferenceModel
    /// The most sequences one `evaluate` takes.
    public let maxSequences: Int
    private let contextSize: Int
    public let numerics: Numerics
    private let scratch: ForwardScratch
    private let kernels: KernelContext
    private let lock = NSLock()

    /// A decoder for up to `maxSequences` sessions whose contexts hold at most `contextSize`
    /// positions, computing on `threads` threads (the process-wide pool for that count), with
    /// the sessions' `numerics` (sessions with other numerics are refused).
    public init(model: InferenceModel, maxSequences: Int = 8, contextSize: Int? = nil, threads: Int? = nil,
                numerics: Numerics = .fast) {
        self.numerics = numerics
        self.model = model
        self.maxSequences = max(1, maxSequences)
        self.contextSize = max(1, contextSize ?? min(model.configuration.contextLength, 4096))
        let pool = ComputeThreads.pool(threadCount: threads ?? model.defaultThreadCount)
        kernels = KernelContext(pool: pool)
        (kernels.ggmlOrder, kernels.avx512Order) = numerics.kernelOrder
        scratch = ForwardScratch(configuration: model.configuration, maxBatch: self.maxSequences,
                                 contextCapacity: self.contextSize, ropeTables: model.transformer.ropeSettings.count,
                                 threads: pool.threadCount, logitRows: self.maxSequences, vocabularySize: model.vocabularySize)
    }

    /// Appends `tokens[i]` to `sessions[i]` for every `i` in one forward pass and computes
    /// each session's logits (then read them with `session.sample` or `withLogits`).
    /// The sessions must be distinct, of this decoder's model, with one free position each,
    /// with a context no larger than the decoder's, and with the same cache type.
    public func evaluate(_ tokens: [Int32], in sessions: [InferenceSession]) throws(InferenceError) {
        guard tokens.count == sessions.count else {
            throw .invalidBatch("\(tokens.count) tokens for \(sessions.count) sessions; give one token per session")
        }
        guard !tokens.isEmpty else { throw .emptyInput }
        guard sessions.count <= maxSequences else {
            throw .invalidBatch("\(sessions.count) sessions, but this decoder takes at most \(maxSequences); make it with a larger maxSequences")
        }
        guard Set(sessions.map { ObjectIdentifier($0) }).count == sessions.count else {
            throw .invalidBatch("a session appears twice; give each sequence its own session")
        }
        for session in sessions {
            guard session.model === model else { throw .invalidBatch("a session belongs to another model") }
            guard session.contextSize <= contextSize else {
                throw .invalidBatch("a session's context (\(session.contextSize)) is larger than the decoder's (\(contextSize))")
            }
            guard session.cacheType == sessions[0].cacheType else { throw .invalidBatch("the sessions' KV cache types differ") }
            guard session.numerics == numerics else {
                throw .invalidBatch("a session computes with \(session.numerics.rawValue) numerics, the decoder with \(numerics.rawValue)")
            }
        }
        let vocabularySize = model.vocabularySize
        for token in tokens where token < 0 || Int(token) >= vocabularySize {
            throw .invalidToken(token, vocabularySize: vocabularySize)
        }
        lock.lock()
        defer { lock.unlock() }
        // Lock the sessions in one global order, so two decoders sharing sessions cannot deadlock.
        let ordered = sessions.sorted { ObjectIdentifier($0) < ObjectIdentifier($1) }
        for session in ordered { session.lock.lock() }
        defer { for session in ordered.reversed() { session.lock.unlock() } }
        for session in sessions where session.cache.count + 1 > session.cache.capacity {
            throw .contextFull(capacity: session.cache.capacity, requested: session.cache.count + 1)
        }
        for session in sessions { session.logitsValid = false }
        tokens.withUnsafeBufferPointer { buffer in
            model.transformer.forward(tokens: buffer, caches: sessions.map(\.cache), scratch: scratch, kernels: kernels,
                                      logits: sessions.map(\.logitsStorage))
        }
        for session in sessions { session.logitsValid = true }
    }
}
