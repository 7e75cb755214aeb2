import PromptLanguage

/// The one place that converts between the layers' UTF-8 byte offsets and
/// LSP positions (line and character in the negotiated encoding).
///
/// Everything below `LanguageServer` speaks UTF-8 offsets; everything the
/// server sends or receives speaks `LSPPosition`. Lines end at `\n`, `\r\n`
/// or `\r`, as LSP defines. Out-of-range positions clamp, as the spec says:
/// a character past the end of its line means the end of the line, a line
/// past the end of the text means the end of the text.

/// A position encoding a client and server agreed on in `initialize`.
public enum PositionEncoding: String, Sendable, Hashable, Codable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case utf32 = "utf-32"

    /// The server's choice among the client's offers: UTF-8 when offered
    /// (no conversion), otherwise UTF-16, which every client must support.
    public static func negotiate(clientOffers: [String]?) -> PositionEncoding {
        guard let offers = clientOffers else { return .utf16 }
        if offers.contains(PositionEncoding.utf8.rawValue) { return .utf8 }
        return .utf16
    }

    /// What this encoding's characters count (`SourceText.lineAndColumn(of:in:)`).
    public var unit: ColumnUnit {
        switch self {
        case .utf8: .utf8Bytes
        case .utf16: .utf16CodeUnits
        case .utf32: .unicodeScalars
        }
    }

    @inline(__always)
    func units(leadByte byte: UInt8) -> Int { unit.units(leadByte: byte) }

    /// Code units of this encoding in a piece of UTF-8 text (offsets within a signature label).
    func length(of bytes: some Sequence<UInt8>) -> Int {
        bytes.reduce(0) { $0 + units(leadByte: $1) }
    }
}

public struct LSPPosition: Sendable, Hashable, Codable, Comparable {
    public var line: Int
    public var character: Int

    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    public static func < (lhs: LSPPosition, rhs: LSPPosition) -> Bool {
        (lhs.line, lhs.character) < (rhs.line, rhs.character)
    }
}

public struct LSPRange: Sendable, Hashable, Codable {
    public var start: LSPPosition
    public var end: LSPPosition

    public init(start: LSPPosition, end: LSPPosition) {
        self.start = start
        self.end = end
    }

    public func contains(_ position: LSPPosition) -> Bool { start <= position && position <= end }

    public func overlaps(_ other: LSPRange) -> Bool { start <= other.end && other.start <= end }
}

/// LSP positions over the one position table (`SourceText`: lines end at `\n`, `\r\n` or `\r`).
extension SourceText {
    /// The offset just past the last character of a 0-based line, before its terminator.
    public func lineContentEnd(_ line: Int) -> Int { lineEnd(line + 1) }

    /// The 0-based line holding `offset`.
    public func line(containing offset: Int) -> Int { lineIndex(containing: offset) }

    /// The LSP position of a UTF-8 offset (clamped into the text; `SourceText.lineAndColumn`).
    public func position(of offset: Int, in encoding: PositionEncoding) -> LSPPosition {
        let (line, character) = lineAndColumn(of: offset, in: encoding.unit)
        return LSPPosition(line: line, character: character)
    }

    /// The UTF-8 offset of an LSP position (clamped). A character inside a
    /// UTF-16 surrogate pair or a UTF-8 sequence rounds down to the start of
    /// that character.
    public func offset(of position: LSPPosition, in encoding: PositionEncoding) -> Int {
        guard position.line >= 0 else { return 0 }
        guard position.line < lineStarts.count else { return bytes.count }
        let start = lineStarts[position.line]
        let end = lineContentEnd(position.line)
        let target = max(0, position.character)
        if encoding == .utf8 {
            var offset = target >= end - start ? end : start + target  // no overflow for character Int.max
            while offset > start, offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset -= 1 }
            return offset
        }
        var units = 0
        var index = start
        while index < end {
            let width = encoding.units(leadByte: bytes[index])
            if width > 0 {
                if units + width > target { break }
                units += width
            }
            index += 1
            // Step over the continuation bytes of this character.
            while index < end, bytes[index] & 0xC0 == 0x80 { index += 1 }
            if units == target { break }
        }
        return index
    }

    public func range(of offsets: Swift.Range<Int>, in encoding: PositionEncoding) -> LSPRange {
        LSPRange(start: position(of: offsets.lowerBound, in: encoding), end: position(of: offsets.upperBound, in: encoding))
    }

    public func offsets(of range: LSPRange, in encoding: PositionEncoding) -> Swift.Range<Int> {
        let start = offset(of: range.start, in: encoding)
        let end = offset(of: range.end, in: encoding)
        return min(start, end)..<max(start, end)
    }
}
