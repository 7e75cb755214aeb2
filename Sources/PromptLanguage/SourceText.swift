#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A position in a prompt file. `offset` is a UTF-8 byte offset from the start
/// of the file; `line` and `column` are 1-based, and `column` counts UTF-8
/// bytes. Editor protocols convert (the LSP layer converts to UTF-16).
public struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var offset: Int
    public var line: Int
    public var column: Int

    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool { lhs.offset < rhs.offset }

    public var description: String { "\(line):\(column)" }
}

/// A half-open range `[start, end)` of a prompt file.
public struct SourceRange: Sendable, Hashable, CustomStringConvertible {
    public var start: SourcePosition
    public var end: SourcePosition

    public init(start: SourcePosition, end: SourcePosition) {
        self.start = start
        self.end = end
    }

    /// The UTF-8 byte offsets.
    public var offsets: Range<Int> { start.offset..<max(start.offset, end.offset) }

    public func contains(_ offset: Int) -> Bool { offsets.contains(offset) || (offset == start.offset && start.offset == end.offset) }

    public var description: String { "\(start)-\(end)" }
}

/// The text of one prompt file with its line table: the one position table of
/// fmplay. Byte offsets convert to line/column here for the command line and the
/// evaluator, and the language server converts LSP positions over the same table
/// (`LanguageServer/PositionEncoding.swift` extends it).
///
/// Lines end at `\n`, `\r\n` or a lone `\r`, as LSP defines and as swift-syntax counts them.
public struct SourceText: Sendable {
    public let text: String
    public let bytes: [UInt8]
    /// Byte offset of the first byte of each line; `lineStarts[0] == 0`.
    public let lineStarts: [Int]

    public init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.lineStarts = Self.lineStarts(bytes)
    }

    /// The text of UTF-8 bytes (invalid sequences decode as U+FFFD in `text`; offsets are the bytes').
    public init(bytes: [UInt8]) {
        self.text = String(decoding: bytes, as: UTF8.self)
        self.bytes = bytes
        self.lineStarts = Self.lineStarts(bytes)
    }

    /// 0 and the offset after every line end (`\n`, `\r\n`, lone `\r`). With memchr when the
    /// text has no `\r` (the usual case), else through a buffer pointer: this runs for every
    /// analysis and every edit the language server applies, and megabytes of text take seconds
    /// through generic iteration in an unoptimized build.
    public static func lineStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let count = buffer.count
            if memchr(base, 0x0D, count) == nil {
                var index = 0
                while index < count, let found = memchr(base + index, 0x0A, count - index) {
                    index = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                    starts.append(index)
                }
                return
            }
            var index = 0
            while index < count {
                let byte = buffer[index]
                if byte == 0x0A {
                    starts.append(index + 1)
                } else if byte == 0x0D {
                    if index + 1 < count, buffer[index + 1] == 0x0A { index += 1 }
                    starts.append(index + 1)
                }
                index += 1
            }
        }
        return starts
    }

    public var lineCount: Int { lineStarts.count }

    /// The position of a byte offset (clamped into the file).
    public func position(at offset: Int) -> SourcePosition {
        let offset = min(max(0, offset), bytes.count)
        let low = lineIndex(containing: offset)
        return SourcePosition(offset: offset, line: low + 1, column: offset - lineStarts[low] + 1)
    }

    /// The 0-based index of the line holding `offset`. A binary search without
    /// bounds checks (a hot path: two per model element and per LSP position).
    public func lineIndex(containing offset: Int) -> Int {
        lineStarts.withUnsafeBufferPointer { starts in
            var low = 0
            var high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= offset { low = middle } else { high = middle - 1 }
            }
            return low
        }
    }

    public func range(_ offsets: Range<Int>) -> SourceRange {
        SourceRange(start: position(at: offsets.lowerBound), end: position(at: offsets.upperBound))
    }

    /// The byte offset of a 1-based line and UTF-8 column (clamped).
    public func offset(line: Int, column: Int) -> Int {
        guard line >= 1 else { return 0 }
        guard line <= lineStarts.count else { return bytes.count }
        return min(lineStarts[line - 1] + max(0, column - 1), lineEnd(line))
    }

    /// The byte offset just past the last character of a 1-based line (before its line end).
    public func lineEnd(_ line: Int) -> Int {
        guard line >= 1, line < lineStarts.count else { return bytes.count }
        var end = lineStarts[line]
        if end > lineStarts[line - 1], bytes[end - 1] == 0x0A { end -= 1 }
        if end > lineStarts[line - 1], bytes[end - 1] == 0x0D { end -= 1 }
        return end
    }

    /// The text of a 1-based line, without its line terminator.
    public func lineText(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        return String(decoding: bytes[lineStarts[line - 1]..<lineEnd(line)], as: UTF8.self)
    }

    /// The text of a byte range.
    public func slice(_ offsets: Range<Int>) -> String {
        let lower = min(max(0, offsets.lowerBound), bytes.count)
        let upper = min(max(lower, offsets.upperBound), bytes.count)
        return String(decoding: bytes[lower..<upper], as: UTF8.self)
    }

    /// The 0-based line and column of a UTF-8 offset (clamped into the text), the column counted in
    /// `unit`s up to the end of the line's content. An offset inside a multi-byte character counts that
    /// whole character. The one column conversion: LSP positions and SARIF regions use it.
    public func lineAndColumn(of offset: Int, in unit: ColumnUnit) -> (line: Int, column: Int) {
        let offset = min(max(0, offset), bytes.count)
        let line = lineIndex(containing: offset)
        let start = lineStarts[line]
        let end = min(offset, lineEnd(line + 1))
        if unit == .utf8Bytes { return (line, end - start) }
        var column = 0
        for index in start..<max(start, end) { column += unit.units(leadByte: bytes[index]) }
        return (line, column)
    }
}

/// What a column counts: UTF-8 bytes, UTF-16 code units (LSP's default, SARIF's `utf16CodeUnits`) or
/// Unicode scalars.
public enum ColumnUnit: Sendable, Hashable {
    case utf8Bytes, utf16CodeUnits, unicodeScalars

    /// Code units of this kind in the UTF-8 sequence starting with `leadByte`; 0 for continuation bytes.
    @inline(__always)
    public func units(leadByte byte: UInt8) -> Int {
        switch self {
        case .utf8Bytes: return 1
        case .utf16CodeUnits: return byte & 0xC0 == 0x80 ? 0 : (byte >= 0xF0 ? 2 : 1)
        case .unicodeScalars: return byte & 0xC0 == 0x80 ? 0 : 1
        }
    }
}
