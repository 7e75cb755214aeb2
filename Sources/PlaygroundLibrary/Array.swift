import FoundationModelsRuntime
import PromptInterpreter
import SwiftSyntax

/// The `Array` entries of `Surface.table` (Table/Swift.swift).
extension Builtins {
    static let arrayBuiltins: [String: Builtin] = arrayQueries.merging(arrayMutations) { a, _ in a }

    static let arrayQueries: [String: Builtin] = [
        "Array.init()": constant(.array([])),
        "Array.init(_:)": { i, c in
            guard let source = try await c.arguments(i).unlabelled.first else { return .array([]) }
            switch source {
            case .array(let items): return .array(items)
            case .range(let lower, let upper, let closed):
                let count = try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.rangeCount(lower, upper, closed: closed) }
                try i.budget.allocate(elements: count, c.node)
                return .array((0..<count).map { .int(lower + $0) })
            case .string(let s): return .array(s.map { .string(String($0)) })
            case .dictionary(let pairs): return .array(pairs.map { .tuple([(label: "key", value: $0.key), (label: "value", value: $0.value)]) })
            case .content(let c) where c.arrayValue != nil: return .array(c.arrayValue!.map(Value.content))
            case .set(let items): return .array(items)
            case .transcript(let t): return .array(t.map(Value.transcriptEntry))
            default: throw i.error("Array(...) needs an array, a range, a string, a dictionary, a set or a transcript", c.node)
            }
        },
        "Array.init(repeating:count:)": { i, c in
            let args = try await c.arguments(i)
            let given = try i.intArgument(args.value("count"), "Array(repeating:count:)", c.node)
            let count = try i.checked(c.node) { () throws(Arithmetic.Failure) in
                try Arithmetic.count(given, Arithmetic.negativeCountMessages["Array(repeating:count:)"]!)
            }
            try i.budget.allocate(elements: count, c.node)
            return .array(Array(repeating: args.value("repeating") ?? .null, count: count))
        },
        "Array.count": on(array) { _, a, _ in .int(a.count) },
        "Array.isEmpty": on(array) { _, a, _ in .bool(a.isEmpty) },
        "Array.first": on(array) { _, a, _ in a.first ?? .null },
        "Array.last": on(array) { _, a, _ in a.last ?? .null },
        "Array.description": describe,
        "Array.joined(separator:)": joined,
        "Array.contains(_:)": on(array) { i, a, c in
            let needle = try await c.arguments(i).unlabelled.first ?? .null
            if needle.isContainer { try i.budget.value(.array(a), c.node, rendered: true) }  // comparing walks both
            return .bool(a.contains { Value.equal($0, needle) })
        },
        "Array.enumerated()": on(array) { _, a, _ in
            .array(a.enumerated().map { .tuple([(label: "offset", value: .int($0.offset)), (label: "element", value: $0.element)]) })
        },
        "Array.reversed()": on(array) { _, a, _ in .array(a.reversed()) },
        "Array.sorted()": sortedElements,
        "Array.prefix(_:)": on(array) { i, a, c in .array(Array(a.prefix(try await countArgument(i, c, nil)))) },
        "Array.suffix(_:)": on(array) { i, a, c in .array(Array(a.suffix(try await countArgument(i, c, nil)))) },
        "Array.dropFirst(_:)": on(array) { i, a, c in .array(Array(a.dropFirst(try await countArgument(i, c, 1)))) },
        "Array.dropLast(_:)": on(array) { i, a, c in .array(Array(a.dropLast(try await countArgument(i, c, 1)))) },
        "Array.randomElement()": on(array) { _, a, _ in a.first ?? .null },
        "Array.max()": maxElement,
        "Array.min()": minElement,
        "Array.firstIndex(of:)": on(array) { i, a, c in
            let needle = try await c.arguments(i).value("of") ?? .null
            if needle.isContainer { try i.budget.value(.array(a), c.node, rendered: true) }
            return a.firstIndex { Value.equal($0, needle) }.map(Value.int) ?? .null
        },
        "Array.lastIndex(of:)": on(array) { i, a, c in
            let needle = try await c.arguments(i).value("of") ?? .null
            if needle.isContainer { try i.budget.value(.array(a), c.node, rendered: true) }
            return a.lastIndex { Value.equal($0, needle) }.map(Value.int) ?? .null
        },
        "Array.indices": on(array) { _, a, _ in .range(lower: 0, upper: a.count, closed: false) },
        "Array.lazy": on(array) { _, a, _ in .array(a) },
        "Array.split(separator:)": on(array) { i, a, c in
            let separator = try await c.arguments(i).value("separator") ?? .null
            return .array(a.split { Value.equal($0, separator) }.map { .array(Array($0)) })
        },
        "Array.map(_:)": map,
        "Array.filter(_:)": filter,
        "Array.compactMap(_:)": compactMap,
        "Array.flatMap(_:)": flatMap,
        "Array.forEach(_:)": forEach,
        "Array.sorted(by:)": sortedElements,
        "Array.reduce(_:_:)": reduce,
        "Array.reduce(into:_:)": reduceInto,
        "Array.first(where:)": firstWhere,
        "Array.last(where:)": lastWhere,
        "Array.firstIndex(where:)": firstIndexWhere,
        "Array.lastIndex(where:)": lastIndexWhere,
        "Array.contains(where:)": containsWhere,
        "Array.allSatisfy(_:)": allSatisfy,
        "Array.min(by:)": minElement,
        "Array.max(by:)": maxElement,
        "Array.count(where:)": countWhere,
        "Array.prefix(while:)": prefixWhile,
        "Array.drop(while:)": dropWhile,
        "Array.shuffled()": shuffled,
    ]

    /// What a collection prompt code can change in place is made of: its elements as values, one argument checked as an
    /// element, and the collection rebuilt from elements. Array and 27.0's Transcript (RangeReplaceableCollection) share
    /// one implementation of each mutation (`collectionMutations`).
    struct MutableCollection: Sendable {
        var elements: @Sendable (Value) -> [Value]?
        var element: @Sendable (Interpreter, Value?, BuiltinCall) throws -> Value
        var rebuild: @Sendable ([Value]) -> Value
    }

    /// `append(_:)`, `append(contentsOf:)`, `insert(_:at:)`, `remove(at:)`, `removeFirst()`, `removeLast()`, `removeAll()`,
    /// `removeSubrange(_:)` of `owner`, with Swift's checks (indexes through `Arithmetic`, an empty collection's removals); the changed
    /// collection is written back to the place it was read from (a variable, a property, a session's transcript).
    static func collectionMutations(_ owner: String, _ kind: MutableCollection) -> [String: Builtin] {
        func mutate(_ body: @escaping @Sendable (Interpreter, inout [Value], Arguments, BuiltinCall) async throws -> Value) -> Builtin {
            on(kind.elements) { i, elements, c in
                var elements = elements
                let result = try await body(i, &elements, try await c.arguments(i), c)
                guard let place = c.baseExpr else { throw i.error("\(c.entry.selector) changes a collection stored in a variable or property", c.node) }
                try await i.assign(to: place, kind.rebuild(elements))
                return result
            }
        }
        return [
            "\(owner).append(_:)": mutate { i, elements, args, c in
                try add(i, [try kind.element(i, args.unlabelled.first, c)], to: &elements, c)
                return .null
            },
            "\(owner).append(contentsOf:)": mutate { i, elements, args, c in
                let items = try (args.value("contentsOf").map { try i.sequenceElements($0, c.node) } ?? []).map { try kind.element(i, $0, c) }
                try add(i, items, to: &elements, c)
                return .null
            },
            "\(owner).insert(_:at:)": mutate { i, elements, args, c in
                let item = try kind.element(i, args.unlabelled.first, c)
                try add(i, [item], to: &elements, at: try i.intArgument(args.value("at"), "insert(_:at:)", c.node), c)
                return .null
            },
            "\(owner).remove(at:)": mutate { i, elements, args, c in
                let index = try i.intArgument(args.value("at"), "remove(at:)", c.node)
                let count = elements.count
                return elements.remove(at: try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.index(index, count: count) })
            },
            "\(owner).removeFirst()": mutate { i, elements, _, c in
                guard !elements.isEmpty else { throw i.error("can't remove first element from an empty collection", c.node) }
                return elements.removeFirst()
            },
            "\(owner).removeLast()": mutate { i, elements, _, c in
                guard !elements.isEmpty else { throw i.error("can't remove last element from an empty collection", c.node) }
                return elements.removeLast()
            },
            "\(owner).removeAll()": mutate { _, elements, _, _ in
                elements.removeAll()
                return .null
            },
            "\(owner).removeSubrange(_:)": mutate { i, elements, args, c in
                elements.removeSubrange(try subrange(i, args.unlabelled.first, count: elements.count, c))
                return .null
            },
        ]
    }

    /// `removeSubrange(a..<b)` / `(a...b)`: positions within 0...count, as Swift checks them.
    private static func subrange(_ i: Interpreter, _ value: Value?, count: Int, _ c: BuiltinCall) throws -> Range<Int> {
        guard case .range(let lower, let upper, let closed)? = value else {
            throw i.error("removeSubrange takes a range of positions, such as 1..<3", c.node)
        }
        guard lower >= 0, !(closed && upper == Int.max) else {
            throw i.error("Range \(lower)\(closed ? "..." : "..<")\(upper) out of bounds for a collection of \(count) elements", c.node)
        }
        let end = closed ? upper + 1 : upper
        guard lower <= end, end <= count else {
            throw i.error("Range \(lower)\(closed ? "..." : "..<")\(upper) out of bounds for a collection of \(count) elements", c.node)
        }
        return lower..<end
    }

    /// Inserts items at an index (Swift's insertion-index check), or appends them, within the evaluation's budget.
    private static func add(_ i: Interpreter, _ items: [Value], to elements: inout [Value], at index: Int? = nil, _ c: BuiltinCall) throws {
        for item in items where item.isContainer { try i.budget.value(item, c.node) }
        try i.budget.allocate(elements: elements.count + items.count, c.node)
        let count = elements.count
        let position = try index.map { index in try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.insertionIndex(index, count: count) } }
        elements.insert(contentsOf: items, at: position ?? count)
    }

    static let arrayMutations: [String: Builtin] = collectionMutations("Array", MutableCollection(
        elements: array, element: { _, value, _ in value ?? .null }, rebuild: { .array($0) }
    )).merging([
        "Array.removeFirst(_:)": on(array) { i, a, c in
            let k = try await removalCount(i, a, c, "removeFirst")
            try await i.assign(to: c.baseExpr!, .array(Array(a.dropFirst(k))))
            return .null
        },
        "Array.removeLast(_:)": on(array) { i, a, c in
            let k = try await removalCount(i, a, c, "removeLast")
            try await i.assign(to: c.baseExpr!, .array(Array(a.dropLast(k))))
            return .null
        },
        "Array.removeAll()": on(array) { i, _, c in
            try await i.assign(to: c.baseExpr!, .array([]))
            return .null
        },
        "Array.removeAll(where:)": removeAllWhere,
        "Array.sort()": sortInPlace,
        "Array.sort(by:)": sortInPlace,
        "Array.shuffle()": on(array) { i, a, c in
            var a = a
            a.shuffle(using: &i.random)
            try await i.assign(to: c.baseExpr!, .array(a))
            return .null
        },
        "Array.popLast()": on(array) { i, a, c in
            guard let last = a.last else { return .null }
            try await i.assign(to: c.baseExpr!, .array(Array(a.dropLast())))
            return last
        },
        "Array.swapAt(_:_:)": on(array) { i, a, c in
            var a = a
            let args = try await c.arguments(i).unlabelled
            guard args.count == 2, case .int(let x) = args[0], case .int(let y) = args[1], a.indices.contains(x), a.indices.contains(y) else {
                throw i.error("swapAt needs two valid indexes", c.node)
            }
            a.swapAt(x, y)
            try await i.assign(to: c.baseExpr!, .array(a))
            return .null
        },
    ]) { a, _ in a }
}

/// `removeFirst(k)`/`removeLast(k)`: Swift's checks on the count.
private func removalCount(_ i: Interpreter, _ a: [Value], _ c: BuiltinCall, _ name: String) async throws -> Int {
    guard case .int(let k)? = try await c.arguments(i).unlabelled.first else { throw i.error("\(name)(_:) needs a count, such as \(name)(2)", c.node) }
    guard k >= 0 else { throw i.error("number of elements to remove should be non-negative, not \(k)", c.node) }
    guard k <= a.count else { throw i.error("can't remove \(k) elements from a collection of \(a.count)", c.node) }
    return k
}
