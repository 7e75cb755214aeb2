/// The regex subset `@Guide(.pattern(...))` supports. The whole generated
/// string must match (as with Swift's `wholeMatch`).
///
/// Supported: literal characters; escaped metacharacters (`\.`, `\\`, `\(`,
/// ...); `\n \t \r \f \v \0`, `\xHH`, `\uHHHH`, `\u{H...}`; classes `[...]`
/// with ranges, negation and the escapes below; `.` (any character except a
/// newline); `\d \w \s` and `\D \W \S` (ASCII meanings: `[0-9]`,
/// `[A-Za-z0-9_]`, `[ \t\n\r\f\v]`); quantifiers `? * + {m} {m,} {m,n} {,n}`
/// (a lazy `?` suffix is accepted: laziness does not change what matches);
/// alternation `|`; groups `( )`, `(?: )`, `(?<name> )`; `^` at the very
/// start and `$` at the very end.
///
/// Unsupported (reported as `GuidanceError.unsupportedGuide`, never ignored):
/// backreferences, lookaround, word boundaries `\b \B`, `\A \z \Z`,
/// inline options `(?i)`, possessive quantifiers, Unicode properties
/// `\p{...}`, POSIX classes `[:alpha:]`, class set operations, anchors
/// elsewhere, and repetition counts above `Pattern.maximumRepetition`.
indirect enum Pattern: Hashable {
    case characters(ScalarSet)
    case sequence([Pattern])
    case alternation([Pattern])
    case repetition(Pattern, minimum: Int, maximum: Int?)

    static let maximumRepetition = 256

    static func parse(_ source: String) throws(PatternError) -> Pattern {
        var parser = PatternParser(Array(source.unicodeScalars))
        return try parser.parseWhole()
    }

    /// Builds the pattern as JSON string content (characters escaped as JSON requires).
    func build(into nfa: inout ByteNFA, from: Int) -> Int {
        switch self {
        case .characters(let set):
            return nfa.jsonCharacter(set, from: from)
        case .sequence(let parts):
            var current = from
            for part in parts { current = part.build(into: &nfa, from: current) }
            return current
        case .alternation(let branches):
            return nfa.choice(from: from, branches.map { branch in { nfa, start in branch.build(into: &nfa, from: start) } })
        case .repetition(let body, let minimum, let maximum):
            return nfa.repeated(from: from, minimum: minimum, maximum: maximum) { nfa, start in
                body.build(into: &nfa, from: start)
            }
        }
    }
}

struct PatternError: Error, Hashable {
    var message: String
    var offset: Int
}

private struct PatternParser {
    let scalars: [Unicode.Scalar]
    var position = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var atEnd: Bool { position >= scalars.count }
    var current: Unicode.Scalar? { atEnd ? nil : scalars[position] }

    func error(_ message: String) -> PatternError { PatternError(message: message, offset: position) }

    mutating func parseWhole() throws(PatternError) -> Pattern {
        if current == "^" { position += 1 }
        let pattern = try parseAlternation()
        if current == "$", position == scalars.count - 1 { position += 1 }
        guard atEnd else {
            if current == ")" { throw error("unbalanced ')'") }
            if current == "$" { throw error("'$' is supported only at the end of the pattern") }
            throw error("unexpected '\(current!)'")
        }
        return pattern
    }

