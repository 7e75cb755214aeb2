import JSON

/// One row of an evaluation: the sample, what the subject produced, the metrics.
public struct SampleOutcome: Sendable, Hashable {
    public var index: Int
    /// The sample's prompt as text (`promptDescription`).
    public var prompt: String
    public var instructions: String?
    public var expected: JSONValue?
    /// The subject's value (nil when `subject(from:)` threw).
    public var response: JSONValue?
    /// The value as the report shows it.
    public var responseText: String?
    public var toolCalls: [ObservedToolCall]
    public var metrics: [Metric]
    /// Why `subject(from:)` failed (`SubjectInferenceError.failed(reason:)`).
    public var subjectError: String?
    /// One entry per evaluator that threw (`EvaluatorError.failed`).
    public var evaluatorErrors: [String]

    public init(index: Int, prompt: String, instructions: String? = nil, expected: JSONValue?, response: JSONValue?,
                responseText: String?, toolCalls: [ObservedToolCall] = [], metrics: [Metric] = [], subjectError: String? = nil,
                evaluatorErrors: [String] = []) {
        self.index = index
        self.prompt = prompt
        self.instructions = instructions
        self.expected = expected
        self.response = response
        self.responseText = responseText
        self.toolCalls = toolCalls
        self.metrics = metrics
        self.subjectError = subjectError
        self.evaluatorErrors = evaluatorErrors
    }

    public func metric(named name: String) -> Metric? { metrics.first { $0.name == name } }

    /// A sample fails when its subject or an evaluator threw, or a metric failed.
    public var failed: Bool {
        subjectError != nil || !evaluatorErrors.isEmpty || metrics.contains { $0.value == .failing }
    }
}

/// Counts of one metric over all samples.
public struct MetricTally: Sendable, Hashable {
    public var name: String
    public var passed = 0
    public var failed = 0
    public var scored = 0
    public var ignored = 0
    /// Passed / (passed + failed); nil when the metric never passed or failed.
    public var passRate: Double? { passed + failed == 0 ? nil : Double(passed) / Double(passed + failed) }
}

/// Apple's `EvaluationRunErrors`.
public struct EvaluationRunErrors: Sendable, Hashable {
    public var inferenceFailureCount = 0
    public var evaluatorFailureCount = 0
    public var failingEvaluatorTypes: [String] = []
    public var metricsNotFound: [String] = []
    public var anyInferenceProduced = false
    public var hasFailures: Bool { inferenceFailureCount > 0 || evaluatorFailureCount > 0 || !metricsNotFound.isEmpty }

    /// Apple's `clean`: "a clean run is all-zero, produced inference, and referenced no missing metrics".
    public static let clean: EvaluationRunErrors = {
        var clean = EvaluationRunErrors()
        clean.anyInferenceProduced = true
        return clean
    }()
}

/// Everything one `run()` produced: rows, aggregates, errors. Its JSON form is
/// the `evaluation` object of `fmplay run --format json` (documented in README).
public struct EvaluationReport: Sendable, Hashable {
    public var name: String
    public var info: [(String, String)]
    public var samples: [SampleOutcome]
    public var aggregates: [AggregateMetric]
    public var errors: EvaluationRunErrors

