import Foundation
import PromptInterpreter

/// The `Int`, `Double`, `Float` and `Bool` entries of `Surface.table` (Table/Swift.swift).
/// Float is evaluated as a Double.
extension Builtins {
    /// Static numeric constants (`Int.max`, `Double.nan`...), defined once in `Arithmetic.staticMember`.
    static let numericConstant: Builtin = { i, c in
        guard let value = Arithmetic.staticMember(c.entry.name, of: c.entry.owner) else {
            throw i.error("\(c.entry.id) has no value in Arithmetic.staticMember", c.node)
        }
        return value
    }

    static let numberBuiltins: [String: Builtin] = [
        "Int.init(_:)": { i, c in
            switch try await c.arguments(i).unlabelled.first {
            case .int(let n): return .int(n)
            case .double(let d): return .int(try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.integer(d) })
            case .string(let s): return Int(s).map(Value.int) ?? .null
            default: throw i.error("Int(...) needs a number or a string", c.node)
            }
        },
        "Int.min": numericConstant,
        "Int.max": numericConstant,
        "Int.zero": numericConstant,
        "Int.description": describe,
        "Double.init(_:)": { i, c in try await toDouble(i, c, "Double") },
        "Double.nan": numericConstant,
        "Double.infinity": numericConstant,
        "Double.pi": numericConstant,
        "Double.greatestFiniteMagnitude": numericConstant,
        "Double.leastNonzeroMagnitude": numericConstant,
        "Double.ulpOfOne": numericConstant,
        "Double.zero": numericConstant,
        "Double.description": describe,
        "Float.init(_:)": { i, c in try await toDouble(i, c, "Float") },
        "Float.nan": numericConstant,
        "Float.infinity": numericConstant,
        "Float.pi": numericConstant,
        "Float.greatestFiniteMagnitude": numericConstant,
        "Float.zero": numericConstant,
        "Bool.init(_:)": { i, c in
            switch try await c.arguments(i).unlabelled.first {
            case .bool(let b): return .bool(b)
            case .string(let s): return Bool(s).map(Value.bool) ?? .null
            default: throw i.error("Bool(...) needs a Bool or a string", c.node)
            }
        },
        "Bool.description": describe,
        "Bool.toggle()": on({ if case .bool(let b) = $0 { b } else { nil } }) { i, b, c in
            try await i.assign(to: c.baseExpr!, .bool(!b))
            return .null
        },
        "Bool.random()": { i, _ in .bool(Bool.random(using: &i.random)) },
        "Int.random(in:)": random,
        "Double.random(in:)": random,
        "Float.random(in:)": random,
        "Int.magnitude": on(int) { _, n, _ in .int(n.magnitude > UInt(Int.max) ? Int.max : Int(n.magnitude)) },
        "Int.isMultiple(of:)": on(int) { i, n, c in
            guard case .int(let m)? = try await c.arguments(i).value("of") else { throw i.error("isMultiple needs of:", c.node) }
            return .bool(m == 0 ? n == 0 : n % m == 0)
        },
        "Int.truncatingRemainder(dividingBy:)": truncatingRemainder,
        "Int.squareRoot()": on(number) { _, d, _ in .double(d.squareRoot()) },
        "Int.rounded()": on(number) { _, d, _ in .double(d.rounded()) },
        "Int.formatted()": on(number) { _, d, _ in .string(formattedNumber(d)) },
        "Double.isNaN": on(number) { _, d, _ in .bool(d.isNaN) },
        "Double.isFinite": on(number) { _, d, _ in .bool(d.isFinite) },
        "Double.truncatingRemainder(dividingBy:)": truncatingRemainder,
        "Double.squareRoot()": on(number) { _, d, _ in .double(d.squareRoot()) },
        "Double.rounded()": on(number) { _, d, _ in .double(d.rounded()) },
        "Double.formatted()": on(number) { _, d, _ in .string(formattedNumber(d)) },
    ]

    static let int: @Sendable (Value) -> Int? = { if case .int(let n) = $0 { n } else { nil } }
    /// An Int or a Double receiver as a Double (an Int's `rounded()` is its Double value, as a literal would be).
    static let number: @Sendable (Value) -> Double? = { $0.number }

    static let truncatingRemainder: Builtin = on(number) { i, d, c in
        guard let n = try await c.arguments(i).value("dividingBy")?.number else { throw i.error("truncatingRemainder needs dividingBy:", c.node) }
        return .double(d.truncatingRemainder(dividingBy: n))
    }

    /// `Int.random(in:)`, `Double.random(in:)`: from the run's seeded generator; the range's bounds say which.
    static let random: Builtin = { i, c in
        switch try await c.arguments(i).value("in") {
        case .range(let lower, let upper, let closed)?:
            if closed { return .int(Int.random(in: lower...upper, using: &i.random)) }
            guard upper > lower else { throw i.error("Int.random(in:) needs a non-empty range", c.node) }
            return .int(Int.random(in: lower..<upper, using: &i.random))
        case .doubleRange(let lower, let upper, let closed)?:
            guard closed ? upper >= lower : upper > lower else { throw i.error("random(in:) needs a non-empty range", c.node) }
            return .double(closed ? Double.random(in: lower...upper, using: &i.random) : Double.random(in: lower..<upper, using: &i.random))
        default: throw i.error("\(c.entry.owner).random needs in: a range", c.node)
        }
    }

    /// A number as `formatted()` shows it: grouping separators, up to 3 decimals (en_US).
    static func formattedNumber(_ d: Double) -> String {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US")
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 3
        return formatter.string(from: NSNumber(value: d)) ?? "\(d)"
    }

    static func toDouble(_ i: Interpreter, _ c: BuiltinCall, _ name: String) async throws -> Value {
        let args = try await c.arguments(i)
        if let s = args.unlabelled.first?.stringValue { return Double(s).map(Value.double) ?? .null }
        guard let n = args.unlabelled.first?.number else { throw i.error("\(name)(...) needs a number or a string", c.node) }
        return .double(n)
    }

}
