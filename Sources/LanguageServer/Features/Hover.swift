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

        if let text = promptString(at: offset, in: current) {
            var markdown = "**\(text.role)** · "
            switch evaluation.playgroundRunner.tokenCount(of: text.value, configuration: configuration) {
            case .counted(let tokens, let contextSize, let model):
                let share = Double(tokens) / Double(max(1, contextSize)) * 100
                markdown += "\(tokens) tokens of \(model)'s \(contextSize)-token context (\(share.formatted1)%)"
            case .unavailable(let reason):
                markdown += "\(text.value.utf8.count) bytes; tokens cannot be counted: \(reason)"
            }
            return Hover(contents: MarkupContent(value: markdown), range: current.lines.range(of: text.offsets, in: encoding))
        }

        if let word = current.word(at: offset), let type = current.file.resolveType(word.text, in: nil) ?? current.file.types.first(where: { $0.name == word.text }),
           type.isGenerable || type.tool != nil {
            return Hover(contents: MarkupContent(value: typeMarkdown(type, in: current.file)), range: current.lines.range(of: word.offsets, in: encoding))
        }

        // A table entry (member, initializer, case, type), except the model calls, whose hover is their result.
        if let target = SurfaceLookup(file: current.file, inference: current.analysis.surface).target(at: offset), let word = current.word(at: offset) {
            if case .member(let entry) = target, entry.owner == "LanguageModelSession", ModelCall.Method(rawValue: entry.name) != nil {
            } else {
                return Hover(contents: MarkupContent(value: Self.surfaceMarkdown(target)), range: current.lines.range(of: word.offsets, in: encoding))
            }
        }

        if let (_, call) = current.call(containing: offset) {
            let entries = latestResults(current).filter { call.range.offsets.contains($0.result.range.lowerBound) }
            let range = current.range(call.range, encoding)
            guard let entry = entries.first else {
                let trigger = configuration.evaluate == .manual ? "run the block (▶ Run)" : "save the file or run the block (▶ Run)"
                return Hover(contents: MarkupContent(value: "**\(call.method.rawValue)** · no result yet: \(trigger)"), range: range)
            }
            return Hover(contents: MarkupContent(value: ResultRendering.markdown(entry.result, iterations: entry.iterations)), range: range)
        }
        return nil
    }

    /// The declaration, availability and documentation of a table entry or type.
    static func surfaceMarkdown(_ target: SurfaceLookup.Target) -> String {
        switch target {
        case .member(let entry):
            let owner = entry.owner.isEmpty ? "" : "\(entry.owner) · "
            return "```swift\n\(entry.declaration)\n```\n\(owner)\(entry.availability.rawValue)\n\n\(entry.documentation)"
        case .type(let type):
            return "```swift\n\(type.kind.rawValue) \(type.name)\n```\n\(type.module) · \(type.availability.rawValue)\n\n\(type.documentation)"
        }
    }

    private func typeMarkdown(_ type: TypeDeclaration, in file: PromptFile) -> String {
        var lines = ["**\(type.tool != nil ? "Tool" : "@Generable \(type.kind.rawValue)")** `\(type.qualifiedName)`"]
        if let tool = type.tool {
            lines.append("")
            lines.append("name: `\(tool.effectiveName(typeName: type.name))`" + (tool.description.map { " · \($0)" } ?? ""))
            if let arguments = tool.argumentsType, let schema = file.schemas[arguments] {
                lines.append("")
                lines.append("Arguments schema:")
                lines += schemaBlock(schema, title: arguments)
            }
        } else if let schema = file.schemas[type.qualifiedName] {
            lines.append("")
            lines += schemaBlock(schema, title: type.name)
        }
        return lines.joined(separator: "\n")
    }

    private func schemaBlock(_ schema: GenerationSchema, title: String) -> [String] {
        ["```json", schema.jsonSchema(title: title).serialized(pretty: true), "```"]
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
