import Foundation
import JSON
import SwiftSyntax

/// The evaluator's random numbers: SplitMix64 from the run's seed, so
/// `Int.random(in:)`, `shuffled()`, `randomElement()` and `UUID()` repeat run to run.
package struct InterpreterRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Interpreter {
    /// `Date()` in prompt files: a fixed clock (2026-01-01 00:00:00 UTC), so results do not depend on when they run.
    package static let fixedNow: Double = 1_767_225_600

    /// `stride(from:to:by:)` and `stride(from:through:by:)` over Ints or Doubles (at most 10,000,000 elements).
    package func strideValues(_ args: [CallArgument], _ e: FunctionCallExprSyntax) throws -> Value {
        guard let from = args.first(where: { $0.label == "from" })?.value, let by = args.first(where: { $0.label == "by" })?.value,
              let end = args.first(where: { $0.label == "to" || $0.label == "through" }) else {
            throw error("stride needs from:, to: or through:, and by:", e)
        }
        let through = end.label == "through"
        if case .int(var i) = from, case .int(let limit) = end.value, case .int(let step) = by {
            guard step != 0 else { throw error("stride by 0 never ends", e) }
            var values: [Value] = []
            while step > 0 ? (through ? i <= limit : i < limit) : (through ? i >= limit : i > limit) {
                values.append(.int(i))
                if values.count > 10_000_000 { throw error("the stride has more than 10000000 elements", e) }
                let (next, overflow) = i.addingReportingOverflow(step)
                if overflow { break }  // past Int's range: the stride ends (Swift's stride stops there too)
                i = next
            }
            return .array(values)
        }
        guard var d = from.number, let limit = end.value.number, let step = by.number, step != 0 else { throw error("stride needs numbers", e) }
        var values: [Value] = []
        while step > 0 ? (through ? d <= limit : d < limit) : (through ? d >= limit : d > limit) {
            values.append(.double(d))
            if values.count > 10_000_000 { throw error("the stride has more than 10000000 elements", e) }
            d += step
        }
        return .array(values)
    }

    package func unique(_ values: [Value]) -> [Value] {
        var result: [Value] = []
        for value in values where !result.contains(where: { Value.equal($0, value) }) { result.append(value) }
        return result
    }

    /// `String(format:)` with `%d`, `%i`, `%f`, `%.Nf`, `%e`, `%g`, `%x`, `%s`, `%@`, `%%`, widths and flags.
    package func formatted(_ format: String, _ values: [Value], _ node: some SyntaxProtocol) throws -> String {
        var result = ""
        var remaining = values[...]
        var index = format.startIndex
        while index < format.endIndex {
            let character = format[index]
            guard character == "%" else {
                result.append(character)
                index = format.index(after: index)
                continue
            }
            var spec = "%"
            var cursor = format.index(after: index)
            while cursor < format.endIndex, "-+ #0123456789.lhqjzt'".contains(format[cursor]) {
                spec.append(format[cursor])
                cursor = format.index(after: cursor)
            }
            guard cursor < format.endIndex else { throw error("incomplete format specifier '\(spec)'", node) }
            let conversion = format[cursor]
            index = format.index(after: cursor)
            if conversion == "%" { result += "%"; continue }
            guard let value = remaining.popFirst() else { throw error("String(format:) has more specifiers than arguments", node) }
            let flags = spec.filter { !"lhqjzt".contains($0) }
            switch conversion {
            case "d", "i", "u", "x", "X", "o", "c":
                guard case .int(let i) = value else { throw error("'%\(conversion)' needs an integer, got \(value.description.prefix(30))", node) }
                result += String(format: flags + "l" + String(conversion), i)
            case "f", "F", "e", "E", "g", "G", "a":
                guard let d = value.number else { throw error("'%\(conversion)' needs a number, got \(value.description.prefix(30))", node) }
                result += String(format: flags + String(conversion), d)
            case "@", "s":
                let text = value.description
                let width = Int(flags.dropFirst().filter(\.isNumber)) ?? 0
                let padding = String(repeating: " ", count: max(0, width - text.count))
                result += flags.contains("-") ? text + padding : padding + text
            default:
                throw error("the format specifier '%\(conversion)' is not supported", node)
            }
        }
        return result
    }

    /// `dump(value)`: Swift's reflection tree (`- 5`, `▿ 3 elements`, `▿ Point` with `- x: 1`).
    package func dumpLines(_ value: Value, label: String?, indent: Int, into lines: inout [String]) async throws {
        let prefix = String(repeating: " ", count: indent)
        let name = label.map { "\($0): " } ?? ""
        switch value {
        case .array(let items):
            lines.append("\(prefix)\(items.isEmpty ? "-" : "▿") \(name)\(items.count) element\(items.count == 1 ? "" : "s")")
            for item in items { try await dumpLines(item, label: nil, indent: indent + 2, into: &lines) }
        case .structure(let type, let fields):
            lines.append("\(prefix)▿ \(name)\(type)")
            for field in fields { try await dumpLines(field.value, label: field.name, indent: indent + 2, into: &lines) }
        case .tuple(let items):
            lines.append("\(prefix)▿ \(name)(\(items.count) elements)")
            for (index, item) in items.enumerated() { try await dumpLines(item.value, label: item.label ?? ".\(index)", indent: indent + 2, into: &lines) }
        case .null:
            lines.append("\(prefix)- \(name)nil")
        default:
            lines.append("\(prefix)- \(name)\(try await text(value, debug: true))")
        }
    }

    // MARK: Text

    /// How `print` and interpolation show a value, with user `description`s (CustomStringConvertible).
    package func text(_ value: Value, debug: Bool = false) async throws -> String {
        switch value {
        case .string(let s): return debug ? Value.quoted(s) : s
        case .array(let items):
            var parts: [String] = []
            for item in items { parts.append(try await text(item, debug: true)) }
            return "[" + parts.joined(separator: ", ") + "]"
        case .set(let items):
            var parts: [String] = []
            for item in items { parts.append(try await text(item, debug: true)) }
            // Swift prints a set like an array; inside a collection or debugPrint it is `Set([...])`.
            return (debug ? "Set([" : "[") + parts.joined(separator: ", ") + (debug ? "])" : "]")
        case .dictionary(let pairs):
            if pairs.isEmpty { return "[:]" }
            var parts: [String] = []
            for pair in pairs { parts.append(try await text(pair.key, debug: true) + ": " + (try await text(pair.value, debug: true))) }
            return "[" + parts.joined(separator: ", ") + "]"
        case .tuple(let items):
            var parts: [String] = []
            for item in items { parts.append((item.label.map { "\($0): " } ?? "") + (try await text(item.value, debug: true))) }
            return "(" + parts.joined(separator: ", ") + ")"
        case .structure(let type, let fields):
            if let custom = try await customDescription(value, debug: debug) { return custom }
            var parts: [String] = []
            for field in fields { parts.append(field.name + ": " + (try await text(field.value, debug: true))) }
            let shortName = type.split(separator: ".").last.map(String.init) ?? type
            return (types.type(type) != nil ? shortName : type) + "(" + parts.joined(separator: ", ") + ")"
        case .enumCase(_, let name, let payload):
            if let custom = try await customDescription(value, debug: debug) { return custom }
            if payload.isEmpty { return name }
            var parts: [String] = []
            for item in payload { parts.append((item.label.map { "\($0): " } ?? "") + (try await text(item.value, debug: true))) }
            return name + "(" + parts.joined(separator: ", ") + ")"
        case .object:
            if let custom = try await customDescription(value, debug: debug) { return custom }
            return value.description
        case .uuid(let s): return s
        default:
            return debug ? value.debugDescription : value.description
        }
    }

    /// A user type's `description` (or `debugDescription` when asked for and present).
    private func customDescription(_ value: Value, debug: Bool) async throws -> String? {
        guard let type = typeName(of: value), types.type(type) != nil else { return nil }
        for name in debug ? ["debugDescription", "description"] : ["description"] {
            if findComputed(name, in: type) != nil || lookupChain(type).contains(where: { $0.stored.contains { $0.name == name } }),
               let result = try await userMember(name, of: value, currentNode) {
                return result.description
            }
        }
        return nil
    }
}
