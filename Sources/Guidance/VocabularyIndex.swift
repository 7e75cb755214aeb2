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

        // All token bytes in one buffer (no per-token array access in the loops below).
        let (flat, offsets) = Self.flattened(tokens)
        var isText = [Bool](repeating: true, count: tokens.count)
        for id in self.specialTokens where id >= 0 && id < tokens.count { isText[id] = false }

        let (order, longest) = Self.sortedTextTokens(flat: flat, offsets: offsets, isText: isText)
        let textCount = order.count

        // Preorder trie: each token adds the nodes past its common prefix with
        // the previous token; a node's subtree ends when the path pops it.
        // At most one node per text-token byte.
        var nodeCapacity = 1
        for id in order { nodeCapacity += offsets[Int(id) + 1] - offsets[Int(id)] }
        let nodeBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: nodeCapacity)
        let nodeDepths = UnsafeMutablePointer<UInt16>.allocate(capacity: nodeCapacity)
        let nodeEnds = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCapacity)
        let nodeTokenStarts = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCapacity + 1)
        let tokenList = UnsafeMutablePointer<UInt32>.allocate(capacity: max(textCount, 1))
        let path = UnsafeMutablePointer<Int>.allocate(capacity: longest + 1)
        defer { path.deallocate() }
        var nodes = 0
        var pathCount = 0
        flat.withUnsafeBufferPointer { flat in
            var previousStart = 0, previousCount = 0
            for (listed, id) in order.enumerated() {
                let start = offsets[Int(id)], count = offsets[Int(id) + 1] - start
                let limit = min(previousCount, count)
                var common = 0
                while common < limit && flat[previousStart + common] == flat[start + common] { common += 1 }
                while pathCount > common {
                    pathCount -= 1
                    nodeEnds[path[pathCount]] = UInt32(nodes)
                }
                for position in common..<count {
                    path[pathCount] = nodes
                    pathCount += 1
                    nodeBytes[nodes] = flat[start + position]
                    nodeDepths[nodes] = UInt16(position + 1)
                    nodeEnds[nodes] = 0
                    nodeTokenStarts[nodes] = UInt32(listed)
                    nodes += 1
                }
                tokenList[listed] = UInt32(id)
                previousStart = start
                previousCount = count
            }
        }
        while pathCount > 0 {
            pathCount -= 1
            nodeEnds[path[pathCount]] = UInt32(nodes)
        }
        nodeTokenStarts[nodes] = UInt32(textCount)
        nodeCount = nodes
        maximumTokenLength = longest
        trie = Trie(byte: nodeBytes, depth: nodeDepths, subtreeEnd: nodeEnds, tokenStart: nodeTokenStarts, tokens: tokenList)

        // The string machine is the same in every grammar: compute its masks once.
        let stringGrammar = SchemaCompiler.sharedStringGrammar()
        var walker = MaskWalker(grammar: stringGrammar, trie: trie, nodeCount: nodeCount,
                                maximumTokenLength: longest, wordCount: wordCount)
        sharedStringMasks = (0..<stringGrammar.sharedStringStateCount).map { state in
            walker.stateMask(UInt32(state))
        }
    }

    /// Every token's bytes in one buffer; token `id` is `flat[offsets[id]..<offsets[id + 1]]`.
    private static func flattened(_ tokens: [[UInt8]]) -> (flat: [UInt8], offsets: [Int]) {
        var offsets = [Int](repeating: 0, count: tokens.count + 1)
        var totalBytes = 0
        for (id, bytes) in tokens.enumerated() {
            totalBytes += bytes.count
            offsets[id + 1] = totalBytes
        }
        var flat = [UInt8](repeating: 0, count: max(totalBytes, 1))
        flat.withUnsafeMutableBufferPointer { flat in
            for (id, bytes) in tokens.enumerated() {
                bytes.withUnsafeBufferPointer { source in
                    guard let base = source.baseAddress else { return }
                    (flat.baseAddress! + offsets[id]).update(from: base, count: source.count)
                }
            }
        }
        return (flat, offsets)
    }

    /// The text tokens (non-empty, not special) in byte order: LSD radix sort of (8-byte big-endian
    /// prefix, id) pairs, skipping passes where every key has the same byte, then a comparison sort
    /// inside the rare groups whose prefixes are equal. Also the longest token's length.
    private static func sortedTextTokens(flat: [UInt8], offsets: [Int], isText: [Bool]) -> (order: [Int32], longest: Int) {
        struct Key { var prefix: UInt64; var id: Int32 }
        var keys: [Key] = []
        keys.reserveCapacity(isText.count)
        var longest = 0
        flat.withUnsafeBufferPointer { flat in
            for id in 0..<isText.count where isText[id] {
                let start = offsets[id], count = offsets[id + 1] - start
                guard count > 0 else { continue }
                longest = max(longest, count)
                var prefix: UInt64 = 0
                for position in 0..<8 { prefix = prefix << 8 | UInt64(position < count ? flat[start + position] : 0) }
                keys.append(Key(prefix: prefix, id: Int32(id)))
            }
        }
        let textCount = keys.count
        var scratch = keys
        keys.withUnsafeMutableBufferPointer { keys in
            scratch.withUnsafeMutableBufferPointer { scratch in
                var source = keys, target = scratch
                var counts = [Int](repeating: 0, count: 257)
                for pass in 0..<8 {
                    let shift = UInt64(pass * 8)
                    for bucket in 0..<257 { counts[bucket] = 0 }
                    for index in 0..<textCount { counts[Int((source[index].prefix >> shift) & 0xFF) + 1] += 1 }
                    if counts.contains(textCount) { continue }  // one bucket holds every key
                    for bucket in 0..<256 { counts[bucket + 1] += counts[bucket] }
                    for index in 0..<textCount {
                        let key = source[index]
                        let bucket = Int((key.prefix >> shift) & 0xFF)
                        target[counts[bucket]] = key
                        counts[bucket] += 1
                    }
                    swap(&source, &target)
                }
                if source.baseAddress != keys.baseAddress { keys.baseAddress!.update(from: source.baseAddress!, count: textCount) }
            }
        }
        var order = [Int32](repeating: 0, count: textCount)
        flat.withUnsafeBufferPointer { flat in
            var groupStart = 0
            while groupStart < textCount {
                var groupEnd = groupStart + 1
                while groupEnd < textCount, keys[groupEnd].prefix == keys[groupStart].prefix { groupEnd += 1 }
                for index in groupStart..<groupEnd { order[index] = keys[index].id }
                if groupEnd - groupStart > 1 {
                    order[groupStart..<groupEnd].sort { left, right in
                        let a = UnsafeBufferPointer(rebasing: flat[offsets[Int(left)]..<offsets[Int(left) + 1]])
                        let b = UnsafeBufferPointer(rebasing: flat[offsets[Int(right)]..<offsets[Int(right) + 1]])
                        return a.lexicographicallyPrecedes(b)
                    }
                }
                groupStart = groupEnd
            }
        }
        return (order, longest)
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
