import Foundation
import JSON
import PromptInterpreter
import SwiftSyntax

/// Set and the Foundation value types (Surface/Table/Foundation.swift), one implementation per entry.
/// The collection algorithms a set shares with arrays (`map`, `filter`, `sorted`, `reduce`...) are the
/// shared implementations of `Sequence.swift`.
extension Builtins {
    static let foundationBuiltins: [String: Builtin] = {
        var all = foundationInitializers
        for (name, implementation) in ["sorted()": sortedElements, "sorted(by:)": sortedElements, "min()": minElement, "max()": maxElement,
                                       "min(by:)": minElement, "max(by:)": maxElement, "map(_:)": map, "compactMap(_:)": compactMap,
                                       "flatMap(_:)": flatMap, "filter(_:)": filter, "forEach(_:)": forEach, "reduce(_:_:)": reduce,
                                       "reduce(into:_:)": reduceInto, "first(where:)": firstWhere, "contains(where:)": containsWhere,
                                       "allSatisfy(_:)": allSatisfy, "count(where:)": countWhere, "joined(separator:)": joined] {
            all["Set." + name] = implementation
        }
        all.merge(setBuiltins) { _, _ in preconditionFailure("Set entry registered twice") }
        all.merge(dateBuiltins) { _, _ in preconditionFailure("Date entry registered twice") }
        all.merge(codingBuiltins) { _, _ in preconditionFailure("coding entry registered twice") }
        all.merge(calendarBuiltins) { _, _ in preconditionFailure("Calendar entry registered twice") }
        all.merge(numberFormatterBuiltins) { _, _ in preconditionFailure("NumberFormatter entry registered twice") }
        return all
    }()

    static let foundationInitializers: [String: Builtin] = [
        "Set.init()": constant(.set([])),
        "Set.init(_:)": { i, c in
            guard let source = try await c.arguments(i).unlabelled.first else { return .set([]) }
            return .set(i.unique(try i.sequenceElements(source, c.node)))
        },
        "Date.init()": constant(.date(Interpreter.fixedNow)),
        "Date.init(timeIntervalSince1970:)": { i, c in
            guard let seconds = try await c.arguments(i).value("timeIntervalSince1970")?.number else { throw i.error("Date(timeIntervalSince1970:) needs seconds", c.node) }
            return .date(seconds)
        },
        "Date.init(timeIntervalSinceNow:)": { i, c in
            guard let seconds = try await c.arguments(i).value("timeIntervalSinceNow")?.number else { throw i.error("Date(timeIntervalSinceNow:) needs seconds", c.node) }
            return .date(Interpreter.fixedNow + seconds)
        },
        "UUID.init()": { i, _ in .uuid(i.randomUUID()) },
        "UUID.init(uuidString:)": { i, c in
            guard let text = try await c.arguments(i).value("uuidString")?.stringValue else { throw i.error("UUID(uuidString:) needs a string", c.node) }
            return UUID(uuidString: text).map { .uuid($0.uuidString) } ?? .null
        },
        "JSONEncoder.init()": { _, _ in .object(ObjectBox(type: "JSONEncoder", fields: [("outputFormatting", .array([]))])) },
        "JSONDecoder.init()": { _, _ in .object(ObjectBox(type: "JSONDecoder", fields: [("outputFormatting", .array([]))])) },
        // Dates are formatted in UTC with the en_US_POSIX locale unless `timeZone` and `locale` are set.
        "DateFormatter.init()": { _, _ in .object(ObjectBox(type: "DateFormatter", fields: [("dateFormat", .string("")), ("locale", .null), ("timeZone", .null)])) },
        "ISO8601DateFormatter.init()": { _, _ in
            .object(ObjectBox(type: "ISO8601DateFormatter", fields: [("dateFormat", .string("")), ("locale", .null), ("timeZone", .null)]))
        },
        "TimeZone.init(identifier:)": { i, c in
            guard let identifier = try await c.arguments(i).value("identifier")?.stringValue else {
                throw i.error("TimeZone(identifier:) needs a string such as \"Europe/Paris\"", c.node)
            }
            return TimeZone(identifier: identifier).map { timeZoneValue($0.identifier) } ?? .null
        },
        "TimeZone.init(secondsFromGMT:)": { i, c in
            let seconds = try i.intArgument(try await c.arguments(i).value("secondsFromGMT"), "TimeZone(secondsFromGMT:)", c.node)
            return TimeZone(secondsFromGMT: seconds).map { timeZoneValue($0.identifier) } ?? .null
        },
        "TimeZone.current": constant(timeZoneValue("UTC")),
        "TimeZone.gmt": constant(timeZoneValue("GMT")),
        "TimeZone.identifier": field("identifier"),
        "TimeZone.secondsFromGMT(for:)": { i, c in
            let zone = try timeZone(i, c.base, c)
            return .int(zone.secondsFromGMT(for: try dateArgument(i, try await c.arguments(i).value("for"), c)))
        },
    ]

    /// A `TimeZone`, kept as its identifier.
    static func timeZoneValue(_ identifier: String) -> Value { .structure(type: "TimeZone", fields: [("identifier", .string(identifier))]) }

    /// Foundation's zone for a `TimeZone` value.
    static func timeZone(_ i: Interpreter, _ value: Value, _ c: BuiltinCall) throws -> TimeZone {
        guard case .structure("TimeZone", let fields) = value, let identifier = fields.first(where: { $0.name == "identifier" })?.value.stringValue,
              let zone = TimeZone(identifier: identifier) else {
            throw i.error("\(c.entry.selector) needs a TimeZone (for example TimeZone(identifier: \"Europe/Paris\")!), not \(value.description.prefix(30))", c.node)
        }
        return zone
    }

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

    /// A date as text, in the en_US_POSIX locale and UTC unless a formatter's settings say otherwise.
    static func dateText(_ seconds: Double, format: String, locale: String = "en_US_POSIX", timeZone: TimeZone = TimeZone(identifier: "UTC")!) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: locale)
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

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
        "Date.formatted()": on(date) { _, seconds, _ in .string(dateText(seconds, format: "M/d/yyyy, h:mm a")) },
        "UUID.uuidString": { _, c in .string(c.base.description) },
        "UUID.description": { _, c in .string(c.base.description) },
        "DateFormatter.string(from:)": on(box) { i, box, c in
            guard case .date(let seconds)? = try await c.arguments(i).value("from") else { throw i.error("string(from:) needs a Date", c.node) }
            let zone = try box.field("timeZone").flatMap { $0.isNull ? nil : try timeZone(i, $0, c) } ?? TimeZone(identifier: "UTC")!
            let locale = box.field("locale").flatMap(Value.localeIdentifier) ?? "en_US_POSIX"
            return .string(dateText(seconds, format: box.field("dateFormat")?.stringValue ?? "", locale: locale, timeZone: zone))
        },
        "ISO8601DateFormatter.string(from:)": on(box) { i, _, c in
            guard case .date(let seconds)? = try await c.arguments(i).value("from") else { throw i.error("string(from:) needs a Date", c.node) }
            return .string(dateText(seconds, format: "yyyy-MM-dd'T'HH:mm:ss'Z'"))
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
