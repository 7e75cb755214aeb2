import PromptLanguage
import Surface

/// One completion: what to show and what to insert.
public struct CompletionCandidate: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case method, function, field, variable, type, enumMember, property
    }

    public var label: String
    public var kind: Kind
    public var detail: String?
    /// The text to insert with `${1}`-style placeholders; nil inserts the label.
    public var snippet: String?

    /// The snippet without placeholders, for clients without snippet support.
    public var plainText: String? { snippet.map(IDEDocument.stripPlaceholders) }
}

/// Completion from the text before the cursor: the innermost open `(` or `[`
/// names the call (`@Guide(`, `GenerationOptions(`, `respond(`), and the
/// last argument label says what is expected (`generating:`, `tools:`).
extension IDEDocument {
    public struct CompletionContext: Equatable, Sendable {
        /// The callee before the innermost open parenthesis (`Guide`, `GenerationOptions`, `respond`).
        public var callee: String?
        /// The label of the argument being written (`generating`, `tools`, `sampling`).
        public var label: String?
        /// The cursor is right after a `.`.
        public var afterDot: Bool
    }

    /// The completions at a UTF-8 offset, in the order they are offered.
    public func completions(at offset: Int) -> [CompletionCandidate] {
        let context = Self.completionContext(bytes, offset: offset)
        var items: [CompletionCandidate] = []

        func add(_ label: String, _ kind: CompletionCandidate.Kind, detail: String? = nil, snippet: String? = nil) {
            items.append(CompletionCandidate(label: label, kind: kind, detail: detail, snippet: snippet))
        }

        let dot = context.afterDot ? "" : "."
        switch (context.callee, context.label) {
        case (_, "generating"?):
            for type in file.generableTypes {
                add("\(type.qualifiedName).self", .type, detail: "@Generable \(type.kind.rawValue)")
            }
        case (_, "tools"?):
            for type in file.tools {
                add("\(type.qualifiedName)()", .type, detail: "Tool \(type.tool?.effectiveName(typeName: type.name) ?? type.name)")
            }
        case (let callee?, let label?) where Self.parameterType(callee: callee, label: label) != nil:
            // An implicit member of the parameter's table type (`sampling: .greedy`).
            for member in Surface.table.type(named: Self.parameterType(callee: callee, label: label)!)?.members ?? [] where member.isStatic && member.kind != .initializer {
                add("\(dot)\(member.selector)", member.isCallable ? .method : .enumMember,
                    detail: member.documentation, snippet: member.isCallable ? dot + Self.snippet(member) : nil)
            }
        case (let callee?, _) where Surface.table.type(named: callee) != nil && !context.afterDot:
            for (label, type) in Self.labels(Surface.table.initializers(of: callee)) {
                add("\(label):", .field, detail: type, snippet: "\(label): ${1}")
            }
        case ("Guide"?, _):
            if !context.afterDot { add("description:", .field, detail: "String", snippet: "description: \"${1}\"") }
            for (name, detail, snippet) in Self.guideFunctions {
                add("\(dot)\(name)", .function, detail: detail, snippet: dot + snippet)
            }
        case (let callee?, _) where !context.afterDot && !Self.methodForms(callee).isEmpty:
            for (label, type) in Self.labels(Self.methodForms(callee)) {
                add("\(label):", .field, detail: type, snippet: label == "generating" ? "generating: ${1:Type}.self" : "\(label): ${1}")
            }
        default:
            if context.afterDot {
                // The members of the receiver's table type (`session.`, `SystemLanguageModel.`, `.` in an argument).
                for member in SurfaceLookup(file: file, inference: analysis.surface).completions(afterDotAt: offset) ?? [] {
                    add(member.selector, member.isCallable ? .method : .property,
                        detail: member.documentation, snippet: member.isCallable ? Self.snippet(member) : nil)
                }
            } else {
                add("GenerationOptions", .type, detail: "sampling, temperature, maximumResponseTokens",
                    snippet: "GenerationOptions(${1})")
                add("LanguageModelSession", .type, detail: "a session with the model", snippet: "LanguageModelSession(${1})")
                for type in file.generableTypes { add(type.qualifiedName, .type, detail: "@Generable \(type.kind.rawValue)") }
                for type in file.tools { add(type.qualifiedName, .type, detail: "Tool") }
                for constant in file.constants { add(constant.name, .variable, detail: constant.type?.text) }
            }
        }
        return items
    }

    /// The table type of a labelled parameter of a table initializer or method (`GenerationOptions(sampling:` -> SamplingMode).
    static func parameterType(callee: String, label: String) -> String? {
        let forms = Surface.table.type(named: callee) != nil ? Surface.table.initializers(of: callee) : methodForms(callee)
        for form in forms {
            if var type = form.parameters?.first(where: { $0.label == label })?.type {
                if type.hasSuffix("?") { type.removeLast() }
                if let canonical = Surface.table.canonicalName(type) { return canonical }
            }
        }
        return nil
    }

    /// Every table method with this name (the receiver is not known from the text alone).
    static func methodForms(_ name: String) -> [SurfaceMember] {
        Surface.table.types.flatMap(\.members).filter { $0.name == name && $0.kind == .method }
    }

    /// The labels of a set of forms, first occurrence first.
    static func labels(_ forms: [SurfaceMember]) -> [(String, String)] {
        var seen = Set<String>()
        var result: [(String, String)] = []
        for parameter in forms.flatMap({ $0.parameters ?? [] }) where !parameter.isClosure {
            guard let label = parameter.label, seen.insert(label).inserted else { continue }
            result.append((label, parameter.type))
        }
        return result
    }

