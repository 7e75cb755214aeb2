/// Splits a byte stream into LSP base-protocol messages:
/// `Content-Length: N\r\n` (other headers ignored), an empty line, then N
/// bytes of body.
///
/// It never traps on bad input. A broken header, a missing or invalid
/// `Content-Length`, or a body over `maximumMessageSize` is reported as a
/// `.malformed` item; the framer then skips to the next `Content-Length`
/// header and continues. An oversize body is skipped (past its declared
/// length) and reported as `.oversized` with its first bytes, so the server
/// can answer the request it held with an error instead of dropping it.
/// Lines ending in a bare `\n` are accepted.
public struct MessageFramer: Sendable {
    public enum Item: Sendable, Equatable {
        case message([UInt8])
        case malformed(String)
        /// A message over the size limit: its declared length and up to `oversizedPrefixLength` bytes of its body.
        case oversized(length: Int, prefix: [UInt8])
    }

    /// How much of an oversize body is kept to find its request id.
    public static let oversizedPrefixLength = 4096

    public static let defaultMaximumMessageSize = 64 << 20
    /// A header block longer than this without its blank line is garbage.
    public static let maximumHeaderSize = 16 << 10

    public let maximumMessageSize: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of an oversize body still to be thrown away.
    private var discarding = 0
    /// Garbage without a header to resume at was reported; report no more until a header.
    private var skippingGarbage = false
    /// The oversize message being skipped: declared length and the prefix kept so far (reported once complete).
    private var oversized: (length: Int, prefix: [UInt8])?

    public init(maximumMessageSize: Int = MessageFramer.defaultMaximumMessageSize) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Bytes received but not yet part of a complete message.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends bytes and returns every item they complete, in order.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [Item] {
        buffer.append(contentsOf: bytes)
        var items: [Item] = []
        while let item = nextItem() { items.append(item) }
        compact()
        return items
    }

    /// What is left at the end of input, if anything: a truncated message.
    public mutating func finish() -> Item? {
        defer { buffer = []; start = 0; discarding = 0; oversized = nil }
        if let oversized { return .oversized(length: oversized.length, prefix: oversized.prefix) }
        let leftover = buffer[start...]
        guard discarding == 0, leftover.contains(where: { !Self.isWhitespace($0) }) else { return nil }
        return .malformed("input ended inside a message (\(leftover.count) bytes after the last complete message)")
    }

    private mutating func compact() {
        if start > 0, start >= buffer.count / 2 || start > 1 << 20 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    private mutating func nextItem() -> Item? {
        if discarding > 0 || oversized != nil {
            let done = discardBody()
            if let report = takeOversized(force: done) { return report }
            if !done { return nil }
        }
        // Skip blank bytes between messages (some clients send a stray newline).
        while start < buffer.count, Self.isWhitespace(buffer[start]) { start += 1 }
        guard start < buffer.count else { return nil }

        guard let (headerEnd, bodyStart) = findHeaderEnd() else {
            if buffer.count - start > Self.maximumHeaderSize {
                return resynchronize("a header block longer than \(Self.maximumHeaderSize) bytes without the blank line that ends it")
            }
            if !Self.couldStartHeader(buffer[start..<min(buffer.count, start + 16)]) {
                return resynchronize("bytes that are not a message header")
            }
            return nil
        }
        var contentLength: Int?
        var headerError: String?
        for line in buffer[start..<headerEnd].split(separator: 0x0A, omittingEmptySubsequences: true) {
            var line = line
            if line.last == 0x0D { line = line.dropLast() }
            guard let colon = line.firstIndex(of: 0x3A) else {
                headerError = "a header line without a colon"
                break
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).trimmingSpaces()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces()
            if name.lowercased() == "content-length" {
                guard let length = Int(value), length >= 0 else {
                    headerError = "an invalid Content-Length \"\(value.prefix(40))\""
                    break
                }
                contentLength = length
            }
        }
        if let headerError { return resynchronize(headerError) }
        guard let length = contentLength else { return resynchronize("a header block without Content-Length") }
        if length > maximumMessageSize {
            start = bodyStart
            discarding = length
            oversized = (length, [])
            skippingGarbage = false
            let done = discardBody()
            return takeOversized(force: done) ?? nextItem()
        }
        skippingGarbage = false
        guard buffer.count - bodyStart >= length else { return nil }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        start = bodyStart + length
        return .message(body)
    }

    /// The oversize report, once its prefix is complete (or the body ended).
    private mutating func takeOversized(force: Bool) -> Item? {
        guard let current = oversized else { return nil }
        guard force || current.prefix.count >= min(current.length, Self.oversizedPrefixLength) else { return nil }
        oversized = nil
        return .oversized(length: current.length, prefix: current.prefix)
    }

    /// Throws away what is buffered of an oversize body (keeping its first bytes); true when all of it is gone.
    private mutating func discardBody() -> Bool {
        let available = min(discarding, buffer.count - start)
        if var current = oversized, current.prefix.count < Self.oversizedPrefixLength {
            let keep = min(available, Self.oversizedPrefixLength - current.prefix.count)
            current.prefix += buffer[start..<start + keep]
            oversized = current
        }
        start += available
        discarding -= available
        return discarding == 0
    }

    /// Finds the blank line ending the header block at `start`: returns the
    /// end of the headers and the start of the body.
    private func findHeaderEnd() -> (Int, Int)? {
        var index = start
        let limit = min(buffer.count, start + Self.maximumHeaderSize + 4)
        while index < limit {
            if buffer[index] == 0x0A {
                // "\n\n" or "\n\r\n" ends the headers.
                if index + 1 < buffer.count, buffer[index + 1] == 0x0A { return (index, index + 2) }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A { return (index, index + 3) }
            }
            index += 1
        }
        return nil
    }

    /// Reports `reason` and skips to the next `Content-Length` header.
    private mutating func resynchronize(_ reason: String) -> Item? {
        let pattern = Array("content-length".utf8)
        var index = start + 1
        var found: Int?
        while index + pattern.count <= buffer.count {
            if Self.matchesIgnoringCase(buffer, at: index, pattern) {
                found = index
                break
            }
            index += 1
        }
        // Without a header to resume at, keep only a tail that may be the
        // beginning of one.
        start = found ?? max(start + 1, buffer.count - pattern.count + 1)
        let alreadyReported = skippingGarbage
        skippingGarbage = found == nil
        if alreadyReported { return nextItem() }
        return .malformed("unreadable input: \(reason); skipped to the next Content-Length header")
    }

    private static func matchesIgnoringCase(_ buffer: [UInt8], at index: Int, _ pattern: [UInt8]) -> Bool {
        for (offset, byte) in pattern.enumerated() {
            let candidate = buffer[index + offset]
            let lowered = (candidate >= 0x41 && candidate <= 0x5A) ? candidate + 0x20 : candidate
            if lowered != byte { return false }
        }
        return true
    }

    /// Whether `prefix` can begin a header line (`Name:`), so that waiting for
    /// more bytes makes sense.
    private static func couldStartHeader(_ prefix: ArraySlice<UInt8>) -> Bool {
        for byte in prefix {
            if byte == 0x3A { return true }
            let isToken = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
            if !isToken { return false }
        }
        return true
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Frames one message body for sending.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
