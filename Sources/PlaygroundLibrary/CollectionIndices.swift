import FoundationModelsRuntime
import PromptInterpreter

/// Collection index APIs of Array and of Transcript (27: a RangeReplaceableCollection; a history is an array of
/// entries in prompt files): `startIndex`, `endIndex`, `index(before:)`, `index(after:)`, and a range's `first`/`last`
/// (`history.indices.last`). Integer indices, as Array and Transcript have; `removeSubrange(_:)` is one of
/// `collectionMutations` (Array.swift).
extension Builtins {
    static let collectionIndexBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "Range.first": on(intRange) { i, r, c in
                try rangeIsEmpty(i, r, c) ? .null : .int(r.lower)
            },
            "Range.last": on(intRange) { i, r, c in
                try rangeIsEmpty(i, r, c) ? .null : .int(r.closed ? r.upper : r.upper - 1)
            },
        ]
        // An array's elements or a transcript's entries, with a way to write the changed elements back.
        let owners: [(name: String, count: @Sendable (Value) -> Int?)] = [
            ("Array", { if case .array(let a) = $0 { a.count } else { nil } }),
            ("Transcript", { if case .transcript(let t) = $0 { t.count } else { nil } }),
        ]
        for owner in owners {
            let count = owner.count
            all[owner.name + ".startIndex"] = on(count) { _, _, _ in .int(0) }
            all[owner.name + ".endIndex"] = on(count) { _, n, _ in .int(n) }
            all[owner.name + ".index(before:)"] = on(count) { i, _, c in
                let index = try i.intArgument(try await c.arguments(i).value("before"), "index(before:)", c.node)
                guard index > Int.min else { throw i.error("index(before:) of Int.min overflows", c.node) }
                return .int(index - 1)
            }
            all[owner.name + ".index(after:)"] = on(count) { i, _, c in
                let index = try i.intArgument(try await c.arguments(i).value("after"), "index(after:)", c.node)
                guard index < Int.max else { throw i.error("index(after:) of Int.max overflows", c.node) }
                return .int(index + 1)
            }
        }
        all["Transcript.indices"] = on(transcript) { _, t, _ in .range(lower: 0, upper: t.count, closed: false) }
        return all
    }()

    private static func rangeIsEmpty(_ i: Interpreter, _ r: (lower: Int, upper: Int, closed: Bool), _ c: BuiltinCall) throws -> Bool {
        try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.rangeCount(r.lower, r.upper, closed: r.closed) } == 0
    }
}
