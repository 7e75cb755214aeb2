/// A model's vocabulary as Guidance sees it: token byte strings and the ids
/// of special tokens, indexed once per model.
///
/// The index is a byte trie over the token byte strings, stored in preorder:
/// node `i` has a byte, a depth (its byte's position in the token, from 1),
/// the end of its subtree and the tokens that end at it. A mask is computed by
/// walking the trie with the grammar's matcher and skipping every subtree
/// whose prefix the grammar rejects.
///
/// Special tokens never match grammar bytes; end-of-sequence tokens are
/// allowed exactly when the value is complete.
public final class VocabularyIndex: @unchecked Sendable {
    public let vocabularySize: Int
    public let tokenBytes: [[UInt8]]
    public let endOfSequenceTokens: [Int]
    let specialTokens: Set<Int>
    let wordCount: Int
    let nodeCount: Int
    let maximumTokenLength: Int
    let trie: Trie
    /// Masks of the shared JSON string machine's states (the same in every grammar).
    let sharedStringMasks: [StateMask]

    struct Trie {
        let byte: UnsafeMutablePointer<UInt8>
        let depth: UnsafeMutablePointer<UInt16>
        let subtreeEnd: UnsafeMutablePointer<UInt32>
        /// Tokens of node `i`: `tokens[tokenStart[i]..<tokenStart[i + 1]]`.
        let tokenStart: UnsafeMutablePointer<UInt32>
        let tokens: UnsafeMutablePointer<UInt32>
    }

    /// - Parameters:
    ///   - tokens: the byte string of every token id.
    ///   - specialTokens: ids that are not text (BOS, EOS, chat markers, ...).
    ///   - endOfSequence: the ids that end a response (a subset of the special ones).
    public init(tokens: [[UInt8]], specialTokens: Set<Int>, endOfSequence: [Int]) {
        vocabularySize = tokens.count
        tokenBytes = tokens
        self.specialTokens = specialTokens.union(endOfSequence)
        endOfSequenceTokens = endOfSequence
        wordCount = (tokens.count + 63) / 64

        // Sort the text tokens by bytes; a 64-bit big-endian prefix decides most comparisons.
        var order: [Int32] = []
        order.reserveCapacity(tokens.count)
        var prefixes = [UInt64](repeating: 0, count: tokens.count)
        for (id, bytes) in tokens.enumerated() where !bytes.isEmpty && !self.specialTokens.contains(id) {
            order.append(Int32(id))
            var key: UInt64 = 0
            for position in 0..<8 { key = key << 8 | UInt64(position < bytes.count ? bytes[position] : 0) }
            prefixes[id] = key
        }
        // LSD radix sort on the 8-byte prefix, then a comparison sort inside
        // the rare groups whose prefixes are equal.
        var scratch = order
        for pass in 0..<8 {
            let shift = UInt64(pass * 8)
            var counts = [Int](repeating: 0, count: 257)
            for id in order { counts[Int((prefixes[Int(id)] >> shift) & 0xFF) + 1] += 1 }
            for bucket in 0..<256 { counts[bucket + 1] += counts[bucket] }
            for id in order {
                let bucket = Int((prefixes[Int(id)] >> shift) & 0xFF)
                scratch[counts[bucket]] = id
                counts[bucket] += 1
            }
            swap(&order, &scratch)
        }
        var groupStart = 0
        while groupStart < order.count {
            var groupEnd = groupStart + 1
            while groupEnd < order.count, prefixes[Int(order[groupEnd])] == prefixes[Int(order[groupStart])] { groupEnd += 1 }
            if groupEnd - groupStart > 1 {
                order[groupStart..<groupEnd].sort { tokens[Int($0)].lexicographicallyPrecedes(tokens[Int($1)]) }
            }
            groupStart = groupEnd
        }

        var bytes: [UInt8] = []
        var depths: [UInt16] = []
        var ends: [UInt32] = []
        var tokenStarts: [UInt32] = []
        var tokenList: [UInt32] = []
        let estimate = tokens.count * 3
        bytes.reserveCapacity(estimate)
        depths.reserveCapacity(estimate)
        ends.reserveCapacity(estimate)
        tokenStarts.reserveCapacity(estimate)
        tokenList.reserveCapacity(tokens.count)
        var path: [Int] = []
        var longest = 0
        tokens.withUnsafeBufferPointer { tokens in
            var previous: Int32 = -1
            for id in order {
                tokens[Int(id)].withUnsafeBufferPointer { token in
                    longest = max(longest, token.count)
                    var common = 0
                    if previous >= 0 {
                        tokens[Int(previous)].withUnsafeBufferPointer { last in
                            let limit = min(last.count, token.count)
                            while common < limit && last[common] == token[common] { common += 1 }
                        }
                    }
                    while path.count > common { ends[path.removeLast()] = UInt32(bytes.count) }
                    for position in common..<token.count {
                        path.append(bytes.count)
                        bytes.append(token[position])
                        depths.append(UInt16(position + 1))
                        ends.append(0)
                        tokenStarts.append(UInt32(tokenList.count))
                    }
                }
                tokenList.append(UInt32(id))
                previous = id
            }
        }
        while let node = path.popLast() { ends[node] = UInt32(bytes.count) }
        tokenStarts.append(UInt32(tokenList.count))
        nodeCount = bytes.count
        maximumTokenLength = longest

        func copy<T>(_ array: [T]) -> UnsafeMutablePointer<T> {
            let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(array.count, 1))
            pointer.initialize(from: array, count: array.count)
            return pointer
        }
        trie = Trie(byte: copy(bytes), depth: copy(depths), subtreeEnd: copy(ends),
                    tokenStart: copy(tokenStarts), tokens: copy(tokenList))

        // The string machine is the same in every grammar: compute its masks once.
        let stringGrammar = SchemaCompiler.sharedStringGrammar()
        var walker = MaskWalker(grammar: stringGrammar, trie: trie, nodeCount: bytes.count,
                                maximumTokenLength: longest, wordCount: wordCount)
        sharedStringMasks = (0..<stringGrammar.sharedStringStateCount).map { state in
            walker.stateMask(UInt32(state))
        }
    }

    deinit {
        trie.byte.deallocate()
        trie.depth.deallocate()
        trie.subtreeEnd.deallocate()
        trie.tokenStart.deallocate()
        trie.tokens.deallocate()
    }

    public func isSpecial(_ token: Int) -> Bool { specialTokens.contains(token) }
}

/// The tokens a state allows regardless of the frames below it, and the trie
/// nodes where a token leaves the state's frame (its validity then depends on
/// the caller, so it is checked against the real stack at each step).
struct StateMask: Sendable {
    var words: [UInt64]
    var dependentNodes: [UInt32]
}
