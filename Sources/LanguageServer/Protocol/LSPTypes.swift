import JSON

// The subset of LSP 3.17 structures the server reads and writes. Optional
// properties that are nil are omitted from the JSON.

public struct TextDocumentIdentifier: Sendable, Hashable, Codable {
    public var uri: String
}

public struct VersionedTextDocumentIdentifier: Sendable, Hashable, Codable {
    public var uri: String
    public var version: Int
}

public struct TextDocumentItem: Sendable, Hashable, Codable {
    public var uri: String
    public var languageId: String
    public var version: Int
    public var text: String
}

struct DidOpenTextDocumentParams: Codable { var textDocument: TextDocumentItem }
struct DidChangeTextDocumentParams: Codable {
    var textDocument: VersionedTextDocumentIdentifier
    var contentChanges: [TextDocument.Change]
}
struct DidCloseTextDocumentParams: Codable { var textDocument: TextDocumentIdentifier }
struct DidSaveTextDocumentParams: Codable {
    var textDocument: TextDocumentIdentifier
    var text: String?
}
struct DocumentParams: Codable { var textDocument: TextDocumentIdentifier }
struct TextDocumentPositionParams: Codable {
    var textDocument: TextDocumentIdentifier
    var position: LSPPosition
}
struct RangeParams: Codable {
    var textDocument: TextDocumentIdentifier
    var range: LSPRange
}
struct CancelParams: Codable { var id: JSONValue }
struct DidChangeConfigurationParams: Codable { var settings: JSONValue? }
struct ExecuteCommandParams: Codable {
    var command: String
    var arguments: [JSONValue]?
}
struct WorkDoneProgressCancelParams: Codable { var token: JSONValue }

public struct LSPLocation: Sendable, Hashable, Codable {
    public var uri: String
    public var range: LSPRange
}

public struct LSPTextEdit: Sendable, Hashable, Codable {
    public var range: LSPRange
    public var newText: String
}

public struct WorkspaceEdit: Sendable, Hashable, Codable {
    public var changes: [String: [LSPTextEdit]]
}

public struct DiagnosticRelatedInformation: Sendable, Hashable, Codable {
    public var location: LSPLocation
    public var message: String
}

public struct LSPDiagnostic: Sendable, Hashable, Codable {
    public var range: LSPRange
    /// 1 error, 2 warning, 3 information, 4 hint.
    public var severity: Int
    public var code: String?
    public var source: String
    public var message: String
    public var relatedInformation: [DiagnosticRelatedInformation]?
}

public struct PublishDiagnosticsParams: Sendable, Hashable, Codable {
    public var uri: String
    public var version: Int?
    public var diagnostics: [LSPDiagnostic]
}

public struct FullDocumentDiagnosticReport: Sendable, Hashable, Codable {
    public var kind = "full"
    public var resultId: String?
    public var items: [LSPDiagnostic]
}

public struct LSPCommand: Sendable, Hashable, Codable {
    public var title: String
    public var command: String
    public var arguments: [JSONValue]?
}

public struct CodeLens: Sendable, Hashable, Codable {
    public var range: LSPRange
    public var command: LSPCommand?
}

public struct CodeAction: Sendable, Hashable, Codable {
    public var title: String
    public var kind: String
    public var diagnostics: [LSPDiagnostic]?
    public var isPreferred: Bool?
    public var edit: WorkspaceEdit?
}

struct CodeActionContext: Codable {
    var diagnostics: [ContextDiagnostic]
    var only: [String]?
}

/// A diagnostic as a client sends it back in a code-action context: only `range` and
/// `message` are required by LSP (ALE, for one, sends no severity or source).
struct ContextDiagnostic: Codable {
    var range: LSPRange
    var message: String
}

struct CodeActionParams: Codable {
    var textDocument: TextDocumentIdentifier
    var range: LSPRange
    var context: CodeActionContext
}

public struct MarkupContent: Sendable, Hashable, Codable {
    /// `markdown` or `plaintext` (see `MarkupFormat`).
    public var kind: String
    public var value: String
}

public struct Hover: Sendable, Hashable, Codable {
    public var contents: MarkupContent
    public var range: LSPRange?
}

public struct InlayHint: Sendable, Hashable, Codable {
    public var position: LSPPosition
    public var label: String
    /// 1 type, 2 parameter; nil for results, which are neither.
    public var kind: Int?
    public var tooltip: MarkupContent?
    public var paddingLeft: Bool?
}

public struct CompletionItem: Sendable, Hashable, Codable {
    public var label: String
    /// LSP CompletionItemKind.
    public var kind: Int
    public var detail: String?
    public var documentation: MarkupContent?
    public var insertText: String?
    /// 1 plain text, 2 snippet.
    public var insertTextFormat: Int?
    public var sortText: String?
}

public struct CompletionList: Sendable, Hashable, Codable {
    public var isIncomplete: Bool
    public var items: [CompletionItem]
}

public struct DocumentSymbol: Sendable, Hashable, Codable {
    public var name: String
    public var detail: String?
    /// LSP SymbolKind.
    public var kind: Int
    public var range: LSPRange
    public var selectionRange: LSPRange
    public var children: [DocumentSymbol]?
}

public struct ParameterInformation: Sendable, Hashable, Codable {
    /// `[start, end)` offsets within the signature's label (in the position encoding) when the
    /// client declares `labelOffsetSupport`, else the parameter's text.
    public var label: JSONValue
}

public struct SignatureInformation: Sendable, Hashable, Codable {
    public var label: String
    public var documentation: String?
    public var parameters: [ParameterInformation]
    public var activeParameter: Int?
}

public struct LSPSignatureHelp: Sendable, Hashable, Codable {
    public var signatures: [SignatureInformation]
    public var activeSignature: Int
    public var activeParameter: Int?
}

enum CompletionItemKind {
    static let method = 2, function = 3, field = 5, variable = 6, `struct` = 22, enumMember = 20, property = 10, `enum` = 13, keyword = 14
}

enum SymbolKind {
    static let `struct` = 23, `enum` = 10, enumMember = 22, property = 7, method = 6, function = 12, constant = 14, namespace = 3, event = 24
}
