import PromptLanguage
import Surface

/// Completion from the text before the cursor: the innermost open `(` or `[`
/// names the call (`@Guide(`, `GenerationOptions(`, `respond(`), and the
/// last argument label says what is expected (`generating:`, `tools:`).
extension LanguageServer {
    struct CompletionContext: Equatable {
        /// The callee before the innermost open parenthesis (`Guide`, `GenerationOptions`, `respond`).
        var callee: String?
        /// The label of the argument being written (`generating`, `tools`, `sampling`).
        var label: String?
        /// The cursor is right after a `.`.
        var afterDot: Bool
    }

    func completion(_ params: TextDocumentPositionParams) throws -> CompletionList {
        let current = try analysis(params.textDocument.uri)
        let offset = current.offset(params.position, encoding)
        let context = Self.completionContext(current.lines.bytes, offset: offset)
        let snippets = clientSupports("textDocument", "completion", "completionItem", "snippetSupport")
        var items: [CompletionItem] = []

        func add(_ label: String, _ kind: Int, detail: String? = nil, snippet: String? = nil, plain: String? = nil) {
            let insert = snippets ? snippet : (plain ?? snippet.map(Self.stripPlaceholders))
            items.append(CompletionItem(
                label: label, kind: kind, detail: detail, documentation: nil, insertText: insert ?? label,
                insertTextFormat: snippets && snippet != nil ? 2 : 1, sortText: Self.sortKey(items.count)))
        }

        let file = current.file
        let dot = context.afterDot ? "" : "."
        switch (context.callee, context.label) {
        case (_, "generating"?):
            for type in file.generableTypes {
                add("\(type.qualifiedName).self", CompletionItemKind.struct, detail: "@Generable \(type.kind.rawValue)")
            }
        case (_, "tools"?):
            for type in file.tools {
                add("\(type.qualifiedName)()", CompletionItemKind.struct, detail: "Tool \(type.tool?.effectiveName(typeName: type.name) ?? type.name)")
            }
        case (let callee?, let label?) where Self.parameterType(callee: callee, label: label) != nil:
            // An implicit member of the parameter's table type (`sampling: .greedy`).
            for member in Surface.table.type(named: Self.parameterType(callee: callee, label: label)!)?.members ?? [] where member.isStatic && member.kind != .initializer {
                add("\(dot)\(member.selector)", member.isCallable ? CompletionItemKind.method : CompletionItemKind.enumMember,
                    detail: member.documentation, snippet: member.isCallable ? dot + Self.snippet(member) : nil)
            }
        case (let callee?, _) where Surface.table.type(named: callee) != nil && !context.afterDot:
            for (label, type) in Self.labels(Surface.table.initializers(of: callee)) {
                add("\(label):", CompletionItemKind.field, detail: type, snippet: "\(label): ${1}")
            }
        case ("Guide"?, _):
            if !context.afterDot { add("description:", CompletionItemKind.field, detail: "String", snippet: "description: \"${1}\"") }
            for (name, detail, snippet) in Self.guideFunctions {
                add("\(dot)\(name)", CompletionItemKind.function, detail: detail, snippet: dot + snippet)
            }
        case (let callee?, _) where !context.afterDot && !Self.methodForms(callee).isEmpty:
            for (label, type) in Self.labels(Self.methodForms(callee)) {
                add("\(label):", CompletionItemKind.field, detail: type, snippet: label == "generating" ? "generating: ${1:Type}.self" : "\(label): ${1}")
            }
        default:
            if context.afterDot {
                // The members of the receiver's table type (`session.`, `SystemLanguageModel.`, `.` in an argument).
                for member in SurfaceLookup(file: file, inference: current.analysis.surface).completions(afterDotAt: offset) ?? [] {
                    add(member.selector, member.isCallable ? CompletionItemKind.method : CompletionItemKind.property,
                        detail: member.documentation, snippet: member.isCallable ? Self.snippet(member) : nil)
                }
            } else {
                add("GenerationOptions", CompletionItemKind.struct, detail: "sampling, temperature, maximumResponseTokens",
                    snippet: "GenerationOptions(${1})")
                add("LanguageModelSession", CompletionItemKind.struct, detail: "a session with the model", snippet: "LanguageModelSession(${1})")
                for type in file.generableTypes { add(type.qualifiedName, CompletionItemKind.struct, detail: "@Generable \(type.kind.rawValue)") }
                for type in file.tools { add(type.qualifiedName, CompletionItemKind.struct, detail: "Tool") }
                for constant in file.constants { add(constant.name, CompletionItemKind.variable, detail: constant.type?.text) }
            }
        }
        return CompletionList(isIncomplete: false, items: items)
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

    static func sortKey(_ n: Int) -> String {
        let digits = "\(n)"
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func stripPlaceholders(_ snippet: String) -> String {
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
    static func completionContext(_ bytes: [UInt8], offset: Int) -> CompletionContext {
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
                    return CompletionContext(callee: word(endingBefore: index), label: label, afterDot: afterDot)
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
