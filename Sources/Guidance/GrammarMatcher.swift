/// The state of one guided generation: which bytes have been generated, which
/// tokens may come next, which text is forced, and whether the value is done.
///
/// Use: `fillMask` before sampling, `accept(token:)` after. When
/// `forcedTokens(tokenize:)` returns tokens, feed them as a batch (accepting
/// each) instead of sampling. End-of-sequence tokens are in the mask exactly
/// when the value is complete; `isFinished` says nothing else may follow.
///
/// A matcher caches per-state masks, so reuse it (`reset()`) for later
/// generations with the same grammar. It is not thread-safe.
public final class GrammarMatcher {
    public let grammar: ByteGrammar
    public let vocabulary: VocabularyIndex
    private var walker: MaskWalker
    private var cache: [StateMask?]
    private let stack: UnsafeMutablePointer<UInt32>
    private let stackCapacity: Int
    private var depth = 1
    private var ended = false
    private var distances: [Int]?
    /// Bytes accepted since the last reset.
    public private(set) var generatedBytes: [UInt8] = []

    public init(grammar: ByteGrammar, vocabulary: VocabularyIndex) {
        self.grammar = grammar
        self.vocabulary = vocabulary
        walker = MaskWalker(grammar: grammar, trie: vocabulary.trie, nodeCount: vocabulary.nodeCount,
                            maximumTokenLength: vocabulary.maximumTokenLength, wordCount: vocabulary.wordCount)
        cache = Array(repeating: nil, count: grammar.stateCount)
        stackCapacity = MaskWalker.stackCapacity(grammar)
        stack = .allocate(capacity: stackCapacity)
        stack.initialize(repeating: 0, count: stackCapacity)
        reset()
    }

    deinit { stack.deallocate() }

    /// Back to the start of a new value (cached masks are kept).
    public func reset() {
        stack[0] = grammar.startState
        depth = 1
        ended = false
        generatedBytes.removeAll(keepingCapacity: true)
    }

    // MARK: Masks

    /// The number of 64-bit words a mask of this vocabulary needs.
    public var maskWordCount: Int { vocabulary.wordCount }

    /// The tokens allowed next, in increasing order (for tests and tools; the
    /// decoding loop uses `fillMask`).
    public func allowedTokens() -> [Int] {
        var words = [UInt64](repeating: 0, count: maskWordCount)
        words.withUnsafeMutableBufferPointer { fillMask($0) }
        var result: [Int] = []
        for (index, word) in words.enumerated() {
            var remaining = word
            while remaining != 0 {
                result.append(index << 6 | remaining.trailingZeroBitCount)
                remaining &= remaining - 1
            }
        }
        return result
    }

