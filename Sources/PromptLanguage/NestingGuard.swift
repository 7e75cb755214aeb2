/// Keeps pathological nesting away from the parser. swift-syntax bounds its
/// recursion with `maximumNestingLevel`, but some of its lookahead does not,
/// so 10,000 nested brackets overflow the stack, and its type lookahead is
/// exponential in the number of `[` opened in a row (`[[[[...`). Brackets
/// nested deeper than the limits (and their closers) are replaced by spaces
/// before parsing, which keeps every byte offset valid; the first one is
/// reported as FM003.
enum NestingGuard {
    static let maximumBracketDepth = 128
    /// `[` opened in a row, separated only by whitespace and comments.
    static let maximumSquareBracketRun = 6

    /// The bytes to parse, and the offset of the first bracket past the limit.
    static func neutralize(_ bytes: [UInt8], limit: Int = maximumBracketDepth) -> (bytes: [UInt8], firstOverflow: Int?) {
        var output = bytes
        var firstOverflow: Int?
        // One entry per open bracket: whether it was neutralized.
        var stack: [Bool] = []
        var squareRun = 0
        var index = 0
        let count = bytes.count
        func byte(_ i: Int) -> UInt8 { i < count ? bytes[i] : 0 }
        while index < count {
            let current = bytes[index]
            switch current {
            case UInt8(ascii: "/") where byte(index + 1) == UInt8(ascii: "/"):
                while index < count && bytes[index] != 0x0A { index += 1 }
                continue
            case UInt8(ascii: "/") where byte(index + 1) == UInt8(ascii: "*"):
                var depth = 0
                while index < count {
                    if bytes[index] == UInt8(ascii: "/") && byte(index + 1) == UInt8(ascii: "*") { depth += 1; index += 2; continue }
                    if bytes[index] == UInt8(ascii: "*") && byte(index + 1) == UInt8(ascii: "/") {
                        depth -= 1
                        index += 2
                        if depth == 0 { break }
                        continue
                    }
                    index += 1
                }
                continue
            case UInt8(ascii: "\""):
                squareRun = 0
                index = skipString(bytes, from: index)
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"), 0x0A, 0x0D:
                index += 1
                continue
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                squareRun = current == UInt8(ascii: "[") ? squareRun + 1 : 0
                let tooDeep = stack.count >= limit || squareRun > maximumSquareBracketRun
                if tooDeep {
                    if firstOverflow == nil { firstOverflow = index }
                    output[index] = UInt8(ascii: " ")
                }
                stack.append(tooDeep)
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                if let neutralized = stack.popLast(), neutralized { output[index] = UInt8(ascii: " ") }
            default:
                break
            }
            if current != UInt8(ascii: "[") { squareRun = 0 }
            index += 1
        }
        return (output, firstOverflow)
    }

    /// The index just past a string literal starting at `start` (a quote),
    /// single- or triple-quoted; escapes are skipped, interpolations are
    /// balanced by parentheses.
    private static func skipString(_ bytes: [UInt8], from start: Int) -> Int {
        let count = bytes.count
        let quote = UInt8(ascii: "\"")
        let triple = start + 2 < count && bytes[start + 1] == quote && bytes[start + 2] == quote
        var index = start + (triple ? 3 : 1)
        while index < count {
            let current = bytes[index]
            if current == UInt8(ascii: "\\") {
                if index + 1 < count && bytes[index + 1] == UInt8(ascii: "(") {
                    var depth = 1
                    index += 2
                    while index < count && depth > 0 {
                        if bytes[index] == UInt8(ascii: "(") { depth += 1 }
                        if bytes[index] == UInt8(ascii: ")") { depth -= 1 }
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
