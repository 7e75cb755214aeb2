#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// Builds a `ByteGrammar` from machine bodies: determinizes each machine
/// (subset construction over byte ranges, with calls decided by the callee's
/// first byte) and lays the states out in flat tables.
struct GrammarBuilder {
    private var bodies: [ByteNFA?] = []
    private(set) var names: [String] = []

    /// A new machine id; its body is given later with `define`.
    mutating func reserve(_ name: String) -> Int {
        bodies.append(nil)
        names.append(name)
        return bodies.count - 1
    }

    mutating func define(_ machine: Int, _ body: ByteNFA) {
        bodies[machine] = body
    }

    /// Defines `machine` as the JSON string machine, compiled once per process.
    mutating func defineSharedString(_ machine: Int) {
        bodies[machine] = Self.sharedString.body
        prebuilt[machine] = Self.sharedString.dfa
    }

    private var prebuilt: [Int: MachineDFA] = [:]

    private static let sharedString: (body: ByteNFA, dfa: MachineDFA) = {
        var string = ByteNFA()
        let open = string.literal([0x22], from: string.start)
        let content = string.star(from: open) { nfa, from in nfa.anyJSONStringCharacter(from: from) }
        string.accept(from: string.literal([0x22], from: content))
        let dfa = try! GrammarBuilder().determinize(string, name: "String", callees: [])
        return (string, minimize(dfa))
    }()

    /// Minimized DFAs of byte-only machines built in this process, by body.
    fileprivate static let byteMachines = ByteMachineCache()

    /// Forgets the byte-only machines built so far (benchmarks measure cold compiles with it).
    static func clearByteMachineCache() { byteMachines.removeAll() }

    fileprivate final class ByteMachineCache: @unchecked Sendable {
        private var lock = pthread_mutex_t()
        private var entries: [ByteNFA: MachineDFA] = [:]
        /// Bounds memory when many distinct guides are compiled.
        private let capacity = 512

        init() { pthread_mutex_init(&lock, nil) }

        func dfa(for body: ByteNFA) -> MachineDFA? {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            return entries[body]
        }

        func store(_ dfa: MachineDFA, for body: ByteNFA) {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            if entries.count >= capacity { entries.removeAll() }
            entries[body] = dfa
        }

        func removeAll() {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            entries.removeAll()
        }
    }

    fileprivate enum Action: Equatable {
        case shift(Int32)
        case call(machine: Int32, returnTo: Int32)
    }

    fileprivate struct RowEntry {
        var lo: Int
        var hi: Int
        var action: Action
    }

    fileprivate struct MachineDFA {
        var rows: [[RowEntry]] = []
        var accepting: [Bool] = []
        /// Bytes the machine can start with.
        var firstBytes = [Bool](repeating: false, count: 256)
        /// Where `firstBytes` changes value (range starts and ends + 1).
        var firstBoundaries: [Int] = []
    }

