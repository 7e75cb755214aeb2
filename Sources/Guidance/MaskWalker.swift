/// Walks the vocabulary trie with a grammar stack: the hot loop of masking.
///
/// The stack lives in raw memory. Reading a byte may pop finished frames
/// (only the depth changes) and then writes at most `1 + maximumFramesPerCall`
/// slots, so an undo record per trie level (old depth, write position, old
/// slot values) restores the stack when the walk backs out of a subtree.
struct MaskWalker {
    let grammar: ByteGrammar
    private let tables: ByteGrammar.Tables
    private let trie: VocabularyIndex.Trie
    private let nodeCount: Int
    let wordCount: Int
    /// Scratch stack for per-state walks.
    private let scratch: UnsafeMutablePointer<UInt32>
    private let undo: UnsafeMutablePointer<UndoRecord>
    private let box: Storage

    static let slotsPerUndo = 4

    struct UndoRecord {
        var depth: Int32
        var position: Int32
        var slots: (UInt32, UInt32, UInt32, UInt32)
    }

    /// Owns the raw buffers so copies of the walker share them safely.
    private final class Storage {
        let scratch: UnsafeMutablePointer<UInt32>
        let undo: UnsafeMutablePointer<UndoRecord>
        init(stackCapacity: Int, levels: Int) {
            scratch = .allocate(capacity: stackCapacity)
            scratch.initialize(repeating: 0, count: stackCapacity)
            undo = .allocate(capacity: levels)
            undo.initialize(repeating: UndoRecord(depth: 0, position: 0, slots: (0, 0, 0, 0)), count: levels)
        }
        deinit {
            scratch.deallocate()
            undo.deallocate()
        }
    }

    static func stackCapacity(_ grammar: ByteGrammar) -> Int {
        grammar.maxStackDepth + ByteGrammar.maximumFramesPerCall + slotsPerUndo + 2
    }

    init(grammar: ByteGrammar, trie: VocabularyIndex.Trie, nodeCount: Int, maximumTokenLength: Int, wordCount: Int) {
        self.grammar = grammar
        self.tables = grammar.tables
        self.trie = trie
        self.nodeCount = nodeCount
        self.wordCount = wordCount
        box = Storage(stackCapacity: Self.stackCapacity(grammar), levels: maximumTokenLength + 1)
        scratch = box.scratch
        undo = box.undo
    }

    /// The mask of a state on its own (see `StateMask`).
    mutating func stateMask(_ state: UInt32) -> StateMask {
        var words = [UInt64](repeating: 0, count: wordCount)
        var dependents: [UInt32] = []
        scratch[0] = state
        words.withUnsafeMutableBufferPointer { words in
            walk(from: 0, to: nodeCount, stack: scratch, depth: 1, floor: 1, words: words.baseAddress!,
                 dependents: &dependents)
        }
        return StateMask(words: words, dependentNodes: dependents)
    }

    /// Marks every token in the trie range `start..<end` (one subtree or the
    /// whole trie) whose bytes the stack can read. With `floor` 1, a token
    /// that would return from the bottom frame is recorded in `dependents`
    /// instead. The stack is restored before returning.
    func walk(from start: Int, to end: Int, stack: UnsafeMutablePointer<UInt32>, depth startDepth: Int, floor: Int,
              words: UnsafeMutablePointer<UInt64>, dependents: inout [UInt32]) {
        let actions = tables.actions
        let accepting = tables.accepting
        let callReturn = tables.callReturn
        let frameStart = tables.callFrameStart
        let frameCount = tables.callFrameCount
        let frames = tables.frames
        let nodeByte = trie.byte
        let nodeDepth = trie.depth
        let subtreeEnd = trie.subtreeEnd
        let tokenStart = trie.tokenStart
        let tokens = trie.tokens
        let undo = self.undo

        let baseDepth = Int(nodeDepth[start])
        var level = 0
        var depth = startDepth
        var node = start
        while node < end {
            let nodeLevel = Int(nodeDepth[node]) - baseDepth
            while level > nodeLevel {
                level -= 1
                depth = Self.restore(undo[level], stack)
            }
            let byte = Int(nodeByte[node])
            // Read the byte: pop finished frames, then shift or call.
            var frameDepth = depth
            var outcome = 0  // 0 ok, 1 reject, 2 leaves the bottom frame
            while true {
                if frameDepth == 0 { outcome = 1; break }
                let state = Int(stack[frameDepth - 1])
                let action = actions[state << 8 | byte]
                if action == 0 {
                    if accepting[state] == 0 { outcome = 1; break }
                    if frameDepth - 1 < floor { outcome = 2; break }
                    frameDepth -= 1
                    continue
                }
                let position = frameDepth - 1
                undo[level] = UndoRecord(depth: Int32(depth), position: Int32(position),
                                         slots: (stack[position], stack[position + 1], stack[position + 2], stack[position + 3]))
                if action & ByteGrammar.callFlag == 0 {
                    stack[position] = action - 1
                    depth = frameDepth
                } else {
                    let entry = Int(action & ~ByteGrammar.callFlag)
                    stack[position] = callReturn[entry]
                    let first = Int(frameStart[entry])
                    let count = Int(frameCount[entry])
                    for offset in 0..<count { stack[frameDepth + offset] = frames[first + offset] }
                    depth = frameDepth + count
                }
                break
            }
            if outcome == 0 {
                level += 1
                var index = Int(tokenStart[node])
                let last = Int(tokenStart[node + 1])
                while index < last {
                    let token = Int(tokens[index])
                    words[token >> 6] |= 1 << UInt64(token & 63)
                    index += 1
                }
                node += 1
            } else {
                if outcome == 2 { dependents.append(UInt32(node)) }
                node = Int(subtreeEnd[node])
            }
        }
        while level > 0 {
            level -= 1
            _ = Self.restore(undo[level], stack)
        }
    }

    /// Puts back the slots an undo record saved; returns the depth before the step.
    @inline(__always)
    private static func restore(_ record: UndoRecord, _ stack: UnsafeMutablePointer<UInt32>) -> Int {
        let position = Int(record.position)
        stack[position] = record.slots.0
        stack[position + 1] = record.slots.1
        stack[position + 2] = record.slots.2
        stack[position + 3] = record.slots.3
        return Int(record.depth)
    }

    func subtreeEnd(_ node: UInt32) -> Int { Int(trie.subtreeEnd[Int(node)]) }

    func byte(at node: UInt32) -> UInt8 { trie.byte[Int(node)] }
}
