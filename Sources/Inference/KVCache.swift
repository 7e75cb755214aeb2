import Kernels

/// How the KV cache stores keys and values.
public enum KVCacheType: String, Sendable, CaseIterable {
    /// IEEE half precision (llama.cpp's default): half the memory; attention follows
    /// the numerics of ggml's CPU flash attention (`HalfAttention`).
    case f16
    /// F32: exact keys/values; attention is a plain softmax over F32 scores.
    case f32

    var bytesPerElement: Int { self == .f16 ? 2 : 4 }
}

/// Keys and values of one sequence for every block, plus the tokens they
/// were computed from, so a later prompt can reuse the longest shared prefix.
///
/// Layout per block: keys then values, each `[headCountKV][capacity][headDimension]`
/// of `type` (F16 or F32), so one head's keys are contiguous over positions.
/// The storage is allocated once; pages never written are never touched.
final class KVCache {
    let capacity: Int
    let blockCount: Int
    let headCountKV: Int
    let headDimension: Int
    let type: KVCacheType
    private let storage: UnsafeMutableRawPointer
    /// Tokens whose keys and values are stored, in position order.
    private(set) var tokens: [Int32] = []

    init(configuration: ModelConfiguration, capacity: Int, type: KVCacheType) {
        self.capacity = capacity
        self.type = type
        blockCount = configuration.blockCount
        headCountKV = configuration.headCountKV
        headDimension = configuration.headDimension
        storage = .allocate(byteCount: blockCount * 2 * headCountKV * capacity * headDimension * type.bytesPerElement,
                            alignment: 64)
        tokens.reserveCapacity(capacity)
    }

    deinit { storage.deallocate() }

    var count: Int { tokens.count }

    var byteCount: Int { blockCount * 2 * headCountKV * capacity * headDimension * type.bytesPerElement }

    /// Elements from one head's keys to the next.
    private var headStride: Int { capacity * headDimension }
    private var blockStride: Int { 2 * headCountKV * headStride }

    /// Element offset of the keys of `head` in `block` (values follow the block's keys).
    @inline(__always) private func keyOffset(block: Int, head: Int) -> Int { block * blockStride + head * headStride }
    @inline(__always) private func valueOffset(block: Int, head: Int) -> Int { block * blockStride + (headCountKV + head) * headStride }

    /// Keys of `head` in `block`, position-major (F32 caches).
    @inline(__always) func keys(block: Int, head: Int) -> UnsafeMutablePointer<Float> {
        storage.assumingMemoryBound(to: Float.self) + keyOffset(block: block, head: head)
    }

    @inline(__always) func values(block: Int, head: Int) -> UnsafeMutablePointer<Float> {
        storage.assumingMemoryBound(to: Float.self) + valueOffset(block: block, head: head)
    }

    /// Keys of `head` in `block`, position-major (F16 caches).
    @inline(__always) func halfKeys(block: Int, head: Int) -> UnsafeMutablePointer<Float16> {
        storage.assumingMemoryBound(to: Float16.self) + keyOffset(block: block, head: head)
    }

    @inline(__always) func halfValues(block: Int, head: Int) -> UnsafeMutablePointer<Float16> {
        storage.assumingMemoryBound(to: Float16.self) + valueOffset(block: block, head: head)
    }

    /// Stores one head's key and value (F32, `headDimension` each) at `position`,
    /// rounding to nearest even for an F16 cache.
    @inline(__always)
    func store(block: Int, head: Int, position: Int, key: UnsafePointer<Float>, value: UnsafePointer<Float>) {
        let offset = position * headDimension
        switch type {
        case .f32:
            (keys(block: block, head: head) + offset).update(from: key, count: headDimension)
            (values(block: block, head: head) + offset).update(from: value, count: headDimension)
        case .f16:
            VectorOps.convert(key, to: halfKeys(block: block, head: head) + offset, count: headDimension)
            VectorOps.convert(value, to: halfValues(block: block, head: head) + offset, count: headDimension)
        }
    }

    /// Makes this cache hold `other`'s positions (same model; this capacity at least `other.count`).
    func copyContents(of other: KVCache) {
        precondition(other.count <= capacity && other.type == type && other.blockCount == blockCount
                     && other.headCountKV == headCountKV && other.headDimension == headDimension)
        // Every (block, keys/values, head) slot is `capacity` positions long, in order.
        let element = type.bytesPerElement
        let bytes = other.count * headDimension * element
        for slot in 0..<blockCount * 2 * headCountKV {
            (storage + slot * capacity * headDimension * element)
                .copyMemory(from: other.storage + slot * other.capacity * headDimension * element, byteCount: bytes)
        }
        tokens = other.tokens
    }

    /// Records tokens whose keys/values the forward pass has just written.
    func append(_ newTokens: UnsafeBufferPointer<Int32>) {
        precondition(tokens.count + newTokens.count <= capacity)
        tokens.append(contentsOf: newTokens)
    }

    /// Forgets every position from `position` on.
    func truncate(to position: Int) {
        let keep = max(0, min(position, tokens.count))
        tokens.removeSubrange(keep...)
    }

    /// How many leading tokens of `prompt` are already cached.
    func sharedPrefixLength(with prompt: some Collection<Int32>) -> Int {
        var length = 0
        for (cached, new) in zip(tokens, prompt) {
            guard cached == new else { break }
            length += 1
        }
        return length
    }
}
