/// A set of Unicode scalar values: sorted, disjoint, non-adjacent ranges.
/// Regex classes and string contents are sets; `ByteNFA` turns them into
/// byte paths (raw UTF-8, or JSON string encoding with escapes).
struct ScalarSet: Hashable {
    private(set) var ranges: [ClosedRange<UInt32>]

    static let maximum: UInt32 = 0x10FFFF
    static let all = ScalarSet([0...maximum])
    static let empty = ScalarSet([])
    static let digits = ScalarSet([0x30...0x39])
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    static let space = ScalarSet([0x09...0x0D, 0x20...0x20])

    init(_ ranges: [ClosedRange<UInt32>]) {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        for range in sorted {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    init(scalar: UInt32) { self.init([scalar...scalar]) }

    var isEmpty: Bool { ranges.isEmpty }

    func contains(_ scalar: UInt32) -> Bool {
        ranges.contains { $0.contains(scalar) }
    }

    func union(_ other: ScalarSet) -> ScalarSet { ScalarSet(ranges + other.ranges) }

    var inverted: ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            next = range.upperBound &+ 1
        }
        if next <= Self.maximum, !(ranges.last?.upperBound == Self.maximum) { result.append(next...Self.maximum) }
        return ScalarSet(result)
    }

    func subtracting(_ other: ScalarSet) -> ScalarSet {
        intersection(other.inverted)
    }

    func intersection(_ other: ScalarSet) -> ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        for a in ranges {
            for b in other.ranges {
                let lo = max(a.lowerBound, b.lowerBound)
                let hi = min(a.upperBound, b.upperBound)
                if lo <= hi { result.append(lo...hi) }
            }
        }
        return ScalarSet(result)
    }
}

/// UTF-8 encoding of scalar ranges as sequences of byte ranges, so that a
/// range of characters becomes a few byte paths (surrogates are excluded).
enum UTF8Ranges {
    static func sequences(_ lo: UInt32, _ hi: UInt32) -> [[ClosedRange<UInt8>]] {
        var result: [[ClosedRange<UInt8>]] = []
        split(lo, hi, into: &result)
        return result
    }

    private static func split(_ lo: UInt32, _ hi: UInt32, into result: inout [[ClosedRange<UInt8>]]) {
        guard lo <= hi else { return }
        if lo <= 0xDFFF, hi >= 0xD800 {
            if lo < 0xD800 { split(lo, 0xD7FF, into: &result) }
            if hi > 0xDFFF { split(0xE000, hi, into: &result) }
            return
        }
        for boundary: UInt32 in [0x7F, 0x7FF, 0xFFFF] where lo <= boundary && hi > boundary {
            split(lo, boundary, into: &result)
            split(boundary + 1, hi, into: &result)
            return
        }
        let length = encode(lo).count
        for continuation in 1..<max(length, 1) {
            let mask: UInt32 = (1 << (6 * UInt32(continuation))) - 1
            if lo & ~mask != hi & ~mask {
                if lo & mask != 0 {
                    split(lo, lo | mask, into: &result)
                    split((lo | mask) + 1, hi, into: &result)
                    return
                }
                if hi & mask != mask {
                    split(lo, (hi & ~mask) - 1, into: &result)
                    split(hi & ~mask, hi, into: &result)
                    return
                }
            }
        }
        let low = encode(lo)
        let high = encode(hi)
        result.append(zip(low, high).map { $0...$1 })
    }

