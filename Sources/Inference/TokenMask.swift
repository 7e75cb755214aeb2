/// A set of allowed token ids, one bit per vocabulary entry, for guided
/// generation: the sampler only picks tokens whose bit is set.
public struct TokenMask: Sendable, Equatable {
    public let vocabularySize: Int
    /// Bit `t % 64` of word `t / 64` is set when token t is allowed.
    public private(set) var words: [UInt64]

    /// A mask over `vocabularySize` tokens allowing all of them (`allowed: true`) or none.
    public init(vocabularySize: Int, allowed: Bool = false) {
        self.vocabularySize = vocabularySize
        words = Array(repeating: allowed ? ~0 : 0, count: (vocabularySize + 63) / 64)
        if allowed, vocabularySize % 64 != 0 {
            words[words.count - 1] = (1 << UInt64(vocabularySize % 64)) - 1
        }
    }

    public init(vocabularySize: Int, allowing tokens: some Sequence<Int32>) {
        self.init(vocabularySize: vocabularySize)
        for token in tokens { insert(token) }
    }

    @inline(__always)
    public func contains(_ token: Int32) -> Bool {
        let index = Int(token)
        guard index >= 0, index < vocabularySize else { return false }
        return words[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    public mutating func insert(_ token: Int32) {
        let index = Int(token)
        precondition(index >= 0 && index < vocabularySize, "token \(token) outside the vocabulary")
        words[index >> 6] |= 1 << UInt64(index & 63)
    }

    public mutating func remove(_ token: Int32) {
        let index = Int(token)
        precondition(index >= 0 && index < vocabularySize, "token \(token) outside the vocabulary")
        words[index >> 6] &= ~(1 << UInt64(index & 63))
    }

    /// Clears every bit (keeps the storage).
    public mutating func removeAll() {
        for i in words.indices { words[i] = 0 }
    }

    /// The bits in place, for a producer that writes the whole mask (a grammar
    /// matcher). Bits at or past `vocabularySize` must stay clear.
    public mutating func withUnsafeMutableWords<Result>(
        _ body: (UnsafeMutableBufferPointer<UInt64>) throws -> Result
    ) rethrows -> Result {
        try words.withUnsafeMutableBufferPointer { try body($0) }
    }

    public var allowedCount: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }
}
