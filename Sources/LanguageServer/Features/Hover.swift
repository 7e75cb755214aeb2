import JSON
import PromptLanguage
import Surface
import Schema
import SwiftSyntax

extension LanguageServer {
    /// On a call: its result. On a Generable type: its schema. On a prompt or
    /// instructions string: its token count against the context size.
    func hover(_ params: TextDocumentPositionParams) throws -> Hover? {
        let current = try analysis(params.textDocument.uri)
        let offset = current.offset(params.position, encoding)
        let format = hoverFormat

        // On a diagnostic: its message, then the catalogue's explanation (what `fmplay explain` prints).
        if let diagnostic = current.analysis.diagnostics.first(where: {
            $0.severity != .info && ($0.range.offsets.contains(offset) || ($0.range.offsets.isEmpty && $0.range.start.offset == offset))
        }) {
            let code = diagnostic.code
            let text = "\(format.strong(code.rawValue)) \(code.name) · \(diagnostic.message)\n\n\(code.explanation)\n\n'fmplay explain \(code.rawValue)' shows an example."
            return Hover(contents: format.content(text), range: current.range(diagnostic.range, encoding))
        }

        if let text = promptString(at: offset, in: current) {
            var value = format.strong(text.role) + " · "
            switch evaluation.playgroundRunner.tokenCount(of: text.value, configuration: configuration) {
            case .counted(let tokens, let contextSize, let model):
                let share = Double(tokens) / Double(max(1, contextSize)) * 100
                value += "\(tokens) tokens of \(model)'s \(contextSize)-token context (\(share.formatted1)%)"
            case .unavailable(let reason):
                value += "\(text.value.utf8.count) bytes; tokens cannot be counted: \(reason)"
            }
            return Hover(contents: format.content(value), range: current.lines.range(of: text.offsets, in: encoding))
        }

        if let word = current.word(at: offset), let type = current.file.resolveType(word.text, in: nil) ?? current.file.types.first(where: { $0.name == word.text }),
           type.isGenerable || type.tool != nil {
            return Hover(contents: format.content(typeText(type, in: current.file, format: format)), range: current.lines.range(of: word.offsets, in: encoding))
        }

        // An evaluation's `run()` (or a @Test's .evaluates trait): the report.
        if let entry = latestResults(current).last(where: { $0.result.kind == .evaluation && $0.result.range.contains(offset) }) {
            return Hover(contents: format.content(ResultRendering.details(entry.result, iterations: entry.iterations, format: format)
                                                  + changesText(entry.block, in: current, format: format)),
                         range: current.lines.range(of: entry.result.range, in: encoding))
        }

        // A table entry (member, initializer, case, type), except the model calls, whose hover is their result.
        if let target = SurfaceLookup(file: current.file, inference: current.analysis.surface).target(at: offset), let word = current.word(at: offset) {
            if case .member(let entry) = target, entry.owner == "LanguageModelSession", ModelCall.Method(rawValue: entry.name) != nil {
            } else {
                return Hover(contents: format.content(Self.surfaceText(target, format: format)), range: current.lines.range(of: word.offsets, in: encoding))
            }
        }

        if let (_, call) = current.call(containing: offset) {
            let entries = latestResults(current).filter { call.range.offsets.contains($0.result.range.lowerBound) }
            let range = current.range(call.range, encoding)
            guard let entry = entries.first else {
                let trigger = configuration.evaluate == .manual ? "run the block (▶ Run)" : "save the file or run the block (▶ Run)"
                return Hover(contents: format.content("\(format.strong(call.method.rawValue)) · no result yet: \(trigger)"), range: range)
            }
            return Hover(contents: format.content(ResultRendering.details(entry.result, iterations: entry.iterations, format: format) + changesText(entry.block, in: current, format: format)), range: range)
        }
        return nil
    }

    /// The declaration, availability and documentation of a table entry or type.
    static func surfaceText(_ target: SurfaceLookup.Target, format: MarkupFormat) -> String {
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

    /// "Changed since last run" with the diff of the block's outputs, or nothing.
    private func changesText(_ block: PlaygroundBlock, in current: DocumentAnalysis, format: MarkupFormat) -> String {
        guard let record = evaluation.blocks(current.uri, in: current).first(where: { $0.block.index == block.index })?.record,
              !record.changes.isEmpty else { return "" }
        return "\n\n" + format.strong("Changed since last run:") + "\n" + format.block(record.changes.joined(separator: "\n"), language: "diff").joined(separator: "\n")
    }

    private func typeText(_ type: TypeDeclaration, in file: PromptFile, format: MarkupFormat) -> String {
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
    func promptString(at offset: Int, in current: DocumentAnalysis) -> (role: String, value: String, offsets: Swift.Range<Int>)? {
        guard offset < current.lines.bytes.count,
              let token = current.file.syntax.token(at: AbsolutePosition(utf8Offset: offset)) else { return nil }
        var node: Syntax? = Syntax(token)
        while let candidate = node, !candidate.is(StringLiteralExprSyntax.self) { node = candidate.parent }
        guard let literal = node?.as(StringLiteralExprSyntax.self) else { return nil }
        let offsets = literal.positionAfterSkippingLeadingTrivia.utf8Offset..<literal.endPositionBeforeTrailingTrivia.utf8Offset
        let value = literal.segments.map { segment in
            segment.as(StringSegmentSyntax.self)?.content.text ?? "\\(…)"
        }.joined()
        guard let block = current.block(containing: offset) else { return nil }
        if block.sessions.contains(where: { $0.instructions?.range.offsets.contains(offset) ?? false }) {
            return ("Instructions", value, offsets)
        }
        if block.calls.contains(where: { $0.range.offsets.contains(offset) }) {
            return ("Prompt", value, offsets)
        }
        return nil
    }
}
