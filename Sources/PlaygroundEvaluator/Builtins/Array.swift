import FoundationModelsRuntime
import SwiftSyntax

/// The `Array` entries of `Surface.table` (Table/Swift.swift).
extension Builtins {
    static let arrayBuiltins: [String: Builtin] = arrayQueries.merging(arrayMutations) { a, _ in a }

    /// The count argument of `prefix`/`suffix`/`dropFirst`/`dropLast`: an Int, never negative.
    private static func count(_ i: Interpreter, _ c: BuiltinCall, _ fallback: Int?) async throws -> Int {
        try i.countArgument(c.entry.name, try await c.arguments(i), default: fallback, c.callNode)
    }

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
            default: throw i.error("Array(...) needs an array, a range, a string or a dictionary", c.node)
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
        "Array.joined(separator:)": on(array) { i, a, c in
            let separator = try await c.arguments(i).value("separator")?.stringValue ?? ""
            for value in a where value.isContainer { try i.budget.value(value, c.node, rendered: true) }
            let parts = a.map(\.description)
            try i.budget.string(bytes: parts.reduce(0) { $0 + $1.utf8.count + separator.utf8.count }, c.node)
            return .string(parts.joined(separator: separator))
        },
        "Array.contains(_:)": on(array) { i, a, c in
            let needle = try await c.arguments(i).unlabelled.first ?? .null
            if needle.isContainer { try i.budget.value(.array(a), c.node, rendered: true) }  // comparing walks both
            return .bool(a.contains { Value.equal($0, needle) })
        },
        "Array.enumerated()": on(array) { _, a, _ in
            .array(a.enumerated().map { .tuple([(label: "offset", value: .int($0.offset)), (label: "element", value: $0.element)]) })
        },
        "Array.reversed()": on(array) { _, a, _ in .array(a.reversed()) },
        "Array.sorted()": on(array) { _, a, _ in
            // Cancellation is checked while sorting: a million elements take long in a debug build.
            .array(try a.sorted { try Task.checkCancellation(); return (Value.compare($0, $1) ?? 0) < 0 })
        },
        "Array.prefix(_:)": on(array) { i, a, c in .array(Array(a.prefix(try await count(i, c, nil)))) },
        "Array.suffix(_:)": on(array) { i, a, c in .array(Array(a.suffix(try await count(i, c, nil)))) },
        "Array.dropFirst(_:)": on(array) { i, a, c in .array(Array(a.dropFirst(try await count(i, c, 1)))) },
        "Array.dropLast(_:)": on(array) { i, a, c in .array(Array(a.dropLast(try await count(i, c, 1)))) },
        "Array.randomElement()": on(array) { _, a, _ in a.first ?? .null },
        "Array.max()": on(array) { _, a, _ in a.max { (Value.compare($0, $1) ?? 0) < 0 } ?? .null },
        "Array.min()": on(array) { _, a, _ in a.min { (Value.compare($0, $1) ?? 0) < 0 } ?? .null },
        "Array.firstIndex(of:)": on(array) { i, a, c in
            let needle = try await c.arguments(i).value("of") ?? .null
            if needle.isContainer { try i.budget.value(.array(a), c.node, rendered: true) }
            return a.firstIndex { Value.equal($0, needle) }.map(Value.int) ?? .null
        },
        "Array.map(_:)": on(array) { i, a, c in try await i.applyPerElement("map", a, c.callNode) },
        "Array.filter(_:)": on(array) { i, a, c in try await i.applyPerElement("filter", a, c.callNode) },
        "Array.compactMap(_:)": on(array) { i, a, c in try await i.applyPerElement("compactMap", a, c.callNode) },
        "Array.forEach(_:)": on(array) { i, a, c in try await i.applyPerElement("forEach", a, c.callNode) },
    ]

    static let arrayMutations: [String: Builtin] = [
        "Array.append(_:)": on(array) { i, a, c in
            let item = try await c.arguments(i).unlabelled.first ?? .null
            if item.isContainer { try i.budget.value(item, c.node) }
            try i.budget.allocate(elements: a.count + 1, c.node)
            try await i.assign(to: c.baseExpr!, .array(a + [item]))
            return .null
        },
        "Array.append(contentsOf:)": on(array) { i, a, c in
            guard case .array(let items)? = try await c.arguments(i).value("contentsOf") else { throw i.error("append(contentsOf:) needs an array", c.node) }
            try i.budget.allocate(elements: a.count + items.count, c.node)
            try await i.assign(to: c.baseExpr!, .array(a + items))
            return .null
        },
        "Array.insert(_:at:)": on(array) { i, a, c in
            var a = a
            let args = try await c.arguments(i)
            guard let item = args.unlabelled.first, case .int(let index)? = args.value("at") else { throw i.error("insert needs a value and at: index", c.node) }
            if item.isContainer { try i.budget.value(item, c.node) }
            try i.budget.allocate(elements: a.count + 1, c.node)
            a.insert(item, at: try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.insertionIndex(index, count: a.count) })
            try await i.assign(to: c.baseExpr!, .array(a))
            return .null
        },
        "Array.remove(at:)": on(array) { i, a, c in
            var a = a
            guard case .int(let index)? = try await c.arguments(i).value("at") else { throw i.error("remove needs at: index", c.node) }
            let removed = a.remove(at: try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.index(index, count: a.count) })
            try await i.assign(to: c.baseExpr!, .array(a))
            return removed
        },
        "Array.removeFirst()": on(array) { i, a, c in
            guard let first = a.first else { throw i.error("can't remove first element from an empty collection", c.node) }
            try await i.assign(to: c.baseExpr!, .array(Array(a.dropFirst())))
            return first
        },
        "Array.removeLast()": on(array) { i, a, c in
            guard let last = a.last else { throw i.error("can't remove last element from an empty collection", c.node) }
            try await i.assign(to: c.baseExpr!, .array(Array(a.dropLast())))
            return last
        },
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
    ]
}

/// `removeFirst(k)`/`removeLast(k)`: Swift's checks on the count.
private func removalCount(_ i: Interpreter, _ a: [Value], _ c: BuiltinCall, _ name: String) async throws -> Int {
    guard case .int(let k)? = try await c.arguments(i).unlabelled.first else { throw i.error("\(name)(_:) needs a count, such as \(name)(2)", c.node) }
    guard k >= 0 else { throw i.error("number of elements to remove should be non-negative, not \(k)", c.node) }
    guard k <= a.count else { throw i.error("can't remove \(k) elements from a collection of \(a.count)", c.node) }
    return k
}

extension Interpreter {
    /// `map`, `filter`, `compactMap`, `forEach`: the closure (trailing or the argument) per element.
    func applyPerElement(_ name: String, _ elements: [Value], _ e: FunctionCallExprSyntax) async throws -> Value {
        guard let closure = e.trailingClosure ?? e.arguments.first.flatMap({ $0.expression.as(ClosureExprSyntax.self) }) else {
            throw error("\(name) needs a closure", e)
        }
        var results: [Value] = []
        for element in elements {
            let result = try await apply(closure, [element])
            switch name {
            case "filter": if case .bool(true) = result { results.append(element) }
            case "compactMap": if !result.isNull { results.append(result) }
            default: results.append(result)
            }
        }
        return name == "forEach" ? .null : .array(results)
    }
}