    static func encode(_ scalar: UInt32) -> [UInt8] {
        switch scalar {
        case 0..<0x80:
            return [UInt8(scalar)]
        case 0x80..<0x800:
            return [UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F)]
        case 0x800..<0x10000:
            return [UInt8(0xE0 | scalar >> 12), UInt8(0x80 | (scalar >> 6) & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        default:
            return [UInt8(0xF0 | scalar >> 18), UInt8(0x80 | (scalar >> 12) & 0x3F),
                    UInt8(0x80 | (scalar >> 6) & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        }
    }
}

extension ByteNFA {
    /// One character of `set`, as raw UTF-8 (free text).
    mutating func rawCharacter(_ set: ScalarSet, from: Int) -> Int {
        let end = addState()
        for range in set.ranges {
            for sequence in UTF8Ranges.sequences(range.lowerBound, range.upperBound) {
                var current = from
                for (position, bytes) in sequence.enumerated() {
                    let next = position == sequence.count - 1 ? end : addState()
                    addBytes(from: current, bytes.lowerBound, bytes.upperBound, to: next)
                    current = next
                }
            }
        }
        return end
    }

    /// One character of `set` inside a JSON string: printable ASCII and
    /// non-ASCII as raw UTF-8; `"` and `\` escaped; control characters as
    /// their short escape or `\u00XX`.
    mutating func jsonCharacter(_ set: ScalarSet, from: Int) -> Int {
        let end = addState()
        let plain = set.subtracting(ScalarSet([0...0x1F, 0x22...0x22, 0x5C...0x5C]))
        let raw = rawCharacter(plain, from: from)
        addEpsilon(from: raw, to: end)
        let shortEscapes: [UInt32: UInt8] = [0x22: 0x22, 0x5C: 0x5C, 0x08: 0x62, 0x0C: 0x66, 0x0A: 0x6E, 0x0D: 0x72, 0x09: 0x74]
        for scalar in [UInt32(0x22), 0x5C] + Array(0...0x1F) where set.contains(scalar) {
            if let letter = shortEscapes[scalar] {
                addEpsilon(from: literal([0x5C, letter], from: from), to: end)
            } else {
                let afterPrefix = literal(Array(#"\u00"#.utf8), from: from)
                let afterHigh = literal([UInt8(0x30 + scalar >> 4)], from: afterPrefix)
                let low = scalar & 0xF
                let lowBytes: [ClosedRange<UInt8>] = low < 10
                    ? [UInt8(0x30 + low)...UInt8(0x30 + low)]
                    : [UInt8(0x61 + low - 10)...UInt8(0x61 + low - 10), UInt8(0x41 + low - 10)...UInt8(0x41 + low - 10)]
                addEpsilon(from: byteSet(lowBytes, from: afterHigh), to: end)
            }
        }
        return end
    }

    /// One character of free JSON string content: any character (escaped as
    /// needed), plus the escapes `\/` and `\uXXXX` (no lone surrogates).
    mutating func anyJSONStringCharacter(from: Int) -> Int {
        let end = jsonCharacter(.all, from: from)
        let backslash = literal([0x5C], from: from)
        addEpsilon(from: literal([0x2F], from: backslash), to: end)
        let afterU = literal([0x75], from: backslash)
        let hex: [ClosedRange<UInt8>] = [0x30...0x39, 0x41...0x46, 0x61...0x66]
        // First digit not D: any three more. First digit D: next is 0-7.
        let notD = byteSet([0x30...0x39, 0x41...0x43, 0x45...0x46, 0x61...0x63, 0x65...0x66], from: afterU)
        let isD = byteSet([0x44...0x44, 0x64...0x64], from: afterU)
        let afterSecond = byteSet(hex, from: notD)
        addBytes(from: isD, 0x30, 0x37, to: afterSecond)
        let afterThird = byteSet(hex, from: afterSecond)
        let afterFourth = byteSet(hex, from: afterThird)
        addEpsilon(from: afterFourth, to: end)
        return end
    }

    /// `"` + the JSON encoding of `text` + `"`.
    mutating func jsonStringLiteral(_ text: String, from: Int) -> Int {
        literal(Array(JSONText.quoted(text).utf8), from: from)
    }
}

/// JSON text helpers shared by the compiler and the tests' expectations.
public enum JSONText {
    /// `text` as a compact JSON string literal (escapes `"`, `\` and control characters).
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
