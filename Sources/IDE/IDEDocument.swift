import PromptLanguage

/// One analysed revision of a prompt file as the editor features see it.
///
/// The IDE layer answers editor questions (hover, completion, signature help,
/// definition, symbols, code lenses, quick fixes) over the front end's
/// analysis. It knows nothing of LSP or JSON-RPC: positions are UTF-8 byte
/// offsets and results are plain Swift values, which the LanguageServer target
/// translates.
public struct IDEDocument: Sendable {
    public let analysis: PromptAnalysis

    public init(analysis: PromptAnalysis) {
        self.analysis = analysis
    }

    /// Analyses `text` (tests and tools; the server reuses its analysis).
    public init(text: String) {
        self.init(analysis: PromptAnalyzer.analyze(text))
    }

    public var file: PromptFile { analysis.file }
    public var bytes: [UInt8] { analysis.file.source.bytes }

    /// The identifier (letters, digits, `_`) around a UTF-8 offset, with its offsets.
    public func word(at offset: Int) -> (text: String, offsets: Range<Int>)? {
        let bytes = self.bytes
        var start = min(max(0, offset), bytes.count)
        var end = start
        while start > 0, Self.isWordByte(bytes[start - 1]) { start -= 1 }
        while end < bytes.count, Self.isWordByte(bytes[end]) { end += 1 }
        guard start < end else { return nil }
        return (String(decoding: bytes[start..<end], as: UTF8.self), start..<end)
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }

    /// The playground block containing an offset.
    public func block(containing offset: Int) -> PlaygroundBlock? {
        file.playgrounds.first { $0.range.offsets.contains(offset) || $0.range.end.offset == offset }
    }

    /// The model call containing an offset (the innermost, when nested).
    public func call(containing offset: Int) -> (block: PlaygroundBlock, call: ModelCall)? {
        guard let block = block(containing: offset) else { return nil }
        let calls = block.calls.filter { $0.range.offsets.contains(offset) || $0.range.end.offset == offset }
        guard let call = calls.min(by: { $0.range.offsets.count < $1.range.offsets.count }) else { return nil }
        return (block, call)
    }
}
