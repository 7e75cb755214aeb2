/// The automata steps of the builder: subset construction per machine, then minimization.
extension GrammarBuilder {
    /// Merges equivalent states (Moore's partition refinement): states are
    /// equivalent when they agree on accepting and, for every byte, on the
    /// kind of action and the class of its targets. The start state stays 0.
    static func minimize(_ dfa: MachineDFA) -> MachineDFA {
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
        return merged(dfa, classes: classes, classCount: classCount)
    }

    /// The DFA with one state per class: classes numbered in order of their first state (so the start
    /// state stays 0), rows rewritten in classes, adjacent equal entries joined.
    private static func merged(_ dfa: MachineDFA, classes given: [Int], classCount: Int) -> MachineDFA {
        let count = dfa.accepting.count
        var classes = given
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

    /// The byte edges and calls leaving a set of NFA states, and where their byte ranges (a callee's: the
    /// bytes it can start with) start or end: `points`, ascending, with 0 and 256 (buffers reused).
    private static func outgoing(of members: [Int32], in nfa: ByteNFA, callees: [MachineDFA?], edges: inout [ByteNFA.ByteEdge],
                                 calls: inout [ByteNFA.CallEdge], isBoundary: inout [Bool], points: inout [Int]) {
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
    }

    func determinize(_ nfa: ByteNFA, name: String, callees: [MachineDFA?]) throws(GuidanceError) -> MachineDFA {
        var epsilon = EpsilonClosure(nfa)
        func closure(_ seeds: [Int32]) -> [Int32] { epsilon.closure(of: seeds) }

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
            Self.outgoing(of: members, in: nfa, callees: callees, edges: &edges, calls: &calls, isBoundary: &isBoundary, points: &points)
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
        dfa.recordFirstBytes()
        return dfa
    }
}

/// Epsilon closures over one NFA, with a stamped visited array (no hashing).
struct EpsilonClosure {
    let nfa: ByteNFA
    private var stamp: [Int32]
    private var round: Int32 = 0

    init(_ nfa: ByteNFA) {
        self.nfa = nfa
        stamp = [Int32](repeating: -1, count: nfa.stateCount)
    }

    /// The states reachable from `seeds` by epsilons that tell sets apart (those with edges, and the
    /// final state), sorted.
    mutating func closure(of seeds: [Int32]) -> [Int32] {
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
        return members.filter { state in
            Int(state) == nfa.final || !nfa.byteEdges[Int(state)].isEmpty || !nfa.calls[Int(state)].isEmpty
        }.sorted()
    }
}

extension GrammarBuilder.MachineDFA {
    /// The bytes the machine can start with, and where that set changes (callers decide calls by them).
    mutating func recordFirstBytes() {
        for entry in rows[0] {
            for byte in entry.lo...entry.hi { firstBytes[byte] = true }
            firstBoundaries += [entry.lo, entry.hi + 1]
        }
    }
}
