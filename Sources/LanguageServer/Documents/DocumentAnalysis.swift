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

    /// The identifier (letters, digits, `_`) around a UTF-8 offset, with its offsets.
    func word(at offset: Int) -> (text: String, offsets: Swift.Range<Int>)? {
        let bytes = lines.bytes
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
        var start = min(offset, bytes.count)
        var end = start
        while start > 0, isWordByte(bytes[start - 1]) { start -= 1 }
        while end < bytes.count, isWordByte(bytes[end]) { end += 1 }
        guard start < end else { return nil }
        return (String(decoding: bytes[start..<end], as: UTF8.self), start..<end)
    }

    /// The playground block containing an offset.
    func block(containing offset: Int) -> PlaygroundBlock? {
        file.playgrounds.first { $0.range.offsets.contains(offset) || $0.range.end.offset == offset }
    }

    /// The model call containing an offset (the innermost, when nested).
    func call(containing offset: Int) -> (block: PlaygroundBlock, call: ModelCall)? {
        guard let block = block(containing: offset) else { return nil }
        let calls = block.calls.filter { $0.range.offsets.contains(offset) || $0.range.end.offset == offset }
        guard let call = calls.min(by: { $0.range.offsets.count < $1.range.offsets.count }) else { return nil }
        return (block, call)
    }
}
