/// Why a schema cannot be compiled to a grammar. `unsupportedGuide` is what
/// the runtime reports as `GenerationError.unsupportedGuide` and the front end
/// as a diagnostic; nothing is ever silently dropped.
public struct GuidanceError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A guide (a regex construct, an empty range, ...) that cannot be enforced.
        case unsupportedGuide
        /// A schema that has no finite valid value or refers to unknown types.
        case invalidSchema
    }

    public var kind: Kind
    /// Where in the schema, e.g. `Itinerary.days` or `(root)`.
    public var path: String
    public var message: String

    public init(_ kind: Kind, path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// A compiled grammar: deterministic machines over bytes that call each other
/// (a deterministic pushdown automaton), as flat tables.
///
/// Invariants:
/// - Every machine is deterministic and its calls are decided by one byte:
///   for a state and a byte there is at most one action (shift or call).
/// - A frame whose state is accepting and has no action for the next byte
///   returns to its caller, which then reads that byte (longest match).
/// - Call graphs are acyclic (recursion is unrolled to a depth bound), so the
///   stack depth is bounded by `maxStackDepth`.
/// - The shared JSON string machine always comes first, so its states are
///   `0..<sharedStringStateCount` in every grammar and their token masks can be
///   computed once per vocabulary.
public final class ByteGrammar: @unchecked Sendable {
    /// `stateCount * 256` actions: 0 = reject; `s + 1` = shift to state `s`;
    /// `callFlag | i` = call entry `i`.
    let actions: [UInt32]
    let accepting: [Bool]
    /// Call entry `i`: the caller's state after the callee returns, and the
    /// frames to push (bottom first) after the callee read the byte.
    let callReturn: [UInt32]
    let callFrames: [[UInt32]]
    /// Per state, the bytes with an action, as 4 words.
    let actionBytes: [UInt64]
    public let startState: UInt32
    public let stateCount: Int
    public let maxStackDepth: Int
    let sharedStringStateCount: Int
    /// Names of the machines, for diagnostics.
    let machineNames: [String]
    /// The same tables as raw memory for the mask walk (immutable after init).
    let tables: Tables

    static let callFlag: UInt32 = 0x8000_0000
    /// The most frames one byte can push (a call whose callee starts with a call).
    static let maximumFramesPerCall = 3

    struct Tables {
        let actions: UnsafeMutablePointer<UInt32>
        let accepting: UnsafeMutablePointer<UInt8>
        /// 1 when the state has at least one action.
        let hasActions: UnsafeMutablePointer<UInt8>
        let callReturn: UnsafeMutablePointer<UInt32>
        let callFrameStart: UnsafeMutablePointer<UInt32>
        let callFrameCount: UnsafeMutablePointer<UInt32>
        let frames: UnsafeMutablePointer<UInt32>
    }

    init(actions: [UInt32], accepting: [Bool], callReturn: [UInt32], callFrames: [[UInt32]], startState: UInt32,
         maxStackDepth: Int, sharedStringStateCount: Int, machineNames: [String]) {
        self.actions = actions
        self.accepting = accepting
        self.callReturn = callReturn
        self.callFrames = callFrames
        self.startState = startState
        self.stateCount = accepting.count
        self.maxStackDepth = maxStackDepth
        self.sharedStringStateCount = sharedStringStateCount
        self.machineNames = machineNames
        var bytes = [UInt64](repeating: 0, count: accepting.count * 4)
        for state in 0..<accepting.count {
            for byte in 0..<256 where actions[state * 256 + byte] != 0 {
                bytes[state * 4 + byte >> 6] |= 1 << UInt64(byte & 63)
            }
        }
        self.actionBytes = bytes

        func copy<T>(_ array: [T]) -> UnsafeMutablePointer<T> {
            let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(array.count, 1))
            pointer.initialize(from: array, count: array.count)
            return pointer
        }
        var starts: [UInt32] = []
        var counts: [UInt32] = []
        var flat: [UInt32] = []
        for frames in callFrames {
            starts.append(UInt32(flat.count))
            counts.append(UInt32(frames.count))
            flat.append(contentsOf: frames)
        }
        tables = Tables(
            actions: copy(actions),
            accepting: copy(accepting.map { $0 ? 1 : 0 }),
            hasActions: copy((0..<accepting.count).map { state in
                bytes[state * 4..<state * 4 + 4].contains { $0 != 0 } ? 1 : 0
            }),
            callReturn: copy(callReturn),
            callFrameStart: copy(starts),
            callFrameCount: copy(counts),
            frames: copy(flat))
    }

    deinit {
        tables.actions.deallocate()
        tables.accepting.deallocate()
        tables.hasActions.deallocate()
        tables.callReturn.deallocate()
        tables.callFrameStart.deallocate()
        tables.callFrameCount.deallocate()
        tables.frames.deallocate()
    }

    /// Whether the whole byte string is a complete value of this grammar.
    public func matches(_ bytes: some Sequence<UInt8>) -> Bool {
        var stack = [startState]
        for byte in bytes {
            guard step(&stack, byte) else { return false }
        }
        return stack.allSatisfy { accepting[Int($0)] }
    }

    /// Whether the byte string can be continued to a complete value.
    public func isPrefix(_ bytes: some Sequence<UInt8>) -> Bool {
        var stack = [startState]
        for byte in bytes {
            guard step(&stack, byte) else { return false }
        }
        return true
    }

    /// Reads one byte on a stack (slow path, for advancing and checks).
    func step(_ stack: inout [UInt32], _ byte: UInt8) -> Bool {
        while let top = stack.last {
            let action = actions[Int(top) << 8 | Int(byte)]
            if action == 0 {
                guard accepting[Int(top)] else { return false }
                stack.removeLast()
                continue
            }
            if action & Self.callFlag == 0 {
                stack[stack.count - 1] = action - 1
            } else {
                let entry = Int(action & ~Self.callFlag)
                stack[stack.count - 1] = callReturn[entry]
                stack.append(contentsOf: callFrames[entry])
            }
            return true
        }
        return false
    }

    /// The same grammar without actions that lead where no complete value can
    /// follow (an empty class, a count no value fits, ...), so that every
    /// prefix the matcher allows can be completed. Throws when nothing is left.
    func checkedLive() throws(GuidanceError) -> ByteGrammar {
        // A state is live when it accepts or has an action whose states are
        // all live (a shift: its target; a call: the return state and every
        // pushed frame). Computed backwards from the accepting states.
        var live = accepting
        var clauseOwner: [Int32] = []
        var clauseRemaining: [Int32] = []
        var waiting = [[Int32]](repeating: [], count: stateCount)
        var queue: [Int] = []
        for state in 0..<stateCount where live[state] { queue.append(state) }
        var seen: [UInt32] = []
        var needs: [UInt32] = []
        for state in 0..<stateCount where !accepting[state] {
            seen.removeAll(keepingCapacity: true)
            var previous: UInt32 = 0
            for byte in 0..<256 {
                let action = actions[state << 8 | byte]
                guard action != 0, action != previous else { continue }
                previous = action
                guard !seen.contains(action) else { continue }
                seen.append(action)
                needs.removeAll(keepingCapacity: true)
                if action & Self.callFlag == 0 {
                    needs.append(action - 1)
                } else {
                    let entry = Int(action & ~Self.callFlag)
                    needs.append(callReturn[entry])
                    for frame in callFrames[entry] where !needs.contains(frame) { needs.append(frame) }
                }
                let clause = Int32(clauseOwner.count)
                clauseOwner.append(Int32(state))
                clauseRemaining.append(Int32(needs.count))
                for need in needs { waiting[Int(need)].append(clause) }
            }
        }
        while let state = queue.popLast() {
            for clause in waiting[state] {
                clauseRemaining[Int(clause)] -= 1
                let owner = Int(clauseOwner[Int(clause)])
                if clauseRemaining[Int(clause)] == 0, !live[owner] {
                    live[owner] = true
                    queue.append(owner)
                }
            }
        }
        guard live[Int(startState)] else {
            throw GuidanceError(.invalidSchema, path: "(root)", "no value satisfies all the guides")
        }
        let liveCall = (0..<callReturn.count).map { entry in
            live[Int(callReturn[entry])] && callFrames[entry].allSatisfy { live[Int($0)] }
        }
        func isDead(_ action: UInt32) -> Bool {
            action != 0 && !(action & Self.callFlag == 0 ? live[Int(action - 1)] : liveCall[Int(action & ~Self.callFlag)])
        }
        guard actions.contains(where: isDead) else { return self }
        var pruned = actions
        for index in 0..<pruned.count where isDead(pruned[index]) { pruned[index] = 0 }
        return ByteGrammar(actions: pruned, accepting: accepting, callReturn: callReturn, callFrames: callFrames,
                           startState: startState, maxStackDepth: maxStackDepth,
                           sharedStringStateCount: sharedStringStateCount, machineNames: machineNames)
    }
}