    /// `name(label: ${1}, other: ${2})` for the parameters without defaults.
    static func snippet(_ member: SurfaceMember) -> String {
        let required = (member.parameters ?? []).filter { !$0.hasDefault && !$0.isClosure }
        let arguments = required.enumerated().map { index, parameter in
            (parameter.label.map { "\($0): " } ?? "") + "${\(index + 1)}"
        }
        return member.name + "(" + arguments.joined(separator: ", ") + ")"
    }

    static let guideFunctions: [(String, String, String)] = [
        ("anyOf(_:)", "one of the given strings", "anyOf([\"${1}\"])"),
        ("constant(_:)", "exactly this string", "constant(\"${1}\")"),
        ("pattern(_:)", "a regular expression the string matches", "pattern(/${1}/)"),
        ("minimum(_:)", "numbers at least", "minimum(${1:0})"),
        ("maximum(_:)", "numbers at most", "maximum(${1:100})"),
        ("range(_:)", "numbers within a closed range", "range(${1:0}...${2:100})"),
        ("count(_:)", "arrays with exactly (or a range of) this many elements", "count(${1:3})"),
        ("minimumCount(_:)", "arrays with at least", "minimumCount(${1:1})"),
        ("maximumCount(_:)", "arrays with at most", "maximumCount(${1:5})"),
        ("element(_:)", "a guide for every array element", "element(.${1})"),
    ]

    /// A snippet's text without its `${n:...}` placeholders (for clients without snippet support).
    public static func stripPlaceholders(_ snippet: String) -> String {
        var result = ""
        var index = snippet.startIndex
        while index < snippet.endIndex {
            if snippet[index] == "$", snippet.index(after: index) < snippet.endIndex, snippet[snippet.index(after: index)] == "{",
               let close = snippet[index...].firstIndex(of: "}") {
                let inner = snippet[snippet.index(index, offsetBy: 2)..<close]
                if let colon = inner.firstIndex(of: ":") { result += inner[inner.index(after: colon)...] }
                index = snippet.index(after: close)
            } else {
                result.append(snippet[index])
                index = snippet.index(after: index)
            }
        }
        return result
    }

    /// Reads the context from up to 4 KiB before the cursor, skipping string literals.
    public static func completionContext(_ bytes: [UInt8], offset: Int) -> CompletionContext {
        let end = min(max(0, offset), bytes.count)
        let start = max(0, end - 4096)
        var index = end - 1
        var depth = 0
        var label: String?
        var sawComma = false
        let afterDot = index >= 0 && bytes[index] == UInt8(ascii: ".")
        func isWord(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F }
        func word(endingBefore position: Int) -> String? {
            var p = position
            while p > start, bytes[p - 1] == 0x20 || bytes[p - 1] == 0x09 || bytes[p - 1] == 0x0A { p -= 1 }
            var q = p
            while q > start, isWord(bytes[q - 1]) { q -= 1 }
            return q < p ? String(decoding: bytes[q..<p], as: UTF8.self) : nil
        }
        // The callee: a qualified table type as written (`LanguageModelSession.ToolCallError(`), else the last name
        // (`respond` of `session.respond(`, `GenerationOptions`).
        func callee(endingBefore position: Int) -> String? {
            guard let last = word(endingBefore: position) else { return nil }
            var p = position
            while p > start, bytes[p - 1] == 0x20 || bytes[p - 1] == 0x09 || bytes[p - 1] == 0x0A { p -= 1 }
            p -= last.utf8.count
            var qualified = last, found = last
            while p > start, bytes[p - 1] == UInt8(ascii: "."), let part = word(endingBefore: p - 1) {
                qualified = part + "." + qualified
                if Surface.table.type(named: qualified) != nil { found = qualified }
                p -= 1 + part.utf8.count
            }
            return found
        }
        while index >= start {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                // Skip back over a string literal on this line.
                var p = index - 1
                while p >= start, bytes[p] != UInt8(ascii: "\""), bytes[p] != 0x0A { p -= 1 }
                if p >= start, bytes[p] == UInt8(ascii: "\"") { index = p }
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth += 1
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 0 {
                    if byte == UInt8(ascii: "{") { return CompletionContext(callee: nil, label: label, afterDot: afterDot) }
                    if byte == UInt8(ascii: "[") {
                        // `tools: [` : the label before the bracket.
                        if label == nil, let before = labelBefore(bytes, index, start) { label = before }
                        index -= 1
                        continue
                    }
                    return CompletionContext(callee: callee(endingBefore: index), label: label, afterDot: afterDot)
                }
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 0 { sawComma = true }
            case UInt8(ascii: ":"):
                if depth == 0, !sawComma, label == nil, let name = word(endingBefore: index) { label = name }
            default:
                break
            }
            index -= 1
        }
        return CompletionContext(callee: nil, label: label, afterDot: afterDot)
    }

    private static func labelBefore(_ bytes: [UInt8], _ bracket: Int, _ start: Int) -> String? {
        var p = bracket - 1
        while p >= start, bytes[p] == 0x20 || bytes[p] == 0x09 { p -= 1 }
        guard p >= start, bytes[p] == UInt8(ascii: ":") else { return nil }
        var q = p
        while q > start, (bytes[q - 1] >= 0x41 && bytes[q - 1] <= 0x5A) || (bytes[q - 1] >= 0x61 && bytes[q - 1] <= 0x7A) { q -= 1 }
        return q < p ? String(decoding: bytes[q..<p], as: UTF8.self) : nil
    }
}
