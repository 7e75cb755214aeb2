import JSON

/// How one tool-call argument is checked (Apple's `ArgumentMatcher`).
public enum ArgumentMatcher: Sendable, Hashable {
    case exact(argumentName: String, value: JSONValue)
    case keyOnly(argumentName: String)
    case oneOf(argumentName: String, allowedValues: [JSONValue])
    case range(argumentName: String, minimum: Double?, maximum: Double?)
    case pattern(argumentName: String, regex: String)
    case contains(argumentName: String, substring: String)
    case hasPrefix(argumentName: String, prefix: String)
    case hasSuffix(argumentName: String, suffix: String)
    case naturalLanguage(argumentName: String, criteria: String)

    public var argumentName: String {
        switch self {
        case .exact(let n, _), .keyOnly(let n), .oneOf(let n, _), .range(let n, _, _), .pattern(let n, _), .contains(let n, _),
             .hasPrefix(let n, _), .hasSuffix(let n, _), .naturalLanguage(let n, _): n
        }
    }

    public var description: String {
        switch self {
        case .exact(let n, let v): "\(n) == \(v.serialized())"
        case .keyOnly(let n): "\(n) present"
        case .oneOf(let n, let values): "\(n) in [\(values.map { $0.serialized() }.joined(separator: ", "))]"
        case .range(let n, let lo, let hi): "\(n) in \(lo.map(formatNumber) ?? "-inf")...\(hi.map(formatNumber) ?? "inf")"
        case .pattern(let n, let r): "\(n) matches /\(r)/"
        case .contains(let n, let s): "\(n) contains \"\(s)\""
        case .hasPrefix(let n, let s): "\(n) starts with \"\(s)\""
        case .hasSuffix(let n, let s): "\(n) ends with \"\(s)\""
        case .naturalLanguage(let n, let c): "\(n) satisfies \"\(c)\""
        }
    }
}

/// One expected call, or an any-order group (Apple's `ToolExpectation`).
public struct ToolExpectation: Sendable, Hashable {
    public var toolName: String?
    public var arguments: [ArgumentMatcher]
    /// Non-empty for `ToolExpectation.anyOrder(_:)`.
    public var group: [ToolExpectation]

    public init(_ toolName: String, arguments: [ArgumentMatcher] = []) {
        self.toolName = toolName
        self.arguments = arguments
        self.group = []
    }

    public static func anyOrder(_ expectations: [ToolExpectation]) -> ToolExpectation {
        var expectation = ToolExpectation("", arguments: [])
        expectation.toolName = nil
        expectation.group = expectations
        return expectation
    }

    public var description: String {
        if toolName == nil { return "anyOrder(" + group.map(\.description).joined(separator: ", ") + ")" }
        if arguments.isEmpty { return toolName! }
        return toolName! + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
    }
}

/// The expected tool calls of a sample (Apple's `TrajectoryExpectation`).
public struct TrajectoryExpectation: Sendable, Hashable {
    public var ordered: [ToolExpectation]
    public var unordered: [ToolExpectation]
    public var disallowed: [ToolExpectation]
    public var allowsAdditionalToolCalls: Bool

    public init(ordered: [ToolExpectation] = [], unordered: [ToolExpectation] = [], allowsAdditionalToolCalls: Bool = true) {
        self.ordered = ordered
        self.unordered = unordered
        self.disallowed = []
        self.allowsAdditionalToolCalls = allowsAdditionalToolCalls
    }

    public init(ordered: [ToolExpectation] = [], unordered: [ToolExpectation] = [], disallowed: [ToolExpectation]) {
        self.ordered = ordered
        self.unordered = unordered
        self.disallowed = disallowed
        self.allowsAdditionalToolCalls = true
    }

    public init(expected toolName: String, arguments: [ArgumentMatcher] = []) {
        self.init(ordered: [ToolExpectation(toolName, arguments: arguments)])
    }
}

/// A tool call as the subject's transcript recorded it.
public struct ObservedToolCall: Sendable, Hashable {
    public var name: String
    /// The arguments object.
    public var arguments: JSONValue
    public init(name: String, arguments: JSONValue) {
        self.name = name
        self.arguments = arguments
    }
}

/// The outcome of checking a trajectory: every requirement, in order, with why it failed.
public struct TrajectoryCheck: Sendable, Hashable {
    public var passed: Int
    public var total: Int
    public var failures: [String]
    public var allPass: Bool { passed == total }
    /// The share of requirements met (1 when there are none).
    public var fraction: Double { total == 0 ? 1 : Double(passed) / Double(total) }
}

