import Evaluations
import Foundation
import JSON
import PlaygroundEvaluator
import PlaygroundResults
import Report

/// `fmplay run --samples N [--model A --model B] [--min-pass-rate R]`: every block
/// runs N times per model, with seeds derived from `--seed`; pass rates per block.
enum RunSampling {
    /// Sample 0 uses the seed itself (so `--samples 1` equals a plain run); sample i > 0
    /// uses SplitMix64 of (seed, i), so neighbouring `--seed` values do not share samples.
    static func seeds(base: UInt64, count: Int) -> [UInt64] {
        (0..<max(1, count)).map { index in
            guard index > 0 else { return base }
            var z = base &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One run of every file: which model, which seed.
    struct Run {
        var model: String
        var seed: UInt64
        var files: [FileResult]
    }

    /// A block's outcome over all runs on one model.
    struct BlockSummary {
        var path: String
        var block: String
        var model: String
        var runs = 0
        var succeeded = 0
        /// Pass/fail metric results of the block's evaluations, over all runs.
        var passed = 0
        var failed = 0
        var evaluations: [String: MetricCounts] = [:]
        var evaluationOrder: [String] = []

        struct MetricCounts {
            var passed = 0
            var failed = 0
            var scores: [String: [Double]] = [:]
            var scoreOrder: [String] = []
        }

        /// For blocks with evaluations: passed / (passed + failed) metric results;
        /// otherwise the share of runs that ended without error.
        var passRate: Double {
            if passed + failed > 0 { return Double(passed) / Double(passed + failed) }
            return runs == 0 ? 0 : Double(succeeded) / Double(runs)
        }
        var hasEvaluations: Bool { !evaluationOrder.isEmpty }
    }

    static func summarize(_ runs: [Run]) -> [BlockSummary] {
        var order: [String] = []
        var summaries: [String: BlockSummary] = [:]
        for run in runs {
            for file in run.files {
                for block in file.blocks {
                    let key = "\(run.model)\u{1}\(file.path)\u{1}\(block.displayName)"
                    if summaries[key] == nil {
                        order.append(key)
                        summaries[key] = BlockSummary(path: file.path, block: block.displayName, model: run.model)
                    }
                    summaries[key]!.runs += 1
                    if block.status == .ok { summaries[key]!.succeeded += 1 }
                    for report in block.results.compactMap(\.evaluation) {
                        if summaries[key]!.evaluations[report.name] == nil {
                            summaries[key]!.evaluationOrder.append(report.name)
                            summaries[key]!.evaluations[report.name] = BlockSummary.MetricCounts()
                        }
                        for tally in report.tallies {
                            summaries[key]!.passed += tally.passed
                            summaries[key]!.failed += tally.failed
                            summaries[key]!.evaluations[report.name]!.passed += tally.passed
                            summaries[key]!.evaluations[report.name]!.failed += tally.failed
                        }
                        for sample in report.samples {
                            for metric in sample.metrics {
                                guard case .scoring(let x) = metric.value else { continue }
                                if summaries[key]!.evaluations[report.name]!.scores[metric.name] == nil {
                                    summaries[key]!.evaluations[report.name]!.scoreOrder.append(metric.name)
                                }
                                summaries[key]!.evaluations[report.name]!.scores[metric.name, default: []].append(x)
                            }
                        }
                    }
                }
            }
        }
        return order.map { summaries[$0]! }
    }

    /// The table printed after sampled or compared runs: one row per block, one column per model.
    static func text(_ summaries: [BlockSummary], models: [String], samples: Int) -> String {
        var lines = ["pass rates over \(samples) sample\(samples == 1 ? "" : "s") per block"
            + (models.count > 1 ? " (models side by side)" : "") + ":"]
        var blocks: [(String, String)] = []
        for s in summaries where !blocks.contains(where: { $0 == (s.path, s.block) }) { blocks.append((s.path, s.block)) }
        var rows: [[String]] = [["block"] + models]
        for (path, block) in blocks {
            var row = ["\((path as NSString).lastPathComponent) · \(block)"]
            for model in models {
                guard let s = summaries.first(where: { $0.path == path && $0.block == block && $0.model == model }) else { row.append("-"); continue }
                var cell = "\(s.succeeded)/\(s.runs) ran"
                if s.passed + s.failed > 0 { cell += ", \(s.passed)/\(s.passed + s.failed) metrics passed (\(percent(s.passRate)))" }
                for name in s.evaluationOrder {
                    for metric in s.evaluations[name]!.scoreOrder {
                        let values = s.evaluations[name]!.scores[metric]!
                        cell += ", mean \(metric) \(formatNumber((values.reduce(0, +) / Double(values.count) * 1000).rounded() / 1000))"
                    }
                }
                row.append(cell)
            }
            rows.append(row)
        }
        var widths = Array(repeating: 0, count: rows[0].count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        for row in rows {
            lines.append("  " + row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  |  "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `fmplay run --format html`: the page of `fmplay report` for these runs.
    static func htmlReport(_ runs: [Run], baseline: [BaselineStore.Entry]?) -> String {
        var counts: [String: Int] = [:]
        let input = ReportInput(
            runs: runs.map { run in
                counts[run.model, default: 0] += 1
                return ReportInput.Run(model: run.model, seed: String(run.seed), sample: counts[run.model]!, files: run.files)
            },
            baseline: (baseline ?? []).map {
                ReportInput.BaselineEntry(path: $0.path, block: $0.block, model: $0.model, status: $0.status, changes: $0.changes)
            })
        let paths = Array(Set(runs.flatMap { $0.files.map(\.path) })).sorted()
        return ReportPage.render(input, options: ReportPage.Options(source: "fmplay run " + paths.joined(separator: " ")))
    }

    static func json(_ summaries: [BlockSummary]) -> JSONValue {
        .array(summaries.map { s in
            [
                "path": .string(s.path), "block": .string(s.block), "model": .string(s.model), "runs": .int(s.runs),
                "succeeded": .int(s.succeeded), "metricsPassed": .int(s.passed), "metricsFailed": .int(s.failed),
                "passRate": .double(s.passRate),
            ]
        })
    }
}

/// `fmplay run --baseline DIR`: each block's outputs and metrics are recorded in DIR;
/// the next run shows what changed (a text diff per output, metric deltas), then records anew.
struct BaselineStore {
    let directory: String

    struct Entry {
        var path: String
        var block: String
        var model: String
        /// "new" (no earlier record), "unchanged" or "changed".
        var status: String
        var changes: [String]
    }

    func fileName(path: String, block: String, model: String?) -> String {
        func clean(_ s: String) -> String { String(s.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }) }
        return directory + "/" + clean(path) + "#" + clean(block) + (model.map { "@" + clean($0) } ?? "") + ".json"
    }

    /// Compares every block of the first sample of each model with its record, then records the new outputs.
    func compareAndRecord(_ runs: [RunSampling.Run], modelCount: Int) throws -> [Entry] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var entries: [Entry] = []
        var seen = Set<String>()
        for run in runs where seen.insert(run.model).inserted {
            for file in run.files {
                for block in file.blocks {
                    let name = fileName(path: file.path, block: block.displayName, model: modelCount > 1 ? run.model : nil)
                    let snapshot = BlockSnapshot(block)
                    var entry = Entry(path: file.path, block: block.displayName, model: run.model, status: "new", changes: [])
                    if let data = FileManager.default.contents(atPath: name), let json = try? JSONValue.parse(Array(data)),
                       let old = BlockSnapshot(json: json) {
                        entry.changes = snapshot.changes(since: old)
                        entry.status = entry.changes.isEmpty ? "unchanged" : "changed"
                    }
                    entries.append(entry)
                    let text = snapshot.json.serialized(pretty: true) + "\n"
                    let temporary = name + ".tmp"
                    guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: name])
                    }
                    _ = try? FileManager.default.removeItem(atPath: name)
                    try FileManager.default.moveItem(atPath: temporary, toPath: name)
                }
            }
        }
        return entries
    }

    static func text(_ entries: [Entry]) -> String {
        var lines = ["compared with the baseline:"]
        for entry in entries {
            lines.append("  \(entry.status == "changed" ? "~" : (entry.status == "new" ? "+" : "=")) \(entry.path) · \(entry.block): \(entry.status)")
            for change in entry.changes { lines.append("      " + change) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ entries: [Entry]) -> JSONValue {
        .array(entries.map {
            ["path": .string($0.path), "block": .string($0.block), "model": .string($0.model), "status": .string($0.status),
             "changes": .array($0.changes.map(JSONValue.string))]
        })
    }
}
