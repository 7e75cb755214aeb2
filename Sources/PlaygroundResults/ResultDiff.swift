import Evaluations
import JSON

/// What a block produced, reduced to what people compare between runs: each
/// result's text by place, and each evaluation's metric pass rates and mean scores.
/// `fmplay run --baseline DIR` stores one per block; the language server keeps the last one.
public struct BlockSnapshot: Sendable, Hashable {
    public struct Output: Sendable, Hashable {
        public var line: Int
        public var iteration: Int
        public var kind: String
        public var text: String
    }

    public var outputs: [Output]
    /// `Evaluation / Metric` -> pass rate (pass/fail metrics) or mean score.
    public var metrics: [(name: String, value: Double)]

    public static func == (a: BlockSnapshot, b: BlockSnapshot) -> Bool { a.json == b.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json.serialized()) }

    public init(_ block: BlockResult) {
        outputs = block.results.filter { $0.kind != .evaluation }.map {
            Output(line: $0.line, iteration: $0.iteration, kind: $0.kind.rawValue, text: $0.text)
        }
        var metrics: [(String, Double)] = []
        for report in block.results.compactMap(\.evaluation) {
            for tally in report.tallies {
                if let rate = tally.passRate { metrics.append(("\(report.name) / \(tally.name) pass rate", rate)) }
                let scores = report.samples.compactMap { sample -> Double? in
                    guard let metric = sample.metric(named: tally.name), case .scoring(let x)? = metric.value else { return nil }
                    return x
                }
                if !scores.isEmpty { metrics.append(("\(report.name) / \(tally.name) mean", scores.reduce(0, +) / Double(scores.count))) }
            }
        }
        self.metrics = metrics
    }

    public var json: JSONValue {
        [
            "outputs": .array(outputs.map { ["line": .int($0.line), "iteration": .int($0.iteration), "kind": .string($0.kind), "text": .string($0.text)] }),
            "metrics": .array(metrics.map { ["name": .string($0.name), "value": .double($0.value)] }),
        ]
    }

    public init?(json: JSONValue) {
        guard let outputs = json["outputs"]?.arrayValue else { return nil }
        self.outputs = outputs.map {
            Output(line: $0["line"]?.intValue ?? 0, iteration: $0["iteration"]?.intValue ?? 0, kind: $0["kind"]?.stringValue ?? "",
                   text: $0["text"]?.stringValue ?? "")
        }
        metrics = (json["metrics"]?.arrayValue ?? []).map { ($0["name"]?.stringValue ?? "", $0["value"]?.doubleValue ?? 0) }
    }

    /// What changed from `old` to `self`: a line diff per output that differs, then metric deltas.
    /// Empty when nothing changed.
    public func changes(since old: BlockSnapshot) -> [String] {
        var lines: [String] = []
        var matched = Set<Int>()
        for output in outputs {
            let index = old.outputs.firstIndex { $0.line == output.line && $0.iteration == output.iteration && $0.kind == output.kind }
            guard let index else {
                lines.append("line \(output.line)\(output.iteration > 0 ? " [\(output.iteration)]" : ""): new \(output.kind)")
                lines += TextDiff.lines(old: "", new: output.text).map { "  " + $0 }
                continue
            }
            matched.insert(index)
            if old.outputs[index].text != output.text {
                lines.append("line \(output.line)\(output.iteration > 0 ? " [\(output.iteration)]" : ""):")
                lines += TextDiff.lines(old: old.outputs[index].text, new: output.text).map { "  " + $0 }
            }
        }
        for (index, output) in old.outputs.enumerated() where !matched.contains(index) {
            lines.append("line \(output.line)\(output.iteration > 0 ? " [\(output.iteration)]" : ""): \(output.kind) no longer produced")
        }
        for metric in metrics {
            guard let before = old.metrics.first(where: { $0.name == metric.name })?.value else {
                lines.append("\(metric.name): \(formatNumber(metric.value)) (new)")
                continue
            }
            if before != metric.value {
                let delta = metric.value - before
                lines.append("\(metric.name): \(formatNumber(before)) -> \(formatNumber(metric.value)) (\(delta > 0 ? "+" : "")\(formatNumber((delta * 1000).rounded() / 1000)))")
            }
        }
        return lines
    }
}

/// A line diff (longest common subsequence): unchanged lines with two spaces, removed `- `, added `+ `.
public enum TextDiff {
    public static func lines(old: String, new: String) -> [String] {
        let a = old.isEmpty ? [] : old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.isEmpty ? [] : new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Bounded: very long outputs are compared as wholes.
        guard a.count * b.count <= 250_000 else { return a.map { "- " + $0 } + b.map { "+ " + $0 } }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var out: [String] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                out.append("  " + a[i]); i += 1; j += 1
            } else if i < a.count, j == b.count || table[i + 1][j] >= table[i][j + 1] {
                out.append("- " + a[i]); i += 1
            } else {
                out.append("+ " + b[j]); j += 1
            }
        }
        return out
    }
}
