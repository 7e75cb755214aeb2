import Foundation
import IDE
import JSON
import PromptLanguage

/// Inlay hints, code lenses, commands, progress and the `fmplay/results`
/// notification: everything that shows evaluation results.
extension LanguageServer {
    /// The shortest time between two view refreshes (at most 10 per second).
    static let refreshInterval = 0.1

    // MARK: Scheduling evaluation

    enum EvaluationReason { case opened, saved, changed }

    func scheduleEvaluation(_ uri: String, reason: EvaluationReason) {
        let current: DocumentAnalysis
        do {
            current = try analysis(uri)
        } catch is AnalysisPending {
            evaluationAfterAnalysis[uri] = reason  // scheduled when the analysis arrives
            return
        } catch {
            return
        }
        evaluation.schedule(current)
        viewsChanged()
    }

    // MARK: Inlay hints

    func inlayHints(_ params: RangeParams) throws -> [InlayHint] {
        let current = try analysis(params.textDocument.uri)
        let requested = current.source.offsets(of: params.range, in: encoding)
        evaluation.viewed(current.uri, range: requested)
        var hints: [InlayHint] = []
        for entry in latestResults(current) where requested.overlaps(entry.anchor) || requested.contains(entry.anchor.lowerBound) {
            hints.append(InlayHint(
                position: current.source.position(of: entry.anchor.upperBound, in: encoding), label: entry.hint, kind: nil,
                tooltip: hoverFormat.content(ResultRendering.details(entry.result, iterations: entry.iterations, format: hoverFormat)),
                paddingLeft: true))
        }
        return hints
    }

    /// One entry per call (or print) with a result: its latest iteration and the count.
    struct LatestResult {
        var block: PlaygroundBlock
        var result: CallResult
        var iterations: Int
        /// Where the hint goes: the end of the call's line content.
        var anchor: Swift.Range<Int>
        var hint: String
    }

    func latestResults(_ current: DocumentAnalysis) -> [LatestResult] {
        var entries: [LatestResult] = []
        for (block, _, results) in evaluation.blocks(current.uri, in: current) {
            var latest: [Int: (CallResult, Int)] = [:]
            var order: [Int] = []
            for result in results {
                if let existing = latest[result.range.lowerBound] {
                    let count = max(existing.1, result.iteration + 1)
                    latest[result.range.lowerBound] = (result.iteration >= existing.0.iteration ? result : existing.0, count)
                } else {
                    latest[result.range.lowerBound] = (result, result.iteration + 1)
                    order.append(result.range.lowerBound)
                }
            }
            for start in order {
                let (result, iterations) = latest[start]!
                let lastByte = min(max(result.range.lowerBound, result.range.upperBound - 1), current.source.bytes.count)
                let anchorEnd = max(current.source.lineContentEnd(current.source.line(containing: lastByte)), result.range.lowerBound)
                let hint = ResultRendering.hint(result, iterations: iterations, limit: configuration.hintLength)
                entries.append(LatestResult(block: block, result: result, iterations: iterations, anchor: result.range.lowerBound..<anchorEnd, hint: hint))
            }
        }
        return entries
    }

    // MARK: Code lenses

    /// The IDE layer's block lenses with the evaluation state the server holds.
    func codeLenses(_ params: DocumentParams) throws -> [CodeLens] {
        let current = try analysis(params.textDocument.uri)
        let states = evaluation.blocks(current.uri, in: current).map { block, record, results in
            BlockState(block: block, isActive: record.map { $0.status == .running || $0.status == .queued } ?? false,
                       status: record.flatMap { ResultRendering.status($0, results: results) })
        }
        return current.ide.codeLenses(states).map { lens in
            let head = current.source.range(of: lens.head, in: encoding)
            let argument: JSONValue = ["uri": .string(current.uri), "line": .int(head.start.line), "block": .int(lens.blockIndex)]
            let command = switch lens.action {
            case .run: LSPCommand(title: lens.title, command: "fmplay.run", arguments: [argument])
            case .cancel: LSPCommand(title: lens.title, command: "fmplay.cancel", arguments: [argument])
            case .status: LSPCommand(title: lens.title, command: "", arguments: nil)
            }
            return CodeLens(range: head, command: command)
        }
    }

    // MARK: Commands