    mutating func parseAlternation() throws(PatternError) -> Pattern {
        var branches = [try parseSequence()]
        while current == "|" {
            position += 1
            branches.append(try parseSequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    mutating func parseSequence() throws(PatternError) -> Pattern {
        var parts: [Pattern] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            if scalar == "$", position == scalars.count - 1 { break }
            var atom = try parseAtom()
            atom = try parseQuantifiers(atom)
            parts.append(atom)
        }
        return parts.count == 1 ? parts[0] : .sequence(parts)
    }

    mutating func parseQuantifiers(_ atom: Pattern) throws(PatternError) -> Pattern {
        var atom = atom
        while let scalar = current {
            let bounds: (Int, Int?)
            switch scalar {
            case "?": bounds = (0, 1); position += 1
            case "*": bounds = (0, nil); position += 1
            case "+": bounds = (1, nil); position += 1
            case "{":
                guard let counted = try parseCount() else { return atom }
                bounds = counted
            default:
                return atom
            }
            if current == "?" { position += 1 }
            else if current == "+" { throw error("possessive quantifiers are not supported") }
            atom = .repetition(atom, minimum: bounds.0, maximum: bounds.1)
        }
        return atom
    }

    /// `{m}`, `{m,}`, `{m,n}`, `{,n}`; nil (position unchanged) when not a count.
    mutating func parseCount() throws(PatternError) -> (Int, Int?)? {
        let start = position
        position += 1
        func number(_ parser: inout PatternParser) -> Int? {
            var value: Int? = nil
            while let scalar = parser.current, ("0"..."9").contains(scalar), let digit = Int(String(scalar)) {
                value = (value ?? 0) * 10 + digit
                if value! > 1_000_000 { return value }
                parser.position += 1
            }
            return value
        }
        let minimum = number(&self)
        var maximum: Int? = minimum
        if current == "," {
            position += 1
            maximum = number(&self)
        }
        guard current == "}", minimum != nil || maximum != nil else {
            position = start
            throw error("'{' must start a repetition count such as {2} or {1,3}")
        }
        position += 1
        let low = minimum ?? 0
        if let maximum, maximum < low { throw error("repetition {\(low),\(maximum)} has its maximum below its minimum") }
        if max(low, maximum ?? 0) > Pattern.maximumRepetition {
            throw error("repetition counts above \(Pattern.maximumRepetition) are not supported")
        }
        return (low, maximum)
    }

    mutating func parseAtom() throws(PatternError) -> Pattern {
        let scalar = current!
        switch scalar {
        case "(":
            position += 1
            if current == "?" {
                position += 1
                switch current {
                case ":":
                    position += 1
                case "<" where position + 1 < scalars.count && scalars[position + 1] != "=" && scalars[position + 1] != "!",
                     "P", "'":
                    if current == "P" { position += 1 }
                    let close: Unicode.Scalar = current == "'" ? "'" : ">"
                    while let c = current, c != close { position += 1 }
                    guard current == close else { throw error("unterminated group name") }
                    position += 1
                case "=", "!", "<":
                    throw error("lookaround assertions are not supported")
                default:
                    throw error("inline options and special groups '(?...)' are not supported")
                }
            }
            let inner = try parseAlternation()
            guard current == ")" else { throw error("missing ')'") }
            position += 1
            return inner
        case "[":
            return .characters(try parseClass())
        case ".":
            position += 1
            return .characters(ScalarSet.all.subtracting(ScalarSet(scalar: 0x0A)))
        case "\\":
            return .characters(try parseEscape(inClass: false))
        case "^":
            throw error("'^' is supported only at the start of the pattern")
        case "$":
            throw error("'$' is supported only at the end of the pattern")
        case "*", "+", "?":
            throw error("'\(scalar)' has nothing to repeat")
        case "{":
            throw error("'{' has nothing to repeat")
        default:
            position += 1
            return .characters(ScalarSet(scalar: scalar.value))
        }
    }

    mutating func parseEscape(inClass: Bool) throws(PatternError) -> ScalarSet {
        position += 1
        guard let scalar = current else { throw error("pattern ends with '\\'") }
        position += 1
        switch scalar {
        case "d": return .digits
        case "D": return ScalarSet.digits.inverted
        case "w": return .word
        case "W": return ScalarSet.word.inverted
        case "s": return .space
        case "S": return ScalarSet.space.inverted
        case "n": return ScalarSet(scalar: 0x0A)
        case "t": return ScalarSet(scalar: 0x09)
        case "r": return ScalarSet(scalar: 0x0D)
        case "f": return ScalarSet(scalar: 0x0C)
        case "v": return ScalarSet(scalar: 0x0B)
        case "0": return ScalarSet(scalar: 0)
        case "x": return ScalarSet(scalar: try parseHex(fixed: 2))
        case "u":
            if current == "{" {
                position += 1
                let value = try parseHex(fixed: nil)
                guard current == "}" else { throw error("missing '}' in \\u{...}") }
                position += 1
                return ScalarSet(scalar: value)
            }
            return ScalarSet(scalar: try parseHex(fixed: 4))
        case "b" where inClass:
            return ScalarSet(scalar: 0x08)
        case "b", "B":
            throw error("word boundaries (\\b, \\B) are not supported")
        case "A", "z", "Z", "G":
            throw error("anchor '\\\(scalar)' is not supported")
        case "p", "P":
            throw error("Unicode properties (\\p{...}) are not supported")
        case "k", "g":
            throw error("backreferences are not supported")
        case "1"..."9":
            throw error("backreferences are not supported")
        case "X", "R", "N", "h", "H", "K", "Q", "E":
            throw error("escape '\\\(scalar)' is not supported")
        default:
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                throw error("unknown escape '\\\(scalar)'")
            }
            return ScalarSet(scalar: scalar.value)
        }
    }

    mutating func parseHex(fixed: Int?) throws(PatternError) -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        while let scalar = current, let digit = scalar.properties.isASCIIHexDigit ? UInt32(String(scalar), radix: 16) : nil {
            if let fixed, count == fixed { break }
            value = value * 16 + digit
            count += 1
            position += 1
            if value > ScalarSet.maximum { throw error("escape is beyond the Unicode range") }
        }
        if count == 0 || (fixed != nil && count != fixed!) { throw error("malformed hexadecimal escape") }
        if (0xD800...0xDFFF).contains(value) { throw error("surrogate code points cannot be matched") }
        return value
    }

    mutating func parseClass() throws(PatternError) -> ScalarSet {
        position += 1
        var negated = false
        if current == "^" {
            negated = true
            position += 1
        }
        var set = ScalarSet.empty
        var first = true
        while true {
            guard let scalar = current else { throw error("missing ']'") }
            if scalar == "]", !first { position += 1; break }
            first = false
            if scalar == "[" {
                throw error("nested classes, POSIX classes and set operations are not supported")
            }
            if scalar == "&" || scalar == "-", position + 1 < scalars.count, scalars[position + 1] == scalar,
               position + 2 < scalars.count, scalars[position + 2] != "]" {
                throw error("class set operations ('&&', '--') are not supported")
            }
            let item: ScalarSet
            let single: UInt32?
            if scalar == "\\" {
                item = try parseEscape(inClass: true)
                single = item.ranges.count == 1 && item.ranges[0].count == 1 ? item.ranges[0].lowerBound : nil
            } else {
                position += 1
                item = ScalarSet(scalar: scalar.value)
                single = scalar.value
            }
            if let low = single, current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                let high: UInt32
                if current == "\\" {
                    let escaped = try parseEscape(inClass: true)
                    guard escaped.ranges.count == 1, escaped.ranges[0].count == 1 else {
                        throw error("a class range must end in a single character")
                    }
                    high = escaped.ranges[0].lowerBound
                } else {
                    high = current!.value
                    position += 1
                }
                guard low <= high else { throw error("class range is out of order") }
                set = set.union(ScalarSet([low...high]))
            } else {
                set = set.union(item)
            }
        }
        return negated ? set.inverted : set
    }
}
