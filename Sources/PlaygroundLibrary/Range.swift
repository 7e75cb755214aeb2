import PromptInterpreter

/// The `Range` entries of `Surface.table` (Table/Swift.swift): `a..<b` and `a...b`. Integer ranges are
/// sequences (their closure algorithms are the shared ones of `Sequence.swift`); a `Double` range
/// answers its bounds, `contains(_:)` and `description`.
extension Builtins {
    static let intRange: @Sendable (Value) -> (lower: Int, upper: Int, closed: Bool)? = {
        if case .range(let lower, let upper, let closed) = $0 { (lower, upper, closed) } else { nil }
    }

    static let rangeBuiltins: [String: Builtin] = [
        "Range.description": describe,
        "Range.lowerBound": { i, c in
            switch c.base {
            case .range(let lower, _, _): .int(lower)
            case .doubleRange(let lower, _, _): .double(lower)
            default: throw i.error("'lowerBound' is not available on \(c.base.description.prefix(40))", c.node)
            }
        },
        "Range.upperBound": { i, c in
            switch c.base {
            case .range(_, let upper, _): .int(upper)
            case .doubleRange(_, let upper, _): .double(upper)
            default: throw i.error("'upperBound' is not available on \(c.base.description.prefix(40))", c.node)
            }
        },
        "Range.count": on(intRange) { i, r, c in
            .int(try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.rangeCount(r.lower, r.upper, closed: r.closed) })
        },
        "Range.isEmpty": on(intRange) { _, r, _ in .bool(!r.closed && r.upper == r.lower) },
        "Range.contains(_:)": { i, c in
            guard let needle = try await c.arguments(i).unlabelled.first else { throw i.error("contains needs a value", c.node) }
            switch c.base {
            case .range(let lower, let upper, let closed):
                guard case .int(let n) = needle else { return .bool(false) }  // an integer range holds only integers
                return .bool(Arithmetic.contains(lower, upper, closed: closed, n))
            case .doubleRange(let lower, let upper, let closed):
                guard let d = needle.number else { throw i.error("contains needs a number", c.node) }
                return .bool(lower <= d && (closed ? d <= upper : d < upper))
            default:
                throw i.error("'contains(_:)' is not available on \(c.base.description.prefix(40))", c.node)
            }
        },
        "Range.reversed()": reversedElements,
        "Range.map(_:)": map,
        "Range.filter(_:)": filter,
        "Range.compactMap(_:)": compactMap,
        "Range.forEach(_:)": forEach,
        "Range.reduce(_:_:)": reduce,
        "Range.contains(where:)": containsWhere,
        "Range.allSatisfy(_:)": allSatisfy,
        "Range.first(where:)": firstWhere,
        "Range.shuffled()": shuffled,
        "Range.randomElement()": randomElement,
        "Range.enumerated()": enumerated,
    ]
}
