/// GPT-2's byte-level alphabet: every byte maps to a printable codepoint
/// (printable Latin-1 bytes map to themselves, the rest to U+0100 onwards),
/// so BPE vocabularies can store arbitrary bytes as text.
enum ByteLevel {
    static let codepoints: [UInt32] = {
        var map = [UInt32](repeating: 0, count: 256)
        var assigned = [Bool](repeating: false, count: 256)
        for range in [0x21...0x7E, 0xA1...0xAC, 0xAE...0xFF] {
            for b in range { map[b] = UInt32(b); assigned[b] = true }
        }
        var next: UInt32 = 256
        for b in 0..<256 where !assigned[b] {
            map[b] = next
            next += 1
        }
        return map
    }()

    /// UTF-8 of each byte's codepoint.
    static let encodedBytes: [[UInt8]] = codepoints.map { Array(String(Unicode.Scalar($0)!).utf8) }

    /// Codepoint -> byte, for codepoints below 0x200 (-1 when not in the alphabet).
    static let byteForCodepoint: [Int16] = {
        var table = [Int16](repeating: -1, count: 0x200)
        for (b, cp) in codepoints.enumerated() { table[Int(cp)] = Int16(b) }
        return table
    }()

    /// Decodes byte-level text back to bytes. Characters outside the
    /// alphabet are kept as their UTF-8.
    static func decode(_ text: ArraySlice<UInt8>, into out: inout [UInt8]) {
        var i = text.startIndex
        while i < text.endIndex {
            let b0 = text[i]
            if b0 < 0x80 {
                let byte = byteForCodepoint[Int(b0)]
                out.append(byte >= 0 ? UInt8(byte) : b0)
                i += 1
            } else if b0 & 0xE0 == 0xC0, i + 1 < text.endIndex {
                let cp = Int(b0 & 0x1F) << 6 | Int(text[i + 1] & 0x3F)
                if cp < 0x200, byteForCodepoint[cp] >= 0 {
                    out.append(UInt8(byteForCodepoint[cp]))
                } else {
                    out.append(contentsOf: text[i...(i + 1)])
                }
                i += 2
            } else {
                out.append(b0)
                i += 1
            }
        }
    }
}
