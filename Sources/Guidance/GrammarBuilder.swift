#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds a `ByteGrammar` from machine bodies: determinizes each machine
/// (subset construction over byte ranges, with calls decided by the callee's
/// first byte) and lays the states out in flat tables.
struct GrammarBuilder {
    var bodies: [ByteNFA?] = []
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

    var prebuilt: [Int: MachineDFA] = [:]

    private static let sharedString: (body: ByteNFA, dfa: MachineDFA) = {
        var string = ByteNFA()
        let open = string.literal([0x22], from: string.start)
        let content = string.star(from: open) { nfa, from in nfa.anyJSONStringCharacter(from: from) }
        string.accept(from: string.literal([0x22], from: content))
        let dfa = try! GrammarBuilder().determinize(string, name: "String", callees: [])
        return (string, minimize(dfa))
    }()

    /// Minimized DFAs of byte-only machines built in this process, by body.
    static let byteMachines = ByteMachineCache()

    /// Forgets the byte-only machines built so far (benchmarks measure cold compiles with it).
    static func clearByteMachineCache() { byteMachines.removeAll() }

    final class ByteMachineCache: @unchecked Sendable {
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

    enum Action: Equatable {
        case shift(Int32)
        case call(machine: Int32, returnTo: Int32)
    }

    struct RowEntry {
        var lo: Int
        var hi: Int
        var action: Action
    }

    struct MachineDFA {
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
        let (dfas, order) = try machines(reachableFrom: root)
        return layOut(dfas, order: order, root: root)
    }

    /// The DFA of every machine reachable from `root`, callees before callers (the order of the layout).
    private func machines(reachableFrom root: Int) throws(GuidanceError) -> (dfas: [MachineDFA?], order: [Int]) {
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
        return (dfas, order)
    }

    /// All machines in one table: `state*256+byte` -> shift (target + 1) or call (`callFlag | index` into the
    /// call frames: the return state, then the states after the callee's first byte, callee by callee).
    private func layOut(_ dfas: [MachineDFA?], order: [Int], root: Int) -> ByteGrammar {
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
}

extension ByteGrammar {
    /// Forgets the process-wide byte-machine DFAs (number, pattern and enum machines), so the next compile is
    /// cold (`fmplay bench-guidance --cold`).
    public static func clearCompileCaches() { GrammarBuilder.clearByteMachineCache() }
}