    /// Writes the tokens allowed next as a bitset (bit `t % 64` of word `t / 64`
    /// set when token t is allowed) into `words`, which needs at least
    /// `maskWordCount` words; words past those are cleared. This is the layout
    /// of the engine's `TokenMask`, so the sampler reads the mask in place.
    public func fillMask(_ output: UnsafeMutableBufferPointer<UInt64>) {
        precondition(output.count >= maskWordCount, "a mask of \(output.count) words for a vocabulary needing \(maskWordCount)")
        if output.count > maskWordCount {
            UnsafeMutableBufferPointer(rebasing: output[maskWordCount...]).update(repeating: 0)
        }
        let words = UnsafeMutableBufferPointer(rebasing: output[..<maskWordCount])
        let tables = grammar.tables
        // Frames that accept and can read nothing more return at once.
        var frameDepth = ended ? 0 : depth
        while frameDepth > 0 {
            let state = Int(stack[frameDepth - 1])
            guard tables.accepting[state] != 0, tables.hasActions[state] == 0 else { break }
            frameDepth -= 1
        }
        let complete = isComplete
        fill: do {
            guard frameDepth > 0 else {
                words.update(repeating: 0)
                break fill
            }
            let entry = stateMask(stack[frameDepth - 1])
            entry.words.withUnsafeBufferPointer { source in
                words.baseAddress!.update(from: source.baseAddress!, count: source.count)
            }
            if frameDepth > 1, !entry.dependentNodes.isEmpty {
                // Tokens leaving the top frame continue below it: skip those
                // whose next byte no frame below can read.
                var below: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
                var frame = frameDepth - 2
                while frame >= 0 {
                    let state = Int(stack[frame])
                    let base = state * 4
                    below.0 |= grammar.actionBytes[base]
                    below.1 |= grammar.actionBytes[base + 1]
                    below.2 |= grammar.actionBytes[base + 2]
                    below.3 |= grammar.actionBytes[base + 3]
                    if tables.accepting[state] == 0 { break }
                    frame -= 1
                }
                let walker = self.walker
                let stack = self.stack
                var ignored: [UInt32] = []
                for node in entry.dependentNodes {
                    let byte = walker.byte(at: node)
                    let word: UInt64
                    switch byte >> 6 {
                    case 0: word = below.0
                    case 1: word = below.1
                    case 2: word = below.2
                    default: word = below.3
                    }
                    guard word & (1 << UInt64(byte & 63)) != 0 else { continue }
                    walker.walk(from: Int(node), to: walker.subtreeEnd(node), stack: stack, depth: frameDepth - 1,
                                floor: 0, words: words.baseAddress!, dependents: &ignored)
                }
            }
        }
        if complete {
            for token in vocabulary.endOfSequenceTokens { words[token >> 6] |= 1 << UInt64(token & 63) }
        }
    }

    private func stateMask(_ state: UInt32) -> StateMask {
        let index = Int(state)
        if index < grammar.sharedStringStateCount, index < vocabulary.sharedStringMasks.count {
            return vocabulary.sharedStringMasks[index]
        }
        if let cached = cache[index] { return cached }
        let computed = walker.stateMask(state)
        cache[index] = computed
        return computed
    }

    // MARK: Advancing

    /// Whether the value so far is complete (end of sequence allowed).
    public var isComplete: Bool {
        if ended { return true }
        for index in 0..<depth where grammar.tables.accepting[Int(stack[index])] == 0 { return false }
        return true
    }

    /// Complete, and no byte may follow: only end of sequence is allowed.
    public var isFinished: Bool {
        ended || (isComplete && allowedNextBytes().allSatisfy { $0 == 0 })
    }

    /// Reads a token. Returns false (and changes nothing) when the grammar does not allow it.
    @discardableResult
    public func accept(token: Int) -> Bool {
        guard token >= 0, token < vocabulary.vocabularySize, !ended else { return false }
        if vocabulary.endOfSequenceTokens.contains(token) {
            guard isComplete else { return false }
            ended = true
            return true
        }
        if vocabulary.isSpecial(token) { return false }
        return accept(bytes: vocabulary.tokenBytes[token])
    }

    /// Reads bytes. Returns false (and changes nothing) when the grammar does not allow them.
    @discardableResult
    public func accept(bytes: some Collection<UInt8>) -> Bool {
        guard !ended else { return bytes.isEmpty }
        var frames = Array(UnsafeBufferPointer(start: stack, count: depth))
        for byte in bytes {
            guard grammar.step(&frames, byte), frames.count + ByteGrammar.maximumFramesPerCall < stackCapacity - 4
            else { return false }
        }
        for (index, frame) in frames.enumerated() { stack[index] = frame }
        depth = frames.count
        generatedBytes.append(contentsOf: bytes)
        return true
    }

    func currentFrames() -> [UInt32] {
        ended ? [] : Array(UnsafeBufferPointer(start: stack, count: depth))
    }

    func completionDistanceTable() -> [Int] {
        if let distances { return distances }
        let computed = grammar.completionDistances()
        distances = computed
        return computed
    }

    // MARK: Forced text

    /// The bytes the grammar allows next, as 4 words (256 bits).
    func allowedNextBytes() -> [UInt64] {
        allowedBytes(Array(UnsafeBufferPointer(start: stack, count: ended ? 0 : depth)))
    }

