import IDE
import PromptLanguage

/// The front end's analysis of one revision of a document, with the line
/// table that converts its UTF-8 ranges to LSP ranges.
struct DocumentAnalysis: Sendable {
    let uri: String
    let revision: Int
    let version: Int
    let lines: LineTable
    let analysis: PromptAnalysis

    init(document: TextDocument) {
        self.init(document: document, analysis: PromptAnalyzer.analyze(document.text))
    }

    init(document: TextDocument, analysis: PromptAnalysis) {
        uri = document.uri
        revision = document.revision
        version = document.version
        lines = document.lines
        self.analysis = analysis
    }

    var file: PromptFile { analysis.file }

    /// The protocol-free editor features over this analysis.
    var ide: IDEDocument { IDEDocument(analysis: analysis) }

    func range(_ range: SourceRange, _ encoding: PositionEncoding) -> LSPRange {
        lines.range(of: range.offsets, in: encoding)
    }

    func offset(_ position: LSPPosition, _ encoding: PositionEncoding) -> Int {
        lines.offset(of: position, in: encoding)
    }
}