/// Decides whether an argument value meets a natural-language criterion (asks a model).
public typealias NaturalLanguageMatcher = @Sendable (_ criteria: String, _ value: JSONValue) async throws -> Bool

public enum TrajectoryMatching {
    /// Checks the calls against the expectation. Requirements: each ordered step, each
    /// unordered call, each disallowed tool, and (when additional calls are not allowed)
    /// that every call was expected.
    public static func check(_ expectation: TrajectoryExpectation, calls: [ObservedToolCall],
                             naturalLanguage: NaturalLanguageMatcher?) async throws -> TrajectoryCheck {
        var passed = 0
        var total = 0
        var failures: [String] = []
        var consumed = Set<Int>()
        var position = 0
        for step in expectation.ordered {
            total += 1
            let members = step.toolName == nil ? step.group : [step]
            var used = Set<Int>()
            var last = position - 1
            var ok = true
            for member in members {
                var found: Int?
                for index in calls.indices where index >= position && !used.contains(index) {
                    if try await matches(member, calls[index], naturalLanguage) { found = index; break }
                }
                if let found { used.insert(found); last = max(last, found) } else { ok = false }
            }
            if ok {
                passed += 1
                consumed.formUnion(used)
                position = last + 1
            } else {
                failures.append("expected \(step.description) " + (position == 0 ? "" : "after call \(position) ")
                                + "in order; calls were " + describe(calls))
            }
        }
        for expected in expectation.unordered {
            total += 1
            var found: Int?
            for index in calls.indices where try await matches(expected, calls[index], naturalLanguage) { found = index; break }
            if let found { passed += 1; consumed.insert(found) } else {
                failures.append("expected a call \(expected.description); calls were " + describe(calls))
            }
        }
        for forbidden in expectation.disallowed {
            total += 1
            var hit = false
            for call in calls where try await matches(forbidden, call, naturalLanguage) { hit = true; break }
            if hit { failures.append("\(forbidden.description) was called but is disallowed") } else { passed += 1 }
        }
        if !expectation.allowsAdditionalToolCalls {
            total += 1
            let extra = calls.indices.filter { !consumed.contains($0) }
            if extra.isEmpty { passed += 1 } else {
                failures.append("unexpected calls: " + extra.map { calls[$0].name }.joined(separator: ", "))
            }
        }
        return TrajectoryCheck(passed: passed, total: total, failures: failures)
    }

    static func describe(_ calls: [ObservedToolCall]) -> String {
        calls.isEmpty ? "none" : calls.map { "\($0.name)(\($0.arguments.serialized()))" }.joined(separator: ", ")
    }

    static func matches(_ expectation: ToolExpectation, _ call: ObservedToolCall, _ naturalLanguage: NaturalLanguageMatcher?) async throws -> Bool {
        guard expectation.toolName == call.name else { return false }
        for matcher in expectation.arguments where !(try await argumentMatches(matcher, call.arguments, naturalLanguage)) { return false }
        return true
    }

    public static func argumentMatches(_ matcher: ArgumentMatcher, _ arguments: JSONValue,
                                       _ naturalLanguage: NaturalLanguageMatcher?) async throws -> Bool {
        guard case .object(let object) = arguments, let value = object[matcher.argumentName] else { return false }
        let text: String? = if case .string(let s) = value { s } else { nil }
        switch matcher {
        case .keyOnly: return true
        case .exact(_, let expected): return same(value, expected)
        case .oneOf(_, let allowed): return allowed.contains { same(value, $0) }
        case .range(_, let minimum, let maximum):
            guard let number = value.doubleValue else { return false }
            return (minimum.map { number >= $0 } ?? true) && (maximum.map { number <= $0 } ?? true)
        case .pattern(_, let source):
            guard let text, let regex = try? Regex(source) else { return false }
            return (try? regex.firstMatch(in: text)) != nil
        case .contains(_, let s): return text?.contains(s) ?? false
        case .hasPrefix(_, let s): return text?.hasPrefix(s) ?? false
        case .hasSuffix(_, let s): return text?.hasSuffix(s) ?? false
        case .naturalLanguage(_, let criteria):
            guard let naturalLanguage else { return false }
            return try await naturalLanguage(criteria, value)
        }
    }

    /// JSON equality where 2 and 2.0 are the same number.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue, a.stringValue == nil, b.stringValue == nil { return x == y }
        return a == b
    }
}
