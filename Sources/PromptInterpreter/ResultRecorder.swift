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
        let count = counts[site.offsets.lowerBound, default: 0]
        if consume { counts[site.offsets.lowerBound] = count + 1 }
        return count
    }

    /// A result placed at the site: its lines, columns and offsets.
    private func result(_ kind: EvaluationResult.Kind, at site: CallSite, iteration: Int = 0, typeName: String? = nil,
                        content: JSONValue, text: String, usage: Usage? = nil) -> EvaluationResult {
        var result = EvaluationResult(kind: kind, line: site.start.line, column: site.start.column, endLine: site.end.line,
                                      endColumn: site.end.column, iteration: iteration, typeName: typeName, content: content,
                                      text: text, usage: usage)
        result.offsets = site.offsets
        return result
    }

    private func append(_ result: EvaluationResult) {
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
        append(result(.print, at: site, iteration: iteration(site, consume: true), content: content, text: text))
    }

    func publishSnapshot(_ site: CallSite, kind: EvaluationResult.Kind, typeName: String?, value: Value, tokens: Int) {
        let snapshot = result(kind, at: site, iteration: iteration(site, consume: false), typeName: typeName, content: value.jsonValue,
                              text: value.description, usage: Usage(responseTokens: tokens))
        onEvent(.snapshot(path: path, block: block, result: snapshot))
    }

    func recordResponse(_ site: CallSite, kind: EvaluationResult.Kind, typeName: String?, value: ResponseValue,
                        statistics: GenerationStatistics, toolCalls: [(call: Transcript.ToolCall, output: String)],
                        snapshots: Int, transcript: Transcript?, lifecycle: [LifecycleEvent] = []) {
        var response = result(kind, at: site, iteration: iteration(site, consume: true), typeName: typeName,
                              content: value.rawContent.stringValue.map(JSONValue.string) ?? value.rawContent.jsonValue,
                              text: value.content.description, usage: statistics.usage)
        response.timeToFirstToken = statistics.timeToFirstToken
        response.tokensPerSecond = statistics.tokensPerSecond
        response.snapshots = snapshots
        response.toolCalls = toolCalls.map { ToolCallRecord(name: $0.call.toolName, arguments: $0.call.arguments.jsonValue, output: $0.output) }
        response.transcript = transcript?.description
        response.model = statistics.modelName
        response.lifecycle = lifecycle.map(\.description)
        response.renderedPrompt = statistics.renderedPrompt
        response.stopReason = statistics.stopReason?.rawValue
        append(response)
    }

    /// The report of one `run()` of an evaluation: its text is the summary table.
    func recordEvaluation(_ site: CallSite, report: EvaluationReport) {
        var evaluation = result(.evaluation, at: site, iteration: iteration(site, consume: true),
                                content: report.passRate.map(JSONValue.double) ?? .null, text: report.text)
        evaluation.evaluation = report
        append(evaluation)
    }

    package func recordError(_ site: CallSite, message: String, stopReason: String? = nil) {
        var error = result(.error, at: site, content: .string(message), text: message)
        error.stopReason = stopReason
        append(error)
    }
}