    /// Compiles the machines reachable from `root` (machine 0 first, when it
    /// is reachable, so shared machines keep their state numbers).
    func build(root: Int) throws(GuidanceError) -> ByteGrammar {
        var dfas = [MachineDFA?](repeating: nil, count: bodies.count)
        var order: [Int] = []
        var visiting = Set<Int>()

        func visit(_ machine: Int) throws(GuidanceError) {
            if dfas[machine] != nil { return }
            guard visiting.insert(machine).inserted else {
                throw GuidanceError(.invalidSchema, path: names[machine], "recursive grammar without a depth bound")
            }
            guard let body = bodies[machine] else {
                throw GuidanceError(.invalidSchema, path: names[machine], "machine has no body")
            }
            if let shared = prebuilt[machine] {
                dfas[machine] = shared
            } else if body.calls.allSatisfy(\.isEmpty) {
                // Byte-only machines (strings, numbers, patterns, enum names) have
                // redundant states from their character paths, so they are
                // minimized; their DFA depends only on the body, so it is kept
                // for the process (number machines cost most of a compile).
                if let known = Self.byteMachines.dfa(for: body) {
                    dfas[machine] = known
                } else {
                    let dfa = Self.minimize(try determinize(body, name: names[machine], callees: dfas))
                    Self.byteMachines.store(dfa, for: body)
                    dfas[machine] = dfa
                }
            } else {
                // Machines with calls are tries of literals around calls and are left as they are.
                for edges in body.calls { for edge in edges { try visit(Int(edge.machine)) } }
                dfas[machine] = try determinize(body, name: names[machine], callees: dfas)
            }
            visiting.remove(machine)
            order.append(machine)
        }
        if bodies.count > 0, root != 0, bodies[0] != nil { try visit(0) }
        try visit(root)

        var offsets = [Int](repeating: -1, count: bodies.count)
        var total = 0
        for machine in order {
            offsets[machine] = total
            total += dfas[machine]!.accepting.count
        }
        var actions = [UInt32](repeating: 0, count: total * 256)
        var accepting = [Bool](repeating: false, count: total)
        var callReturn: [UInt32] = []
        var callFrames: [[UInt32]] = []
        var callIndex: [[UInt32]: Int] = [:]

        func framesAfterFirstByte(_ machine: Int, _ byte: Int) -> [UInt32] {
            let dfa = dfas[machine]!
            for entry in dfa.rows[0] where entry.lo <= byte && byte <= entry.hi {
                switch entry.action {
                case .shift(let target):
                    return [UInt32(offsets[machine] + Int(target))]
                case .call(let callee, let returnTo):
                    return [UInt32(offsets[machine] + Int(returnTo))] + framesAfterFirstByte(Int(callee), byte)
                }
            }
            preconditionFailure("call on a byte the callee cannot start with")
        }

        for machine in order {
            let dfa = dfas[machine]!
            let offset = offsets[machine]
            for (local, row) in dfa.rows.enumerated() {
                let state = offset + local
                accepting[state] = dfa.accepting[local]
                for entry in row {
                    for byte in entry.lo...entry.hi {
                        switch entry.action {
                        case .shift(let target):
                            actions[state << 8 | byte] = UInt32(offset + Int(target) + 1)
                        case .call(let callee, let returnTo):
                            let returnState = UInt32(offset + Int(returnTo))
                            let frames = framesAfterFirstByte(Int(callee), byte)
                            let key = [returnState] + frames
                            let index: Int
                            if let existing = callIndex[key] {
                                index = existing
                            } else {
                                index = callReturn.count
                                callIndex[key] = index
                                callReturn.append(returnState)
                                callFrames.append(frames)
                            }
                            actions[state << 8 | byte] = ByteGrammar.callFlag | UInt32(index)
                        }
                    }
                }
            }
        }

        // The deepest chain of calls bounds the stack.
        var depth = [Int](repeating: 0, count: bodies.count)
        for machine in order {
            var deepest = 0
            for edges in bodies[machine]!.calls { for edge in edges { deepest = max(deepest, depth[Int(edge.machine)]) } }
            depth[machine] = deepest + 1
        }
        precondition(callFrames.allSatisfy { $0.count <= ByteGrammar.maximumFramesPerCall })
        let sharedCount = (order.first == 0) ? dfas[0]!.accepting.count : 0
        return ByteGrammar(actions: actions, accepting: accepting, callReturn: callReturn, callFrames: callFrames,
                           startState: UInt32(offsets[root]), maxStackDepth: depth[root],
                           sharedStringStateCount: sharedCount, machineNames: names)
    }

