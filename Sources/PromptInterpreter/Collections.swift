import Foundation
import SwiftSyntax

/// What the sequence algorithms (`Builtins/Sequence.swift`) build on: key paths as functions,
/// a stable sort with an async comparison, and `reduce(into:)`'s inout accumulator.
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

    /// Sorts with a "comes before" closure (a stable merge sort; the closure may be async).
    package func sort(_ items: [Value], by areInIncreasingOrder: (Value, Value) async throws -> Bool) async throws -> [Value] {
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

    /// One step of `reduce(into:)`: the closure's first parameter is inout.
    package func reduceInto(_ function: FunctionValue, _ accumulator: Value, _ element: Value, at node: Syntax) async throws -> Value {
        guard case .statements(let statements) = function.body else { return try await call(function, [accumulator, element], at: node) }
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
        _ = try await invoke(closure, [], at: node)
        return accumulatorCell.value
    }
}
