import PromptInterpreter
import SwiftSyntax

/// The sequence algorithms Array, Set, String, Range, Dictionary and Transcript share (`map`, `filter`,
/// `sorted(by:)`, `reduce`, `first(where:)`...). Each is one implementation, registered under every
/// owner's entry id (`Array.map(_:)`, `Set.map(_:)`...: overloads that share a body). The receiver's
/// elements are `Interpreter.sequenceElements` (a dictionary's are `(key, value)` tuples).
/// The closure is the trailing closure or the function argument (a closure, a key path, a function's name).
extension Builtins {
    /// An algorithm over the receiver's elements and the call's closure.
    static func withClosure(_ body: @escaping @Sendable (Interpreter, [Value], FunctionValue, BuiltinCall) async throws -> Value) -> Builtin {
        { i, c in
            let elements = try i.sequenceElements(c.base, c.node)
            return try await body(i, elements, try await closure(i, c), c)
        }
    }

    /// The last function among the call's arguments (the trailing closure comes last).
    static func closure(_ i: Interpreter, _ c: BuiltinCall) async throws -> FunctionValue {
        for argument in try await i.callArguments(c.callNode).reversed() {
            if case .function(let function) = argument.value { return function }
        }
        throw i.error("\(c.entry.name) needs a closure", c.node)
    }

    /// An algorithm over the receiver's elements without a closure.
    static func overElements(_ body: @escaping @Sendable (Interpreter, [Value], BuiltinCall) async throws -> Value) -> Builtin {
        { i, c in try await body(i, try i.sequenceElements(c.base, c.node), c) }
    }

    static let map = withClosure { i, elements, f, c in
        var results: [Value] = []
        for element in elements { results.append(try await i.call(f, [element], at: c.node)) }
        return .array(results)
    }

    static let compactMap = withClosure { i, elements, f, c in
        var results: [Value] = []
        for element in elements {
            let result = try await i.call(f, [element], at: c.node)
            if !result.isNull { results.append(result) }
        }
        return .array(results)
    }

    static let flatMap = withClosure { i, elements, f, c in
        var results: [Value] = []
        for element in elements {
            switch try await i.call(f, [element], at: c.node) {
            case .array(let items), .set(let items): results += items
            case .null: continue
            case let result: results.append(result)
            }
        }
        return .array(results)
    }

    /// `filter`: a dictionary keeps its pairs, a string its characters, a set stays a set; else an array.
    static let filter: Builtin = { i, c in
        let f = try await closure(i, c)
        switch c.base {
        case .dictionary(let pairs):
            var kept: [(key: Value, value: Value)] = []
            for pair in pairs where try await i.predicate(f, .tuple([(label: "key", value: pair.key), (label: "value", value: pair.value)]), c.node) {
                kept.append(pair)
            }
            return .dictionary(kept)
        case .string(let s):
            var kept = ""
            for character in s where try await i.predicate(f, .string(String(character)), c.node) { kept.append(character) }
            return .string(kept)
        default:
            var kept: [Value] = []
            for element in try i.sequenceElements(c.base, c.node) where try await i.predicate(f, element, c.node) { kept.append(element) }
            if case .set = c.base { return .set(kept) }
            return .array(kept)
        }
    }

    static let forEach = withClosure { i, elements, f, c in
        for element in elements { _ = try await i.call(f, [element], at: c.node) }
        return .null
    }

    static let reduce = withClosure { i, elements, f, c in
        guard var accumulator = try await i.callArguments(c.callNode).first?.value else { throw i.error("reduce needs an initial value", c.node) }
        for element in elements { accumulator = try await i.call(f, [accumulator, element], at: c.node) }
        return accumulator
    }

    /// `reduce(into:_:)`: the accumulator is the closure's inout first parameter.
    static let reduceInto = withClosure { i, elements, f, c in
        guard var accumulator = try await i.callArguments(c.callNode).first?.value else { throw i.error("reduce needs an initial value", c.node) }
        for element in elements { accumulator = try await i.reduceInto(f, accumulator, element, at: c.node) }
        return accumulator
    }

    /// The elements ordered by the call's closure, else ascending (comparing what cannot be compared is an error).
    static func ordered(_ i: Interpreter, _ c: BuiltinCall) async throws -> [Value] {
        let elements = try i.sequenceElements(c.base, c.node)
        let hasFunction = try await i.callArguments(c.callNode).contains { if case .function = $0.value { true } else { false } }
        if hasFunction {
            let f = try await closure(i, c)
            return try await i.sort(elements) { a, b in try await i.predicate(f, [a, b], c.node) }
        }
        return try await i.sort(elements) { a, b in
            guard let order = try await i.compare(a, b) else {
                throw i.error("cannot compare \(a.description.prefix(30)) and \(b.description.prefix(30))", c.node)
            }
            return order < 0
        }
    }

