import Foundation
import FoundationModelsRuntime

/// The standard library and Foundation entries of `Surface.table` (Table/Swift.swift).
extension Builtins {
    static let swiftBuiltins: [String: Builtin] = stringBuiltins.merging(numberBuiltins) { a, _ in a }
        .merging(arrayBuiltins) { a, _ in a }.merging(otherSwiftBuiltins) { a, _ in a }.merging(mathBuiltins) { a, _ in a }

    static let string: @Sendable (Value) -> String? = { if case .string(let s) = $0 { s } else { nil } }
    static let array: @Sendable (Value) -> [Value]? = { if case .array(let a) = $0 { a } else { nil } }
    static let dictionary: @Sendable (Value) -> [(key: Value, value: Value)]? = { if case .dictionary(let d) = $0 { d } else { nil } }
    static let any: @Sendable (Value) -> Value? = { $0 }

    /// `description` of any value.
    static let describe: Builtin = { _, c in .string(c.base.description) }

    static let stringBuiltins: [String: Builtin] = [
        "String.init()": constant(.string("")),
        "String.init(_:)": { i, c in
            let args = try await c.arguments(i)
            if args.unlabelled.count == 1, case .array(let characters) = args.unlabelled[0], !characters.isEmpty,
               characters.allSatisfy({ $0.stringValue?.count == 1 }) {
                return .string(characters.compactMap(\.stringValue).joined())  // String(characters)
            }
            return try await describing(i, c, args.unlabelled.first)
        },
        "String.init(describing:)": { i, c in try await describing(i, c, try await c.arguments(i).value("describing")) },
        "String.init(repeating:count:)": { i, c in
            let args = try await c.arguments(i)
            let given = try i.intArgument(args.value("count"), "String(repeating:count:)", c.node)
            let count = try i.checked(c.node) { () throws(Arithmetic.Failure) in
                try Arithmetic.count(given, Arithmetic.negativeCountMessages["String(repeating:count:)"]!)
            }
            return .string(try i.budget.repeating((args.value("repeating") ?? .string("")).description, count: count, c.node))
        },
        "String.init(data:encoding:)": { i, c in
            // Optional: nil when the bytes are not valid UTF-8.
            guard case .data(let bytes)? = try await c.arguments(i).value("data") else { throw i.error("String(data:encoding:) needs Data", c.node) }
            return String(validating: bytes, as: UTF8.self).map(Value.string) ?? .null
        },
        "String.count": on(string) { _, s, _ in .int(s.count) },
        "String.isEmpty": on(string) { _, s, _ in .bool(s.isEmpty) },
        "String.description": describe,
        "String.uppercased()": on(string) { _, s, _ in .string(s.uppercased()) },
        "String.lowercased()": on(string) { _, s, _ in .string(s.lowercased()) },
        "String.hasPrefix(_:)": on(string) { i, s, c in .bool(s.hasPrefix(try await c.arguments(i).unlabelled.first?.stringValue ?? "")) },
        "String.hasSuffix(_:)": on(string) { i, s, c in .bool(s.hasSuffix(try await c.arguments(i).unlabelled.first?.stringValue ?? "")) },
        "String.contains(_:)": on(string) { i, s, c in .bool(s.contains(try await c.arguments(i).unlabelled.first?.stringValue ?? "")) },
        "String.split(separator:)": on(string) { i, s, c in
            let separator = try await c.arguments(i).value("separator")?.stringValue ?? " "
            return .array(s.components(separatedBy: separator).filter { !$0.isEmpty }.map(Value.string))
        },
        "String.replacingOccurrences(of:with:)": on(string) { i, s, c in
            let args = try await c.arguments(i)
            let target = args.value("of")?.stringValue ?? "", replacement = args.value("with")?.stringValue ?? ""
            if !target.isEmpty, replacement.utf8.count > target.utf8.count {
                // At most every occurrence grows: bound the result before building it.
                let (grown, overflow) = (s.utf8.count / target.utf8.count).multipliedReportingOverflow(by: replacement.utf8.count)
                if overflow || grown > i.budget.limits.maximumStringBytes {
                    let occurrences = s.components(separatedBy: target).count - 1
                    try i.budget.string(bytes: s.utf8.count + occurrences * (replacement.utf8.count - target.utf8.count), c.node)
                }
            }
            return .string(s.replacingOccurrences(of: target, with: replacement))
        },
        "String.trimmingCharacters(in:)": on(string) { i, s, c in
            let set = try await c.arguments(i).value("in") ?? .enumCase(type: "CharacterSet", name: "whitespacesAndNewlines", payload: [])
            return .string(s.trimmingCharacters(in: try i.characterSet(set, c.node)))
        },
        "String.append(_:)": on(string) { i, s, c in try await appendText(i, s, c, try await c.arguments(i).unlabelled.first) },
        "String.append(contentsOf:)": on(string) { i, s, c in try await appendText(i, s, c, try await c.arguments(i).value("contentsOf")) },
        "String.Encoding.utf8": constant(.enumCase(type: "String.Encoding", name: "utf8", payload: [])),
        "CharacterSet.whitespacesAndNewlines": constant(.enumCase(type: "CharacterSet", name: "whitespacesAndNewlines", payload: [])),
        "CharacterSet.whitespaces": constant(.enumCase(type: "CharacterSet", name: "whitespaces", payload: [])),
        "CharacterSet.newlines": constant(.enumCase(type: "CharacterSet", name: "newlines", payload: [])),
        "CharacterSet.punctuationCharacters": constant(.enumCase(type: "CharacterSet", name: "punctuationCharacters", payload: [])),
        "CharacterSet.decimalDigits": constant(.enumCase(type: "CharacterSet", name: "decimalDigits", payload: [])),
        "CharacterSet.letters": constant(.enumCase(type: "CharacterSet", name: "letters", payload: [])),
        "CharacterSet.alphanumerics": constant(.enumCase(type: "CharacterSet", name: "alphanumerics", payload: [])),
        "CharacterSet.union(_:)": { i, c in
            let other = try await c.arguments(i).unlabelled.first ?? .null
            return .enumCase(type: "CharacterSet", name: "union", payload: [(label: nil, value: c.base), (label: nil, value: other)])
        },
    ]