    private func allowedBytes(_ frames: [UInt32]) -> [UInt64] {
        var allowed: [UInt64] = [0, 0, 0, 0]
        for frame in frames.reversed() {
            for word in 0..<4 { allowed[word] |= grammar.actionBytes[Int(frame) * 4 + word] }
            if !grammar.accepting[Int(frame)] { break }
        }
        return allowed
    }

    /// The text that must come next because the grammar allows exactly one
    /// byte at each position (keys, punctuation, constants), up to `limit`.
    public func forcedBytes(limit: Int = 512) -> [UInt8] {
        guard !ended else { return [] }
        var frames = Array(UnsafeBufferPointer(start: stack, count: depth))
        var forced: [UInt8] = []
        while forced.count < limit {
            if frames.allSatisfy({ grammar.accepting[Int($0)] }) { break }
            let allowed = allowedBytes(frames)
            guard allowed.reduce(0, { $0 + $1.nonzeroBitCount }) == 1 else { break }
            let word = allowed.firstIndex { $0 != 0 }!
            let byte = UInt8(word * 64 + allowed[word].trailingZeroBitCount)
            guard grammar.step(&frames, byte) else { break }
            forced.append(byte)
        }
        return forced
    }

    /// The forced text as tokens, tokenized by the model's tokenizer (its
    /// canonical tokenization), or empty when nothing is forced or the
    /// tokenizer's tokens do not spell the forced bytes exactly.
    public func forcedTokens(tokenize: ([UInt8]) -> [Int]) -> [Int] {
        let forced = forcedBytes()
        guard !forced.isEmpty else { return [] }
        let tokens = tokenize(forced)
        var spelled: [UInt8] = []
        for token in tokens {
            guard token >= 0, token < vocabulary.vocabularySize, !vocabulary.isSpecial(token) else { return [] }
            spelled.append(contentsOf: vocabulary.tokenBytes[token])
        }
        return spelled == forced ? tokens : []
    }
}

// MARK: Finishing within a token budget

extension ByteGrammar {
    /// Per state, the fewest bytes that complete its frame (0 when accepting):
    /// a shift costs 1 plus the target's distance; a call costs 1 plus the
    /// distances of every frame it leaves. Computed by relaxation to a fixed point.
    func completionDistances() -> [Int] {
        let unreachable = Int.max / 4
        var distance = accepting.map { $0 ? 0 : unreachable }
        var changed = true
        while changed {
            changed = false
            for state in 0..<stateCount where distance[state] > 0 {
                var best = distance[state]
                for byte in 0..<256 {
                    let action = actions[state << 8 | byte]
                    guard action != 0 else { continue }
                    var cost: Int
                    if action & Self.callFlag == 0 {
                        cost = 1 + distance[Int(action - 1)]
                    } else {
                        let entry = Int(action & ~Self.callFlag)
                        cost = 1 + distance[Int(callReturn[entry])]
                        for frame in callFrames[entry] { cost += distance[Int(frame)] }
                    }
                    if cost < best { best = cost }
                }
                if best < distance[state] {
                    distance[state] = best
                    changed = true
                }
            }
        }
        return distance
    }
}

extension GrammarMatcher {
    /// The fewest bytes that complete the value from here (0 when complete).
    /// A caller running out of tokens can finish the value by choosing only
    /// tokens that lower it (`completionBytes(after:)`); single-byte tokens
    /// always can.
    public func minimumCompletionBytes() -> Int {
        completionBytes(of: currentFrames())
    }

    /// The fewest bytes that complete the value after `token`, or nil when
    /// the token is not allowed.
    public func completionBytes(after token: Int) -> Int? {
        guard token >= 0, token < vocabulary.vocabularySize, !vocabulary.isSpecial(token) else { return nil }
        var frames = currentFrames()
        for byte in vocabulary.tokenBytes[token] {
            guard grammar.step(&frames, byte) else { return nil }
        }
        return completionBytes(of: frames)
    }

    private func completionBytes(of frames: [UInt32]) -> Int {
        let distances = completionDistanceTable()
        return frames.reduce(0) { $0 + distances[Int($1)] }
    }
}
