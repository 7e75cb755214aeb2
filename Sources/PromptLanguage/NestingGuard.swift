/// Keeps pathological nesting away from the parser. swift-syntax bounds its
/// recursion with `maximumNestingLevel`, but some of its lookahead does not,
/// so 10,000 nested brackets overflow the stack, and its type lookahead is
/// exponential in the number of `[` opened in a row (`[[[[...`). Brackets
/// nested deeper than the limits (and their closers) are replaced by spaces
/// before parsing, which keeps every byte offset valid; the first one is
/// reported as FM003. Long runs of `try`/`await` and of generic `Name<` openers
/// (the parser recurses once per keyword or `<`) are blanked the same way.
enum NestingGuard {
    static let maximumBracketDepth = 128
    /// `[` opened in a row, separated only by whitespace and comments.
    static let maximumSquareBracketRun = 6
    /// `try`/`await` keywords, or `Name<` generic openers, in a row.
    static let maximumPrefixRun = 64
    /// Parentheses (and nested interpolations) inside one interpolation.
    static let maximumInterpolationDepth = 64

    /// The bytes to parse, and the offset of the first bracket past the limit.
    static func neutralize(_ bytes: [UInt8], limit: Int = maximumBracketDepth) -> (bytes: [UInt8], firstOverflow: Int?) {
        var scan = Scan(bytes: bytes, limit: limit)
        scan.run()
        return (scan.output, scan.firstOverflow)
    }

    /// One pass over the bytes: the runs and brackets open so far, and what has been blanked.
    private struct Scan {
        let bytes: [UInt8]
        let limit: Int
        var output: [UInt8]
        var firstOverflow: Int?
        /// One entry per open bracket: whether it was neutralized.
        var stack: [Bool] = []
        var squareRun = 0
        /// `try try try ...`/`await await ...` and `A<B<C<...` nest without brackets; the parser recurses
        /// once per keyword or `<`, so runs longer than `maximumPrefixRun` are blanked too.
        var keywordRun = 0
        var genericRun = 0
        var index = 0

        init(bytes: [UInt8], limit: Int) {
            self.bytes = bytes
            self.limit = limit
            output = bytes
        }

        func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

        static func isIdentifier(_ b: UInt8) -> Bool {
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b >= 0x80
        }

        mutating func blank(_ range: Range<Int>) {
            if firstOverflow == nil { firstOverflow = range.lowerBound }
            for i in range { output[i] = UInt8(ascii: " ") }
        }

        mutating func run() {
            while index < bytes.count {
                let current = bytes[index]
                if Self.isIdentifier(current), index == 0 || !Self.isIdentifier(bytes[index - 1]) {
                    word()
                } else if current == UInt8(ascii: "<"), index > 0, Self.isIdentifier(bytes[index - 1]) {
                    genericRun += 1
                    if genericRun > maximumPrefixRun { blank(index..<index + 1) }
                    index += 1
                } else {
                    resetRuns(before: current)
                    punctuation(current)
                }
            }
        }

        /// An identifier or keyword: counts `try`/`await` runs.
        mutating func word() {
            var end = index
            while end < bytes.count, Self.isIdentifier(bytes[end]) { end += 1 }
            let word = bytes[index..<end]
            if word.elementsEqual("try".utf8) || word.elementsEqual("await".utf8) {
                keywordRun += 1
                if keywordRun > maximumPrefixRun { blank(index..<end) }
            } else {
                keywordRun = 0
            }
            squareRun = 0
            index = end
        }

        /// What ends a run of generic openers (`A<B<`) or of `try`/`await` keywords.
        mutating func resetRuns(before current: UInt8) {
            if !(current == UInt8(ascii: " ") || current == UInt8(ascii: ".") || current == UInt8(ascii: "\t")) { genericRun = 0 }
            if !(current == UInt8(ascii: " ") || current == UInt8(ascii: "?") || current == UInt8(ascii: "!")
                || current == UInt8(ascii: "\t") || current == 0x0A || current == 0x0D) { keywordRun = 0 }
        }

