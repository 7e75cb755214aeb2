/// Builds the shortest string matching a regex, for the scripted model's
/// `pattern` guides. Supports literals, escapes (`\d \w \s` and escaped
/// punctuation), `.`, character classes with ranges, groups with `|`, and the
/// quantifiers `? * + {n} {n,} {n,m}`; anchors are ignored. Anything else
/// (lookarounds, backreferences) returns nil.
struct PatternExample {
    private let pattern: [Character]
    private var index = 0

    init(_ pattern: String) { self.pattern = Array(pattern) }

    static func shortestMatch(of pattern: String) -> String? {
        var parser = PatternExample(pattern)
        guard let result = parser.alternation(), parser.index == parser.pattern.count else { return nil }
        return result
    }

    private var current: Character? { index < pattern.count ? pattern[index] : nil }

    /// `a|b|c`: the shortest alternative.
    private mutating func alternation() -> String? {
        var options: [String] = []
        while true {
            guard let branch = sequence() else { return nil }
            options.append(branch)
            guard current == "|" else { break }
            index += 1
        }
        return options.min { $0.count < $1.count }
    }

    private mutating func sequence() -> String? {
        var result = ""
        while let c = current, c != "|", c != ")" {
            guard let atom = atom() else { return nil }
            guard let count = quantifier() else { return nil }
            result += String(repeating: atom, count: count)
        }
        return result
    }

    /// The minimum repetition count of a following quantifier (1 when none).
    private mutating func quantifier() -> Int? {
        switch current {
        case "?", "*": index += 1; skipLazy(); return 0
        case "+": index += 1; skipLazy(); return 1
        case "{":
            guard let close = pattern[index...].firstIndex(of: "}") else { return nil }
            let body = String(pattern[(index + 1)..<close])
            index = close + 1
            skipLazy()
            return Int(body.split(separator: ",", omittingEmptySubsequences: false).first.map(String.init) ?? "")
        default: return 1
        }
    }

    private mutating func skipLazy() { if current == "?" { index += 1 } }

    private mutating func atom() -> String? {
        guard let c = current else { return nil }
        index += 1
        switch c {
        case "^", "$": return ""
        case ".": return "a"
        case "(":
            if current == "?" {
                // Only non-capturing groups `(?:...)`.
                guard index + 1 < pattern.count, pattern[index + 1] == ":" else { return nil }
                index += 2
            }
            guard let inner = alternation(), current == ")" else { return nil }
            index += 1
            return inner
        case "[": return characterClass()
        case "\\": return escape(inClass: false)
        case "*", "+", "?", "{", ")": return nil
        default: return String(c)
        }
    }

    private mutating func escape(inClass: Bool) -> String? {
        guard let c = current else { return nil }
        index += 1
        switch c {
        case "d": return "0"
        case "w": return "a"
        case "s": return " "
        case "n": return "\n"
        case "t": return "\t"
        case "D", "W", "S", "b", "B": return inClass ? nil : (c == "b" || c == "B" ? "" : (c == "D" ? "a" : (c == "W" ? "-" : "a")))
        default: return c.isLetter || c.isNumber ? nil : String(c)
        }
    }

    /// `[...]`: the first member (a negated class picks a letter not excluded).
    private mutating func characterClass() -> String? {
        var negated = false
        if current == "^" { negated = true; index += 1 }
        var members: [ClosedRange<Character>] = []
        var first = true
        while let c = current, c != "]" || first {
            first = false
            index += 1
            var low = String(c)
            if c == "\\" { guard let e = escape(inClass: true) else { return nil }; low = e }
            if current == "-", index + 1 < pattern.count, pattern[index + 1] != "]" {
                index += 1
                guard var high = current.map(String.init) else { return nil }
                index += 1
                if high == "\\" { guard let e = escape(inClass: true) else { return nil }; high = e }
                guard let l = low.first, let h = high.first, l <= h else { return nil }
                members.append(l...h)
            } else if let l = low.first {
                members.append(l...l)
            }
        }
        guard current == "]" else { return nil }
        index += 1
        if negated {
            return "abcxyz0 ".first { ch in !members.contains { $0.contains(ch) } }.map(String.init)
        }
        return members.first.map { String($0.lowerBound) }
    }
}
