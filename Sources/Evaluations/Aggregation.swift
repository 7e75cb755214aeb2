/// A summary statistic of one metric (Apple's `AggregationOperation`).
public enum AggregationOperation: Sendable, Hashable {
    case mean(of: Metric)
    case median(of: Metric)
    case mode(of: Metric)
    case minimum(of: Metric)
    case maximum(of: Metric)
    case standardDeviation(of: Metric)
    case variance(of: Metric)
    case custom(label: String)

    /// "Mean of Accuracy"; a custom operation's own label.
    public var label: String {
        switch self {
        case .mean(let m): "Mean of \(m.name)"
        case .median(let m): "Median of \(m.name)"
        case .mode(let m): "Mode of \(m.name)"
        case .minimum(let m): "Minimum of \(m.name)"
        case .maximum(let m): "Maximum of \(m.name)"
        case .standardDeviation(let m): "Standard deviation of \(m.name)"
        case .variance(let m): "Variance of \(m.name)"
        case .custom(let label): label
        }
    }

    /// The case name (`mean`, `custom`...), for JSON.
    public var kindName: String {
        switch self {
        case .mean: "mean"
        case .median: "median"
        case .mode: "mode"
        case .minimum: "minimum"
        case .maximum: "maximum"
        case .standardDeviation: "standardDeviation"
        case .variance: "variance"
        case .custom: "custom"
        }
    }

    public var metric: Metric? {
        switch self {
        case .mean(let m), .median(let m), .mode(let m), .minimum(let m), .maximum(let m), .standardDeviation(let m), .variance(let m): m
        case .custom: nil
        }
    }

    /// Two operations are the same statistic when kind, label and metric name agree
    /// (a metric result and its bare definition name the same column).
    public func matches(_ other: AggregationOperation) -> Bool {
        kindName == other.kindName && label == other.label
    }

    /// The statistic over non-ignored values; nil when there are none.
    /// Standard deviation and variance are the sample forms (n - 1), 0 for one value.
    public func compute(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        switch self {
        case .mean: return mean
        case .median:
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        case .mode:
            // The most frequent value; ties go to the smallest.
            var counts: [Double: Int] = [:]
            for v in values { counts[v, default: 0] += 1 }
            return counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }!.key
        case .minimum: return values.min()
        case .maximum: return values.max()
        case .variance, .standardDeviation:
            let variance = values.count < 2 ? 0 : values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
            if case .variance = self { return variance }
            return variance.squareRoot()
        case .custom: return nil
        }
    }
}

/// One computed statistic (Apple's `AggregateMetric`).
public struct AggregateMetric: Sendable, Hashable {
    public var group: String?
    public var label: String
    public var operation: AggregationOperation
    /// The metric's name (nil for a custom aggregate over none).
    public var sourceMetric: String?
    /// Nil when nothing was aggregated (every result ignored or missing).
    public var value: Double?
    /// How many values went in.
    public var count: Int
}

/// What `aggregateMetrics(using:)` declares: statistics in order, some in groups.
/// A reference type so the interpreter's `inout` parameter and group closures
/// write to one place.
public final class MetricsAggregator: @unchecked Sendable {
    public struct Request: @unchecked Sendable {
        public var group: String?
        public var operation: AggregationOperation
        public var metric: Metric
        /// For `custom(of:label:_:)`: the closure over the metric's values.
        public var custom: (@Sendable ([Double]) async throws -> Double)?
    }

    public private(set) var requests: [Request] = []

    public init() {}

    public func add(_ operation: AggregationOperation, group: String?) {
        requests.append(Request(group: group, operation: operation, metric: operation.metric!, custom: nil))
    }

    public func addCustom(of metric: Metric, label: String, group: String?,
                          _ body: @escaping @Sendable ([Double]) async throws -> Double) {
        requests.append(Request(group: group, operation: .custom(label: label), metric: metric, custom: body))
    }

    /// The operation a `computeX(of:)` method name stands for.
    public static func operation(method: String, metric: Metric) -> AggregationOperation? {
        switch method {
        case "computeMean": .mean(of: metric)
        case "computeMedian": .median(of: metric)
        case "computeMode": .mode(of: metric)
        case "computeMinimum": .minimum(of: metric)
        case "computeMaximum": .maximum(of: metric)
        case "computeStandardDeviation": .standardDeviation(of: metric)
        case "computeVariance": .variance(of: metric)
        default: nil
        }
    }
}