    public static func == (a: EvaluationReport, b: EvaluationReport) -> Bool { a.json == b.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json.serialized()) }

    /// Computes the declared aggregates over the samples' metrics.
    public static func summarize(name: String, info: [(String, String)], samples: [SampleOutcome],
                                 aggregator: MetricsAggregator) async throws -> EvaluationReport {
        var errors = EvaluationRunErrors()
        errors.inferenceFailureCount = samples.filter { $0.subjectError != nil }.count
        errors.evaluatorFailureCount = samples.reduce(0) { $0 + $1.evaluatorErrors.count }
        errors.anyInferenceProduced = samples.contains { $0.subjectError == nil }
        var failingTypes: [String] = []
        for sample in samples {
            for message in sample.evaluatorErrors {
                let type = String(message.prefix { $0 != ":" })
                if !failingTypes.contains(type) { failingTypes.append(type) }
            }
        }
        errors.failingEvaluatorTypes = failingTypes
        let produced = Set(samples.flatMap { $0.metrics.map(\.name) })
        var aggregates: [AggregateMetric] = []
        for request in aggregator.requests {
            let name = request.metric.name
            if !produced.contains(name), !errors.metricsNotFound.contains(name) { errors.metricsNotFound.append(name) }
            let values = samples.compactMap { $0.metric(named: name)?.doubleValue }
            let value: Double?
            if let custom = request.custom {
                value = try await custom(values)
            } else {
                value = request.operation.compute(values)
            }
            aggregates.append(AggregateMetric(group: request.group, label: request.operation.label, operation: request.operation,
                                              sourceMetric: name, value: value, count: values.count))
        }
        return EvaluationReport(name: name, info: info, samples: samples, aggregates: aggregates, errors: errors)
    }

    /// Metric names in first-seen order with their counts.
    public var tallies: [MetricTally] {
        var order: [String] = []
        var tallies: [String: MetricTally] = [:]
        for sample in samples {
            for metric in sample.metrics {
                if tallies[metric.name] == nil { order.append(metric.name); tallies[metric.name] = MetricTally(name: metric.name) }
                switch metric.value {
                case .passing: tallies[metric.name]!.passed += 1
                case .failing: tallies[metric.name]!.failed += 1
                case .scoring: tallies[metric.name]!.scored += 1
                case .ignore, nil: tallies[metric.name]!.ignored += 1
                }
            }
        }
        return order.map { tallies[$0]! }
    }

    /// Passed / (passed + failed) over every pass/fail result; nil when there are none.
    public var passRate: Double? {
        let passed = tallies.reduce(0) { $0 + $1.passed }
        let failed = tallies.reduce(0) { $0 + $1.failed }
        return passed + failed == 0 ? nil : Double(passed) / Double(passed + failed)
    }

    /// One line: `CapitalEvaluation: 3/4 passed (75%) · 4 samples`.
    public var headline: String {
        let passed = tallies.reduce(0) { $0 + $1.passed }
        let failed = tallies.reduce(0) { $0 + $1.failed }
        var parts = ["\(samples.count) sample\(samples.count == 1 ? "" : "s")"]
        if let passRate { parts.insert("\(passed)/\(passed + failed) passed (\(percent(passRate)))", at: 0) }
        if errors.inferenceFailureCount > 0 { parts.append("\(errors.inferenceFailureCount) without a response") }
        return "\(name): " + parts.joined(separator: " · ")
    }

    /// `aggregateValue(_:)`: the first matching aggregate, or -1 when absent or not computed.
    public func aggregateValue(_ operation: AggregationOperation) -> Double {
        aggregates.first { $0.operation.matches(operation) }?.value ?? -1
    }

    /// Apple's `groupedSummary`: each group's name on its own line, then indented
    /// `label: value` lines; ungrouped aggregates first, unindented.
    public var groupedSummary: String {
        var lines: [String] = []
        for aggregate in aggregates where aggregate.group == nil { lines.append("\(aggregate.label): \(format(aggregate.value))") }
        var groups: [String] = []
        for aggregate in aggregates { if let g = aggregate.group, !groups.contains(g) { groups.append(g) } }
        for group in groups {
            lines.append(group)
            for aggregate in aggregates where aggregate.group == group { lines.append("  \(aggregate.label): \(format(aggregate.value))") }
        }
        return lines.joined(separator: "\n")
    }

    func format(_ value: Double?) -> String { value.map(formatNumber) ?? "n/a" }

    /// The report people read: a table per metric, the aggregates, the failing samples with their responses.
    public var text: String {
        var lines = ["\(name): \(samples.count) sample\(samples.count == 1 ? "" : "s")"
            + (errors.inferenceFailureCount > 0 ? ", \(errors.inferenceFailureCount) without a response" : "")
            + (errors.evaluatorFailureCount > 0 ? ", \(errors.evaluatorFailureCount) evaluator error\(errors.evaluatorFailureCount == 1 ? "" : "s")" : "")]
        let rows = tallies.map { tally -> [String] in
            let rate = tally.passRate.map { "\(tally.passed)/\(tally.passed + tally.failed) passed (\(percent($0)))" } ?? "-"
            return [tally.name, rate, tally.scored > 0 ? "\(tally.scored) scored" : "", tally.ignored > 0 ? "\(tally.ignored) ignored" : ""]
        }
        lines += table(rows)
        if !aggregates.isEmpty {
            lines.append("summary:")
            lines += table(aggregates.map { [($0.group.map { "\($0) / " } ?? "") + $0.label, format($0.value)] })
        }
        if !errors.metricsNotFound.isEmpty {
            lines.append("no evaluator produced: " + errors.metricsNotFound.joined(separator: ", "))
        }
        let failing = samples.filter(\.failed)
        if !failing.isEmpty {
            lines.append("failing samples:")
            for sample in failing {
                lines.append("  #\(sample.index + 1) \(quoted(sample.prompt, limit: 80))")
                if let error = sample.subjectError { lines.append("    no response: \(error)") }
                if let text = sample.responseText { lines.append("    response: \(quoted(text, limit: 200))") }
                if let expected = sample.expected, !expected.isNull { lines.append("    expected: \(expected.serialized())") }
                for metric in sample.metrics where metric.value == .failing { lines.append("    \(metric.description)") }
                for error in sample.evaluatorErrors { lines.append("    evaluator error: \(error)") }
            }
        }
        return lines.joined(separator: "\n")
    }

    func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = Array(repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            "  " + row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingTrailingSpaces()
        }
    }

    func quoted(_ text: String, limit: Int) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        return "\"" + (flat.count > limit ? String(flat.prefix(limit)) + "…" : flat) + "\""
    }
}

