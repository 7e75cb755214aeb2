/// FM2xx: tool declarations. (Duplicate tool names are per session and
/// checked in `SessionChecks`.)
struct ToolChecks {
    let file: PromptFile

    /// Model APIs accept tool names matching `^[A-Za-z0-9_-]{1,64}$`.
    static func isValidToolName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D }
    }

    static let builtInArgumentTypes: Set<String> = ["GeneratedContent", "FoundationModels.GeneratedContent"]
    static let unavailableArgumentTypes: Set<String> = ["String", "Int", "Double", "Float", "Decimal", "Bool"]

    func run() -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for type in file.types {
            guard let tool = type.tool else { continue }
            diagnostics += checkName(type, tool)
            diagnostics += checkDescription(type, tool)
            diagnostics += checkArguments(type, tool)
            diagnostics += checkCall(type, tool)
        }
        return diagnostics
    }

    /// Apple documents `name` as optional: without one the framework uses the type name (its `PlannerTool` sample relies on
    /// it), so a missing name is not a diagnostic. What model APIs reject is: an empty name (FM201) and a name outside
    /// `^[A-Za-z0-9_-]{1,64}$` (FM203), written or defaulted (`struct Météo: Tool` is named "Météo").
    private func checkName(_ type: TypeDeclaration, _ tool: ToolDeclaration) -> [Diagnostic] {
        guard let range = tool.nameDeclarationRange else {
            guard !Self.isValidToolName(type.name) else { return [] }
            let repaired = Self.repairedName(type.name)
            return [Diagnostic(
                .invalidToolName, at: type.nameRange,
                "tool '\(type.name)' has no 'name', so the framework names it after its type, \"\(type.name)\", which model APIs reject (names must match ^[A-Za-z0-9_-]{1,64}$); declare let name = \"\(repaired)\"",
                fixIts: insertMember(in: type, "let name = \"\(repaired)\"").map { [FixIt(title: "name it \"\(repaired)\"", edits: [$0])] } ?? [])]
        }
        guard let name = tool.name else { return [] }
        if name.trimmingWhitespace.isEmpty {
            let suggested = Self.isValidToolName(type.name) ? type.name : Self.repairedName(type.name)
            return [Diagnostic(.toolNameMissing, .error, at: range,
                               "tool '\(type.name)' has an empty name; the model calls tools by name, so give it one such as \"\(Self.lowerFirst(suggested))\" (or remove the property: the framework then uses the type name)")]
        }
        if !Self.isValidToolName(name) {
            let repaired = Self.repairedName(name)
            return [Diagnostic(
                .invalidToolName, at: range,
                "tool name \"\(name)\" is rejected by model APIs: names must match ^[A-Za-z0-9_-]{1,64}$ (letters, digits, '_' and '-', at most 64); use \"\(repaired)\"",
                fixIts: literalRange(in: range, value: name).map { [FixIt(title: "rename to \"\(repaired)\"", edits: [TextEdit(range: $0, newText: "\"\(repaired)\"")])] } ?? [])]
        }
        return []
    }

    private func checkDescription(_ type: TypeDeclaration, _ tool: ToolDeclaration) -> [Diagnostic] {
        guard let range = tool.descriptionDeclarationRange else {
            return [Diagnostic(
                .toolDescriptionMissing, at: type.nameRange,
                "tool '\(type.name)' has no 'description'; the model decides when to call a tool from its description. Add let description = \"...\" saying what it does")]
        }
        if let description = tool.description, description.trimmingWhitespace.isEmpty {
            return [Diagnostic(.toolDescriptionMissing, at: range, "tool '\(type.name)' has an empty description; say what the tool does and when to use it")]
        }
        return []
    }

    private func checkArguments(_ type: TypeDeclaration, _ tool: ToolDeclaration) -> [Diagnostic] {
        guard let arguments = tool.argumentsType else {
            return [Diagnostic(
                .toolArgumentsNotGenerable, at: type.nameRange,
                "tool '\(type.name)' has no Arguments type; declare a nested '@Generable struct Arguments { ... }' with what the model must pass")]
        }
        if Self.builtInArgumentTypes.contains(arguments) { return [] }
        if Self.unavailableArgumentTypes.contains(arguments) {
            return [Diagnostic(
                .toolArgumentsNotGenerable, at: tool.call?.parameters.first?.type?.range ?? type.nameRange,
                "tool Arguments cannot be \(arguments) (the framework marks it unavailable); wrap it in a '@Generable struct Arguments { var value: \(arguments) }'")]
        }
        guard let declaration = file.type(named: arguments) ?? file.resolveType(arguments, in: type.qualifiedName) else {
            return [Diagnostic(
                .toolArgumentsNotGenerable, at: tool.call?.parameters.first?.type?.range ?? type.nameRange,
                "tool '\(type.name)' takes arguments of unknown type '\(arguments)'; declare it in this file as a @Generable struct")]
        }
        guard declaration.isGenerable else {
            var fixIts: [FixIt] = []
            if declaration.kind == .struct || declaration.kind == .enum {
                fixIts.append(FixIt(title: "add @Generable", edits: [FixItFactory(source: file.source).insertAttribute("@Generable", before: declaration)]))
            }
            return [Diagnostic(
                .toolArgumentsNotGenerable, at: declaration.nameRange,
                "tool Arguments '\(declaration.qualifiedName)' must be @Generable so the model can generate them; add @Generable",
                fixIts: fixIts)]
        }
        return []
    }

    private func checkCall(_ type: TypeDeclaration, _ tool: ToolDeclaration) -> [Diagnostic] {
        guard let call = tool.call else {
            return [Diagnostic(
                .toolCallSignature, at: type.nameRange,
                "tool '\(type.name)' has no call(arguments:); add 'func call(arguments: Arguments) async throws -> String' returning what the model should read")]
        }
        if call.parameters.count != 1 || call.parameters[0].label != "arguments" {
            return [Diagnostic(
                .toolCallSignature, at: call.nameRange,
                "'\(call.signatureName)' is not the Tool requirement; it must take exactly one parameter labelled 'arguments': func call(arguments: Arguments) async throws -> String")]
        }
        guard let returnType = call.returnType else {
            return [Diagnostic(
                .toolCallSignature, at: call.nameRange,
                "call(arguments:) returns nothing; it must return the tool's output (a String or a @Generable value), such as '-> String'")]
        }
        if tool.returnsLegacyToolOutput {
            return [Diagnostic(
                .legacyToolOutput, at: returnType.range,
                "ToolOutput is the beta (June 2025) form and was removed in the 26.0 release; return the output directly: '-> String' for text, or a @Generable type (instead of ToolOutput(GeneratedContent(...)), return the value)")]
        }
        return []
    }

    /// Inserts a member line right after the type's opening brace.
    private func insertMember(in type: TypeDeclaration, _ text: String) -> TextEdit? {
        let source = file.source
        guard let brace = source.bytes[type.nameRange.end.offset..<type.range.end.offset].firstIndex(of: UInt8(ascii: "{")) else { return nil }
        let line = source.position(at: type.range.start.offset).line
        let lineStart = source.lineStarts[line - 1]
        let indent = String(source.slice(lineStart..<type.range.start.offset).prefix { $0 == " " || $0 == "\t" })
        return TextEdit(range: source.range((brace + 1)..<(brace + 1)), newText: "\n" + indent + "    " + text)
    }

    /// The range of the string literal holding `value` inside a declaration.
    private func literalRange(in range: SourceRange, value: String) -> SourceRange? {
        let text = file.source.slice(range.offsets)
        guard let quote = text.utf8.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let start = range.start.offset + text.utf8.distance(from: text.utf8.startIndex, to: quote)
        let literal = SchemaChecks.swiftStringLiteral(value)
        guard file.source.slice(start..<(start + literal.utf8.count)) == literal else { return nil }
        return file.source.range(start..<(start + literal.utf8.count))
    }

    static func repairedName(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" {
                out.unicodeScalars.append(scalar)
            } else if !out.hasSuffix("_") {
                out += "_"
            }
        }
        while out.hasSuffix("_") && out.count > 1 { out.removeLast() }
        if out.isEmpty || out == "_" { out = "tool" }
        return String(out.prefix(64))
    }

    static func lowerFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

extension String {
    var trimmingWhitespace: Substring {
        let trimmedStart = drop { $0.isWhitespace }
        return trimmedStart.dropLast(trimmedStart.reversed().prefix { $0.isWhitespace }.count)
    }
}
