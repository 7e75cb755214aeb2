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
    ]
}

/// `removeFirst(k)`/`removeLast(k)`: Swift's checks on the count.
private func removalCount(_ i: Interpreter, _ a: [Value], _ c: BuiltinCall, _ name: String) async throws -> Int {
    guard case .int(let k)? = try await c.arguments(i).unlabelled.first else { throw i.error("\(name)(_:) needs a count, such as \(name)(2)", c.node) }
    guard k >= 0 else { throw i.error("number of elements to remove should be non-negative, not \(k)", c.node) }
    guard k <= a.count else { throw i.error("can't remove \(k) elements from a collection of \(a.count)", c.node) }
    return k
}