public func percent(_ rate: Double) -> String {
    let value = (rate * 1000).rounded() / 10
    return value == value.rounded() ? "\(Int(value))%" : "\(value)%"
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
    func padding(toLength length: Int, withPad pad: String, startingAt: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

// MARK: JSON

extension Metric {
    public var json: JSONValue {
        var object: JSONObject = ["name": .string(name), "value": .string(kindName)]
        if let score = doubleValue { object["score"] = .double(score) }
        if let rationale { object["rationale"] = .string(rationale) }
        return .object(object)
    }
}

extension EvaluationReport {
    public var json: JSONValue {
        var object: JSONObject = ["evaluation": .string(name)]
        object["info"] = .object(JSONObject(info.map { ($0.0, JSONValue.string($0.1)) }))
        object["passRate"] = passRate.map(JSONValue.double) ?? .null
        object["metrics"] = .array(tallies.map {
            ["name": .string($0.name), "passed": .int($0.passed), "failed": .int($0.failed), "scored": .int($0.scored),
             "ignored": .int($0.ignored), "passRate": $0.passRate.map(JSONValue.double) ?? .null]
        })
        object["summary"] = .array(aggregates.map {
            ["group": $0.group.map(JSONValue.string) ?? .null, "label": .string($0.label), "operation": .string($0.operation.kindName),
             "metric": $0.sourceMetric.map(JSONValue.string) ?? .null, "value": $0.value.map(JSONValue.double) ?? .null,
             "count": .int($0.count)]
        })
        object["samples"] = .array(samples.map { sample in
            var row: JSONObject = ["index": .int(sample.index), "prompt": .string(sample.prompt)]
            if let instructions = sample.instructions { row["instructions"] = .string(instructions) }
            row["expected"] = sample.expected ?? .null
            row["response"] = sample.response ?? .null
            row["responseText"] = sample.responseText.map(JSONValue.string) ?? .null
            row["metrics"] = .array(sample.metrics.map(\.json))
            if !sample.toolCalls.isEmpty {
                row["toolCalls"] = .array(sample.toolCalls.map { ["name": .string($0.name), "arguments": $0.arguments] })
            }
            if let error = sample.subjectError { row["subjectError"] = .string(error) }
            if !sample.evaluatorErrors.isEmpty { row["evaluatorErrors"] = .array(sample.evaluatorErrors.map(JSONValue.string)) }
            row["failed"] = .bool(sample.failed)
            return .object(row)
        })
        object["errors"] = [
            "inferenceFailureCount": .int(errors.inferenceFailureCount), "evaluatorFailureCount": .int(errors.evaluatorFailureCount),
            "failingEvaluatorTypes": .array(errors.failingEvaluatorTypes.map(JSONValue.string)),
            "metricsNotFound": .array(errors.metricsNotFound.map(JSONValue.string)),
        ]
        return .object(object)
    }

    /// Reads the JSON form back (cached results, baselines); nil where `init(decoding:)` throws.
    public init?(json: JSONValue) {
        guard let report = try? EvaluationReport(decoding: json) else { return nil }
        self = report
    }

    /// `EvaluationResult(jsonData:)`: the bytes of the JSON form above (the `evaluation` object of `fmplay run --format json`).
    public init(decoding data: some Collection<UInt8>) throws {
        guard data.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { throw EvaluationResultsError.emptyJSONFile }
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw EvaluationResultsError.invalidJSONFormat(reason: "\(error)")
        }
        try self.init(decoding: json)
    }

    /// The JSON form, checked field by field: the fields fmplay always writes must be there, and every field there
    /// must have the type fmplay writes; a failure names the field's path and what was expected.
    public init(decoding json: JSONValue) throws {
        let root = ReportReader(json, path: "")
        name = try root.string("evaluation")
        info = try root.optionalObject("info").map { object in try object.entries().map { ($0.key, try $0.reader.asString()) } } ?? []
        samples = try root.array("samples").map { row in
            SampleOutcome(
                index: try row.int("index"), prompt: try row.string("prompt"), instructions: try row.optionalString("instructions"),
                expected: row.optionalValue("expected"), response: row.optionalValue("response"),
                responseText: try row.optionalString("responseText"),
                toolCalls: try (row.optionalArray("toolCalls") ?? []).map { ObservedToolCall(name: try $0.string("name"), arguments: $0.optionalValue("arguments") ?? .null) },
                metrics: try row.array("metrics").map { try Metric(reading: $0) },
                subjectError: try row.optionalString("subjectError"),
                evaluatorErrors: try (row.optionalArray("evaluatorErrors") ?? []).map { try $0.asString() })
        }
        aggregates = try (root.optionalArray("summary") ?? []).map { item in
            let label = try item.string("label")
            let source = try item.optionalString("metric")
            let kind = try item.string("operation")
            let operation: AggregationOperation
            if kind == "custom" {
                operation = .custom(label: label)
            } else if let named = MetricsAggregator.operation(method: "compute" + kind.capitalizedFirst, metric: Metric(source ?? "")) {
                operation = named
            } else {
                throw item.invalid("operation", "is \"\(kind)\"; expected mean, median, mode, minimum, maximum, standardDeviation, variance or custom")
            }
            return AggregateMetric(group: try item.optionalString("group"), label: label, operation: operation, sourceMetric: source,
                                   value: try item.optionalDouble("value"), count: try item.optionalInt("count") ?? 0)
        }
        var errors = EvaluationRunErrors()
        if let written = try root.optionalObject("errors") {
            errors.inferenceFailureCount = try written.optionalInt("inferenceFailureCount") ?? 0
            errors.evaluatorFailureCount = try written.optionalInt("evaluatorFailureCount") ?? 0
            errors.failingEvaluatorTypes = try (written.optionalArray("failingEvaluatorTypes") ?? []).map { try $0.asString() }
            errors.metricsNotFound = try (written.optionalArray("metricsNotFound") ?? []).map { try $0.asString() }
        }
        errors.anyInferenceProduced = samples.contains { $0.subjectError == nil }
        self.errors = errors
    }
}

/// Apple's `EvaluationResultsError`: why `EvaluationResult(jsonData:)` refused its data (`fileNotFound` belongs to
/// `loadJSON(from:)`, which prompt files do not have).
public enum EvaluationResultsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data holds no JSON at all.
    case emptyJSONFile
    /// The data is not the JSON form of an evaluation result: `reason` names the place and what was expected.
    case invalidJSONFormat(reason: String)

    public var caseName: String {
        switch self {
        case .emptyJSONFile: "emptyJSONFile"
        case .invalidJSONFormat: "invalidJSONFormat"
        }
    }

    public var description: String {
        switch self {
        case .emptyJSONFile: "EvaluationResultsError.emptyJSONFile: the data is empty; pass the evaluation object `fmplay run --format json` writes"
        case .invalidJSONFormat(let reason):
            "EvaluationResultsError.invalidJSONFormat: \(reason) (EvaluationResult(jsonData:) reads the evaluation object `fmplay run --format json` writes)"
        }
    }
}

