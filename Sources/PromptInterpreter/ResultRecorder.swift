import Evaluations
import Foundation
import FoundationModelsRuntime
import JSON
import PlaygroundResults
import PromptLanguage

/// Collects a block's results in order and publishes them as they happen.
package final class ResultRecorder: @unchecked Sendable {
    private let lock = NSLock()
    package private(set) var results: [EvaluationResult] = []
    private var counts: [Int: Int] = [:]
    private let path: String
    private let block: String
    private let onEvent: @Sendable (EvaluationEvent) -> Void

    package init(path: String, block: String, onEvent: @escaping @Sendable (EvaluationEvent) -> Void) {
        self.path = path
        self.block = block
        self.onEvent = onEvent
    }

    private func iteration(_ site: CallSite, consume: Bool) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let count = counts[site.offset, default: 0]
        if consume { counts[site.offset] = count + 1 }
        return count
    }

    private func append(_ result: EvaluationResult, at site: CallSite) {
        var result = result
        result.offsets = site.offsets
        lock.lock()
        results.append(result)
        lock.unlock()
        onEvent(.result(path: path, block: block, result: result))
    }

    package func recordPrint(_ site: CallSite, text: String, value: Value) {
        let content: JSONValue
        switch value {
        case .string(let s): content = .string(s)
        default: content = value.jsonValue
        }
        append(EvaluationResult(kind: .print, line: site.line, column: site.column, endLine: site.endLine, endColumn: site.endColumn,
                                iteration: iteration(site, consume: true), content: content, text: text), at: site)
    }

    func publishSnapshot(_ site: CallSite, kind: EvaluationResult.Kind, typeName: String?, value: Value, tokens: Int) {
        var result = EvaluationResult(kind: kind, line: site.line, column: site.column, endLine: site.endLine,
                                      endColumn: site.endColumn, iteration: iteration(site, consume: false), typeName: typeName,
                                      content: value.jsonValue, text: value.description,
                                      usage: Usage(responseTokens: tokens))
        result.offsets = site.offsets
        onEvent(.snapshot(path: path, block: block, result: result))
    }

    func recordResponse(_ site: CallSite, kind: EvaluationResult.Kind, typeName: String?, value: ResponseValue,
                        statistics: GenerationStatistics, toolCalls: [(call: Transcript.ToolCall, output: String)],
                        snapshots: Int, transcript: Transcript?, lifecycle: [LifecycleEvent] = []) {
        var result = EvaluationResult(
            kind: kind, line: site.line, column: site.column, endLine: site.endLine, endColumn: site.endColumn,
            iteration: iteration(site, consume: true), typeName: typeName,
            content: value.rawContent.stringValue.map(JSONValue.string) ?? value.rawContent.jsonValue,
            text: value.content.description, usage: statistics.usage, timeToFirstToken: statistics.timeToFirstToken,
            tokensPerSecond: statistics.tokensPerSecond, snapshots: snapshots,
            toolCalls: toolCalls.map { ToolCallRecord(name: $0.call.toolName, arguments: $0.call.arguments.jsonValue, output: $0.output) },
            transcript: transcript?.description, model: statistics.modelName)
        result.lifecycle = lifecycle.map(\.description)
        result.renderedPrompt = statistics.renderedPrompt
        result.stopReason = statistics.stopReason?.rawValue
        append(result, at: site)
    }

    /// The report of one `run()` of an evaluation: its text is the summary table.
    func recordEvaluation(_ site: CallSite, report: EvaluationReport) {
        var result = EvaluationResult(kind: .evaluation, line: site.line, column: site.column, endLine: site.endLine,
                                      endColumn: site.endColumn, iteration: iteration(site, consume: true),
                                      content: report.passRate.map(JSONValue.double) ?? .null, text: report.text)
        result.evaluation = report
        append(result, at: site)
    }

    package func recordError(_ range: PromptLanguage.SourceRange, message: String, stopReason: String? = nil) {
        recordError(CallSite(range), message: message, stopReason: stopReason)
    }

    func recordError(_ site: CallSite, message: String, stopReason: String? = nil) {
        var result = EvaluationResult(kind: .error, line: site.line, column: site.column, endLine: site.endLine, endColumn: site.endColumn,
                                      content: .string(message), text: message)
        result.stopReason = stopReason
        append(result, at: site)
    }
}