    /// Merges equivalent states (Moore's partition refinement): states are
    /// equivalent when they agree on accepting and, for every byte, on the
    /// kind of action and the class of its targets. The start state stays 0.
    private static func minimize(_ dfa: MachineDFA) -> MachineDFA {
        let count = dfa.accepting.count
        var classes = dfa.accepting.map { $0 ? 1 : 0 }
        var classCount = Set(classes).count
        // Each round, a state's signature is its class followed by its row in
        // terms of classes (lo, hi, kind, machine, target class per entry,
        // adjacent entries that became equal merged), all in one flat buffer.
        var signature: [Int] = []
        var starts = [Int](repeating: 0, count: count + 1)
        var order = Array(0..<count)
        var next = [Int](repeating: 0, count: count)
        func precedes(_ a: Int, _ b: Int) -> Bool {
            var i = starts[a], j = starts[b]
            let aEnd = starts[a + 1], bEnd = starts[b + 1]
            while i < aEnd && j < bEnd {
                if signature[i] != signature[j] { return signature[i] < signature[j] }
                i += 1
                j += 1
            }
            return aEnd - i < bEnd - j
        }
        while true {
            signature.removeAll(keepingCapacity: true)
            for state in 0..<count {
                starts[state] = signature.count
                signature.append(classes[state])
                var last = -1
                for entry in dfa.rows[state] {
                    let kind: Int, machine: Int, target: Int
                    switch entry.action {
                    case .shift(let next): (kind, machine, target) = (0, 0, classes[Int(next)])
                    case .call(let callee, let returnTo): (kind, machine, target) = (1, Int(callee), classes[Int(returnTo)])
                    }
                    if last >= 0, signature[last + 1] == entry.lo - 1, signature[last + 2] == kind,
                       signature[last + 3] == machine, signature[last + 4] == target {
                        signature[last + 1] = entry.hi
                    } else {
                        last = signature.count
                        signature.append(entry.lo)
                        signature.append(entry.hi)
                        signature.append(kind)
                        signature.append(machine)
                        signature.append(target)
                    }
                }
            }
            starts[count] = signature.count
            // Equal signatures are adjacent once sorted; number the runs.
            order.sort(by: precedes)
            var ids = 0
            for (position, state) in order.enumerated() {
                if position > 0, precedes(order[position - 1], state) { ids += 1 }
                next[state] = ids
            }
            swap(&classes, &next)
            if ids + 1 == classCount { break }
            classCount = ids + 1
        }
        // Number the classes in order of their first state, so the start state stays 0.
        var renumbered = [Int](repeating: -1, count: classCount)
        var assigned = 0
        for state in 0..<count where renumbered[classes[state]] < 0 {
            renumbered[classes[state]] = assigned
            assigned += 1
        }
        for state in 0..<count { classes[state] = renumbered[classes[state]] }
        var result = MachineDFA()
        result.rows = Array(repeating: [], count: classCount)
        result.accepting = Array(repeating: false, count: classCount)
        var done = [Bool](repeating: false, count: classCount)
        for state in 0..<count where !done[classes[state]] {
            let id = classes[state]
            done[id] = true
            result.accepting[id] = dfa.accepting[state]
            var row: [RowEntry] = []
            for entry in dfa.rows[state] {
                let action: Action
                switch entry.action {
                case .shift(let next): action = .shift(Int32(classes[Int(next)]))
                case .call(let machine, let returnTo): action = .call(machine: machine, returnTo: Int32(classes[Int(returnTo)]))
                }
                if let last = row.last, last.hi == entry.lo - 1, last.action == action {
                    row[row.count - 1].hi = entry.hi
                } else {
                    row.append(RowEntry(lo: entry.lo, hi: entry.hi, action: action))
                }
            }
            result.rows[id] = row
        }
        result.firstBytes = dfa.firstBytes
        result.firstBoundaries = dfa.firstBoundaries
        return result
    }