    static let sortedElements: Builtin = { i, c in .array(try await ordered(i, c)) }
    /// `min()`/`min(by:)`: the first of the least.
    static let minElement: Builtin = { i, c in try await ordered(i, c).first ?? .null }
    /// `max()`/`max(by:)`: the last of the greatest (as Swift's max keeps the last maximal element).
    static let maxElement: Builtin = { i, c in try await ordered(i, c).last ?? .null }
    /// `sort()`/`sort(by:)` on a `var` array.
    static let sortInPlace: Builtin = { i, c in
        try await i.assign(to: c.baseExpr!, .array(try await ordered(i, c)))
        return .null
    }

    static let firstWhere = withClosure { i, elements, f, c in
        for element in elements where try await i.predicate(f, element, c.node) { return element }
        return .null
    }

    static let lastWhere = withClosure { i, elements, f, c in
        for element in elements.reversed() where try await i.predicate(f, element, c.node) { return element }
        return .null
    }

    static let firstIndexWhere = withClosure { i, elements, f, c in
        for (index, element) in elements.enumerated() where try await i.predicate(f, element, c.node) { return .int(index) }
        return .null
    }

    static let lastIndexWhere = withClosure { i, elements, f, c in
        for (index, element) in elements.enumerated().reversed() where try await i.predicate(f, element, c.node) { return .int(index) }
        return .null
    }

    static let containsWhere = withClosure { i, elements, f, c in
        for element in elements where try await i.predicate(f, element, c.node) { return .bool(true) }
        return .bool(false)
    }

    static let allSatisfy = withClosure { i, elements, f, c in
        for element in elements where !(try await i.predicate(f, element, c.node)) { return .bool(false) }
        return .bool(true)
    }

    static let countWhere = withClosure { i, elements, f, c in
        var count = 0
        for element in elements where try await i.predicate(f, element, c.node) { count += 1 }
        return .int(count)
    }

    static let prefixWhile = withClosure { i, elements, f, c in
        var results: [Value] = []
        for element in elements {
            guard try await i.predicate(f, element, c.node) else { break }
            results.append(element)
        }
        return .array(results)
    }

    static let dropWhile = withClosure { i, elements, f, c in
        var index = 0
        while index < elements.count, try await i.predicate(f, elements[index], c.node) { index += 1 }
        return .array(Array(elements[index...]))
    }

    /// `removeAll(where:)` on a `var` array.
    static let removeAllWhere = withClosure { i, elements, f, c in
        var kept: [Value] = []
        for element in elements where !(try await i.predicate(f, element, c.node)) { kept.append(element) }
        try await i.assign(to: c.baseExpr!, .array(kept))
        return .null
    }

    static let enumerated = overElements { _, elements, _ in
        .array(elements.enumerated().map { .tuple([(label: "offset", value: .int($0.offset)), (label: "element", value: $0.element)]) })
    }

    static let shuffled = overElements { i, elements, _ in
        var elements = elements
        elements.shuffle(using: &i.random)
        return .array(elements)
    }

    /// `randomElement()` from the seeded generator (Array's own entry keeps the first element).
    static let randomElement = overElements { i, elements, _ in elements.randomElement(using: &i.random) ?? .null }

    /// `joined(separator:)`: the elements' text with the separator between, within the string budget;
    /// arrays of arrays flatten into one array (`[[1, 2], [3]].joined()`, `joined(separator: [0])`).
    static let joined = overElements { i, elements, c in
        let argument = try await c.arguments(i).value("separator")
        if !elements.isEmpty, elements.allSatisfy({ if case .array = $0 { true } else { false } }) {
            var separatorItems: [Value] = []
            if case .array(let items)? = argument { separatorItems = items }
            var flat: [Value] = []
            for (index, element) in elements.enumerated() {
                guard case .array(let items) = element else { continue }
                if index > 0 { flat += separatorItems }
                flat += items
                try i.budget.allocate(elements: flat.count, c.node)
            }
            return .array(flat)
        }
        let separator = argument?.stringValue ?? ""
        for value in elements where value.isContainer { try i.budget.value(value, c.node, rendered: true) }
        let parts = elements.map(\.description)
        try i.budget.string(bytes: parts.reduce(0) { $0 + $1.utf8.count + separator.utf8.count }, c.node)
        return .string(parts.joined(separator: separator))
    }

    static let reversedElements = overElements { _, elements, _ in .array(elements.reversed()) }
}

extension Interpreter {
    /// Calls a closure that must return a Bool.
    func predicate(_ function: FunctionValue, _ value: Value, _ node: Syntax) async throws -> Bool {
        try await predicate(function, [value], node)
    }

    func predicate(_ function: FunctionValue, _ values: [Value], _ node: Syntax) async throws -> Bool {
        guard case .bool(let b) = try await call(function, values, at: node) else { throw error("the closure must return a Bool", node) }
        return b
    }
}