    func executeCommand(_ params: ExecuteCommandParams) throws -> JSONValue {
        let arguments = params.arguments ?? []
        switch params.command {
        case "fmplay.run", "fmplay.runAll":
            let target = try commandTarget(arguments, command: params.command)
            let current = try analysis(target.uri)
            var only: [Int]? = nil
            if params.command == "fmplay.run" {
                guard let index = target.blockIndex(in: current) else {
                    throw ResponseError.invalidParams("fmplay.run: no #Playground block at \(target.describe) in \(target.uri)")
                }
                only = [index]
            }
            evaluation.schedule(current, only: only, ignoreCache: params.command == "fmplay.run")
            viewsChanged()
            return .null
        case "fmplay.cancel":
            if arguments.isEmpty {
                evaluation.cancelAll()
            } else {
                let target = try commandTarget(arguments, command: params.command)
                let current = try analysis(target.uri)
                if let index = target.blockIndex(in: current) {
                    evaluation.cancel(uri: target.uri, fingerprint: evaluation.fingerprints(current)[index])
                } else {
                    evaluation.cancel(uri: target.uri)
                }
            }
            viewsChanged()
            return .null
        case "fmplay.clearCache":
            let message: String
            do {
                message = try evaluation.playgroundRunner.clearCache()
            } catch {
                throw ResponseError.requestFailed("fmplay.clearCache: \(error)")
            }
            evaluation.forgetResults()
            viewsChanged()
            return .string(message)
        case "fmplay.openReport":
            return try openReport(arguments)
        default:
            throw ResponseError.invalidParams("unknown command \(params.command); known: \(Self.commands.joined(separator: ", "))")
        }
    }

    struct CommandTarget {
        var uri: String
        var line: Int?
        var block: Int?
        var name: String?

        var describe: String {
            if let name { return "\"\(name)\"" }
            if let block { return "index \(block)" }
            if let line { return "line \(line &+ 1)" }
            return "(no block given)"
        }

        func blockIndex(in current: DocumentAnalysis) -> Int? {
            let blocks = current.file.playgrounds
            if let name { return blocks.firstIndex { $0.name == name } }
            if let line {
                // The block whose range holds the line (its first line, usually).
                return blocks.firstIndex { block in
                    let first = current.source.line(containing: block.range.start.offset)
                    let last = current.source.line(containing: max(block.range.start.offset, block.range.end.offset - 1))
                    return (first...last).contains(line)
                }
            }
            if let block, blocks.indices.contains(block) { return block }
            return nil
        }
    }

    /// Reads `[{"uri": ..., "line": n}]`, `[{"uri": ..., "block": i}]`, `[{"uri": ..., "name": "..."}]` or `["uri", line]`.
    private func commandTarget(_ arguments: [JSONValue], command: String) throws -> CommandTarget {
        // Lines and block indices are LSP uintegers (0...2^31-1); anything else is a bad argument, never a trap.
        func index(_ value: JSONValue?, _ name: String) throws -> Int? {
            guard let value, !value.isNull else { return nil }
            guard let i = value.intValue, (0...Int(Int32.max)).contains(i) else {
                throw ResponseError.invalidParams("\(command): \(name) must be an integer from 0 to \(Int32.max), not \(value.kindDescription)")
            }
            return i
        }
        if let object = arguments.first?.objectValue, let uri = object["uri"]?.stringValue {
            return CommandTarget(uri: uri, line: try index(object["line"], "line"), block: try index(object["block"], "block"),
                                 name: object["name"]?.stringValue)
        }
        if let uri = arguments.first?.stringValue {
            return CommandTarget(uri: uri, line: arguments.count > 1 ? try index(arguments[1], "line") : nil)
        }
        throw ResponseError.invalidParams("\(command) needs arguments [{\"uri\": <document>, \"line\": <0-based line of the block>}]")
    }

    // MARK: Refreshing views

    /// Records that results changed; refreshes now or at the next allowed time.
    func viewsChanged() {
        guard !timers.isScheduled(.refreshViews) else { return }
        let elapsed = Date().timeIntervalSince(lastViewRefresh)
        if elapsed >= Self.refreshInterval {
            refreshViews()
        } else {
            timers.schedule(.refreshViews, after: Self.refreshInterval - elapsed)
        }
    }

    /// Sends `fmplay/results` for changed documents and asks clients that
    /// support it to refresh inlay hints and code lenses.
    func refreshViews() {
        lastViewRefresh = Date()
        let changed = evaluation.takeChangedDocuments().filter { documents[$0] != nil }
        guard !changed.isEmpty else { return }
        for uri in changed.sorted() {
            guard let current = try? analysis(uri) else { continue }
            sink.send(.notification(method: "fmplay/results", params: resultsNotification(current)))
            if evaluation.failuresChanged(uri) { diagnosticsDue.insert(uri) }
        }
        if clientSupports("workspace", "inlayHint", "refreshSupport") {
            sendRequest("workspace/inlayHint/refresh", .null, purpose: "workspace/inlayHint/refresh")
        }
        if clientSupports("workspace", "codeLens", "refreshSupport") {
            sendRequest("workspace/codeLens/refresh", .null, purpose: "workspace/codeLens/refresh")
        }
    }

