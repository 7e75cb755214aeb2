import JSON
import SwiftSyntax

/// Set and the Foundation value types (Surface/Table/Foundation.swift), one implementation per entry.
/// The collection algorithms a set shares with arrays (`map`, `filter`, `sorted`, `reduce`...) run the
/// one implementation of them in `Collections.swift`; initializers are `Foundation.swift`'s.
extension Builtins {
    /// The Foundation classes whose instances are `ObjectBox`es the table describes.
    static let foundationObjectTypes: Set<String> = ["JSONEncoder", "JSONDecoder", "DateFormatter", "ISO8601DateFormatter"]

    static let foundationBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [:]
        for id in ["Set.init()", "Set.init(_:)", "Date.init()", "Date.init(timeIntervalSince1970:)", "Date.init(timeIntervalSinceNow:)",
                   "UUID.init()", "UUID.init(uuidString:)", "JSONEncoder.init()", "JSONDecoder.init()", "DateFormatter.init()",
                   "ISO8601DateFormatter.init()", "TimeZone.init(identifier:)"] {
            all[id] = forwardInit
        }
        for name in ["sorted()", "sorted(by:)", "min()", "max()", "min(by:)", "max(by:)", "map(_:)", "compactMap(_:)", "flatMap(_:)",
                     "filter(_:)", "forEach(_:)", "reduce(_:_:)", "reduce(into:_:)", "first(where:)", "contains(where:)", "allSatisfy(_:)",
                     "count(where:)", "joined(separator:)"] {
            all["Set." + name] = forwardMethod
        }
        all.merge(setBuiltins) { _, _ in preconditionFailure("Set entry registered twice") }
        all.merge(dateBuiltins) { _, _ in preconditionFailure("Date entry registered twice") }
        all.merge(codingBuiltins) { _, _ in preconditionFailure("coding entry registered twice") }
        return all
    }()

    static func set(_ value: Value) -> [Value]? { if case .set(let items) = value { items } else { nil } }
    static func date(_ value: Value) -> Double? { if case .date(let seconds) = value { seconds } else { nil } }
    static func box(_ value: Value) -> ObjectBox? { if case .object(let box) = value { box } else { nil } }

    /// A set method that changes the set: the new elements are written back to the `var` it was called on.
    static func mutating(_ body: @escaping @Sendable (Interpreter, inout [Value], BuiltinCall) async throws -> Value) -> Builtin {
        on(set) { i, items, c in
            var items = items
            let result = try await body(i, &items, c)
            guard let target = c.baseExpr else { throw i.error("'\(c.entry.selector)' changes the set: call it on a `var`", c.node) }
            try await i.assign(to: target, .set(items))
            return result
        }
    }

    /// The elements of a set operation's other operand (a set, an array or a range).
    static func others(_ i: Interpreter, _ c: BuiltinCall) async throws -> [Value] {
        guard let other = try await c.arguments(i).items.first?.value else { throw i.error("'\(c.entry.selector)' needs another set", c.node) }
        return try i.sequenceElements(other, c.node)
    }

    static func contains(_ items: [Value], _ value: Value) -> Bool { items.contains { Value.equal($0, value) } }

    static let setBuiltins: [String: Builtin] = [
        "Set.count": on(set) { _, items, _ in .int(items.count) },
        "Set.isEmpty": on(set) { _, items, _ in .bool(items.isEmpty) },
        "Set.first": on(set) { _, items, _ in items.first ?? .null },
        "Set.description": { _, c in .string(c.base.description) },
        "Set.contains(_:)": on(set) { i, items, c in
            guard let needle = try await c.arguments(i).unlabelled.first else { throw i.error("contains needs an element", c.node) }
            return .bool(contains(items, needle))
        },
        "Set.insert(_:)": mutating { i, items, c in
            guard let value = try await c.arguments(i).unlabelled.first else { throw i.error("insert needs an element", c.node) }
            let inserted = !contains(items, value)
            if inserted { items.append(value) }
            return .tuple([(label: "inserted", value: .bool(inserted)), (label: "memberAfterInsert", value: value)])
        },
        "Set.remove(_:)": mutating { i, items, c in
            guard let value = try await c.arguments(i).unlabelled.first else { throw i.error("remove needs an element", c.node) }
            guard let index = items.firstIndex(where: { Value.equal($0, value) }) else { return .null }
            return items.remove(at: index)
        },
        "Set.formUnion(_:)": mutating { i, items, c in
            items = i.unique(items + (try await others(i, c)))
            return .null
        },
        "Set.union(_:)": on(set) { i, items, c in .set(i.unique(items + (try await others(i, c)))) },
        "Set.intersection(_:)": on(set) { i, items, c in
            let others = try await others(i, c)
            return .set(items.filter { contains(others, $0) })
        },
        "Set.subtracting(_:)": on(set) { i, items, c in
            let others = try await others(i, c)
            return .set(items.filter { !contains(others, $0) })
        },
        "Set.symmetricDifference(_:)": on(set) { i, items, c in
            let others = try await others(i, c)
            return .set(items.filter { !contains(others, $0) } + i.unique(others).filter { !contains(items, $0) })
        },
        "Set.isSubset(of:)": on(set) { i, items, c in
            let others = try await others(i, c)
            return .bool(items.allSatisfy { contains(others, $0) })
        },
        "Set.isSuperset(of:)": on(set) { i, items, c in .bool(try await others(i, c).allSatisfy { contains(items, $0) }) },
        "Set.isDisjoint(with:)": on(set) { i, items, c in
            let others = try await others(i, c)
            return .bool(!items.contains { contains(others, $0) })
        },
    ]

    static let dateBuiltins: [String: Builtin] = [
        "Date.now": constant(.date(Interpreter.fixedNow)),
        "Date.distantPast": constant(.date(-62_135_769_600)),
        "Date.distantFuture": constant(.date(64_092_211_200)),
        "Date.timeIntervalSince1970": on(date) { _, seconds, _ in .double(seconds) },
        "Date.description": on(date) { _, seconds, _ in .string(Value.formatDate(seconds)) },
        "Date.timeIntervalSince(_:)": on(date) { i, seconds, c in
            guard case .date(let other)? = try await c.arguments(i).unlabelled.first else { throw i.error("timeIntervalSince needs a Date", c.node) }
            return .double(seconds - other)
        },
        "Date.addingTimeInterval(_:)": on(date) { i, seconds, c in
            guard let interval = try await c.arguments(i).unlabelled.first?.number else { throw i.error("addingTimeInterval needs seconds", c.node) }
            return .date(seconds + interval)
        },
        "Date.formatted()": on(date) { _, seconds, _ in .string(Interpreter.dateText(seconds, format: "M/d/yyyy, h:mm a")) },
        "UUID.uuidString": { _, c in .string(c.base.description) },
        "UUID.description": { _, c in .string(c.base.description) },
        "DateFormatter.string(from:)": on(box) { i, box, c in
            guard case .date(let seconds)? = try await c.arguments(i).value("from") else { throw i.error("string(from:) needs a Date", c.node) }
            return .string(Interpreter.dateText(seconds, format: box.field("dateFormat")?.stringValue ?? ""))
        },
        "ISO8601DateFormatter.string(from:)": on(box) { i, _, c in
            guard case .date(let seconds)? = try await c.arguments(i).value("from") else { throw i.error("string(from:) needs a Date", c.node) }
            return .string(Interpreter.dateText(seconds, format: "yyyy-MM-dd'T'HH:mm:ss'Z'"))
        },
        // A formatter's settings are fields of its box (assignment writes them there).
        "DateFormatter.dateFormat": on(box) { _, box, _ in box.field("dateFormat") ?? .string("") },
        "DateFormatter.locale": on(box) { _, box, _ in box.field("locale") ?? .null },
        "DateFormatter.timeZone": on(box) { _, box, _ in box.field("timeZone") ?? .null },
    ]

    static let codingBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "JSONEncoder.outputFormatting": on(box) { _, box, _ in box.field("outputFormatting") ?? .array([]) },
            "JSONEncoder.encode(_:)": on(box) { i, box, c in
                guard let value = try await c.arguments(i).unlabelled.first else { throw i.error("encode needs a value", c.node) }
                var options: [String] = []
                switch box.field("outputFormatting") {
                case .array(let items)?:
                    for item in items { if case .enumCase(_, let name, _) = item { options.append(name) } }
                case .enumCase(_, let name, _)?: options.append(name)
                default: break
                }
                let json = try await i.jsonValue(value, sortedKeys: options.contains("sortedKeys"), at: c.node)
                var text = json.serialized(pretty: options.contains("prettyPrinted"))
                if options.contains("prettyPrinted") { text = text.replacingOccurrences(of: "\": ", with: "\" : ") }  // Foundation's spacing
                return .data(Array(text.utf8))
            },
            "JSONDecoder.decode(_:from:)": { i, c in
                let items = try await c.arguments(i).items
                guard items.count == 2, case .type(let typeName) = items[0].value, case .data(let bytes) = items[1].value else {
                    throw i.error("decode needs a type and data: decoder.decode(T.self, from: data)", c.node)
                }
                let json: JSONValue
                do { json = try JSONValue.parse(bytes) } catch { throw ThrownValue(value: .string("DecodingError: \(error)")) }
                return try await i.decode(json, as: typeName, path: [], at: c.node)
            },
        ]
        for name in ["prettyPrinted", "sortedKeys", "withoutEscapingSlashes"] {
            all["JSONEncoder.OutputFormatting." + name] = constant(.enumCase(type: "JSONEncoder.OutputFormatting", name: name, payload: []))
        }
        return all
    }()
}
