import PromptLanguage

/// An open document: its text (the one position table, `SourceText`, which the
/// analysis of this revision takes over) and the client's version. Edits apply
/// in arrival order.
public struct TextDocument: Sendable {
    public let uri: String
    public let languageID: String
    public private(set) var version: Int
    public private(set) var source: SourceText
    /// Incremented by every change the server applies, so cached analyses can
    /// tell whether they are current even when clients reuse version numbers.
    public private(set) var revision: Int = 0

    public init(uri: String, languageID: String, version: Int, text: String) {
        self.uri = uri
        self.languageID = languageID
        self.version = version
        self.source = SourceText(text)
    }

    public var bytes: [UInt8] { source.bytes }
    public var text: String { source.text }

    /// One change from `textDocument/didChange`: the whole text when `range`
    /// is nil, otherwise a replacement of the range.
    public struct Change: Sendable, Hashable, Codable {
        public var range: LSPRange?
        public var rangeLength: Int?
        public var text: String

        public init(range: LSPRange? = nil, text: String) {
            self.range = range
            self.text = text
        }
    }

    /// Applies changes in order; each range refers to the text as left by the
    /// previous change.
    public mutating func apply(_ changes: [Change], version: Int, encoding: PositionEncoding) {
        for change in changes {
            let inserted = Array(change.text.utf8)
            guard let range = change.range else {
                source = SourceText(change.text)
                continue
            }
            var bytes = source.bytes
            bytes.replaceSubrange(source.offsets(of: range, in: encoding), with: inserted)
            source = SourceText(bytes: bytes)
        }
        self.version = version
        revision += 1
    }
}
