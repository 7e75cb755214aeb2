import Foundation
import PromptInterpreter

/// `NumberFormatter`, its styles and `NSNumber` (Surface/Table/Foundation.swift). A formatter is an
/// `ObjectBox` whose fields are the settings written to it (nil until set); each use builds Foundation's
/// formatter from them: the locale (en_US unless set), the style, then the settings, so a setting
/// written before the style still counts. An NSNumber is `.structure("NSNumber", value)`.
extension Builtins {
    static let numberFormatterSettings = ["numberStyle", "minimumFractionDigits", "maximumFractionDigits", "minimumIntegerDigits",
                                          "usesGroupingSeparator", "locale", "currencyCode"]
    static let numberStyles: [String: NumberFormatter.Style] = [
        "none": .none, "decimal": .decimal, "percent": .percent, "currency": .currency, "scientific": .scientific,
        "spellOut": .spellOut, "ordinal": .ordinal,
    ]

    static let numberFormatterBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "NumberFormatter.init()": { _, _ in .object(ObjectBox(type: "NumberFormatter", fields: numberFormatterSettings.map { ($0, .null) })) },
            "NumberFormatter.numberStyle": onFormatter { _, f, _ in
                .enumCase(type: "NumberFormatter.Style", name: numberStyles.first { $0.value == f.numberStyle }?.key ?? "none", payload: [])
            },
            "NumberFormatter.minimumFractionDigits": onFormatter { _, f, _ in .int(f.minimumFractionDigits) },
            "NumberFormatter.maximumFractionDigits": onFormatter { _, f, _ in .int(f.maximumFractionDigits) },
            "NumberFormatter.minimumIntegerDigits": onFormatter { _, f, _ in .int(f.minimumIntegerDigits) },
            "NumberFormatter.usesGroupingSeparator": onFormatter { _, f, _ in .bool(f.usesGroupingSeparator) },
            "NumberFormatter.locale": onFormatter { _, f, _ in .locale(f.locale.identifier) },
            "NumberFormatter.currencyCode": onFormatter { _, f, _ in f.currencyCode.map(Value.string) ?? .null },
            "NumberFormatter.string(from:)": onFormatter { i, f, c in
                guard let number = try await c.arguments(i).value("from").flatMap(nsNumber) else { throw i.error("string(from:) needs a number", c.node) }
                return f.string(from: number).map(Value.string) ?? .null
            },
            "NumberFormatter.string(for:)": onFormatter { i, f, c in
                guard let number = try await c.arguments(i).value("for").flatMap(nsNumber) else { return .null }
                return f.string(from: number).map(Value.string) ?? .null
            },
            "NumberFormatter.number(from:)": onFormatter { i, f, c in
                guard let text = try await c.arguments(i).value("from")?.stringValue else { throw i.error("number(from:) needs a string", c.node) }
                return f.number(from: text).map { nsNumberValue(parsedNumber($0)) } ?? .null
            },
            "NSNumber.init(value:)": { i, c in
                guard let value = try await c.arguments(i).value("value"), value.number != nil else { throw i.error("NSNumber(value:) needs a number", c.node) }
                return nsNumberValue(value)
            },
            "NSNumber.intValue": onNSNumber { i, n, c in
                switch n {
                case .double(let d): .int(try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.integer(d) })
                default: n
                }
            },
            "NSNumber.doubleValue": onNSNumber { _, n, _ in .double(n.number ?? 0) },
            "NSNumber.stringValue": onNSNumber { _, n, _ in .string(n.description) },
        ]
        for (name, _) in numberStyles {
            all["NumberFormatter.Style." + name] = constant(.enumCase(type: "NumberFormatter.Style", name: name, payload: []))
        }
        return all
    }()

    /// A formatter member with Foundation's formatter made from the box's settings.
    static func onFormatter(_ body: @escaping @Sendable (Interpreter, NumberFormatter, BuiltinCall) async throws -> Value) -> Builtin {
        on(box) { i, box, c in try await body(i, try numberFormatter(i, box, c), c) }
    }

    static func numberFormatter(_ i: Interpreter, _ box: ObjectBox, _ c: BuiltinCall) throws -> NumberFormatter {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: box.field("locale").flatMap(Value.localeIdentifier) ?? Value.currentLocale)
        if case .enumCase(_, let name, _)? = box.field("numberStyle") {
            guard let style = numberStyles[name] else { throw i.error("numberStyle .\(name) is not one of NumberFormatter.Style's cases", c.node) }
            formatter.numberStyle = style
        }
        if let code = box.field("currencyCode")?.stringValue { formatter.currencyCode = code }
        if case .bool(let b)? = box.field("usesGroupingSeparator") { formatter.usesGroupingSeparator = b }
        for (name, set) in [("minimumIntegerDigits", { formatter.minimumIntegerDigits = $0 }), ("minimumFractionDigits", { formatter.minimumFractionDigits = $0 }),
                            ("maximumFractionDigits", { formatter.maximumFractionDigits = $0 })] as [(String, (Int) -> Void)] {
            guard let value = box.field(name), !value.isNull else { continue }
            guard case .int(let n) = value, (0...100).contains(n) else { throw i.error("\(name) needs a number of digits from 0 to 100", c.node) }
            set(n)
        }
        return formatter
    }

    static func nsNumberValue(_ value: Value) -> Value { .structure(type: "NSNumber", fields: [("value", value)]) }

    /// An NSNumber, or a plain number (Swift's numeric literals convert to NSNumber).
    static func nsNumber(_ value: Value) -> NSNumber? {
        switch value {
        case .int(let n): NSNumber(value: n)
        case .double(let d): NSNumber(value: d)
        case .structure("NSNumber", let fields): fields.first.flatMap { nsNumber($0.value) }
        default: nil
        }
    }

    /// A parsed number as an Int when it is whole and exact, else a Double.
    static func parsedNumber(_ n: NSNumber) -> Value {
        let d = n.doubleValue
        if d.rounded() == d, abs(d) < 9_007_199_254_740_992 { return .int(Int(d)) }
        return .double(d)
    }

    static func onNSNumber(_ body: @escaping @Sendable (Interpreter, Value, BuiltinCall) async throws -> Value) -> Builtin {
        on({ if case .structure("NSNumber", let fields) = $0 { fields.first?.value } else { nil } }, body)
    }
}
