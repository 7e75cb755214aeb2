/// Numbers whose bounds are enforced on the digits as they are generated.
///
/// Format (documented rule): plain decimal notation, no exponent, no leading
/// zeros; at most `maximumIntegerDigits` integer digits and
/// `maximumFractionDigits` fraction digits (so an unbounded number cannot run
/// on forever). Integers have no fraction. The language of a range is built
/// digit by digit, tracking whether the digits so far equal the lower or the
/// upper bound's digits (the classic digit automaton), so `minimum`/`maximum`
/// hold for every accepted string and every prefix can still be completed.
enum NumberRanges {
    static let maximumIntegerDigits = 15
    static let maximumFractionDigits = 15
    /// The largest magnitude a generated number can have.
    static let limit: Double = 999_999_999_999_999

    /// A non-negative decimal: integer part and fraction digits (no trailing zeros).
    struct Magnitude: Equatable {
        var integer: UInt64
        var fraction: [UInt8]
    }

    /// The exact decimal digits of a finite, non-negative double (its shortest representation).
    static func magnitude(_ value: Double) -> Magnitude {
        precondition(value >= 0 && value.isFinite)
        let text = value.description
        let parts = text.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        let exponent = parts.count > 1 ? Int(parts[1])! : 0
        var digits: [UInt8] = []
        var point = mantissa.count
        for (offset, character) in mantissa.enumerated() {
            if character == "." { point = offset } else { digits.append(UInt8(character.asciiValue! - 48)) }
        }
        point += exponent
        var integerDigits: [UInt8]
        var fractionDigits: [UInt8]
        if point <= 0 {
            integerDigits = [0]
            fractionDigits = [UInt8](repeating: 0, count: -point) + digits
        } else if point >= digits.count {
            integerDigits = digits + [UInt8](repeating: 0, count: point - digits.count)
            fractionDigits = []
        } else {
            integerDigits = Array(digits[..<point])
            fractionDigits = Array(digits[point...])
        }
        while let last = fractionDigits.last, last == 0 { fractionDigits.removeLast() }
        let integer = integerDigits.reduce(UInt64(0)) { $0 * 10 + UInt64($1) }
        return Magnitude(integer: integer, fraction: fractionDigits)
    }

    static func digits(_ value: UInt64) -> [UInt8] {
        Array(String(value).utf8).map { $0 - 48 }
    }
}

extension ByteNFA {
    /// An integer in `lo...hi` (both within `NumberRanges.limit`).
    mutating func integerRange(_ lo: Int64, _ hi: Int64, from: Int) -> Int {
        let end = addState()
        if hi >= 0 {
            addEpsilon(from: unsignedRange(UInt64(max(lo, 0)), UInt64(hi), from: from), to: end)
        }
        if lo < 0 {
            let minus = literal([0x2D], from: from)
            addEpsilon(from: unsignedRange(UInt64(max(1, -hi)), UInt64(-lo), from: minus), to: end)
        }
        return end
    }

    /// Any number in the documented format: `-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?`
    /// (the integer form without the fraction).
    mutating func plainNumber(integer: Bool, from: Int) -> Int {
        let signed = optional(from: from) { nfa, start in nfa.literal([0x2D], from: start) }
        let whole = choice(from: signed, [
            { nfa, start in nfa.literal([0x30], from: start) },
            { nfa, start in
                let lead = nfa.byteSet([0x31...0x39], from: start)
                return nfa.repeated(from: lead, minimum: 0, maximum: NumberRanges.maximumIntegerDigits - 1) { nfa, start in
                    nfa.byteSet([0x30...0x39], from: start)
                }
            },
        ])
        if integer { return whole }
        return optional(from: whole) { nfa, start in
            let point = nfa.literal([0x2E], from: start)
            return nfa.repeated(from: point, minimum: 1, maximum: NumberRanges.maximumFractionDigits) { nfa, start in
                nfa.byteSet([0x30...0x39], from: start)
            }
        }
    }

    /// A number in `lo...hi` (both finite, within `NumberRanges.limit`).
    mutating func numberRange(_ lo: Double, _ hi: Double, from: Int) -> Int {
        let end = addState()
        if hi >= 0 {
            let magnitudes = (NumberRanges.magnitude(max(lo, 0)), NumberRanges.magnitude(hi))
            addEpsilon(from: magnitudeRange(magnitudes.0, magnitudes.1, from: from), to: end)
        }
        if lo < 0 {
            let minus = literal([0x2D], from: from)
            let magnitudes = (NumberRanges.magnitude(max(-hi, 0)), NumberRanges.magnitude(-lo))
            addEpsilon(from: magnitudeRange(magnitudes.0, magnitudes.1, from: minus), to: end)
        }
        return end
    }

    /// A non-negative integer in `a...b` without leading zeros.
    mutating func unsignedRange(_ a: UInt64, _ b: UInt64, from: Int) -> Int {
        let end = addState()
        let low = NumberRanges.digits(a)
        let high = NumberRanges.digits(b)
        guard a <= b else { return end }
        if low.count == high.count {
            addEpsilon(from: sameLengthRange(low, high, from: from), to: end)
            return end
        }
        addEpsilon(from: sameLengthRange(low, [UInt8](repeating: 9, count: low.count), from: from), to: end)
        if high.count - low.count >= 2 {
            // Every length strictly between: a non-zero digit, then any digits.
            let lead = byteSet([0x31...0x39], from: from)
            let rest = repeated(from: lead, minimum: low.count, maximum: high.count - 2) { nfa, start in
                nfa.byteSet([0x30...0x39], from: start)
            }
            addEpsilon(from: rest, to: end)
        }
        addEpsilon(from: sameLengthRange([1] + [UInt8](repeating: 0, count: high.count - 1), high, from: from), to: end)
        return end
    }

