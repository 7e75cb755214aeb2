/// Turns generated tokens into text as they arrive, holding back an
/// incomplete UTF-8 sequence until its remaining bytes come, so a character
/// split across tokens is never emitted as replacement characters.
public struct StreamingDetokenizer: Sendable {
    private let tokenizer: Tokenizer
    private let renderSpecial: Bool
    private var pending: [UInt8] = []

    public init(tokenizer: Tokenizer, renderSpecial: Bool = false) {
        self.tokenizer = tokenizer
        self.renderSpecial = renderSpecial
    }

    /// Adds a token; returns the text that is now complete (maybe empty).
    public mutating func append(_ token: TokenID) -> String {
        pending.append(contentsOf: tokenizer.pieceBytes(token, renderSpecial: renderSpecial))
        let complete = Self.completePrefixLength(pending)
        guard complete > 0 else { return "" }
        let text = String(decoding: pending[0..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Whatever is held back (an incomplete sequence becomes U+FFFD).
    public mutating func finish() -> String {
        defer { pending.removeAll() }
        return pending.isEmpty ? "" : String(decoding: pending, as: UTF8.self)
    }

    /// Bytes held back waiting for the rest of a character.
    public var pendingByteCount: Int { pending.count }

    /// Length of the longest prefix that does not end inside a UTF-8 sequence
    /// that could still be completed.
    static func completePrefixLength(_ bytes: [UInt8]) -> Int {
        let n = bytes.count
        // Look back at most 3 bytes for a lead byte whose sequence is unfinished.
        var i = n - 1
        var continuation = 0
        while i >= 0, n - i <= 4 {
            let b = bytes[i]
            if b & 0xC0 == 0x80 {
                continuation += 1
                i -= 1
                continue
            }
            let needed = b >= 0xF0 && b <= 0xF7 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
            if b < 0x80 || b > 0xF7 { return n }
            return continuation + 1 < needed ? i : n
        }
        return n
    }
}
