import PromptInterpreter

/// The `Dictionary` entries of `Surface.table` (Table/Swift.swift). A dictionary keeps its pairs in
/// order (a literal's order, then insertion); its closure algorithms are the shared ones of
/// `Sequence.swift` over `(key, value)` tuples.
extension Builtins {
    static let dictionaryBuiltins: [String: Builtin] = [
        "Dictionary.init()": constant(.dictionary([])),
        "Dictionary.init(grouping:by:)": { i, c in
            guard let grouping = try await c.arguments(i).value("grouping") else { throw i.error("Dictionary(grouping:by:) needs a sequence", c.node) }
            let key = try await closure(i, c)
            var groups: [(key: Value, value: Value)] = []
            for element in try i.sequenceElements(grouping, c.node) {
                let k = try await i.call(key, [element], at: c.node)
                if let index = groups.firstIndex(where: { Value.equal($0.key, k) }), case .array(var items) = groups[index].value {
                    items.append(element)
                    groups[index].value = .array(items)
                } else {
                    groups.append((k, .array([element])))
                }
            }
            return .dictionary(groups)
        },
        "Dictionary.init(uniqueKeysWithValues:)": { i, c in
            let pairs = try await c.arguments(i).value("uniqueKeysWithValues") ?? .array([])
            var result: [(key: Value, value: Value)] = []
            for pair in try i.sequenceElements(pairs, c.node) {
                guard case .tuple(let items) = pair, items.count == 2 else { throw i.error("uniqueKeysWithValues needs (key, value) pairs", c.node) }
                if result.contains(where: { Value.equal($0.key, items[0].value) }) { throw i.error("duplicate key \(items[0].value.debugDescription)", c.node) }
                result.append((items[0].value, items[1].value))
            }
            return .dictionary(result)
        },
        "Dictionary.count": on(dictionary) { _, d, _ in .int(d.count) },
        "Dictionary.isEmpty": on(dictionary) { _, d, _ in .bool(d.isEmpty) },
        "Dictionary.keys": on(dictionary) { _, d, _ in .array(d.map(\.key)) },
        "Dictionary.values": on(dictionary) { _, d, _ in .array(d.map(\.value)) },
        "Dictionary.description": describe,
        "Dictionary.removeValue(forKey:)": on(dictionary) { i, d, c in
            var pairs = d
            let key = try await c.arguments(i).value("forKey") ?? .null
            guard let index = pairs.firstIndex(where: { Value.equal($0.key, key) }) else { return .null }
            let removed = pairs.remove(at: index).value
            try await i.assign(to: c.baseExpr!, .dictionary(pairs))
            return removed
        },
        "Dictionary.mapValues(_:)": on(dictionary) { i, pairs, c in
            let f = try await closure(i, c)
            var mapped: [(key: Value, value: Value)] = []
            for pair in pairs { mapped.append((pair.key, try await i.call(f, [pair.value], at: c.node))) }
            return .dictionary(mapped)
        },
        "Dictionary.compactMapValues(_:)": on(dictionary) { i, pairs, c in
            let f = try await closure(i, c)
            var mapped: [(key: Value, value: Value)] = []
            for pair in pairs {
                let value = try await i.call(f, [pair.value], at: c.node)
                if !value.isNull { mapped.append((pair.key, value)) }
            }
            return .dictionary(mapped)
        },
        "Dictionary.updateValue(_:forKey:)": on(dictionary) { i, pairs, c in
            var pairs = pairs
            let args = try await c.arguments(i)
            guard let value = args.items.first?.value, let key = args.value("forKey") else { throw i.error("updateValue needs a value and forKey:", c.node) }
            var old = Value.null
            if let index = pairs.firstIndex(where: { Value.equal($0.key, key) }) { old = pairs[index].value; pairs[index].value = value } else { pairs.append((key, value)) }
            try await i.assign(to: c.baseExpr!, .dictionary(pairs))
            return old
        },
        "Dictionary.merge(_:uniquingKeysWith:)": on(dictionary) { i, pairs, c in
            var pairs = pairs
            guard case .dictionary(let other)? = try await c.arguments(i).unlabelled.first else { throw i.error("merge needs a dictionary", c.node) }
            let combine = try await closure(i, c)
            for pair in other {
                if let index = pairs.firstIndex(where: { Value.equal($0.key, pair.key) }) {
                    pairs[index].value = try await i.call(combine, [pairs[index].value, pair.value], at: c.node)
                } else {
                    pairs.append(pair)
                }
            }
            try await i.assign(to: c.baseExpr!, .dictionary(pairs))
            return .null
        },
        "Dictionary.filter(_:)": filter,
        "Dictionary.map(_:)": map,
        "Dictionary.sorted(by:)": sortedElements,
        "Dictionary.forEach(_:)": forEach,
        "Dictionary.reduce(_:_:)": reduce,
        "Dictionary.reduce(into:_:)": reduceInto,
        "Dictionary.contains(where:)": containsWhere,
        "Dictionary.first(where:)": firstWhere,
    ]
}