    /// Digit strings of one length between `lower` and `upper` (digit by digit).
    private mutating func sameLengthRange(_ lower: [UInt8], _ upper: [UInt8], from: Int) -> Int {
        boundedDigits(from: from, tightLow: true, tightHigh: true) { position, tightLow, tightHigh in
            guard position < lower.count else { return DigitStep(accepts: true, digits: nil, lowerContinues: false) }
            return DigitStep(accepts: false, digits: (tightLow ? lower[position] : 0, tightHigh ? upper[position] : 9),
                             lowerContinues: true)
        }
    }

    /// A non-negative decimal between two magnitudes.
    private mutating func magnitudeRange(_ a: NumberRanges.Magnitude, _ b: NumberRanges.Magnitude, from: Int) -> Int {
        let end = addState()
        if a.integer == b.integer {
            let afterInteger = literal(NumberRanges.digits(a.integer).map { $0 + 48 }, from: from)
            addEpsilon(from: fraction(lower: a.fraction, upper: b.fraction, from: afterInteger), to: end)
            return end
        }
        let atLow = literal(NumberRanges.digits(a.integer).map { $0 + 48 }, from: from)
        addEpsilon(from: fraction(lower: a.fraction, upper: nil, from: atLow), to: end)
        if a.integer + 1 <= b.integer - 1 {
            let between = unsignedRange(a.integer + 1, b.integer - 1, from: from)
            addEpsilon(from: fraction(lower: [], upper: nil, from: between), to: end)
        }
        let atHigh = literal(NumberRanges.digits(b.integer).map { $0 + 48 }, from: from)
        addEpsilon(from: fraction(lower: [], upper: b.fraction, from: atHigh), to: end)
        return end
    }

    /// An optional fraction `.DDD` with `0.DDD >= 0.lower` and (when `upper`
    /// is given) `0.DDD <= 0.upper`; absent means zero.
    private mutating func fraction(lower: [UInt8], upper: [UInt8]?, from: Int) -> Int {
        let point = literal([0x2E], from: from)
        let end = boundedDigits(from: point, tightLow: !lower.isEmpty, tightHigh: upper != nil) { position, tightLow, tightHigh in
            let accepts = position >= 1 && !tightLow
            guard position < NumberRanges.maximumFractionDigits else { return DigitStep(accepts: accepts, digits: nil, lowerContinues: false) }
            let low: UInt8 = tightLow ? lower[position] : 0
            let high: UInt8 = tightHigh ? (position < upper!.count ? upper![position] : 0) : 9
            return DigitStep(accepts: accepts, digits: (low, high), lowerContinues: position + 1 < lower.count)
        }
        if lower.isEmpty { addEpsilon(from: from, to: end) }
        return end
    }

    /// What a digit automaton does at one state: whether it may stop there,
    /// which digits it may read next, and whether reading the lower bound's
    /// digit keeps it tight to the lower bound.
    private struct DigitStep {
        var accepts: Bool
        var digits: (low: UInt8, high: UInt8)?
        var lowerContinues: Bool
    }

    /// Digits read one position at a time with a state per (position, equal
    /// to the lower bound so far, equal to the upper bound so far); the
    /// bounds' own digits are separate edges so tightness is tracked. Returns
    /// the end state.
    private mutating func boundedDigits(from start: Int, tightLow: Bool, tightHigh: Bool,
                                        _ step: (_ position: Int, _ tightLow: Bool, _ tightHigh: Bool) -> DigitStep) -> Int {
        let end = addState()
        let startKey = (tightLow ? 2 : 0) | (tightHigh ? 1 : 0)
        var states: [Int: Int] = [startKey: start]
        var pending = [startKey]
        while let key = pending.popLast() {
            let position = key >> 2
            let tightLow = key & 2 != 0
            let tightHigh = key & 1 != 0
            let state = states[key]!
            let rule = step(position, tightLow, tightHigh)
            if rule.accepts { addEpsilon(from: state, to: end) }
            guard let (lowDigit, highDigit) = rule.digits, lowDigit <= highDigit else { continue }
            for (first, last) in Self.digitGroups(lowDigit, highDigit) {
                let stillLow = tightLow && first == lowDigit && rule.lowerContinues
                let stillHigh = tightHigh && last == highDigit
                let nextKey = (position + 1) << 2 | (stillLow ? 2 : 0) | (stillHigh ? 1 : 0)
                let next: Int
                if let existing = states[nextKey] {
                    next = existing
                } else {
                    next = addState()
                    states[nextKey] = next
                    pending.append(nextKey)
                }
                addBytes(from: state, 0x30 + first, 0x30 + last, to: next)
            }
        }
        return end
    }

    /// The digits `low...high` split so the bounds are their own groups:
    /// `[low]`, `low+1...high-1`, `[high]` (fewer when they coincide).
    static func digitGroups(_ low: UInt8, _ high: UInt8) -> [(UInt8, UInt8)] {
        if low == high { return [(low, low)] }
        var groups: [(UInt8, UInt8)] = [(low, low)]
        if high - low >= 2 { groups.append((low + 1, high - 1)) }
        groups.append((high, high))
        return groups
    }
}
