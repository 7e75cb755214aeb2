/// A named measurement, and (after `passing`, `failing`, `scoring` or `ignore`)
/// one sample's result for it: Apple's `Evaluations.Metric`.
///
/// A metric is identified by its name: `Metric("Match")` made twice is the same
/// column. The four factories return a new value and leave the receiver unchanged.
public struct Metric: Sendable, Hashable, CustomStringConvertible {
    public enum Value: Sendable, Hashable {
        case passing
        case failing
        case scoring(Double)
        case ignore
    }

    public var name: String
    /// Nil for a metric that is only a definition (`Metric("Match")`).
    public var value: Value?
    public var rationale: String?

    public init(_ name: String, value: Value? = nil, rationale: String? = nil) {
        self.name = name
        self.value = value
        self.rationale = rationale
    }

    public func passing(rationale: String? = nil) -> Metric { Metric(name, value: .passing, rationale: rationale) }
    public func failing(rationale: String? = nil) -> Metric { Metric(name, value: .failing, rationale: rationale) }
    public func scoring(_ score: Double, rationale: String? = nil) -> Metric { Metric(name, value: .scoring(score), rationale: rationale) }
    public func ignore(rationale: String? = nil) -> Metric { Metric(name, value: .ignore, rationale: rationale) }

    /// passing 1.0, failing 0.0, scoring its value, ignore (or no result) nil.
    public var doubleValue: Double? {
        switch value {
        case .passing: 1
        case .failing: 0
        case .scoring(let x): x
        case .ignore, nil: nil
        }
    }

    /// "passing", "failing", "scoring", "ignore", or "none" for a bare definition.
    public var kindName: String {
        switch value {
        case .passing: "passing"
        case .failing: "failing"
        case .scoring: "scoring"
        case .ignore: "ignore"
        case nil: "none"
        }
    }

    public var description: String {
        var text = name
        switch value {
        case .passing: text += ": pass"
        case .failing: text += ": fail"
        case .scoring(let x): text += ": " + formatNumber(x)
        case .ignore: text += ": ignored"
        case nil: break
        }
        if let rationale, !rationale.isEmpty { text += " (\(rationale))" }
        return text
    }

    /// The convenience names `ToolCallEvaluator` reports under.
    public static let toolsAllPass = Metric("ToolsAllPass")
    public static let toolsPercentagePass = Metric("ToolsPercentagePass")
}

/// A Double as Swift prints it (`0.75`, `1.0`), so reports read like `print(x)`.
public func formatNumber(_ value: Double) -> String {
    if value.isNaN { return "nan" }
    if value == value.rounded(), abs(value) < 1e16 { return "\(Int(value)).0" }
    return "\(value)"
}
