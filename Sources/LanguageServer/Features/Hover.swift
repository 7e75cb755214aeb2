import IDE
import PromptLanguage

extension LanguageServer {
    /// The IDE layer's hover subjects with what the server holds: on a prompt or instructions
    /// string its token count against the context size; on an evaluation's `run()` its report
    /// (before table entries and model calls); on a model call its latest result.
    func hover(_ params: TextDocumentPositionParams) throws -> Hover? {
        let current = try analysis(params.textDocument.uri)
        let offset = current.offset(params.position, encoding)
        let format = hoverFormat
        let ide = current.ide
        let subjects = ide.hoverSubjects(at: offset)
        func hover(_ text: String, _ offsets: Range<Int>) -> Hover {
            Hover(contents: format.content(text), range: current.source.range(of: offsets, in: encoding))
        }

        if let first = subjects.first, first.precedesResults {
            if case .promptString(let role, let value, let offsets) = first {
                var text = format.strong(role) + " · "
                switch evaluation.playgroundRunner.tokenCount(of: value, configuration: configuration) {
                case .counted(let tokens, let contextSize, let model):
                    let share = Double(tokens) / Double(max(1, contextSize)) * 100
                    text += "\(tokens) tokens of \(model)'s \(contextSize)-token context (\(share.formatted1)%)"
                case .unavailable(let reason):
                    text += "\(value.utf8.count) bytes; tokens cannot be counted: \(reason)"
                }
                return hover(text, offsets)
            }
            return ide.hoverText(first, format: format).map { hover($0, first.offsets) }
        }

        // An evaluation's `run()` (or a @Test's .evaluates trait): the report.
        if let entry = latestResults(current).last(where: { $0.result.kind == .evaluation && $0.result.range.contains(offset) }) {
            return hover(ResultRendering.details(entry.result, iterations: entry.iterations, format: format)
                         + changesText(entry.block, in: current, format: format), entry.result.range)
        }

        switch subjects.first {
        case .modelCall(_, let call)?:
            let entries = latestResults(current).filter { call.range.offsets.contains($0.result.range.lowerBound) }
            guard let entry = entries.first else {
                let trigger = configuration.evaluate == .manual ? "run the block (▶ Run)" : "save the file or run the block (▶ Run)"
                return hover("\(format.strong(call.method.rawValue)) · no result yet: \(trigger)", call.range.offsets)
            }
            return hover(ResultRendering.details(entry.result, iterations: entry.iterations, format: format)
                         + changesText(entry.block, in: current, format: format), call.range.offsets)
        case let subject?:
            return ide.hoverText(subject, format: format).map { hover($0, subject.offsets) }
        case nil:
            return nil
        }
    }

    /// "Changed since last run" with the diff of the block's outputs, or nothing.
    private func changesText(_ block: PlaygroundBlock, in current: DocumentAnalysis, format: MarkupFormat) -> String {
        guard let record = evaluation.blocks(current.uri, in: current).first(where: { $0.block.index == block.index })?.record,
              !record.changes.isEmpty else { return "" }
        return "\n\n" + format.strong("Changed since last run:") + "\n" + format.block(record.changes.joined(separator: "\n"), language: "diff").joined(separator: "\n")
    }
}
