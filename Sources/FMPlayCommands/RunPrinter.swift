import Foundation
import JSON
import PlaygroundEvaluator

/// Writes `fmplay run` output in the chosen format. Text on a terminal streams
/// each result under its source line with a progress line; piped text is plain.
final class RunPrinter: @unchecked Sendable {
    let format: RunCommand.Format
    let isTerminal: Bool
    private let lock = NSLock()
    private var lines: [String] = []
    private var progressShown = false
    /// When the current call's first snapshot arrived (for tokens per second).
    private var progressStart: (line: Int, column: Int, iteration: Int, time: ContinuousClock.Instant)?

    init(format: RunCommand.Format, isTerminal: Bool) {
        self.format = format
        self.isTerminal = isTerminal
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func clearProgress() {
        if progressShown { write("\r\u{1B}[K"); progressShown = false }
    }

    func fileStarted(_ path: String, source: String) {
        lock.lock(); defer { lock.unlock() }
        lines = source.components(separatedBy: "\n")
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
        let source = result.line - 1 < lines.count ? lines[result.line - 1].trimmingCharacters(in: .whitespaces) : ""
        let number = String(result.line).leftPadded(to: 4)
        var out = "  \(number) | \(source)\n"
        let prefix = "       " + (result.iteration > 0 || result.kind != .print ? "[\(result.iteration)] " : "")
        let label: String
        switch result.kind {
        case .print: label = "print: "
        case .error: label = isTerminal ? "\u{1B}[31merror:\u{1B}[0m " : "error: "
        case .response, .stream: label = "→ " + (result.typeName.map { "\($0) " } ?? "")
        }
        let body = JUnitReport.replacingNewlines(in: result.text, with: "\n" + String(repeating: " ", count: prefix.count + 2))
        out += prefix + label + body + "\n"
        for call in result.toolCalls {
            out += String(repeating: " ", count: prefix.count) + "tool \(call.name)(\(call.arguments.serialized())) -> \(call.output)\n"
        }
        if let usage = result.usage, result.kind == .response || result.kind == .stream {
            var stats = "tokens: prompt \(usage.promptTokens) (cached \(usage.cachedTokens)), response \(usage.responseTokens)"
            if let ttft = result.timeToFirstToken { stats += String(format: " · TTFT %.3f s", ttft) }
            if let tps = result.tokensPerSecond, tps > 0 { stats += String(format: " · %.1f tok/s", tps) }
            if result.kind == .stream { stats += " · \(result.snapshots) snapshots" }
            out += String(repeating: " ", count: prefix.count) + (isTerminal ? "\u{1B}[2m\(stats)\u{1B}[0m" : stats) + "\n"
        }
        return out
    }

    func finish(_ results: [FileResult]) {
        lock.lock(); defer { lock.unlock() }
        switch format {
        case .json:
            write(JSONValue.object(["files": .array(results.map(\.jsonValue))]).serialized(pretty: true) + "\n")
        case .junit:
            write(JUnitReport.render(results))
        case .text:
            let blocks = results.flatMap(\.blocks)
            let failed = blocks.filter { $0.status == .error }.count + results.filter { $0.error != nil }.count
            write("\(blocks.count) block\(blocks.count == 1 ? "" : "s"), \(failed) failed\n")
        case .jsonl:
            break
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
            let failures = file.blocks.filter { $0.status == .error }.count + (file.error == nil ? 0 : 1)
            let time = file.blocks.reduce(0) { $0 + $1.duration }
            out += "  <testsuite name=\"\(escape(file.path))\" tests=\"\(max(file.blocks.count, file.error == nil ? 0 : 1))\" failures=\"\(failures)\" time=\"\(String(format: "%.3f", time))\">\n"
            if let error = file.error {
                out += "    <testcase name=\"(file)\" classname=\"\(escape(file.path))\"><failure message=\"\(escape(error))\"/></testcase>\n"
            }
            for block in file.blocks {
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
