import Foundation
import FoundationModelsRuntime
import PromptInterpreter

/// The standard library and Foundation entries of `Surface.table` (Table/Swift.swift): the groups of
/// `String.swift`, `Numbers.swift`, `Array.swift`, `Dictionary.swift`, `Range.swift`, and here print,
/// Data, Locale, errors and the math functions.
extension Builtins {
    static let swiftBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [:]
        for group in [stringBuiltins, stringMembers, numberBuiltins, arrayBuiltins, dictionaryBuiltins, rangeBuiltins, otherSwiftBuiltins, mathBuiltins,
                      functionBuiltins, errorBuiltins] {
            all.merge(group) { _, _ in preconditionFailure("a Swift entry is registered twice") }
        }
        return all
    }()

    static let string: @Sendable (Value) -> String? = { if case .string(let s) = $0 { s } else { nil } }
    static let array: @Sendable (Value) -> [Value]? = { if case .array(let a) = $0 { a } else { nil } }
    static let dictionary: @Sendable (Value) -> [(key: Value, value: Value)]? = { if case .dictionary(let d) = $0 { d } else { nil } }
    static let any: @Sendable (Value) -> Value? = { $0 }

    /// `description` of any value.
    static let describe: Builtin = { _, c in .string(c.base.description) }

    static let localeIdentifier: @Sendable (Value) -> String? = { Value.localeIdentifier($0) }

    /// `Locale.localizedString(for...:)`: Foundation's names in the locale (a nil result is nil).
    static func localized(_ name: @escaping @Sendable (Locale, String) -> String?) -> Builtin {
        on(localeIdentifier) { i, identifier, c in
            guard let code = try await c.arguments(i).items.first?.value.stringValue else { throw i.error("\(c.entry.name) needs a code string", c.node) }
            return name(Locale(identifier: identifier), code).map(Value.string) ?? .null
        }
    }

    /// Foundation's math functions on Doubles (an Int argument is used as a Double, as Swift's literals are).
    static let mathBuiltins: [String: Builtin] = {
        let unary: [(String, @Sendable (Double) -> Double)] = [
            ("round", { $0.rounded() }), ("floor", { $0.rounded(.down) }), ("ceil", { $0.rounded(.up) }),
            ("trunc", { $0.rounded(.towardZero) }), ("sqrt", { $0.squareRoot() }), ("exp", { Foundation.exp($0) }),
            ("log", { Foundation.log($0) }), ("log2", { Foundation.log2($0) }), ("log10", { Foundation.log10($0) }),
            ("sin", { Foundation.sin($0) }), ("cos", { Foundation.cos($0) }), ("tan", { Foundation.tan($0) }),
        ]
        let binary: [(String, @Sendable (Double, Double) -> Double)] = [
            ("pow", { Foundation.pow($0, $1) }), ("atan2", { Foundation.atan2($0, $1) }), ("hypot", { Foundation.hypot($0, $1) }),
        ]
        var all: [String: Builtin] = [:]
        for (name, f) in unary {
            all[name + "(_:)"] = { i, c in
                guard let x = try await c.arguments(i).unlabelled.first?.number else { throw i.error("\(name)(_:) needs a number", c.node) }
                return .double(f(x))
            }
        }
        for (name, f) in binary {
            all[name + "(_:_:)"] = { i, c in
                let values = try await c.arguments(i).unlabelled.compactMap(\.number)
                guard values.count == 2 else { throw i.error("\(name)(_:_:) needs two numbers", c.node) }
                return .double(f(values[0], values[1]))
            }
        }
        return all
    }()

    static let otherSwiftBuiltins: [String: Builtin] = [
        "print(_:separator:)": { i, c in
            let args = try await c.arguments(i)
            let separator = args.value("separator")?.stringValue ?? " "
            for value in args.unlabelled where value.isContainer { try i.budget.value(value, c.node, rendered: true) }
            var parts: [String] = []
            for value in args.unlabelled { parts.append(try await i.text(value)) }
            try i.budget.string(bytes: parts.reduce(0) { $0 + $1.utf8.count + separator.utf8.count }, c.node)
            let text = parts.joined(separator: separator)
            try i.budget.output(bytes: text.utf8.count, c.node)
            i.recorder.recordPrint(i.site(c.callNode), text: text, value: args.unlabelled.count == 1 ? args.unlabelled[0] : .string(text))
            return .null
        },
        "Data.init(_:)": { i, c in
            switch try await c.arguments(i).unlabelled.first {
            case .string(let s)?: return .data(Array(s.utf8))
            case .array(let items)?:
                var bytes: [UInt8] = []
                for item in items {
                    guard case .int(let n) = item, (0...255).contains(n) else { throw i.error("Data(...) needs bytes (0...255)", c.node) }
                    bytes.append(UInt8(n))
                }
                return .data(bytes)
            case .data(let bytes)?: return .data(bytes)
            case nil: return .data([])
            default: throw i.error("Data(...) needs bytes or a string's utf8", c.node)
            }
        },
        "Data.count": on({ if case .data(let d) = $0 { d } else { nil } }) { _, d, _ in .int(d.count) },
        "Data.isEmpty": on({ if case .data(let d) = $0 { d } else { nil } }) { _, d, _ in .bool(d.isEmpty) },
        "Locale.init(identifier:)": { i, c in
            guard let identifier = try await c.arguments(i).value("identifier")?.stringValue else {
                throw i.error("Locale needs identifier: (for example Locale(identifier: \"fr_FR\"))", c.node)
            }
            return .locale(identifier)
        },
        "Locale.current": constant(.locale(Value.currentLocale)),
        "Locale.autoupdatingCurrent": constant(.locale(Value.currentLocale)),
        "Locale.identifier": field("identifier"),
        "Locale.language": on(localeIdentifier) { _, id, _ in .language(id) },
        "Locale.localizedString(forLanguageCode:)": localized { locale, code in locale.localizedString(forLanguageCode: code) },
        "Locale.localizedString(forRegionCode:)": localized { locale, code in locale.localizedString(forRegionCode: code) },
        "Locale.localizedString(forIdentifier:)": localized { locale, code in locale.localizedString(forIdentifier: code) },
        "Locale.Language.init(identifier:)": { i, c in
            guard let identifier = try await c.arguments(i).value("identifier")?.stringValue else {
                throw i.error("Locale.Language needs identifier: (for example Locale.Language(identifier: \"fr\"))", c.node)
            }
            return .language(identifier)
        },
        "Locale.Language.languageCode": field("languageCode"),
        "Locale.Language.region": field("region"),
        "Locale.Language.minimalIdentifier": field("minimalIdentifier"),
        "Locale.Language.maximalIdentifier": field("maximalIdentifier"),
        "Locale.LanguageCode.identifier": field("identifier"),
        "Locale.Region.identifier": field("identifier"),
        // Thrown as a value (never a real cancellation of the block): a tool that throws it ends the tool loop.
        "CancellationError.init()": constant(.structure(type: "CancellationError", fields: [])),
    ]

}
