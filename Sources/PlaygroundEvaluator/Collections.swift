import Foundation
import SwiftSyntax

/// The sequence algorithms that take closures (or key paths, or operators as
/// functions), on arrays, sets, ranges, strings and dictionaries.
extension Interpreter {
    /// `\.name`, `\Type.name.count`: a key path used as a function.
    func keyPathFunction(_ e: KeyPathExprSyntax) throws -> FunctionValue {
        var names: [String] = []
        for component in e.components {
            guard case .property(let property) = component.component else { throw error("only property key paths are supported", component) }
            names.append(property.declName.baseName.text)
        }
        return FunctionValue.native("keyPath", arity: 1) { [unowned self] values in
            var value = values[0]
            for name in names { value = try await self.member(name, of: value, e) }
            return value
        }
    }

    /// The function given as the trailing closure or as an argument (`by:`, `where:`...).
    private func functionArgument(_ args: [CallArgument], _ e: FunctionCallExprSyntax, _ name: String) throws -> FunctionValue {
        for argument in args.reversed() { if case .function(let function) = argument.value { return function } }
        throw error("\(name) needs a closure", e)
    }

    private func call(_ function: FunctionValue, _ values: Value..., at e: FunctionCallExprSyntax) async throws -> Value {
        try await call(function, values, at: Syntax(e))
    }

    private func predicate(_ function: FunctionValue, _ value: Value, at e: FunctionCallExprSyntax) async throws -> Bool {
        guard case .bool(let b) = try await call(function, value, at: e) else { throw error("the closure must return a Bool", e) }
        return b
    }

    /// Sorts with a "comes before" closure (a stable merge sort; the closure may be async).
    func sort(_ items: [Value], by areInIncreasingOrder: (Value, Value) async throws -> Bool) async throws -> [Value] {
        if items.count < 2 { return items }
        let middle = items.count / 2
        let left = try await sort(Array(items[..<middle]), by: areInIncreasingOrder)
        let right = try await sort(Array(items[middle...]), by: areInIncreasingOrder)
        var merged: [Value] = []
        merged.reserveCapacity(items.count)
        var i = 0, j = 0
        while i < left.count, j < right.count {
            if try await areInIncreasingOrder(right[j], left[i]) { merged.append(right[j]); j += 1 } else { merged.append(left[i]); i += 1 }
        }
        merged += left[i...]
        merged += right[j...]
        return merged
    }