    private func determinize(_ nfa: ByteNFA, name: String, callees: [MachineDFA?]) throws(GuidanceError) -> MachineDFA {
        // Epsilon closure with a stamped visited array (no hashing).
        var stamp = [Int32](repeating: -1, count: nfa.stateCount)
        var round: Int32 = 0
        func closure(_ seeds: [Int32]) -> [Int32] {
            round += 1
            var members: [Int32] = []
            var stack: [Int32] = []
            for seed in seeds where stamp[Int(seed)] != round {
                stamp[Int(seed)] = round
                stack.append(seed)
            }
            while let state = stack.popLast() {
                members.append(state)
                for next in nfa.epsilons[Int(state)] where stamp[Int(next)] != round {
                    stamp[Int(next)] = round
                    stack.append(next)
                }
            }
            // Only states with edges or the final state tell sets apart.
            return members.filter { state in
                Int(state) == nfa.final || !nfa.byteEdges[Int(state)].isEmpty || !nfa.calls[Int(state)].isEmpty
            }.sorted()
        }

        var dfa = MachineDFA()
        var index: [[Int32]: Int32] = [:]
        var sets: [[Int32]] = []
        func intern(_ set: [Int32]) -> Int32 {
            if let id = index[set] { return id }
            let id = Int32(sets.count)
            index[set] = id
            sets.append(set)
            return id
        }
        _ = intern(closure([Int32(nfa.start)]))

        var isBoundary = [Bool](repeating: false, count: 257)
        var points: [Int] = []
        var edges: [ByteNFA.ByteEdge] = []
        var calls: [ByteNFA.CallEdge] = []
        var next = 0
        while next < sets.count {
            let members = sets[next]
            next += 1
            // Where the outgoing byte ranges start or end, as a 257-entry flag array.
            for index in isBoundary.indices { isBoundary[index] = false }
            isBoundary[0] = true
            isBoundary[256] = true
            edges.removeAll(keepingCapacity: true)
            calls.removeAll(keepingCapacity: true)
            for state in members {
                for edge in nfa.byteEdges[Int(state)] {
                    edges.append(edge)
                    isBoundary[Int(edge.lo)] = true
                    isBoundary[Int(edge.hi) + 1] = true
                }
                for call in nfa.calls[Int(state)] {
                    calls.append(call)
                    for boundary in callees[Int(call.machine)]!.firstBoundaries { isBoundary[boundary] = true }
                }
            }
            points.removeAll(keepingCapacity: true)
            for index in isBoundary.indices where isBoundary[index] { points.append(index) }
            var row: [RowEntry] = []
            for (lo, end) in zip(points, points.dropFirst()) {
                var targets: [Int32] = []
                for edge in edges where Int(edge.lo) <= lo && lo <= Int(edge.hi) { targets.append(edge.to) }
                var calledMachine: Int32? = nil
                var returns: [Int32] = []
                for call in calls where callees[Int(call.machine)]!.firstBytes[lo] {
                    if let calledMachine, calledMachine != call.machine {
                        throw GuidanceError(.invalidSchema, path: name,
                                            "two values can start with byte \(lo); the grammar would be ambiguous")
                    }
                    calledMachine = call.machine
                    returns.append(call.to)
                }
                let action: Action
                if let calledMachine {
                    guard targets.isEmpty else {
                        throw GuidanceError(.invalidSchema, path: name,
                                            "a value and a literal can both start with byte \(lo); the grammar would be ambiguous")
                    }
                    action = .call(machine: calledMachine, returnTo: intern(closure(returns)))
                } else if !targets.isEmpty {
                    action = .shift(intern(closure(targets)))
                } else {
                    continue
                }
                if let last = row.last, last.hi == lo - 1, last.action == action {
                    row[row.count - 1].hi = end - 1
                } else {
                    row.append(RowEntry(lo: lo, hi: end - 1, action: action))
                }
            }
            dfa.rows.append(row)
            dfa.accepting.append(members.contains(Int32(nfa.final)))
        }
        if dfa.accepting[0] {
            throw GuidanceError(.invalidSchema, path: name, "a value may not be empty")
        }
        for entry in dfa.rows[0] {
            for byte in entry.lo...entry.hi { dfa.firstBytes[byte] = true }
            dfa.firstBoundaries += [entry.lo, entry.hi + 1]
        }
        return dfa
    }
}

extension ByteGrammar {
    /// Forgets every per-process compile cache, so the next compile is cold (`fmplay bench-guidance --cold`).
    public static func clearCompileCaches() { GrammarBuilder.clearByteMachineCache() }
}
