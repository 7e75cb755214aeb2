import Foundation
import Kernels

/// One sequence over a model: its KV cache, activation buffers, and the logits
/// of the last evaluated token. All buffers are allocated here, once, so
/// evaluating and sampling tokens does not allocate.
///
/// Calls are serialized by a lock, so a session may be handed between tasks,
/// but one session computes one thing at a time.
public final class InferenceSession: @unchecked Sendable {
    public let model: InferenceModel
    /// Positions the KV cache holds.
    public let contextSize: Int
    /// The order of the quantized products' sums.
    public let numerics: Numerics
    let cache: KVCache
    private let scratch: ForwardScratch
    private let kernels: KernelContext
    let logitsStorage: UnsafeMutablePointer<Float>
    var logitsValid = false
    let lock = NSLock()
    /// Leading positions computed by `prefill` in full chunks aligned to `alignedChunk`:
    /// the only positions a later prefill may reuse.
    var canonicalCount = 0
    /// The prompt length of the last `prefill`, while nothing was appended or removed since.
    var prefilledLength: Int?

    /// Prefill computes a prompt in chunks aligned to multiples of this many positions
    /// and reuses only whole chunks, so a prompt's keys, values and logits are the same
    /// bits whatever the cache held before (one result per prompt: F16 attention takes a
    /// different path for batches of 64+ tokens, so the batch split must not depend on history).
    public static let alignedChunk = 64

    init(model: InferenceModel, contextSize: Int, threadPool: ThreadPool, maxBatch: Int, cacheType: KVCacheType, numerics: Numerics) {
        self.model = model
        self.contextSize = max(1, contextSize)
        self.numerics = numerics
        kernels = KernelContext(pool: threadPool)
        (kernels.ggmlOrder, kernels.avx512Order) = numerics.kernelOrder
        let configuration = model.configuration
        cache = KVCache(configuration: configuration, capacity: self.contextSize, type: cacheType)
        scratch = ForwardScratch(configuration: configuration, maxBatch: max(1, min(maxBatch, self.contextSize)),
                                 contextCapacity: self.contextSize, ropeTables: model.transformer.ropeSettings.count,
                                 threads: threadPool.threadCount)
        logitsStorage = .allocate(capacity: configuration.vocabularySize)
        logitsStorage.initialize(repeating: 0, count: configuration.vocabularySize)
    }

    deinit { logitsStorage.deallocate() }

    /// The tokens whose keys and values are in the cache, in order.
    public var tokens: [Int32] { lock.withLock { cache.tokens } }

    /// How many positions are filled.
    public var count: Int { lock.withLock { cache.count } }

    /// Compute threads this session uses.
    public var threadCount: Int { kernels.pool.threadCount }

    /// How the KV cache stores keys and values.
    public var cacheType: KVCacheType { cache.type }

    /// Bytes the KV cache reserves (pages are touched only as positions fill).
    public var cacheByteCount: Int { cache.byteCount }

    /// Appends `tokens` after the cached ones, in batches, and computes the
    /// logits of the last one. Forced tokens (guided generation) go through here.
    public func evaluate(_ tokens: [Int32]) throws(InferenceError) {
        try evaluate(tokens[...])
    }

    /// `evaluate` of a slice (the decoding loop's unevaluated tokens, without a copy).
    public func evaluate(_ tokens: ArraySlice<Int32>) throws(InferenceError) {
        lock.lock()
        defer { lock.unlock() }
        prefilledLength = nil
        try evaluateLocked(tokens)
    }

    /// Makes the cache hold exactly `prompt`, reusing the longest cached prefix
    /// and computing only the rest; the logits are those of the prompt's last
    /// token. Returns how many tokens were reused.
    @discardableResult
    public func prefill(_ prompt: [Int32]) throws(InferenceError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard !prompt.isEmpty else { throw .emptyInput }
        let shared = cache.sharedPrefixLength(with: prompt)
        if shared == prompt.count && shared == cache.count && logitsValid && prefilledLength == prompt.count {
            return shared
        }
        let chunk = min(Self.alignedChunk, scratch.maxBatch)
        // The chunk holding the last token is always recomputed (its logits are needed),
        // and only positions earlier prefills computed in whole aligned chunks are reused.
        let lastChunkStart = (prompt.count - 1) / chunk * chunk
        let reused = min(shared, canonicalCount, lastChunkStart) / chunk * chunk
        cache.truncate(to: reused)
        logitsValid = false
        prefilledLength = nil
        var start = reused
        while start < prompt.count {
            let end = min(prompt.count, (start / chunk + 1) * chunk)
            try evaluateLocked(prompt[start..<end])
            start = end
        }
        canonicalCount = prompt.count / chunk * chunk
        prefilledLength = prompt.count
        return reused
    }

    /// Forgets every position from `position` on; the logits are lost unless
    /// nothing was removed.
    public func truncate(to position: Int) {
        lock.lock()
        defer { lock.unlock() }
        if position < cache.count {
            cache.truncate(to: position)
            logitsValid = false
            prefilledLength = nil
            canonicalCount = min(canonicalCount, position)
        }
    }

    /// A new session holding a copy of this one's cache and logits (a shared prefix for
    /// batched decoding: prefill once, copy, then decode the copies together).
    public func copy(contextSize: Int? = nil) -> InferenceSession {
        lock.lock()
        defer { lock.unlock() }
        let copy = InferenceSession(model: model, contextSize: max(contextSize ?? self.contextSize, cache.count),
                                    threadPool: kernels.pool, maxBatch: scratch.maxBatch, cacheType: cache.type, numerics: numerics)
        copy.cache.copyContents(of: cache)
        if logitsValid {
            copy.logitsStorage.update(from: logitsStorage, count: model.vocabularySize)
            copy.logitsValid = true
        }
        return copy
    }

    /// Empties the cache.
    public func reset() { truncate(to: 0) }

    /// Calls `body` with the last evaluated token's logits (vocabularySize values).
    public func withLogits<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        guard logitsValid else { throw InferenceError.noLogits }
        return try body(UnsafeBufferPointer(start: logitsStorage, count: model.vocabularySize))
    }

    /// A copy of the last evaluated token's logits.
    public var logits: [Float] {
        get throws { try withLogits { Array($0) } }
    }

    /// Samples the next token from the current logits, restricted to `mask` if given.
    public func sample(_ sampler: inout Sampler, mask: TokenMask? = nil) throws(InferenceError) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard logitsValid else { throw .noLogits }
        return try sampler.sample(logits: UnsafeBufferPointer(start: logitsStorage, count: model.vocabularySize), mask: mask)
    }

    private func evaluateLocked(_ tokens: ArraySlice<Int32>) throws(InferenceError) {
        guard !tokens.isEmpty else { throw .emptyInput }
        let vocabularySize = model.vocabularySize
        for token in tokens where token < 0 || Int(token) >= vocabularySize {
            throw .invalidToken(token, vocabularySize: vocabularySize)
        }
        guard cache.count + tokens.count <= cache.capacity else {
            throw .contextFull(capacity: cache.capacity, requested: cache.count + tokens.count)
        }
        logitsValid = false
        tokens.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let batch = min(scratch.maxBatch, buffer.count - offset)
                let isLast = offset + batch == buffer.count
                model.transformer.forward(tokens: UnsafeBufferPointer(rebasing: buffer[offset..<offset + batch]),
                                          cache: cache, scratch: scratch, kernels: kernels,
                                          logits: isLast ? logitsStorage : nil)
                offset += batch
            }
        }
        logitsValid = true
    }
}
