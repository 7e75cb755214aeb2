import Evaluations
import Foundation
import JSON
import PlaygroundEvaluator
import PlaygroundResults
import PromptLanguage
import Report

/// Writes `fmplay run` output in the chosen format. Text on a terminal streams
/// each result under its source line with a progress line; piped text is plain.
final class RunPrinter: @unchecked Sendable {
    let format: RunCommand.Format
    let isTerminal: Bool
    private let lock = NSLock()
    private var source = SourceText("")
    private var progressShown = false
    /// When the current call's first snapshot arrived (for tokens per second).
    private var progressStart: (line: Int, column: Int, iteration: Int, time: ContinuousClock.Instant)?

    let verbose: Bool

    init(format: RunCommand.Format, isTerminal: Bool, verbose: Bool = false) {
        self.format = format
        self.isTerminal = isTerminal
        self.verbose = verbose
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func clearProgress() {
        if progressShown { write("\r\u{1B}[K"); progressShown = false }
    }

    func fileStarted(_ path: String, source: SourceText) {
        lock.lock(); defer { lock.unlock() }
        self.source = source
        if format == .text { write((isTerminal ? "\u{1B}[1m\(path)\u{1B}[0m" : path) + "\n") }
    }

    func fileFailed(_ result: FileResult) {
        lock.lock(); defer { lock.unlock() }
        if format == .text { write("\(result.path): error: \(result.error ?? "")\n") }
        if format == .jsonl { write(JSONValue.object(["path": .string(result.path), "error": .string(result.error ?? "")]).serialized() + "\n") }
    }

    func handle(_ event: EvaluationEvent) {
        lock.lock(); defer { lock.unlock() }
        switch (format, event) {
        case (.text, .blockStarted(_, let block, let line)):
            write("  \(block) (line \(line))\n")
        case (.text, .snapshot(_, let block, let result)):
            guard isTerminal else { return }
            let tokens = result.usage?.responseTokens ?? 0
            let now = ContinuousClock.now
            if progressStart.map({ ($0.line, $0.column, $0.iteration) != (result.line, result.column, result.iteration) }) ?? true {
                progressStart = (result.line, result.column, result.iteration, now)
            }
            let elapsed = progressStart.map { now - $0.time } ?? .zero
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let rate = seconds > 0.05 ? String(format: " · %.1f tok/s", Double(tokens) / seconds) : ""
            let preview = JUnitReport.replacingNewlines(in: result.text, with: " ").suffix(40)
            write("\r\u{1B}[K\u{1B}[2m… \(block) line \(result.line): \(tokens) tokens\(rate) · \(preview)\u{1B}[0m")
            progressShown = true
        case (.text, .result(_, _, let result)):
            clearProgress()
            write(render(result))
        case (.text, .blockFinished(_, let block)):
            clearProgress()
            let mark = block.status == .ok ? (isTerminal ? "\u{1B}[32m✓\u{1B}[0m" : "ok") : (isTerminal ? "\u{1B}[31m✗\u{1B}[0m" : "FAILED")
            var summary = "  \(mark) \(block.displayName): \(block.results.count) result\(block.results.count == 1 ? "" : "s")"
            summary += block.cached ? " (cached)" : String(format: " in %.2f s", block.duration)
            write(summary + "\n")
        case (.jsonl, .result(let path, let blockName, let result)):
            guard case .object(var object) = result.jsonValue else { return }
            object["path"] = .string(path)
            object["block"] = .string(blockName)
            write(JSONValue.object(object).serialized() + "\n")
        default:
            break
        }
    }

    /// A result under its source line: `  14 | code` then `     → value  [stats]`.
    func render(_ result: EvaluationResult) -> String {
        let source = source.lineText(result.line).trimmingCharacters(in: .whitespaces)
        let number = String(result.line).leftPadded(to: 4)
        var out = "  \(number) | \(source)\n"
        let prefix = "       " + (result.iteration > 0 || result.kind != .print ? "[\(result.iteration)] " : "")
        let label: String
        switch result.kind {
        case .print: label = "print: "
        case .error: label = isTerminal ? "\u{1B}[31merror:\u{1B}[0m " : "error: "
        case .response, .stream: label = "→ " + (result.typeName.map { "\($0) " } ?? "")
        case .evaluation: label = "evaluation "
        }
        let body = JUnitReport.replacingNewlines(in: result.text, with: "\n" + String(repeating: " ", count: prefix.count + 2))
        out += prefix + label + body + "\n"
        for call in result.toolCalls {
            out += String(repeating: " ", count: prefix.count) + "tool \(call.name)(\(call.arguments.serialized())) -> \(call.output)\n"
        }
        if verbose, result.kind == .error, let stop = result.stopReason {
            out += String(repeating: " ", count: prefix.count) + "stop: \(stop)\n"
        }
        if let usage = result.usage, result.kind == .response || result.kind == .stream {
            var stats = "tokens: prompt \(usage.promptTokens) (cached \(usage.cachedTokens)), response \(usage.responseTokens)"
            if let ttft = result.timeToFirstToken { stats += String(format: " · TTFT %.3f s", ttft) }
            if let tps = result.tokensPerSecond, tps > 0 { stats += String(format: " · %.1f tok/s", tps) }
            if result.kind == .stream { stats += " · \(result.snapshots) snapshots" }
            if verbose, let stop = result.stopReason { stats += " · stop: \(stop)" }
            if verbose, let model = result.model { stats += " · model: \(model)" }
            out += String(repeating: " ", count: prefix.count) + (isTerminal ? "\u{1B}[2m\(stats)\u{1B}[0m" : stats) + "\n"
            if verbose, let prompt = result.renderedPrompt {
                let indent = String(repeating: " ", count: prefix.count)
                out += indent + "prompt as the model read it:\n" + indent + "  "
                    + JUnitReport.replacingNewlines(in: prompt, with: "\n" + indent + "  ") + "\n"
            }
        }
        return out
    }

    func runStarted(model: String, sample: Int, of count: Int, seed: UInt64) {
        lock.lock(); defer { lock.unlock() }
        if format == .text { write("== model \(model) · sample \(sample)/\(count) (seed \(seed))\n") }
    }

    /// The end of the output. With samples or several models, `summaries` holds the pass rates.
    func finish(_ runs: [RunSampling.Run], summaries: [RunSampling.BlockSummary]?, models: [String], samples: Int,
                baseline: [BaselineStore.Entry]? = nil) {
        lock.lock(); defer { lock.unlock() }
        let results = runs.flatMap(\.files)
        switch format {
        case .json:
            var object: JSONObject = [:]
            if runs.count == 1 {
                object["files"] = .array(results.map(\.jsonValue))
            } else {
                object["runs"] = .array(runs.map { ["model": .string($0.model), "seed": .string(String($0.seed)), "files": .array($0.files.map(\.jsonValue))] })
            }
            if let summaries { object["passRates"] = RunSampling.json(summaries) }
            if let baseline { object["baseline"] = BaselineStore.json(baseline) }
            write(JSONValue.object(object).serialized(pretty: true) + "\n")
        case .junit:
            write(JUnitReport.render(results))
        case .html:
            write(RunSampling.htmlReport(runs, baseline: baseline))
        case .text:
            let blocks = results.flatMap(\.blocks)
            let failed = blocks.filter { $0.status == .error }.count + results.filter { $0.error != nil }.count
            if let summaries { write(RunSampling.text(summaries, models: models, samples: samples)) }
            if let baseline { write(BaselineStore.text(baseline)) }
            let evaluations = blocks.flatMap { $0.results.compactMap(\.evaluation) }
            var line = "\(blocks.count) block\(blocks.count == 1 ? "" : "s"), \(failed) failed"
            let passed = evaluations.flatMap(\.tallies).reduce(0) { $0 + $1.passed }
            let total = evaluations.flatMap(\.tallies).reduce(0) { $0 + $1.passed + $1.failed }
            if total > 0 { line += "; evaluation metrics \(passed)/\(total) passed (\(percent(Double(passed) / Double(total))))" }
            write(line + "\n")
        case .jsonl:
            if let summaries {
                for summary in RunSampling.json(summaries).arrayValue ?? [] {
                    write(JSONValue.object(["passRate": summary]).serialized() + "\n")
                }
            }
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

/// JUnit XML: one test suite per file, one test case per block; an error or
/// diagnostic is a failure.
enum JUnitReport {
    static func render(_ results: [FileResult]) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fmplay run\">\n"
        for file in results {
            let samples = file.blocks.flatMap { $0.results.compactMap(\.evaluation) }.flatMap(\.samples)
            let failures = file.blocks.filter { $0.status == .error }.count + (file.error == nil ? 0 : 1) + samples.filter(\.failed).count
            let time = file.blocks.reduce(0) { $0 + $1.duration }
            out += "  <testsuite name=\"\(escape(file.path))\" tests=\"\(max(file.blocks.count, file.error == nil ? 0 : 1) + samples.count)\" failures=\"\(failures)\" time=\"\(String(format: "%.3f", time))\">\n"
            if let error = file.error {
                out += "    <testcase name=\"(file)\" classname=\"\(escape(file.path))\"><failure message=\"\(escape(error))\"/></testcase>\n"
            }
            for block in file.blocks {
                out += evaluationCases(block, file: file.path)
                out += "    <testcase name=\"\(escape(block.displayName))\" classname=\"\(escape(file.path))\" time=\"\(String(format: "%.3f", block.duration))\""
                if block.status == .ok {
                    out += "/>\n"
                } else {
                    let details = block.results.filter { $0.kind == .error }.map { "\($0.line):\($0.column): \($0.text)" }.joined(separator: "\n")
                    out += ">\n      <failure message=\"\(escape(block.error ?? "failed"))\">\(escape(details))</failure>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    /// One test case per evaluated sample: its metrics, and its output in system-out.
    static func evaluationCases(_ block: BlockResult, file: String) -> String {
        var out = ""
        for result in block.results {
            guard let report = result.evaluation else { continue }
            for sample in report.samples {
                let name = "\(block.displayName) / \(report.name) #\(sample.index + 1)"
                out += "    <testcase name=\"\(escape(name))\" classname=\"\(escape(file))\">\n"
                if sample.failed {
                    let reasons = (sample.subjectError.map { ["no response: \($0)"] } ?? [])
                        + sample.metrics.filter { $0.value == .failing }.map(\.description) + sample.evaluatorErrors
                    out += "      <failure message=\"\(escape(reasons.first ?? "failed"))\">\(escape(reasons.joined(separator: "\n")))</failure>\n"
                }
                let metrics = sample.metrics.map(\.description).joined(separator: "\n")
                out += "      <system-out>\(escape("prompt: \(sample.prompt)\nresponse: \(sample.responseText ?? "(none)")\n\(metrics)"))</system-out>\n"
                out += "    </testcase>\n"
            }
        }
        return out
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Native split and join: Foundation's replacingOccurrences bridges
    /// through NSString, which was a tenth of a fully cached `fmplay run`.
    static func replacingNewlines(in text: String, with replacement: String) -> String {
        guard text.utf8.contains(0x0A) else { return text }  // most results are one line
        return text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
