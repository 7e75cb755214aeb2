import JSON
import PromptLanguage
import Schema
import Surface
import SwiftSyntax

/// What a hover at a position is about.
public enum HoverSubject {
    /// A diagnostic (not an info) under the cursor.
    case diagnostic(Diagnostic)
    /// A prompt (inside a model call) or instructions (a session's `instructions:`) string literal.
    case promptString(role: String, value: String, offsets: Range<Int>)
    /// A Generable type or tool the file declares, named at the cursor.
    case type(TypeDeclaration, offsets: Range<Int>)
    /// A table entry or type named at the cursor (not a session's model-call methods).
    case surface(SurfaceLookup.Target, offsets: Range<Int>)
    /// The model call around the cursor (its hover is its result).
    case modelCall(PlaygroundBlock, ModelCall)

    /// The range the hover covers.
    public var offsets: Range<Int> {
        switch self {
        case .diagnostic(let diagnostic): diagnostic.range.offsets
        case .promptString(_, _, let offsets), .type(_, let offsets), .surface(_, let offsets): offsets
        case .modelCall(_, let call): call.range.offsets
        }
    }

    /// Subjects that come before an evaluation report at the same place (the others come after it).
    public var precedesResults: Bool {
        switch self {
        case .diagnostic, .promptString, .type: true
        case .surface, .modelCall: false
        }
    }
}

extension IDEDocument {
    /// What a hover at an offset can be about, most specific first: a diagnostic, a prompt
    /// string or a file type alone (nothing else is shown then); otherwise the table entry
    /// and the model call around the offset, in that order. The server puts an evaluation
    /// report (which it holds) between the two groups.
    public func hoverSubjects(at offset: Int) -> [HoverSubject] {
        if let diagnostic = analysis.diagnostics.first(where: {
            $0.severity != .info && ($0.range.offsets.contains(offset) || ($0.range.offsets.isEmpty && $0.range.start.offset == offset))
        }) {
            return [.diagnostic(diagnostic)]
        }
        if let text = promptString(at: offset) {
            return [.promptString(role: text.role, value: text.value, offsets: text.offsets)]
        }
        if let word = word(at: offset), let type = file.resolveType(word.text, in: nil) ?? file.types.first(where: { $0.name == word.text }),
           type.isGenerable || type.tool != nil {
            return [.type(type, offsets: word.offsets)]
        }
        var subjects: [HoverSubject] = []
        if let target = SurfaceLookup(file: file, inference: analysis.surface).target(at: offset), let word = word(at: offset) {
            if case .member(let entry) = target, entry.owner == "LanguageModelSession", ModelCall.Method(rawValue: entry.name) != nil {
                // A model call's hover is its result.
            } else {
                subjects.append(.surface(target, offsets: word.offsets))
            }
        }
        if let (block, call) = call(containing: offset) {
            subjects.append(.modelCall(block, call))
        }
        return subjects
    }

    /// The text of a subject the IDE layer can render alone (diagnostics, types, table
    /// entries); nil for prompt strings and model calls, whose text needs the server's
    /// token counts and results.
    public func hoverText(_ subject: HoverSubject, format: MarkupFormat) -> String? {
        switch subject {
        case .diagnostic(let diagnostic):
            // Its message, then the catalogue's explanation (what `fmplay explain` prints).
            let code = diagnostic.code
            return "\(format.strong(code.rawValue)) \(code.name) · \(diagnostic.message)\n\n\(code.explanation)\n\n'fmplay explain \(code.rawValue)' shows an example."
        case .type(let type, _):
            return typeText(type, format: format)
        case .surface(let target, _):
            return Self.surfaceText(target, format: format)
        case .promptString, .modelCall:
            return nil
        }
    }

    /// The declaration, availability and documentation of a table entry or type.
    public static func surfaceText(_ target: SurfaceLookup.Target, format: MarkupFormat) -> String {
        let declaration: String, origin: String, documentation: String
        switch target {
        case .member(let entry):
            declaration = entry.declaration
            origin = (entry.owner.isEmpty ? "" : "\(entry.owner) · ") + entry.availability.rawValue
            documentation = entry.documentation
        case .type(let type):
            declaration = "\(type.kind.rawValue) \(type.name)"
            origin = "\(type.module) · \(type.availability.rawValue)"
            documentation = type.documentation
        }
        return (format.block(declaration, language: "swift") + [origin, "", documentation]).joined(separator: "\n")
    }

    private func typeText(_ type: TypeDeclaration, format: MarkupFormat) -> String {
        var lines = [format.strong(type.tool != nil ? "Tool" : "@Generable \(type.kind.rawValue)") + " " + format.code(type.qualifiedName)]
        if let tool = type.tool {
            lines.append("")
            lines.append("name: \(format.code(tool.effectiveName(typeName: type.name)))" + (tool.description.map { " · \($0)" } ?? ""))
            if let arguments = tool.argumentsType, let schema = file.schemas[arguments] {
                lines.append("")
                lines.append("Arguments schema:")
                lines += format.block(schema.jsonSchema(title: arguments).serialized(pretty: true), language: "json")
            }
        } else if let schema = file.schemas[type.qualifiedName] {
            lines.append("")
            lines += format.block(schema.jsonSchema(title: type.name).serialized(pretty: true), language: "json")
        }
        return lines.joined(separator: "\n")
    }

    /// The string literal at `offset` when it is a prompt (inside a model
    /// call) or instructions (inside a session's `instructions:`), with its text.
    public func promptString(at offset: Int) -> (role: String, value: String, offsets: Range<Int>)? {
        guard offset >= 0, offset < bytes.count,
              let token = file.syntax.token(at: AbsolutePosition(utf8Offset: offset)) else { return nil }
        var node: Syntax? = Syntax(token)
        while let candidate = node, !candidate.is(StringLiteralExprSyntax.self) { node = candidate.parent }
        guard let literal = node?.as(StringLiteralExprSyntax.self) else { return nil }
        let offsets = literal.positionAfterSkippingLeadingTrivia.utf8Offset..<literal.endPositionBeforeTrailingTrivia.utf8Offset
        let value = literal.segments.map { segment in
            segment.as(StringSegmentSyntax.self)?.content.text ?? "\\(…)"
        }.joined()
        guard let block = block(containing: offset) else { return nil }
        if block.sessions.contains(where: { $0.instructions?.range.offsets.contains(offset) ?? false }) {
            return ("Instructions", value, offsets)
        }
        if block.calls.contains(where: { $0.range.offsets.contains(offset) }) {
            return ("Prompt", value, offsets)
        }
        return nil
    }
}