    /// `{uri, version, results: [...], blocks: [...]}`, ranges in the negotiated encoding.
    func resultsNotification(_ current: DocumentAnalysis) -> JSONValue {
        var results: [JSONValue] = []
        for entry in latestResults(current) {
            let result = entry.result
            var object: JSONObject = [
                "range": (try? JSONValueEncoder().encode(current.source.range(of: result.range, in: encoding))) ?? .null,
                "hint": .string(entry.hint),
                "value": result.content,
                "kind": .string(result.kind.rawValue),
                "iteration": .int(result.iteration),
                "iterations": .int(entry.iterations),
                "complete": .bool(result.isComplete),
                "block": .string(entry.block.displayName),
                "usage": ["promptTokens": .int(result.promptTokens), "cachedTokens": .int(result.cachedTokens), "responseTokens": .int(result.responseTokens)],
            ]
            if let type = result.typeName { object["type"] = .string(type) }
            if let ttft = result.timeToFirstToken { object["timeToFirstToken"] = .double(ttft) }
            if let rate = result.tokensPerSecond { object["tokensPerSecond"] = .double(rate) }
            if let passRate = result.passRate { object["passRate"] = .double(passRate) }
            if let details = result.details { object["details"] = .string(details) }
            results.append(.object(object))
        }
        var blocks: [JSONValue] = []
        for (block, record, blockResults) in evaluation.blocks(current.uri, in: current) {
            var object: JSONObject = [
                "name": .string(block.displayName),
                "line": .int(current.source.line(containing: block.range.start.offset)),
                "status": .string(record.map { ResultRendering.statusName($0.status) } ?? "idle"),
            ]
            if let record, let summary = ResultRendering.status(record, results: blockResults) { object["summary"] = .string(summary) }
            blocks.append(.object(object))
        }
        return ["uri": .string(current.uri), "version": .int(current.version), "results": .array(results), "blocks": .array(blocks)]
    }

    // MARK: Work-done progress

    /// A work-done progress token: created by `window/workDoneProgress/create`,
    /// which must be answered before the server may report on it (LSP 3.17).
    /// Until then the latest report and the end wait here.
    struct ProgressToken {
        var created = false
        var begin: JSONValue
        var latestReport: JSONValue?
        var end: JSONValue?
    }

    func handleProgress(_ event: EvaluationCoordinator.ProgressEvent) {
        guard clientSupports("window", "workDoneProgress") else { return }
        switch event {
        case .begin(let token, let title):
            progressTokens[token] = ProgressToken(begin: ["kind": "begin", "title": .string(title), "cancellable": true, "message": "starting"])
            sendRequest("window/workDoneProgress/create", ["token": .string(token)], purpose: "window/workDoneProgress/create") { [unowned self] answer in
                progressCreated(token, accepted: (try? answer.get()) != nil)
            }
        case .report(let token, let message):
            let value: JSONValue = ["kind": "report", "cancellable": true, "message": .string(message)]
            guard let state = progressTokens[token] else { return }
            guard state.created else {
                progressTokens[token]?.latestReport = value
                return
            }
            let now = Date()
            guard now.timeIntervalSince(lastProgressReport) >= Self.refreshInterval else { return }
            lastProgressReport = now
            sendProgress(token, value)
        case .end(let token, let message):
            let value: JSONValue = ["kind": "end", "message": .string(message)]
            guard let state = progressTokens[token] else { return }
            if state.created {
                sendProgress(token, value)
                progressTokens[token] = nil
            } else {
                progressTokens[token]?.end = value
            }
        }
    }

    /// The client answered `window/workDoneProgress/create`: on success, send
    /// what waited (begin, the latest report, the end); on an error, nothing.
    func progressCreated(_ token: String, accepted: Bool) {
        guard var state = progressTokens[token] else { return }
        guard accepted else {
            progressTokens[token] = nil
            return
        }
        sendProgress(token, state.begin)
        if let report = state.latestReport { sendProgress(token, report) }
        if let end = state.end {
            sendProgress(token, end)
            progressTokens[token] = nil
            return
        }
        state.created = true
        state.latestReport = nil
        progressTokens[token] = state
    }

    private func sendProgress(_ token: String, _ value: JSONValue) {
        sink.send(.notification(method: "$/progress", params: ["token": .string(token), "value": value]))
    }

    /// An update from a background run.
    func apply(_ update: EvaluationUpdate) {
        evaluation.apply(update)
        viewsChanged()
    }
}
