/// The character classes the pre-tokenizers use, as llama.cpp defines them:
/// letters are \p{L}, numbers \p{N}, whitespace the Unicode White_Space set,
/// punctuation \p{P}. Taken from the standard library's Unicode data, so
/// no regex engine is involved.
struct UnicodeClass: OptionSet {
    let rawValue: UInt8
    static let letter = UnicodeClass(rawValue: 1)
    static let number = UnicodeClass(rawValue: 2)
    static let whitespace = UnicodeClass(rawValue: 4)
    static let punctuation = UnicodeClass(rawValue: 8)
    /// \s, \p{L} or \p{N}: what `[^\s\p{L}\p{N}]` excludes.
    static let spaceLetterNumber = UnicodeClass(rawValue: 7)

    private static let ascii: [UnicodeClass] = (0..<128).map { classify(UInt32($0)) }

    @inline(__always) func has(_ other: UnicodeClass) -> Bool { rawValue & other.rawValue != 0 }
    @inline(__always) func lacks(_ other: UnicodeClass) -> Bool { rawValue & other.rawValue == 0 }

    @inline(__always)
    static func of(_ codepoint: UInt32) -> UnicodeClass {
        codepoint < 128 ? ascii[Int(codepoint)] : classify(codepoint)
    }

    static func classify(_ codepoint: UInt32) -> UnicodeClass {
        guard let scalar = Unicode.Scalar(codepoint) else { return [] }
        var result: UnicodeClass = []
        let properties = scalar.properties
        if properties.isWhitespace { result.insert(.whitespace) }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            result.insert(.letter)
        case .decimalNumber, .letterNumber, .otherNumber:
            result.insert(.number)
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            result.insert(.punctuation)
        default:
            break
        }
        return result
    }
}

/// UTF-8 text as codepoints with their byte offsets, decoded the way
/// llama.cpp does: a malformed sequence becomes U+FFFD for one byte.
struct CodepointText {
    var codepoints: [UInt32] = []
    /// Byte offset of each codepoint, plus the total length at the end.
    var offsets: [Int] = []
    /// The text re-encoded (identical to the input when it was valid UTF-8).
    var bytes: [UInt8] = []

    init(_ input: UnsafeRawBufferPointer) {
        codepoints.reserveCapacity(input.count)
        offsets.reserveCapacity(input.count + 1)
        bytes.reserveCapacity(input.count)
        var i = 0
        let n = input.count
        while i < n {
            let b0 = input[i]
            var cp: UInt32 = 0xFFFD
            var length = 1
            var valid = true
            if b0 < 0x80 {
                cp = UInt32(b0)
            } else if b0 & 0x40 == 0 {
                valid = false
            } else if b0 & 0x20 == 0 {
                if i + 1 < n, input[i + 1] & 0xC0 == 0x80 {
                    cp = (UInt32(b0 & 0x1F) << 6) | UInt32(input[i + 1] & 0x3F)
                    length = 2
                } else { valid = false }
            } else if b0 & 0x10 == 0 {
                if i + 2 < n, input[i + 1] & 0xC0 == 0x80, input[i + 2] & 0xC0 == 0x80 {
                    cp = (UInt32(b0 & 0x0F) << 12) | (UInt32(input[i + 1] & 0x3F) << 6) | UInt32(input[i + 2] & 0x3F)
                    length = 3
                } else { valid = false }
            } else if b0 & 0x08 == 0 {
                if i + 3 < n, input[i + 1] & 0xC0 == 0x80, input[i + 2] & 0xC0 == 0x80, input[i + 3] & 0xC0 == 0x80 {
                    cp = (UInt32(b0 & 0x07) << 18) | (UInt32(input[i + 1] & 0x3F) << 12)
                        | (UInt32(input[i + 2] & 0x3F) << 6) | UInt32(input[i + 3] & 0x3F)
                    length = 4
                } else { valid = false }
            } else {
                valid = false
            }
            offsets.append(bytes.count)
            codepoints.append(cp)
            if valid {
                for k in i..<(i + length) { bytes.append(input[k]) }
            } else {
                bytes.append(0xEF)
                bytes.append(0xBF)
                bytes.append(0xBD)
            }
            i += length
        }
        offsets.append(bytes.count)
    }
}