    /// Collection methods with closures; nil when `name` is not one of them for this base.
    func collectionMethod(_ name: String, of base: Value, baseExpr: ExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value? {
        let elements: [Value]
        switch base {
        case .array(let a), .set(let a): elements = a
        case .range, .string, .dictionary: elements = try sequenceElements(base, e)
        default: return nil
        }
        let closureNames: Set<String> = [
            "map", "compactMap", "flatMap", "filter", "forEach", "reduce", "sorted", "sort", "first", "last", "firstIndex", "lastIndex",
            "contains", "allSatisfy", "min", "max", "removeAll", "count", "drop", "prefix", "mapValues", "compactMapValues", "partition",
        ]
        guard closureNames.contains(name) else { return nil }
        let args = try await callArguments(e)
        let hasFunction = args.contains { if case .function = $0.value { return true } else { return false } }
        switch name {
        case "sorted", "sort", "min", "max":
            if !args.isEmpty && !hasFunction { return nil }
            let ordered: [Value]
            if hasFunction {
                let function = try functionArgument(args, e, name)
                ordered = try await sort(elements) { a, b in
                    guard case .bool(let r) = try await self.call(function, a, b, at: e) else { throw self.error("the closure must return a Bool", e) }
                    return r
                }
            } else {
                ordered = try await sort(elements) { a, b in
                    guard let order = try await self.compare(a, b) else { throw self.error("cannot compare \(a.description.prefix(30)) and \(b.description.prefix(30))", e) }
                    return order < 0
                }
            }
            switch name {
            case "sort":
                try await assign(to: baseExpr, .array(ordered))
                return .null
            case "min": return ordered.first ?? .null
            case "max":
                // The last of the greatest (Swift's max keeps the last maximal element).
                return ordered.last ?? .null
            default: return .array(ordered)
            }
        case "reduce":
            guard let initial = args.first?.value else { throw error("reduce needs an initial value", e) }
            let function = try functionArgument(args, e, name)
            if args.first?.label == "into" {
                // `reduce(into:)`: the accumulator is inout.
                let cell = Cell(initial)
                let closure = function
                for element in elements {
                    var scope: Scope = [:]
                    _ = scope
                    cell.value = try await reduceInto(closure, cell.value, element, at: e)
                }
                return cell.value
            }
            var accumulator = initial
            for element in elements { accumulator = try await call(function, accumulator, element, at: e) }
            return accumulator
        default:
            break
        }
        if !hasFunction {
            if name == "contains" || name == "first" || name == "last" || name == "firstIndex" || name == "lastIndex"
                || name == "count" || name == "prefix" || name == "drop" || name == "removeAll" || name == "min" || name == "max" {
                return nil
            }
        }
        let function = try functionArgument(args, e, name)
        switch (name, base) {
        case ("filter", .dictionary(let pairs)):
            var kept: [(key: Value, value: Value)] = []
            for pair in pairs where try await predicate(function, .tuple([(label: "key", value: pair.key), (label: "value", value: pair.value)]), at: e) {
                kept.append(pair)
            }
            return .dictionary(kept)
        case ("filter", .string(let s)):
            var kept = ""
            for character in s where try await predicate(function, .string(String(character)), at: e) { kept.append(character) }
            return .string(kept)
        case ("filter", .set):
            var kept: [Value] = []
            for element in elements where try await predicate(function, element, at: e) { kept.append(element) }
            return .set(kept)
        case ("mapValues", .dictionary(let pairs)):
            var mapped: [(key: Value, value: Value)] = []
            for pair in pairs { mapped.append((pair.key, try await call(function, pair.value, at: e))) }
            return .dictionary(mapped)
        case ("compactMapValues", .dictionary(let pairs)):
            var mapped: [(key: Value, value: Value)] = []
            for pair in pairs {
                let value = try await call(function, pair.value, at: e)
                if !value.isNull { mapped.append((pair.key, value)) }
            }
            return .dictionary(mapped)
        default:
            break
        }
        switch name {
        case "map":
            var results: [Value] = []
            for element in elements { results.append(try await call(function, element, at: e)) }
            return .array(results)
        case "compactMap":
            var results: [Value] = []
            for element in elements {
                let result = try await call(function, element, at: e)
                if !result.isNull { results.append(result) }
            }
            return .array(results)
        case "flatMap":
            var results: [Value] = []
            for element in elements {
                let result = try await call(function, element, at: e)
                switch result {
                case .array(let items), .set(let items): results += items
                case .null: continue
                default: results.append(result)
                }
            }
            return .array(results)
        case "filter":
            var results: [Value] = []
            for element in elements where try await predicate(function, element, at: e) { results.append(element) }
            return .array(results)
        case "forEach":
            for element in elements { _ = try await call(function, element, at: e) }
            return .null
        case "first":
            for element in elements where try await predicate(function, element, at: e) { return element }
            return .null
        case "last":
            for element in elements.reversed() where try await predicate(function, element, at: e) { return element }
            return .null
        case "firstIndex":
            for (index, element) in elements.enumerated() where try await predicate(function, element, at: e) { return .int(index) }
            return .null
        case "lastIndex":
            for (index, element) in elements.enumerated().reversed() where try await predicate(function, element, at: e) { return .int(index) }
            return .null
        case "contains":
            for element in elements where try await predicate(function, element, at: e) { return .bool(true) }
            return .bool(false)
        case "allSatisfy":
            for element in elements where !(try await predicate(function, element, at: e)) { return .bool(false) }
            return .bool(true)
        case "count":
            var count = 0
            for element in elements where try await predicate(function, element, at: e) { count += 1 }
            return .int(count)
        case "prefix":
            var results: [Value] = []
            for element in elements {
                guard try await predicate(function, element, at: e) else { break }
                results.append(element)
            }
            return .array(results)
        case "drop":
            var index = 0
            while index < elements.count, try await predicate(function, elements[index], at: e) { index += 1 }
            return .array(Array(elements[index...]))
        case "removeAll":
            var kept: [Value] = []
            for element in elements where !(try await predicate(function, element, at: e)) { kept.append(element) }
            try await assign(to: baseExpr, .array(kept))
            return .null
        default:
            return nil
        }
    }

    /// One step of `reduce(into:)`: the closure's first parameter is inout.
    private func reduceInto(_ function: FunctionValue, _ accumulator: Value, _ element: Value, at e: FunctionCallExprSyntax) async throws -> Value {
        guard case .statements(let statements) = function.body else { return try await call(function, accumulator, element, at: e) }
        let names = function.parameters.map { $0.name }
        let accumulatorCell = Cell(accumulator)
        var scope: Scope = [:]
        if names.count == 2 {
            if let first = names[0] { scope[first] = accumulatorCell }
            if let second = names[1] { scope[second] = Cell(element) }
        } else {
            scope["$0"] = accumulatorCell
            scope["$1"] = Cell(element)
        }
        let closure = FunctionValue(name: "closure", parameters: [], body: .statements(statements), captured: function.captured + [scope],
                                    selfCell: function.selfCell, typeName: function.typeName, isClosure: true)
        _ = try await invoke(closure, [], at: e)
        return accumulatorCell.value
    }
}
