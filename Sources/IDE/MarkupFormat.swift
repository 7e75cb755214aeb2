/// The text format of hovers, hint tooltips and completion documentation: Markdown,
/// or plain text with no `**`, backticks or code fences (the LanguageServer target
/// negotiates which one a client gets).
public enum MarkupFormat: String, Sendable {
    case markdown
    case plaintext

    /// `**text**` in Markdown, the text itself in plain text.
    public func strong(_ text: String) -> String {
        self == .markdown ? "**\(text)**" : text
    }

    /// `` `code` `` in Markdown, the code itself in plain text.
    public func code(_ text: String) -> String {
        self == .markdown ? "`\(text)`" : text
    }

    /// A fenced block in Markdown; in plain text the lines themselves.
    public func block(_ text: String, language: String) -> [String] {
        self == .markdown ? ["```\(language)", text, "```"] : [text]
    }
}
