import Foundation
import PromptInterpreter
import SwiftSyntax

/// The `String` (and `Character`, its alias) and `CharacterSet` entries of `Surface.table` (Table/Swift.swift).
/// The closure algorithms are the shared ones of `Sequence.swift` over the characters.
extension Builtins {
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
        "String.init(localized:table:)": { i, c in
            let args = try await c.arguments(i)
            guard let key = args.value("localized")?.stringValue else { throw i.error("String(localized:) takes the key as a string", c.node) }
            return .string(key)
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


    /// A Character's property: the first character's (a Character is a one-character String).
    static func character(_ property: @escaping @Sendable (Character) -> Bool) -> Builtin {
        on(string) { _, s, _ in .bool(s.first.map(property) ?? false) }
    }

    /// The count argument of `prefix`/`suffix`/`dropFirst`/`dropLast`: an Int, never negative.
    static func countArgument(_ i: Interpreter, _ c: BuiltinCall, _ fallback: Int?) async throws -> Int {
        try i.countArgument(c.entry.name, try await c.arguments(i), default: fallback, c.callNode)
    }

    static let stringMembers: [String: Builtin] = [
        "String.init(format:_:)": { i, c in
            let args = try await c.arguments(i)
            guard let format = args.value("format")?.stringValue else { throw i.error("String(format:) needs a format string", c.node) }
            return .string(try i.formatted(format, args.items.dropFirst().map(\.value), c.node))
        },
        "String.init(decoding:as:)": { i, c in
            guard case .data(let bytes)? = try await c.arguments(i).value("decoding") else { throw i.error("String(decoding:as:) needs Data", c.node) }
            return .string(String(decoding: bytes, as: UTF8.self))
        },
        "String.init(reflecting:)": { i, c in .string(try await i.text(try await c.arguments(i).value("reflecting") ?? .null, debug: true)) },
        "String.first": on(string) { _, s, _ in s.first.map { .string(String($0)) } ?? .null },
        "String.last": on(string) { _, s, _ in s.last.map { .string(String($0)) } ?? .null },
        "String.capitalized": on(string) { _, s, _ in .string(s.capitalized) },
        "String.utf8": on(string) { _, s, _ in .array(s.utf8.map { .int(Int($0)) }) },
        "String.isLetter": character(\.isLetter),
        "String.isNumber": character(\.isNumber),
        "String.isWholeNumber": character(\.isWholeNumber),
        "String.isUppercase": character(\.isUppercase),
        "String.isLowercase": character(\.isLowercase),
        "String.isWhitespace": character(\.isWhitespace),
        "String.isPunctuation": character(\.isPunctuation),
        "String.wholeNumberValue": on(string) { _, s, _ in s.first?.wholeNumberValue.map(Value.int) ?? .null },
        "String.indices": on(string) { _, s, _ in .range(lower: 0, upper: s.count, closed: false) },
        "String.components(separatedBy:)": on(string) { i, s, c in
            guard let separator = try await c.arguments(i).value("separatedBy")?.stringValue else { throw i.error("components needs separatedBy:", c.node) }
            return .array(s.components(separatedBy: separator).map(Value.string))
        },
        "String.split(separator:maxSplits:omittingEmptySubsequences:)": on(string) { i, s, c in
            let args = try await c.arguments(i)
            let separator = args.value("separator")?.stringValue ?? args.unlabelled.first?.stringValue ?? " "
            let maxSplits = if case .int(let n)? = args.value("maxSplits") { n } else { Int.max }
            let omitting = if case .bool(let b)? = args.value("omittingEmptySubsequences") { b } else { true }
            guard let character = separator.first, separator.count == 1 else { throw i.error("split(separator:) needs a Character", c.node) }
            guard maxSplits >= 0 else { throw i.error("must take zero or more splits, not \(maxSplits)", c.node) }
            return .array(s.split(separator: character, maxSplits: maxSplits, omittingEmptySubsequences: omitting).map { .string(String($0)) })
        },
        "String.prefix(_:)": on(string) { i, s, c in .string(String(s.prefix(try await countArgument(i, c, nil)))) },
        "String.suffix(_:)": on(string) { i, s, c in .string(String(s.suffix(try await countArgument(i, c, nil)))) },
        "String.dropFirst(_:)": on(string) { i, s, c in .string(String(s.dropFirst(try await countArgument(i, c, 1)))) },
        "String.dropLast(_:)": on(string) { i, s, c in .string(String(s.dropLast(try await countArgument(i, c, 1)))) },
        "String.reversed()": on(string) { _, s, _ in .array(s.reversed().map { .string(String($0)) }) },
        "String.starts(with:)": on(string) { i, s, c in .bool(s.hasPrefix(try await c.arguments(i).value("with")?.stringValue ?? "")) },
        "String.localizedCaseInsensitiveContains(_:)": containsIgnoringCase,
        "String.localizedStandardContains(_:)": containsIgnoringCase,
        "String.padding(toLength:withPad:startingAt:)": on(string) { i, s, c in
            let args = try await c.arguments(i)
            guard case .int(let length)? = args.value("toLength"), let pad = args.value("withPad")?.stringValue, !pad.isEmpty else {
                throw i.error("padding needs toLength: and a non-empty withPad:", c.node)
            }
            try i.budget.string(bytes: length, c.node)  // at least a byte per character
            return .string(s.padding(toLength: length, withPad: pad, startingAt: 0))
        },
        "String.data(using:)": on(string) { _, s, _ in .data(Array(s.utf8)) },
        "String.enumerated()": enumerated,
        "String.map(_:)": map,
        "String.filter(_:)": filter,
        "String.compactMap(_:)": compactMap,
        "String.forEach(_:)": forEach,
        "String.contains(where:)": containsWhere,
        "String.allSatisfy(_:)": allSatisfy,
        "String.first(where:)": firstWhere,
        "String.sorted()": sortedElements,
        "String.shuffled()": shuffled,
        "String.randomElement()": randomElement,
    ]

    /// `localizedCaseInsensitiveContains`/`localizedStandardContains`: ignoring case and diacritics.
    static let containsIgnoringCase: Builtin = on(string) { i, s, c in
        .bool(s.range(of: try await c.arguments(i).unlabelled.first?.stringValue ?? "", options: [.caseInsensitive, .diacriticInsensitive]) != nil)
    }
}

extension Interpreter {
    static let characterSets: [String: CharacterSet] = [
        "whitespaces": .whitespaces, "whitespacesAndNewlines": .whitespacesAndNewlines, "newlines": .newlines,
        "punctuationCharacters": .punctuationCharacters, "decimalDigits": .decimalDigits, "letters": .letters,
        "alphanumerics": .alphanumerics, "symbols": .symbols, "uppercaseLetters": .uppercaseLetters, "lowercaseLetters": .lowercaseLetters,
    ]

    /// `.whitespacesAndNewlines`, `.punctuationCharacters`, `a.union(b)`, `CharacterSet(charactersIn:)`.
    func characterSet(_ value: Value, _ node: some SyntaxProtocol) throws -> CharacterSet {
        switch value {
        case .enumCase(_, "union", let payload):
            return try payload.reduce(CharacterSet()) { $0.union(try characterSet($1.value, node)) }
        case .enumCase(_, "charactersIn", let payload):
            return CharacterSet(charactersIn: payload.first?.value.description ?? "")
        case .enumCase(_, let name, _):
            guard let set = Interpreter.characterSets[name] else {
                throw error("CharacterSet.\(name) is not supported in prompt files (use " + Interpreter.characterSets.keys.sorted().joined(separator: ", ") + ")", node)
            }
            return set
        default:
            throw error("expected a CharacterSet such as .whitespacesAndNewlines", node)
        }
    }
}
