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
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
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
                    out.append(b0)
                    out.append(text[i + 1])
                }
                i += 2
            } else {
                out.append(b0)
                i += 1
            }
        }
    }
}

/// (left id, right id) -> (rank << 32 | merged id), open addressing over
/// 64-bit keys; built once.
final class MergeTable: @unchecked Sendable {
    private let keys: UnsafeMutablePointer<UInt64>
    private let values: UnsafeMutablePointer<UInt64>
    private let mask: Int
    private static let empty = UInt64.max

    init(_ entries: [(key: UInt64, value: UInt64)]) {
        var size = 16
        while size < entries.count * 2 { size <<= 1 }
        mask = size - 1
        keys = .allocate(capacity: size)
        keys.initialize(repeating: Self.empty, count: size)
        values = .allocate(capacity: size)
        values.initialize(repeating: 0, count: size)
        for (key, value) in entries {
            var slot = Self.slot(key) & mask
            while keys[slot] != Self.empty && keys[slot] != key { slot = (slot + 1) & mask }
            // The first (lowest-rank) occurrence of a pair wins.
            if keys[slot] == Self.empty {
                keys[slot] = key
                values[slot] = value
            }
        }
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always)
    private static func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20)
    }

    @inline(__always)
    func value(_ key: UInt64) -> UInt64? {
        var slot = Self.slot(key) & mask
        while true {
            let k = keys[slot]
            if k == key { return values[slot] }
            if k == Self.empty { return nil }
            slot = (slot + 1) & mask
        }
    }
}