    /// `String(x)`, `String(describing: x)`: the value's text, within the string budget.
    static func describing(_ i: Interpreter, _ c: BuiltinCall, _ value: Value?) async throws -> Value {
        if let value, value.isContainer { try i.budget.value(value, c.node, rendered: true) }
        return .string(try await i.text(value ?? .string("")))
    }

    static func appendText(_ i: Interpreter, _ s: String, _ c: BuiltinCall, _ value: Value?) async throws -> Value {
        let addition = (value ?? .string("")).description
        try i.budget.string(bytes: s.utf8.count + addition.utf8.count, c.node)
        try await i.assign(to: c.baseExpr!, .string(s + addition))
        return .null
    }

    /// Static numeric constants (`Int.max`, `Double.nan`...), defined once in `Arithmetic.staticMember`.
    static let numericConstant: Builtin = { i, c in
        guard let value = Arithmetic.staticMember(c.entry.name, of: c.entry.owner) else {
            throw i.error("\(c.entry.id) has no value in Arithmetic.staticMember", c.node)
        }
        return value
    }

    static let numberBuiltins: [String: Builtin] = [
        "Int.init(_:)": { i, c in
            switch try await c.arguments(i).unlabelled.first {
            case .int(let n): return .int(n)
            case .double(let d): return .int(try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.integer(d) })
            case .string(let s): return Int(s).map(Value.int) ?? .null
            default: throw i.error("Int(...) needs a number or a string", c.node)
            }
        },
        "Int.min": numericConstant,
        "Int.max": numericConstant,
        "Int.zero": numericConstant,
        "Int.description": describe,
        "Double.init(_:)": { i, c in try await toDouble(i, c, "Double") },
        "Double.nan": numericConstant,
        "Double.infinity": numericConstant,
        "Double.pi": numericConstant,
        "Double.greatestFiniteMagnitude": numericConstant,
        "Double.leastNonzeroMagnitude": numericConstant,
        "Double.ulpOfOne": numericConstant,
        "Double.zero": numericConstant,
        "Double.description": describe,
        "Float.init(_:)": { i, c in try await toDouble(i, c, "Float") },
        "Float.nan": numericConstant,
        "Float.infinity": numericConstant,
        "Float.pi": numericConstant,
        "Float.greatestFiniteMagnitude": numericConstant,
        "Float.zero": numericConstant,
        "Bool.init(_:)": { i, c in
            switch try await c.arguments(i).unlabelled.first {
            case .bool(let b): return .bool(b)
            case .string(let s): return Bool(s).map(Value.bool) ?? .null
            default: throw i.error("Bool(...) needs a Bool or a string", c.node)
            }
        },
        "Bool.description": describe,
        "Bool.toggle()": on({ if case .bool(let b) = $0 { b } else { nil } }) { i, b, c in
            try await i.assign(to: c.baseExpr!, .bool(!b))
            return .null
        },
    ]

    static func toDouble(_ i: Interpreter, _ c: BuiltinCall, _ name: String) async throws -> Value {
        let args = try await c.arguments(i)
        if let s = args.unlabelled.first?.stringValue { return Double(s).map(Value.double) ?? .null }
        guard let n = args.unlabelled.first?.number else { throw i.error("\(name)(...) needs a number or a string", c.node) }
        return .double(n)
    }

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
        "Range.description": describe,
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
        "Error.localizedDescription": on(errorValue) { _, e, _ in .string("\(e.error)") },
        "Error.description": on(errorValue) { _, e, _ in .string("\(e.error)") },
        "Error.debugDescription": on(errorValue) { _, e, _ in
            if let server = e.error as? PrivateCloudComputeLanguageModel.Error { return .string(server.debugDescription) }
            return .string((e.error as? GenerationError)?.context.debugDescription ?? "\(e.error)")
        },
        "Error.underlyingError": on(errorValue) { i, e, c in
            guard let toolError = e.error as? ToolCallError else { throw i.error("underlyingError is a member of ToolCallError; this error is \(e.error)", c.node) }
            return .error(ErrorValue(error: toolError.underlyingError))
        },
        "Error.tool": on(errorValue) { i, e, c in
            guard let toolError = e.error as? ToolCallError else { throw i.error("tool is a member of ToolCallError; this error is \(e.error)", c.node) }
            guard let source = (toolError.tool as? ClosureTool)?.source as? Value else {
                throw i.error("the tool '\(toolError.toolName)' that threw is built in (not a value of the file); compare its name instead", c.node)
            }
            return source
        },
    ]

    static let errorValue: @Sendable (Value) -> ErrorValue? = { if case .error(let e) = $0 { e } else { nil } }
}
