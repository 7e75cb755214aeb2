import Foundation
import SwiftSyntax

/// Standard-library members without closures: strings and characters, numbers,
/// arrays, ranges, dictionaries (sets, dates and JSON coding: `Builtins/FoundationTypes.swift`).
extension Interpreter {
    func builtinMethod(_ name: String, of base: Value, baseExpr: ExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value? {
        func args() async throws -> [CallArgument] { try await callArguments(e) }
        func argument(_ label: String?) async throws -> Value? { try await args().first { $0.label == label }?.value }
        switch (name, base) {
        case ("components", .string(let s)):
            guard let separator = try await argument("separatedBy")?.stringValue else { throw error("components needs separatedBy:", e) }
            return .array(s.components(separatedBy: separator).map(Value.string))
        case ("split", .string(let s)):
            let all = try await args()
            let separator = all.first { $0.label == "separator" }?.value.stringValue ?? all.first { $0.label == nil }?.value.stringValue ?? " "
            let maxSplits = all.first { $0.label == "maxSplits" }.flatMap { if case .int(let i) = $0.value { i } else { nil } } ?? Int.max
            let omitting = all.first { $0.label == "omittingEmptySubsequences" }.map { if case .bool(let b) = $0.value { b } else { true } } ?? true
            guard let character = separator.first, separator.count == 1 else { throw error("split(separator:) needs a Character", e) }
            return .array(s.split(separator: character, maxSplits: maxSplits, omittingEmptySubsequences: omitting).map { .string(String($0)) })
        case ("trimmingCharacters", .string(let s)):
            let set = try await argument("in")
            if case .enumCase(_, "whitespaces", _)? = set { return .string(s.trimmingCharacters(in: .whitespaces)) }
            if case .enumCase(_, "punctuationCharacters", _)? = set { return .string(s.trimmingCharacters(in: .punctuationCharacters)) }
            return .string(s.trimmingCharacters(in: .whitespacesAndNewlines))
        case ("prefix", .string(let s)):
            guard case .int(let n)? = try await argument(nil) else { return nil }
            return .string(String(s.prefix(n)))
        case ("suffix", .string(let s)):
            guard case .int(let n)? = try await argument(nil) else { return nil }
            return .string(String(s.suffix(n)))
        case ("dropFirst", .string(let s)):
            if case .int(let n)? = try await argument(nil) { return .string(String(s.dropFirst(n))) }
            return .string(String(s.dropFirst()))
        case ("dropLast", .string(let s)):
            if case .int(let n)? = try await argument(nil) { return .string(String(s.dropLast(n))) }
            return .string(String(s.dropLast()))
        case ("reversed", .string(let s)): return .array(s.reversed().map { .string(String($0)) })
        case ("starts", .string(let s)): return .bool(s.hasPrefix(try await argument("with")?.stringValue ?? ""))
        case ("capitalized", .string(let s)): return .string(s.capitalized)
        case ("lowercased", .string(let s)): return .string(s.lowercased())
        case ("uppercased", .string(let s)): return .string(s.uppercased())
        case ("localizedCaseInsensitiveContains", .string(let s)), ("localizedStandardContains", .string(let s)):
            return .bool(s.range(of: try await argument(nil)?.stringValue ?? "", options: [.caseInsensitive, .diacriticInsensitive]) != nil)
        case ("padding", .string(let s)):
            let all = try await args()
            guard case .int(let length)? = all.first(where: { $0.label == "toLength" })?.value,
                  let pad = all.first(where: { $0.label == "withPad" })?.value.stringValue else { throw error("padding needs toLength: and withPad:", e) }
            return .string(s.padding(toLength: length, withPad: pad, startingAt: 0))
        case ("data", .string(let s)): return .data(Array(s.utf8))
        case ("isMultiple", .int(let i)):
            guard case .int(let n)? = try await argument("of") else { throw error("isMultiple needs of:", e) }
            return .bool(n == 0 ? i == 0 : i % n == 0)
        case ("popLast", .array(var items)):
            guard let last = items.popLast() else { return .null }
            try await assign(to: baseExpr, .array(items))
            return last
        case ("truncatingRemainder", .int(let i)):
            guard let n = try await argument("dividingBy")?.number else { throw error("truncatingRemainder needs dividingBy:", e) }
            return .double(Double(i).truncatingRemainder(dividingBy: n))
        case ("squareRoot", .int(let i)): return .double(Double(i).squareRoot())
        case ("rounded", .int(let i)): return .double(Double(i))
        case ("rounded", .double(let d)): return .double(d.rounded())
        case ("squareRoot", .double(let d)): return .double(d.squareRoot())
        case ("truncatingRemainder", .double(let d)):
            guard let n = try await argument("dividingBy")?.number else { throw error("truncatingRemainder needs dividingBy:", e) }
            return .double(d.truncatingRemainder(dividingBy: n))
        case ("formatted", .double(let d)): return .string(Self.formattedNumber(d))
        case ("formatted", .int(let i)): return .string(Self.formattedNumber(Double(i)))
        case ("enumerated", _):
            let elements = try sequenceElements(base, e)
            return .array(elements.enumerated().map { .tuple([(label: "offset", value: .int($0.offset)), (label: "element", value: $0.element)]) })
        case ("joined", .array(let items)), ("joined", .set(let items)):
            let separator = try await argument("separator")?.stringValue ?? ""
            if items.allSatisfy({ if case .array = $0 { true } else { false } }), !items.isEmpty, separator.isEmpty {
                return .array(items.flatMap { item -> [Value] in if case .array(let inner) = item { return inner } else { return [] } })
            }
            var parts: [String] = []
            for item in items { parts.append(try await text(item)) }
            return .string(parts.joined(separator: separator))
        case ("shuffled", _):
            var elements = try sequenceElements(base, e)
            elements.shuffle(using: &random)
            return .array(elements)
        case ("shuffle", .array(var items)):
            items.shuffle(using: &random)
            try await assign(to: baseExpr, .array(items))
            return .null
        case ("randomElement", _):
            let elements = try sequenceElements(base, e)
            return elements.randomElement(using: &random) ?? .null
        case ("reversed", .array(let items)): return .array(items.reversed())
        case ("reversed", .range): return .array(try sequenceElements(base, e).reversed())
        case ("contains", .range(let lower, let upper, let closed)):
            guard let needle = try await argument(nil) else { return nil }
            guard case .int(let i) = needle else { return .bool(false) }  // an integer range holds only integers
            return .bool(Arithmetic.contains(lower, upper, closed: closed, i))
        case ("contains", .doubleRange(let lower, let upper, let closed)):
            guard let d = try await argument(nil)?.number else { return nil }
            return .bool(lower <= d && (closed ? d <= upper : d < upper))
        case ("updateValue", .dictionary(var pairs)):
            let all = try await args()
            guard let value = all.first?.value, let key = all.first(where: { $0.label == "forKey" })?.value else { return nil }
            var old = Value.null
            if let index = pairs.firstIndex(where: { Value.equal($0.key, key) }) { old = pairs[index].value; pairs[index].value = value } else { pairs.append((key, value)) }
            try await assign(to: baseExpr, .dictionary(pairs))
            return old
        case ("merge", .dictionary(var pairs)):
            let all = try await args()
            guard case .dictionary(let other)? = all.first?.value, case .function(let combine)? = all.last?.value else { return nil }
            for pair in other {
                if let index = pairs.firstIndex(where: { Value.equal($0.key, pair.key) }) {
                    pairs[index].value = try await invoke(combine, [CallArgument(label: nil, value: pairs[index].value), CallArgument(label: nil, value: pair.value)], at: e)
                } else {
                    pairs.append(pair)
                }
            }
            try await assign(to: baseExpr, .dictionary(pairs))
            return .null
        case ("index", .array(let items)), ("firstIndex", .array(let items)):
            guard let needle = try await argument("of") else { return nil }
            return items.firstIndex { Value.equal($0, needle) }.map(Value.int) ?? .null
        case ("lastIndex", .array(let items)):
            guard let needle = try await argument("of") else { return nil }
            return items.lastIndex { Value.equal($0, needle) }.map(Value.int) ?? .null
        case ("swapAt", .array(var items)):
            let all = try await args()
            guard all.count == 2, case .int(let i) = all[0].value, case .int(let j) = all[1].value, items.indices.contains(i), items.indices.contains(j) else {
                throw error("swapAt needs two valid indexes", e)
            }
            items.swapAt(i, j)
            try await assign(to: baseExpr, .array(items))
            return .null
        case ("split", .array(let items)):
            guard let separator = try await argument("separator") else { return nil }
            return .array(items.split { Value.equal($0, separator) }.map { .array(Array($0)) })
        default:
            return nil
        }
    }

    static func formattedNumber(_ d: Double) -> String {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US")
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 3
        return formatter.string(from: NSNumber(value: d)) ?? "\(d)"
    }

    static func dateText(_ seconds: Double, format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// Properties of built-in values (strings and characters, numbers, ranges).
    func builtinMember(_ name: String, of base: Value) -> Value? {
        switch (name, base) {
        case ("isLetter", .string(let s)): return .bool(s.first?.isLetter ?? false)
        case ("isNumber", .string(let s)): return .bool(s.first?.isNumber ?? false)
        case ("isWholeNumber", .string(let s)): return .bool(s.first?.isWholeNumber ?? false)
        case ("isUppercase", .string(let s)): return .bool(s.first?.isUppercase ?? false)
        case ("isLowercase", .string(let s)): return .bool(s.first?.isLowercase ?? false)
        case ("isWhitespace", .string(let s)): return .bool(s.first?.isWhitespace ?? false)
        case ("isPunctuation", .string(let s)): return .bool(s.first?.isPunctuation ?? false)
        case ("wholeNumberValue", .string(let s)): return s.first?.wholeNumberValue.map(Value.int) ?? .null
        case ("first", .string(let s)): return s.first.map { .string(String($0)) } ?? .null
        case ("last", .string(let s)): return s.last.map { .string(String($0)) } ?? .null
        case ("capitalized", .string(let s)): return .string(s.capitalized)
        case ("utf8", .string(let s)): return .array(s.utf8.map { .int(Int($0)) })
        case ("magnitude", .int(let i)): return .int(i.magnitude > UInt(Int.max) ? Int.max : Int(i.magnitude))
        case ("isNaN", .double(let d)): return .bool(d.isNaN)
        case ("isFinite", .double(let d)): return .bool(d.isFinite)
        case ("lowerBound", .range(let lower, _, _)): return .int(lower)
        case ("upperBound", .range(_, let upper, _)): return .int(upper)
        case ("count", .range(let lower, let upper, let closed)):
            return (try? Arithmetic.rangeCount(lower, upper, closed: closed)).map(Value.int)
        case ("isEmpty", .range(let lower, let upper, let closed)): return .bool(!closed && upper == lower)
        case ("lowerBound", .doubleRange(let lower, _, _)): return .double(lower)
        case ("upperBound", .doubleRange(_, let upper, _)): return .double(upper)
        case ("indices", .array(let items)): return .range(lower: 0, upper: items.count, closed: false)
        case ("indices", .string(let s)): return .range(lower: 0, upper: s.count, closed: false)
        case ("lazy", _): return base
        default: return nil
        }
    }

    /// `Int.random(in:)`, `Double.pi`, `Int.max`... Nil when not one of them.
    func builtinStatic(_ name: String, of typeName: String, _ e: FunctionCallExprSyntax?) async throws -> Value? {
        switch (typeName, name) {
        case ("String", "init") where e == nil:
            return .function(FunctionValue.native("String.init", arity: 1) { [unowned self] values in .string(try await self.text(values[0])) })
        case ("Int", "max"): return .int(Int.max)
        case ("Int", "min"): return .int(Int.min)
        case ("Double", "pi"), ("Float", "pi"), ("CGFloat", "pi"): return .double(Double.pi)
        case ("Double", "infinity"): return .double(Double.infinity)
        case ("Double", "greatestFiniteMagnitude"): return .double(Double.greatestFiniteMagnitude)
        case ("Int", "random"), ("Double", "random"), ("Bool", "random"), ("Float", "random"):
            guard let e else { return nil }
            let args = try await callArguments(e)
            if typeName == "Bool" { return .bool(Bool.random(using: &random)) }
            switch args.first?.value {
            case .range(let lower, let upper, let closed)?:
                if closed { return .int(Int.random(in: lower...upper, using: &random)) }
                guard upper > lower else { throw error("Int.random(in:) needs a non-empty range", e) }
                return .int(Int.random(in: lower..<upper, using: &random))
            case .doubleRange(let lower, let upper, let closed)?:
                guard closed ? upper >= lower : upper > lower else { throw error("random(in:) needs a non-empty range", e) }
                return .double(closed ? Double.random(in: lower...upper, using: &random) : Double.random(in: lower..<upper, using: &random))
            default: throw error("\(typeName).random needs in: a range", e)
            }
        default: return nil
        }
    }
}