        /// Comments and strings are skipped; brackets are counted and blanked past the limits.
        mutating func punctuation(_ current: UInt8) {
            switch current {
            case UInt8(ascii: "/") where byte(index + 1) == UInt8(ascii: "/"):
                while index < bytes.count && bytes[index] != 0x0A { index += 1 }
                return
            case UInt8(ascii: "/") where byte(index + 1) == UInt8(ascii: "*"):
                skipBlockComment()
                return
            case UInt8(ascii: "\""):
                squareRun = 0
                index = NestingGuard.skipString(bytes, from: index, output: &output, firstOverflow: &firstOverflow)
                return
            case UInt8(ascii: " "), UInt8(ascii: "\t"), 0x0A, 0x0D:
                index += 1
                return
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                squareRun = current == UInt8(ascii: "[") ? squareRun + 1 : 0
                let tooDeep = stack.count >= limit || squareRun > maximumSquareBracketRun
                if tooDeep { blank(index..<index + 1) }
                stack.append(tooDeep)
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                if let neutralized = stack.popLast(), neutralized { output[index] = UInt8(ascii: " ") }
            default:
                break
            }
            if current != UInt8(ascii: "[") { squareRun = 0 }
            index += 1
        }

        /// `/* ... */`, nested.
        mutating func skipBlockComment() {
            var depth = 0
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "/") && byte(index + 1) == UInt8(ascii: "*") { depth += 1; index += 2; continue }
                if bytes[index] == UInt8(ascii: "*") && byte(index + 1) == UInt8(ascii: "/") {
                    depth -= 1
                    index += 2
                    if depth == 0 { return }
                    continue
                }
                index += 1
            }
        }
    }

    /// The index just past a string literal starting at `start` (a quote),
    /// single- or triple-quoted; escapes are skipped, interpolations are
    /// balanced by parentheses.
    ///
    /// Parentheses nested deeper than `maximumInterpolationDepth` inside an interpolation (nested
    /// interpolations `"\\("\\("...")")"` count here, since inner strings are not skipped) are blanked
    /// with everything inside them: swift-syntax's recovery past its nesting limit copies the rest of
    /// the tokens once per level, quadratic in time and memory.
    fileprivate static func skipString(_ bytes: [UInt8], from start: Int, output: inout [UInt8], firstOverflow: inout Int?) -> Int {
        let count = bytes.count
        let quote = UInt8(ascii: "\"")
        let triple = start + 2 < count && bytes[start + 1] == quote && bytes[start + 2] == quote
        var index = start + (triple ? 3 : 1)
        while index < count {
            let current = bytes[index]
            if current == UInt8(ascii: "\\") {
                if index + 1 < count && bytes[index + 1] == UInt8(ascii: "(") {
                    var depth = 1
                    var cut: Int?
                    index += 2
                    while index < count && depth > 0 {
                        if bytes[index] == UInt8(ascii: "(") {
                            depth += 1
                            if depth > maximumInterpolationDepth, cut == nil {
                                cut = bytes[index - 1] == UInt8(ascii: "\\") ? index - 1 : index
                            }
                        }
                        if bytes[index] == UInt8(ascii: ")") {
                            depth -= 1
                            if depth == maximumInterpolationDepth, let from = cut {
                                if firstOverflow == nil { firstOverflow = from }
                                for i in from...index where output[i] != 0x0A && output[i] != 0x0D { output[i] = UInt8(ascii: " ") }
                                cut = nil
                            }
                        }
                        index += 1
                    }
                    continue
                }
                index += 2
                continue
            }
            if !triple && current == 0x0A { return index }
            if current == quote {
                if !triple { return index + 1 }
                if index + 2 < count && bytes[index + 1] == quote && bytes[index + 2] == quote { return index + 3 }
            }
            index += 1
        }
        return count
    }
}
