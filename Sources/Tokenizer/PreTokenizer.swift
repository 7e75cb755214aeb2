/// Splits text into words before BPE, as the `tokenizer.ggml.pre` pattern of
/// a model requires. Each pattern is a hand-written matcher with the same
/// result as llama.cpp's regex (stages apply in order, each within the
/// pieces the previous stage produced; unmatched text stays a piece).
public enum PreTokenizer: Sendable, Equatable {
    /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`
    case gpt2
    /// Each \p{N} on its own, then GPT-2 (smollm, starcoder, refact, ...).
    case smollm
    /// Llama 3: case-insensitive contractions, `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`, ...
    case llama3
    /// Qwen 2: the Llama 3 pattern with single digits.
    case qwen2
    /// llama.cpp's default BPE pattern list (used when `tokenizer.ggml.pre` is "default" or absent).
    case `default`

    /// The pre-tokenizer for a `tokenizer.ggml.pre` value, or nil when unknown.
    public init?(ggmlName name: String) {
        switch name {
        case "default": self = .default
        case "gpt-2", "gpt2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v1-en", "jina-v2-es", "jina-v2-de",
             "jina-v2-code", "a.x-4.0", "mellum", "mpt", "olmo", "jais", "trillion", "granite-docling":
            self = .gpt2
        case "smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b":
            self = .smollm
        case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
             "dbrx", "smaug-bpe", "chatglm-bpe":
            self = .llama3
        case "qwen2", "deepseek-r1-qwen", "kormo", "stablelm2", "hunyuan":
            self = .qwen2
        default: return nil
        }
    }

    /// Word boundaries: the end codepoint index of each word, in order.
    func split(_ text: CodepointText) -> [Int] {
        let cps = text.codepoints
        var pieces = [cps.count]
        func apply(_ stage: (ArraySlice<UInt32>, Int, inout [Int]) -> Void) {
            var result: [Int] = []
            result.reserveCapacity(pieces.count * 2)
            var start = 0
            for end in pieces {
                stage(cps[start..<end], start, &result)
                start = end
            }
            pieces = result
        }
        switch self {
        case .gpt2:
            apply(Self.gpt2Words)
        case .smollm:
            apply { piece, _, out in Self.regexWords(piece, &out) { cps, p in UnicodeClass.of(cps[p]).has(.number) ? 1 : 0 } }
            apply(Self.gpt2Words)
        case .llama3:
            apply { piece, _, out in Self.llama3Words(piece, maxDigits: 3, &out) }
        case .qwen2:
            apply { piece, _, out in Self.llama3Words(piece, maxDigits: 1, &out) }
        case .default:
            // [\p{P}\$\+<=>\^~\|]+
            apply { piece, _, out in
                Self.regexWords(piece, &out) { cps, p in
                    var q = p
                    while q < cps.endIndex, Self.isDefaultPunctuation(cps[q]) { q += 1 }
                    return q - p
                }
            }
            apply(Self.gpt2Words)
            // \p{N}+
            apply { piece, _, out in
                Self.regexWords(piece, &out) { cps, p in
                    var q = p
                    while q < cps.endIndex, UnicodeClass.of(cps[q]).has(.number) { q += 1 }
                    return q - p
                }
            }
            // [0-9][0-9][0-9]
            apply { piece, _, out in
                Self.regexWords(piece, &out) { cps, p in
                    guard p + 3 <= cps.endIndex else { return 0 }
                    for q in p..<(p + 3) where !(48...57).contains(cps[q]) { return 0 }
                    return 3
                }
            }
        }
        return pieces
    }

    private static func isDefaultPunctuation(_ c: UInt32) -> Bool {
        switch c {
        case 0x24, 0x2B, 0x3C, 0x3D, 0x3E, 0x5E, 0x7E, 0x7C: return true // $ + < = > ^ ~ |
        default: return UnicodeClass.of(c).has(.punctuation)
        }
    }

    /// Regex-iterator semantics: leftmost matches (length from `match`, 0 =
    /// no match here), with the unmatched text between them kept as pieces.
    private static func regexWords(_ piece: ArraySlice<UInt32>, _ out: inout [Int],
                                   match: (ArraySlice<UInt32>, Int) -> Int) {
        var p = piece.startIndex
        var gapStart = p
        while p < piece.endIndex {
            let length = match(piece, p)
            if length > 0 {
                if gapStart < p { out.append(p) }
                p += length
                out.append(p)
                gapStart = p
            } else {
                p += 1
            }
        }
        if gapStart < piece.endIndex { out.append(piece.endIndex) }
    }

    @inline(__always)
    private static func classAt(_ piece: ArraySlice<UInt32>, _ p: Int) -> UnicodeClass? {
        p < piece.endIndex ? UnicodeClass.of(piece[p]) : nil
    }

    private static let apostrophe: UInt32 = 0x27

    private static func contractionLength(_ piece: ArraySlice<UInt32>, _ p: Int, ignoreCase: Bool) -> Int {
        guard piece[p] == apostrophe, p + 1 < piece.endIndex else { return 0 }
        func lower(_ c: UInt32) -> UInt32 { ignoreCase && (65...90).contains(c) ? c + 32 : c }
        let c1 = lower(piece[p + 1])
        if c1 == 0x73 || c1 == 0x74 || c1 == 0x6D || c1 == 0x64 { return 2 } // s t m d
        if p + 2 < piece.endIndex {
            let c2 = lower(piece[p + 2])
            if (c1 == 0x72 && c2 == 0x65) || (c1 == 0x76 && c2 == 0x65) || (c1 == 0x6C && c2 == 0x6C) { return 3 } // re ve ll
        }
        return 0
    }

    /// The GPT-2 pattern over one piece.
    private static func gpt2Words(_ piece: ArraySlice<UInt32>, _: Int, _ out: inout [Int]) {
        var p = piece.startIndex
        let end = piece.endIndex
        while p < end {
            let c = piece[p]
            let contraction = contractionLength(piece, p, ignoreCase: false)
            if contraction > 0 {
                p += contraction
                out.append(p)
                continue
            }
            let isSpace = c == 0x20
            let next = isSpace ? classAt(piece, p + 1) : UnicodeClass.of(c)
            if let next, next.has(.letter) {
                p += isSpace ? 1 : 0
                while classAt(piece, p)?.has(.letter) == true { p += 1 }
                out.append(p)
                continue
            }
            if let next, next.has(.number) {
                p += isSpace ? 1 : 0
                while classAt(piece, p)?.has(.number) == true { p += 1 }
                out.append(p)
                continue
            }
            if let next, next.lacks(.spaceLetterNumber) {
                p += isSpace ? 1 : 0
                while let cls = classAt(piece, p), cls.lacks(.spaceLetterNumber) { p += 1 }
                out.append(p)
                continue
            }
            var spaces = 0
            while classAt(piece, p + spaces)?.has(.whitespace) == true { spaces += 1 }
            if spaces > 1, p + spaces < end {
                p += spaces - 1 // \s+(?!\S): leave one space for the next word
            } else if spaces > 0 {
                p += spaces
            } else {
                p += 1
            }
            out.append(p)
        }
    }

    /// The Llama 3 / Qwen 2 pattern over one piece.
    private static func llama3Words(_ piece: ArraySlice<UInt32>, maxDigits: Int, _ out: inout [Int]) {
        var p = piece.startIndex
        let end = piece.endIndex
        while p < end {
            let c = piece[p]
            let cls = UnicodeClass.of(c)
            let contraction = contractionLength(piece, p, ignoreCase: true)
            if contraction > 0 {
                p += contraction
                out.append(p)
                continue
            }
            // [^\r\n\p{L}\p{N}]?\p{L}+
            if !(c == 0x0D || c == 0x0A || cls.has(.number)) {
                if cls.has(.letter) || classAt(piece, p + 1)?.has(.letter) == true {
                    p += 1
                    while classAt(piece, p)?.has(.letter) == true { p += 1 }
                    out.append(p)
                    continue
                }
            }
            // \p{N}{1,maxDigits}
            if cls.has(.number) {
                var start = p
                while classAt(piece, p)?.has(.number) == true {
                    p += 1
                    if p - start >= maxDigits {
                        out.append(p)
                        start = p
                    }
                }
                if p > start { out.append(p) }
                continue
            }
            // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
            let isSpace = c == 0x20
            let next = isSpace ? classAt(piece, p + 1) : cls
            if let next, next.lacks(.spaceLetterNumber) {
                p += isSpace ? 1 : 0
                while let k = classAt(piece, p), k.lacks(.spaceLetterNumber) { p += 1 }
                while p < end, piece[p] == 0x0D || piece[p] == 0x0A { p += 1 }
                out.append(p)
                continue
            }
            var spaces = 0
            var lastNewlineEnd = 0
            while classAt(piece, p + spaces)?.has(.whitespace) == true {
                let w = piece[p + spaces]
                if w == 0x0D || w == 0x0A { lastNewlineEnd = p + spaces + 1 }
                spaces += 1
            }
            if lastNewlineEnd > 0 {
                p = lastNewlineEnd // \s*[\r\n]+
            } else if spaces > 1, p + spaces < end {
                p += spaces - 1 // \s+(?!\S)
            } else if spaces > 0 {
                p += spaces
            } else {
                p += 1
            }
            out.append(p)
        }
    }
}
