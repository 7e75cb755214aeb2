import Evaluations
import Foundation
import JSON
import PlaygroundResults

/// The counts the page shows: per block and model, per evaluation and metric.
extension ReportPage {
    struct BlockKey: Hashable { var path: String; var block: String }

    struct BlockStats {
        var line = 0
        var runs = 0
        var succeeded = 0
        var cached = 0
        var duration = 0.0
        var promptTokens = 0
        var responseTokens = 0
        var responses = 0
        var firstTokenTimes: [Double] = []
        var passed = 0
        var failed = 0
        var errors: [String] = []
        var passRate: Double? {
            if passed + failed > 0 { return Double(passed) / Double(passed + failed) }
            return runs == 0 ? nil : Double(succeeded) / Double(runs)
        }
    }

    struct EvaluationKey: Hashable { var path: String; var block: String; var line: Int; var name: String }

    struct MetricStats {
        var passed = 0
        var failed = 0
        var scored = 0
        var ignored = 0
        var scores: [Double] = []
        var passRate: Double? { passed + failed == 0 ? nil : Double(passed) / Double(passed + failed) }
    }

    struct EvaluationStats {
        var metricOrder: [String] = []
        /// model -> metric -> counts
        var metrics: [String: [String: MetricStats]] = [:]
        var samples: [String: Int] = [:]
    }


    func blockStats() -> (order: [BlockKey], stats: [BlockKey: [String: BlockStats]]) {
        var order: [BlockKey] = []
        var stats: [BlockKey: [String: BlockStats]] = [:]
        for run in input.runs {
            for file in run.files {
                for block in file.blocks {
                    let key = BlockKey(path: file.path, block: block.displayName)
                    if stats[key] == nil { order.append(key); stats[key] = [:] }
                    var s = stats[key]![run.model] ?? BlockStats()
                    s.line = block.line
                    s.runs += 1
                    if block.status == .ok { s.succeeded += 1 } else if let error = block.error { s.errors.append(error) }
                    if block.cached { s.cached += 1 }
                    s.duration += block.duration
                    for result in block.results {
                        if let usage = result.usage {
                            s.promptTokens += usage.promptTokens
                            s.responseTokens += usage.responseTokens
                        }
                        if result.kind == .response || result.kind == .stream { s.responses += 1 }
                        if let ttft = result.timeToFirstToken { s.firstTokenTimes.append(ttft) }
                        for tally in result.evaluation?.tallies ?? [] {
                            s.passed += tally.passed
                            s.failed += tally.failed
                        }
                    }
                    stats[key]![run.model] = s
                }
            }
        }
        return (order, stats)
    }

    func evaluationStats() -> (order: [EvaluationKey], stats: [EvaluationKey: EvaluationStats]) {
        var order: [EvaluationKey] = []
        var stats: [EvaluationKey: EvaluationStats] = [:]
        for run in input.runs {
            for file in run.files {
                for block in file.blocks {
                    for result in block.results {
                        guard let report = result.evaluation else { continue }
                        let key = EvaluationKey(path: file.path, block: block.displayName, line: result.line, name: report.name)
                        if stats[key] == nil { order.append(key); stats[key] = EvaluationStats() }
                        stats[key]!.samples[run.model, default: 0] += report.samples.count
                        for tally in report.tallies where !stats[key]!.metricOrder.contains(tally.name) {
                            stats[key]!.metricOrder.append(tally.name)
                        }
                        for sample in report.samples {
                            for metric in sample.metrics {
                                var m = stats[key]!.metrics[run.model, default: [:]][metric.name] ?? MetricStats()
                                switch metric.value {
                                case .passing: m.passed += 1
                                case .failing: m.failed += 1
                                case .scoring(let x): m.scored += 1; m.scores.append(x)
                                case .ignore, nil: m.ignored += 1
                                }
                                stats[key]!.metrics[run.model, default: [:]][metric.name] = m
                            }
                        }
                    }
                }
            }
        }
        return (order, stats)
    }

    var metricNames: [String] {
        var names: [String] = []
        for run in input.runs {
            for file in run.files {
                for block in file.blocks {
                    for report in block.results.compactMap(\.evaluation) {
                        for tally in report.tallies where !names.contains(tally.name) { names.append(tally.name) }
                    }
                }
            }
        }
        return names
    }
}
