/// Checks for numeric command-line options: every number a user types is
/// finite and in a stated range, or the command stops with a usage error
/// naming the option (never a trap further down, e.g. `UInt64(nan)`).
enum OptionChecks {
    /// Longest `--timeout` accepted: one week.
    static let maximumTimeout = 7 * 24 * 3600.0
    /// Largest temperature accepted (the sampler divides logits by it).
    static let maximumTemperature = 1000.0
    /// Largest token budget or context size accepted.
    static let maximumTokens = 1 << 20

    /// nil when `value` is finite and inside `range`, else the message.
    static func number(_ value: Double?, _ option: String, _ range: ClosedRange<Double>, exclusiveLower: Bool = false) -> String? {
        guard let value else { return nil }
        let lower = exclusiveLower ? "greater than \(format(range.lowerBound))" : "at least \(format(range.lowerBound))"
        let expectation = "\(option) must be a finite number \(lower) and at most \(format(range.upperBound))"
        guard value.isFinite else { return "\(expectation), not \(value)" }
        if exclusiveLower ? value <= range.lowerBound : value < range.lowerBound { return "\(expectation), not \(format(value))" }
        if value > range.upperBound { return "\(expectation), not \(format(value))" }
        return nil
    }

    static func integer(_ value: Int?, _ option: String, _ range: ClosedRange<Int>) -> String? {
        guard let value, !range.contains(value) else { return nil }
        return "\(option) must be between \(range.lowerBound) and \(range.upperBound), not \(value)"
    }

    static func timeout(_ value: Double?) -> String? {
        number(value, "--timeout", 0...maximumTimeout, exclusiveLower: true).map { $0 + " (seconds)" }
    }

    static func temperature(_ value: Double?) -> String? {
        number(value, "--temperature", 0...maximumTemperature)
    }

    private static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
    }
}
