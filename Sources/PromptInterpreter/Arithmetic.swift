/// What Swift checks at run time, as errors instead of traps.
///
/// A compiled Swift program stops on integer overflow, division by zero,
/// an out-of-range index, a negative count or a failed conversion. Prompt
/// code runs inside `fmplay run` and `fmplay lsp`, so the interpreter must
/// never perform an operation that traps in *its* process: every such
/// operation goes through this file, which checks first and reports what
/// Swift would have stopped on (the interpreter adds the line and column).
///
/// Every integer operator, conversion and count the interpreter supports
/// is here; `ArithmeticTests` runs each at its limits.
package enum Arithmetic {
    /// A run-time failure: the message says what Swift stops on, with the values.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        var message: String
        package var description: String { message }
        init(_ message: String) { self.message = message }
    }

    /// The integer binary operators (`+ - * / %`), checked as Swift checks them.
    static func binary(_ op: String, _ a: Int, _ b: Int) throws(Failure) -> Int {
        switch op {
        case "+":
            let (value, overflow) = a.addingReportingOverflow(b)
            if overflow { throw overflowFailure(a, op, b) }
            return value
        case "-":
            let (value, overflow) = a.subtractingReportingOverflow(b)
            if overflow { throw overflowFailure(a, op, b) }
            return value
        case "*":
            let (value, overflow) = a.multipliedReportingOverflow(by: b)
            if overflow { throw overflowFailure(a, op, b) }
            return value
        case "/":
            if b == 0 { throw Failure("division by zero (\(a) / 0)") }
            if a == Int.min && b == -1 { throw Failure("division results in an overflow (\(a) / -1 does not fit in Int)") }
            return a / b
        case "%":
            if b == 0 { throw Failure("division by zero in remainder operation (\(a) % 0)") }
            if a == Int.min && b == -1 { throw Failure("division results in an overflow in remainder operation (\(a) % -1)") }
            return a % b
        default:
            throw Failure("operator '\(op)' is not an integer operator")
        }
    }

    /// The integer operators `binary` implements.
    static let integerOperators: [String] = ["+", "-", "*", "/", "%"]

    /// Double operators (`%` is not defined on Double in Swift; use truncatingRemainder).
    static func binary(_ op: String, _ a: Double, _ b: Double) -> Double? {
        switch op {
        case "+": a + b
        case "-": a - b
        case "*": a * b
        case "/": a / b
        default: nil
        }
    }

    /// Prefix `-` on an Int (`-Int.min` does not fit).
    package static func negate(_ a: Int) throws(Failure) -> Int {
        if a == Int.min { throw Failure("arithmetic overflow: -(\(a)) does not fit in Int") }
        return -a
    }

    private static func overflowFailure(_ a: Int, _ op: String, _ b: Int) -> Failure {
        Failure("arithmetic overflow: \(a) \(op) \(b) does not fit in Int (\(Int.min)...\(Int.max))")
    }

    // MARK: Conversions

    /// `Int(d)`: truncates toward zero; NaN, infinities and values outside Int stop a Swift program.
    package static func integer(_ d: Double, type: String = "Double") throws(Failure) -> Int {
        if d.isNaN || d.isInfinite {
            throw Failure("\(type) value cannot be converted to Int because it is either infinite or NaN (\(d))")
        }
        // 2^63 is exactly representable; every Double below it and >= -2^63 converts.
        if d >= 9_223_372_036_854_775_808.0 {
            throw Failure("\(type) value cannot be converted to Int because the result would be greater than Int.max (\(d))")
        }
        if d < -9_223_372_036_854_775_808.0 {
            throw Failure("\(type) value cannot be converted to Int because the result would be less than Int.min (\(d))")
        }
        return Int(d)
    }

    /// `Int(exactly: d)`: nil unless `d` is a whole number inside Int.
    static func integer(exactly d: Double) -> Int? {
        guard d.isFinite, d == d.rounded(.towardZero), d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 else { return nil }
        return Int(d)
    }

    /// A non-negative `UInt64` (seeds).
    package static func unsigned(_ i: Int, what: String) throws(Failure) -> UInt64 {
        if i < 0 { throw Failure("\(what) must not be negative (\(i)): it is a UInt64") }
        return UInt64(i)
    }

    // MARK: Counts, indices, ranges

    /// A count argument (`prefix(_:)`, `Array(repeating:count:)`...): Swift stops on a negative one.
    /// `message` is what Swift says (e.g. "Can't take a prefix of negative length from a collection").
    package static func count(_ n: Int, _ message: String) throws(Failure) -> Int {
        if n < 0 { throw Failure("\(message) (\(n))") }
        return n
    }

    package static let negativeCountMessages: [String: String] = [
        "prefix": "can't take a prefix of negative length from a collection",
        "suffix": "can't take a suffix of negative length from a collection",
        "dropFirst": "can't drop a negative number of elements from a collection",
        "dropLast": "can't drop a negative number of elements from a collection",
        "Array(repeating:count:)": "can't construct Array with count < 0",
        "String(repeating:count:)": "negative count not allowed in String(repeating:count:)",
    ]

    /// An index into a collection of `count` elements.
    package static func index(_ i: Int, count: Int) throws(Failure) -> Int {
        if i < 0 || i >= count { throw Failure("index out of range (index \(i), count \(count))") }
        return i
    }

    /// An insertion index (`insert(_:at:)`): 0...count.
    package static func insertionIndex(_ i: Int, count: Int) throws(Failure) -> Int {
        if i < 0 || i > count { throw Failure("index out of range (index \(i), valid insertion indices 0...\(count))") }
        return i
    }

    /// `lower..<upper` / `lower...upper`: Swift stops when lower > upper.
    static func range(_ lower: Int, _ upper: Int, closed: Bool) throws(Failure) {
        if lower > upper {
            throw Failure("range requires lowerBound <= upperBound (\(lower)\(closed ? "..." : "..<")\(upper))")
        }
    }

    /// How many integers a range holds; a closed range of more than Int.max elements
    /// (`Int.min...Int.max`) cannot say, as in Swift.
    package static func rangeCount(_ lower: Int, _ upper: Int, closed: Bool) throws(Failure) -> Int {
        let (distance, overflow) = upper.subtractingReportingOverflow(lower)
        if overflow { throw Failure("the range \(lower)\(closed ? "..." : "..<")\(upper) has more than Int.max elements") }
        if !closed { return distance }
        let (count, overflow2) = distance.addingReportingOverflow(1)
        if overflow2 { throw Failure("the range \(lower)...\(upper) has more than Int.max elements") }
        return count
    }

    /// Whether `i` is in the range.
    package static func contains(_ lower: Int, _ upper: Int, closed: Bool, _ i: Int) -> Bool {
        closed ? (lower <= i && i <= upper) : (lower <= i && i < upper)
    }

    // MARK: Static numeric members

    /// `Int.max`, `Double.infinity`, ...: the numeric constants the interpreter answers.
    package static func staticMember(_ name: String, of type: String) -> Value? {
        switch (type, name) {
        case ("Int", "max"): .int(Int.max)
        case ("Int", "min"): .int(Int.min)
        case ("Int", "zero"): .int(0)
        case ("Double", "infinity"), ("Float", "infinity"): .double(.infinity)
        case ("Double", "nan"), ("Float", "nan"): .double(.nan)
        case ("Double", "pi"): .double(.pi)
        case ("Float", "pi"): .double(Double(Float.pi))
        case ("Double", "greatestFiniteMagnitude"): .double(.greatestFiniteMagnitude)
        case ("Float", "greatestFiniteMagnitude"): .double(Double(Float.greatestFiniteMagnitude))
        case ("Double", "leastNonzeroMagnitude"): .double(.leastNonzeroMagnitude)
        case ("Double", "ulpOfOne"): .double(.ulpOfOne)
        case ("Double", "zero"), ("Float", "zero"): .double(0)
        default: nil
        }
    }
}
