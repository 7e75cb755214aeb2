import IDE

extension LanguageServer {
    /// The IDE layer's completions as an LSP `CompletionList`: snippets for clients that
    /// support them, plain text otherwise, in the order the IDE layer offers them.
    func completion(_ params: TextDocumentPositionParams) throws -> CompletionList {
        let current = try analysis(params.textDocument.uri)
        let snippets = clientSupports("textDocument", "completion", "completionItem", "snippetSupport")
        let candidates = current.ide.completions(at: current.offset(params.position, encoding))
        let items = candidates.enumerated().map { index, candidate in
            let kind = switch candidate.kind {
            case .method: CompletionItemKind.method
            case .function: CompletionItemKind.function
            case .field: CompletionItemKind.field
            case .variable: CompletionItemKind.variable
            case .type: CompletionItemKind.struct
            case .enumMember: CompletionItemKind.enumMember
            case .property: CompletionItemKind.property
            }
            return CompletionItem(
                label: candidate.label, kind: kind, detail: candidate.detail, documentation: nil,
                insertText: (snippets ? candidate.snippet : candidate.plainText) ?? candidate.label,
                insertTextFormat: snippets && candidate.snippet != nil ? 2 : 1, sortText: Self.sortKey(index))
        }
        return CompletionList(isIncomplete: false, items: items)
    }

    static func sortKey(_ n: Int) -> String {
        let digits = "\(n)"
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
