/// A nondeterministic automaton over bytes under construction: the body of one
/// grammar machine. Besides byte-range edges and epsilon edges it has call
/// edges ("match a whole value of machine M, then continue at `to`"), which is
/// how nested and recursive values are expressed without inlining them.
///
/// Builders thread states: `literal(bytes, from:)` returns the state reached
/// after the bytes. Loops always get fresh states, so branches that share a
/// `from` state never see each other's back edges.
struct ByteNFA: Hashable {
    struct ByteEdge: Hashable {
        var lo: UInt8
        var hi: UInt8
        var to: Int32
    }

    struct CallEdge: Hashable {
        var machine: Int32
        var to: Int32
    }

    private(set) var byteEdges: [[ByteEdge]] = []
    private(set) var epsilons: [[Int32]] = []
    private(set) var calls: [[CallEdge]] = []
    /// The state where matching starts.
    let start: Int
    /// The single accepting state; builders connect to it with `accept(from:)`.
    let final: Int

    init() {
        start = 0
        final = 1
        _ = addState()
        _ = addState()
    }

    var stateCount: Int { byteEdges.count }

    mutating func addState() -> Int {
        byteEdges.append([])
        epsilons.append([])
        calls.append([])
        return byteEdges.count - 1
    }

    mutating func addBytes(from: Int, _ lo: UInt8, _ hi: UInt8, to: Int) {
        byteEdges[from].append(ByteEdge(lo: lo, hi: hi, to: Int32(to)))
    }

    mutating func addEpsilon(from: Int, to: Int) {
        epsilons[from].append(Int32(to))
    }

    mutating func addCall(from: Int, machine: Int, to: Int) {
        calls[from].append(CallEdge(machine: Int32(machine), to: Int32(to)))
    }

    mutating func accept(from: Int) {
        addEpsilon(from: from, to: final)
    }

    // MARK: Builders

    /// Matches exactly `bytes`.
    mutating func literal(_ bytes: some Sequence<UInt8>, from: Int) -> Int {
        var current = from
        for byte in bytes {
            let next = addState()
            addBytes(from: current, byte, byte, to: next)
            current = next
        }
        return current
    }

    /// Matches one byte in any of `ranges`.
    mutating func byteSet(_ ranges: [ClosedRange<UInt8>], from: Int) -> Int {
        let next = addState()
        for range in ranges { addBytes(from: from, range.lowerBound, range.upperBound, to: next) }
        return next
    }

    /// Matches a whole value of `machine`.
    mutating func call(_ machine: Int, from: Int) -> Int {
        let next = addState()
        addCall(from: from, machine: machine, to: next)
        return next
    }

    /// Matches one of the alternatives; each builds from the given state and
    /// returns its end.
    mutating func choice(from: Int, _ branches: [(inout ByteNFA, Int) -> Int]) -> Int {
        let end = addState()
        for branch in branches {
            let branchEnd = branch(&self, from)
            addEpsilon(from: branchEnd, to: end)
        }
        return end
    }

    /// Matches the body zero or one time.
    mutating func optional(from: Int, _ body: (inout ByteNFA, Int) -> Int) -> Int {
        let end = body(&self, from)
        addEpsilon(from: from, to: end)
        return end
    }

    /// Matches the body zero or more times.
    mutating func star(from: Int, _ body: (inout ByteNFA, Int) -> Int) -> Int {
        let loop = addState()
        addEpsilon(from: from, to: loop)
        let bodyEnd = body(&self, loop)
        addEpsilon(from: bodyEnd, to: loop)
        return loop
    }

    /// Matches the body `minimum...maximum` times (`maximum` nil: unbounded).
    mutating func repeated(from: Int, minimum: Int, maximum: Int?, _ body: (inout ByteNFA, Int) -> Int) -> Int {
        var current = from
        for _ in 0..<minimum { current = body(&self, current) }
        guard let maximum else { return star(from: current, body) }
        let end = addState()
        addEpsilon(from: current, to: end)
        for _ in minimum..<max(minimum, maximum) {
            current = body(&self, current)
            addEpsilon(from: current, to: end)
        }
        return end
    }
}