/// One place in a report's JSON, for `EvaluationReport.init(decoding:)`: typed reads that fail with the field's path.
struct ReportReader {
    let value: JSONValue
    let path: String
    init(_ value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    func invalid(_ key: String?, _ problem: String) -> EvaluationResultsError {
        let place = key.map { path.isEmpty ? $0 : path + "." + $0 } ?? (path.isEmpty ? "the document" : path)
        return .invalidJSONFormat(reason: "\(place) \(problem)")
    }

    func field(_ key: String) throws -> JSONValue? {
        guard case .object(let object) = value else { throw invalid(nil, "is not an object") }
        guard let found = object[key], !found.isNull else { return nil }
        return found
    }

    func required(_ key: String) throws -> JSONValue {
        guard let found = try field(key) else { throw invalid(key, "is missing") }
        return found
    }

    func child(_ key: String, _ value: JSONValue) -> ReportReader { ReportReader(value, path: path.isEmpty ? key : path + "." + key) }

    func asString() throws -> String {
        guard let text = value.stringValue else { throw invalid(nil, "is not a string") }
        return text
    }

    func string(_ key: String) throws -> String { try child(key, try required(key)).asString() }
    func optionalString(_ key: String) throws -> String? { try field(key).map { try child(key, $0).asString() } }
    func int(_ key: String) throws -> Int {
        guard let number = try required(key).intValue else { throw invalid(key, "is not an integer") }
        return number
    }
    func optionalInt(_ key: String) throws -> Int? {
        try field(key).map { guard let number = $0.intValue else { throw invalid(key, "is not an integer") }; return number }
    }
    func optionalDouble(_ key: String) throws -> Double? {
        try field(key).map { guard let number = $0.doubleValue else { throw invalid(key, "is not a number") }; return number }
    }
    func optionalValue(_ key: String) -> JSONValue? { (try? field(key)) ?? nil }

    func array(_ key: String) throws -> [ReportReader] {
        guard let items = try required(key).arrayValue else { throw invalid(key, "is not an array") }
        return items.enumerated().map { ReportReader($1, path: (path.isEmpty ? key : path + "." + key) + "[\($0)]") }
    }
    func optionalArray(_ key: String) throws -> [ReportReader]? { try field(key) == nil ? nil : try array(key) }

    func optionalObject(_ key: String) throws -> ReportReader? {
        guard let found = try field(key) else { return nil }
        guard case .object = found else { throw invalid(key, "is not an object") }
        return child(key, found)
    }
    func entries() throws -> [(key: String, reader: ReportReader)] {
        guard case .object(let object) = value else { throw invalid(nil, "is not an object") }
        return object.map { (key: $0.key, reader: child($0.key, $0.value)) }
    }
}

extension Metric {
    /// One metric of a sample's row: `{"name", "value": passing|failing|scoring|ignore|none, "score", "rationale"}`.
    init(reading row: ReportReader) throws {
        let name = try row.string("name")
        let rationale = try row.optionalString("rationale")
        switch try row.string("value") {
        case "passing": self.init(name, value: .passing, rationale: rationale)
        case "failing": self.init(name, value: .failing, rationale: rationale)
        case "scoring":
            guard let score = try row.optionalDouble("score") else { throw row.invalid("score", "is missing (a scoring metric has one)") }
            self.init(name, value: .scoring(score), rationale: rationale)
        case "ignore": self.init(name, value: .ignore, rationale: rationale)
        case "none": self.init(name, rationale: rationale)
        case let other: throw row.invalid("value", "is \"\(other)\"; expected passing, failing, scoring, ignore or none")
        }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
