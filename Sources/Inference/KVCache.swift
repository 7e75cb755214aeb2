/// Keys and values of one sequence for every block, plus the tokens they
/// were computed from, so a later prompt can reuse the longest shared prefix.
///
/// Layout per block: keys then values, each `[headCountKV][capacity][headDimension]`
/// F32, so one head's keys are contiguous over positions. The storage is
/// allocated once; pages never written are never touched.
final class KVCache {
    let capacity: Int
    let blockCount: Int
    let headCountKV: Int
    let headDimension: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Tokens whose keys and values are stored, in position order.
    private(set) var tokens: [Int32] = []

    init(configuration: ModelConfiguration, capacity: Int) {
        self.capacity = capacity
        blockCount = configuration.blockCount
        headCountKV = configuration.headCountKV
        headDimension = configuration.headDimension
        storage = .allocate(capacity: blockCount * 2 * headCountKV * capacity * headDimension)
        tokens.reserveCapacity(capacity)
    }

    deinit { storage.deallocate() }

    var count: Int { tokens.count }

    var byteCount: Int { blockCount * 2 * headCountKV * capacity * headDimension * MemoryLayout<Float>.size }

    private var headStride: Int { capacity * headDimension }
    private var blockStride: Int { 2 * headCountKV * headStride }

    /// Keys of `head` in `block`, position-major.
    @inline(__always) func keys(block: Int, head: Int) -> UnsafeMutablePointer<Float> {
        storage + block * blockStride + head * headStride
    }

    @inline(__always) func values(block: Int, head: Int) -> UnsafeMutablePointer<Float> {
        storage + block * blockStride + (headCountKV + head) * headStride
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
