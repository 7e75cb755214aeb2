import IDE
import PromptLanguage

/// The front end's analysis of one revision of a document. Its position table is
/// the analysis' own (`file.source`, the document's `SourceText` the analysis took
/// over), which converts its UTF-8 ranges to LSP ranges.
struct DocumentAnalysis: Sendable {
    let uri: String
    let revision: Int
    let version: Int
    let analysis: PromptAnalysis

    init(document: TextDocument) {
        self.init(document: document, analysis: PromptAnalyzer.analyze(document.source))
    }

    /// `analysis` must be the analysis of `document.source` (it then holds that very table).
    init(document: TextDocument, analysis: PromptAnalysis) {
        uri = document.uri
        revision = document.revision
        version = document.version
        self.analysis = analysis
    }

    var file: PromptFile { analysis.file }

    /// The one position table of this revision.
    var source: SourceText { analysis.file.source }

    /// The protocol-free editor features over this analysis.
    var ide: IDEDocument { IDEDocument(analysis: analysis) }

    func range(_ range: SourceRange, _ encoding: PositionEncoding) -> LSPRange {
        source.range(of: range.offsets, in: encoding)
    }

    func offset(_ position: LSPPosition, _ encoding: PositionEncoding) -> Int {
        source.offset(of: position, in: encoding)
    }
}
