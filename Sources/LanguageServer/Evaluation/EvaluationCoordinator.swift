import Foundation
import JSON
import PlaygroundEvaluator
import PlaygroundResults
import PromptLanguage

/// A report from a background block run to the message loop.
public struct EvaluationUpdate: Sendable {
    enum Kind: Sendable {
        case event(BlockEvent)
        case finished(BlockOutcome)
    }

    let runID: Int
    let kind: Kind
}

/// Schedules block evaluations and keeps their results.
///
/// Lives on the message loop (not thread-safe by design). Invariants:
/// - at most one block runs at a time, so one generation runs per engine;
/// - a block is identified by its fingerprint: its content fingerprint
///   (`BlockContent`: its text and the declarations it uses, the same one the
///   disk cache keys on) and the evaluation settings, so edits that leave a
///   block's inputs alone (other blocks, declarations it does not use, blank
///   lines between declarations) keep its results, and an edit that changes
///   them cancels its stale run;
/// - queued blocks run in order of the ranges the client last asked hints
///   for (what is on screen), then document order;
/// - updates from a cancelled run are ignored.
final class EvaluationCoordinator {
    enum Status: Equatable {
        case queued
        case running
        case done(BlockOutcome)
        case cancelled
        /// Not run because the file has errors that evaluation would hit.
        case blocked(String)
    }

    struct BlockRecord {
        var status: Status
        /// Results keyed by (call start relative to the block start, iteration), in arrival order.
        var results: [ResultKey: CallResult] = [:]
        var order: [ResultKey] = []
        var tokens = 0
        var startedAt: Date?
        var duration: Double?
        /// The block's content when it was scheduled: results' and errors' offsets are in that
        /// version of the text and are placed into the current one through it (`BlockContent.moved`).
        var content: BlockContent
        var blockStart: Int { content.ranges[0].start.offset }
        /// How the outputs differ from the block's previous run (same document and block name); empty when equal or first.
        var changes: [String] = []
    }

    /// The outputs of each block's last finished run, by document and block name ("changed since last run").
    private var lastOutputs: [String: String] = [:]

    struct ResultKey: Hashable {
        var relativeStart: Int
        var iteration: Int
    }

    struct Job {
        var uri: String
        var fingerprint: Fingerprint
        var request: BlockRunRequest
    }

    /// The block's content fingerprint (`BlockContent.material`) under the evaluation settings.
    struct Fingerprint: Hashable {
        var content: String
        var settings: String
    }

    private let runner: any PlaygroundRunner
    private let queue: EventQueue<ServerEvent>
    private(set) var configuration = ServerConfiguration()
    /// Per document, the records of every block fingerprint seen (the in-memory result cache).
    private var records: [String: [Fingerprint: BlockRecord]] = [:]
    /// The block contents of each document's current revision (computed once per revision).
    private var contents: [String: (revision: Int, blocks: [BlockContent])] = [:]
    private var pending: [Job] = []
    private(set) var running: (runID: Int, job: Job, task: Task<Void, Never>, progressToken: String?)?
    private var nextRunID = 1
    /// The UTF-8 ranges the client last asked inlay hints for, per document, and the most recent document.
    private var visibleRanges: [String: Swift.Range<Int>] = [:]
    private var lastViewedURI: String?
    /// Documents whose results or statuses changed since the views were last refreshed.
    private(set) var changedDocuments: Set<String> = []
    private var failuresDirty: Set<String> = []
    /// Called on the loop when a run starts or ends, for work-done progress.
    var progress: ((ProgressEvent) -> Void)?

    enum ProgressEvent {
        case begin(token: String, title: String)
        case report(token: String, message: String)
        case end(token: String, message: String)
    }

    init(runner: any PlaygroundRunner, queue: EventQueue<ServerEvent>) {
        self.runner = runner
        self.queue = queue
    }

    var playgroundRunner: any PlaygroundRunner { runner }

    func configure(_ configuration: ServerConfiguration) {
        self.configuration = configuration
        runner.warmUp(configuration)
    }

    // MARK: Fingerprints

    /// The content of each block of `current`, once per document revision.
    func contents(_ current: DocumentAnalysis) -> [BlockContent] {
        if let cached = contents[current.uri], cached.revision == current.revision { return cached.blocks }
        let blocks = BlockContent.all(in: current.file)
        contents[current.uri] = (current.revision, blocks)
        return blocks
    }

    func fingerprints(_ current: DocumentAnalysis) -> [Fingerprint] {
        let blocks = contents(current)
        guard !blocks.isEmpty else { return [] }
        let settings = "\(configuration.modelPath ?? "-")|\(configuration.seed.map(String.init) ?? "-")|\(configuration.maximumTokens.map(String.init) ?? "-")|\(configuration.limitsDescription)"
            + "|\(configuration.serverURL ?? "-")|\(configuration.serverModel ?? "-")"
        return blocks.map { Fingerprint(content: $0.material, settings: settings) }
    }

    func record(_ uri: String, _ fingerprint: Fingerprint) -> BlockRecord? { records[uri]?[fingerprint] }

    // MARK: Scheduling

    /// Queues the blocks of `current` that have no result for their current
    /// inputs (all of `only` when `ignoreCache`), then starts work.
    func schedule(_ current: DocumentAnalysis, only: [Int]? = nil, ignoreCache: Bool = false) {
        let uri = current.uri
        let prints = fingerprints(current)
        let blockContents = contents(current)
        let fileErrorsOutsideBlocks = current.analysis.diagnostics.filter { diagnostic in
            diagnostic.severity == .error && !current.file.playgrounds.contains { $0.range.offsets.contains(diagnostic.range.start.offset) }
        }
        for (index, block) in current.file.playgrounds.enumerated() where only?.contains(index) ?? true {
            let fingerprint = prints[index]
            if let existing = records[uri]?[fingerprint] {
                switch existing.status {
                case .queued, .running: if !ignoreCache { continue }
                case .done where !ignoreCache: continue
                default: break
                }
            }
            let blockErrors = current.analysis.diagnostics.filter { $0.severity == .error && block.range.offsets.contains($0.range.start.offset) }
            if let first = (fileErrorsOutsideBlocks + blockErrors).first {
                let line = current.source.line(containing: first.range.start.offset) + 1
                records[uri, default: [:]][fingerprint] = BlockRecord(
                    status: .blocked("not run: fix the error on line \(line) first"), content: blockContents[index])
                changedDocuments.insert(uri)
                continue
            }
            if let running, running.job.uri == uri, running.job.fingerprint == fingerprint {
                running.task.cancel()
                records[uri]?[fingerprint]?.status = .cancelled
            }
            pending.removeAll { $0.uri == uri && $0.fingerprint == fingerprint }
            let request = BlockRunRequest(analysis: current.analysis, blockIndex: index, configuration: configuration, ignoreCache: ignoreCache)
            pending.append(Job(uri: uri, fingerprint: fingerprint, request: request))
            records[uri, default: [:]][fingerprint] = BlockRecord(status: .queued, content: blockContents[index])
            changedDocuments.insert(uri)
        }
        pump()
    }

    /// After an edit: cancels queued or running work for blocks whose inputs
    /// no longer exist in the document, and forgets their records.
    func reconcile(_ current: DocumentAnalysis) {
        let uri = current.uri
        let live = Set(fingerprints(current))
        let before = pending.count
        pending.removeAll { $0.uri == uri && !live.contains($0.fingerprint) }
        if pending.count != before { changedDocuments.insert(uri) }
        if let running, running.job.uri == uri, !live.contains(running.job.fingerprint) {
            running.task.cancel()
            records[uri]?[running.job.fingerprint]?.status = .cancelled
            changedDocuments.insert(uri)
        }
        // Keep records of stale fingerprints only while they are running (to ignore their updates).
        if var documentRecords = records[uri] {
            let stale = documentRecords.keys.filter { !live.contains($0) && $0 != running?.job.fingerprint }
            for key in stale { documentRecords[key] = nil }
            if !stale.isEmpty { failuresDirty.insert(uri); changedDocuments.insert(uri) }
            records[uri] = documentRecords
        }
    }

    /// Cancels the queued and running work of a document (or one block of it).
    func cancel(uri: String, fingerprint: Fingerprint? = nil) {
        for job in pending where job.uri == uri && (fingerprint == nil || job.fingerprint == fingerprint) {
            records[uri]?[job.fingerprint]?.status = .cancelled
        }
        pending.removeAll { $0.uri == uri && (fingerprint == nil || $0.fingerprint == fingerprint) }
        if let running, running.job.uri == uri, fingerprint == nil || running.job.fingerprint == fingerprint {
            running.task.cancel()
            records[uri]?[running.job.fingerprint]?.status = .cancelled
        }
        changedDocuments.insert(uri)
    }

    func cancel(progressToken: String) {
        if let running, running.progressToken == progressToken { cancel(uri: running.job.uri, fingerprint: running.job.fingerprint) }
    }

    func cancelAll() {
        for uri in Set(pending.map(\.uri) + (running.map { [$0.job.uri] } ?? [])) { cancel(uri: uri) }
    }

    func documentClosed(_ uri: String) {
        cancel(uri: uri)
        records[uri] = nil
        contents[uri] = nil
        visibleRanges[uri] = nil
        changedDocuments.remove(uri)
    }

    /// Forgets every in-memory result (after the disk cache was cleared).
    func forgetResults() {
        for uri in records.keys {
            records[uri] = records[uri]?.filter { $0.value.status == .running || $0.value.status == .queued }
            changedDocuments.insert(uri)
            failuresDirty.insert(uri)
        }
    }

    /// Records what the client is looking at, to order the queue.
    func viewed(_ uri: String, range: Swift.Range<Int>) {
        visibleRanges[uri] = range
        lastViewedURI = uri
    }

    private func pump() {
        guard running == nil, !pending.isEmpty else { return }
        let best = pending.indices.min { priority(pending[$0]) < priority(pending[$1]) }!
        let job = pending.remove(at: best)
        let runID = nextRunID
        nextRunID += 1
        let runner = runner
        let queue = queue
        let request = job.request
        let task = Task.detached(priority: .userInitiated) {
            let outcome = await runner.run(request) { event in
                queue.post(.evaluation(EvaluationUpdate(runID: runID, kind: .event(event))))
            }
            queue.post(.evaluation(EvaluationUpdate(runID: runID, kind: .finished(outcome))))
        }
        let token = "fmplay-run-\(runID)"
        running = (runID, job, task, token)
        records[job.uri]?[job.fingerprint]?.status = .running
        records[job.uri]?[job.fingerprint]?.startedAt = Date()
        records[job.uri]?[job.fingerprint]?.results = [:]
        records[job.uri]?[job.fingerprint]?.order = []
        records[job.uri]?[job.fingerprint]?.tokens = 0
        changedDocuments.insert(job.uri)
        progress?(.begin(token: token, title: "fmplay: running \(request.block.displayName)"))
    }

    private func priority(_ job: Job) -> (Int, Int, Int) {
        let blockRange = job.request.block.range.offsets
        let documentRank = job.uri == lastViewedURI ? 0 : 1
        let visible = visibleRanges[job.uri].map { $0.overlaps(blockRange) || $0.contains(blockRange.lowerBound) } ?? false
        return (documentRank, visible ? 0 : 1, blockRange.lowerBound)
    }

    // MARK: Updates from runs

    func apply(_ update: EvaluationUpdate) {
        guard let running, running.runID == update.runID else { return }
        let uri = running.job.uri
        let fingerprint = running.job.fingerprint
        let isCancelled = records[uri]?[fingerprint]?.status == .cancelled
        switch update.kind {
        case .event(let event):
            guard !isCancelled, var record = records[uri]?[fingerprint] else { return }
            switch event {
            case .result(let result):
                let key = ResultKey(relativeStart: result.range.lowerBound - record.blockStart, iteration: result.iteration)
                if record.results.updateValue(result, forKey: key) == nil { record.order.append(key) }
                if result.kind == .error { failuresDirty.insert(uri) }
            case .tokens(let count):
                record.tokens = count
                if let token = running.progressToken { progress?(.report(token: token, message: "\(count) tokens")) }
            }
            records[uri]?[fingerprint] = record
            changedDocuments.insert(uri)
        case .finished(let outcome):
            self.running = nil
            if var record = records[uri]?[fingerprint] {
                record.duration = record.startedAt.map { Date().timeIntervalSince($0) }
                if !isCancelled {
                    record.status = .done(outcome)
                    let name = running.job.request.block.displayName
                    let outputs = record.order.compactMap { record.results[$0] }.map(Self.outputText).joined(separator: "\n")
                    if let previous = lastOutputs[uri + "\u{1}" + name], previous != outputs {
                        record.changes = TextDiff.lines(old: previous, new: outputs).filter { !$0.hasPrefix("  ") }
                    }
                    lastOutputs[uri + "\u{1}" + name] = outputs
                }
                records[uri]?[fingerprint] = record
                failuresDirty.insert(uri)
                changedDocuments.insert(uri)
            }
            if let token = running.progressToken {
                progress?(.end(token: token, message: isCancelled ? "cancelled" : (outcome.error ?? "done")))
            }
            pump()
        }
    }

    // MARK: Reading results

    func takeChangedDocuments() -> Set<String> {
        defer { changedDocuments.removeAll() }
        return changedDocuments
    }

    var changedDocumentsIsEmpty: Bool { changedDocuments.isEmpty }

    /// Marks a document's views as due for a refresh (its analysis arrived after views were sent).
    func documentChanged(_ uri: String) {
        if records[uri] != nil { changedDocuments.insert(uri) }
    }

    func failuresChanged(_ uri: String) -> Bool { failuresDirty.contains(uri) }

    /// Evaluation errors of the current blocks, at their call sites (or the block's head).
    func failures(_ uri: String, in current: DocumentAnalysis) -> [(offsets: Swift.Range<Int>, message: String)] {
        failuresDirty.remove(uri)
        var result: [(Swift.Range<Int>, String)] = []
        for ((block, content), fingerprint) in zip(zip(current.file.playgrounds, contents(current)), fingerprints(current)) {
            guard let record = records[uri]?[fingerprint] else { continue }
            for key in record.order {
                guard let call = record.results[key], call.kind == .error else { continue }
                result.append((record.content.moved(call.range, to: content), call.content.stringValue ?? "evaluation failed"))
            }
            if case .done(let outcome) = record.status, let error = outcome.error {
                let range = outcome.errorRange.map { record.content.moved($0, to: content) }
                    ?? block.range.start.offset..<block.bodyRange.start.offset
                if !result.contains(where: { $0.0 == range && $0.1 == error }) { result.append((range, error)) }
            }
        }
        return result
    }

    /// The current blocks with their records, results mapped into the current text.
    func blocks(_ uri: String, in current: DocumentAnalysis) -> [(block: PlaygroundBlock, record: BlockRecord?, results: [CallResult])] {
        zip(zip(current.file.playgrounds, contents(current)), fingerprints(current)).map { pair, fingerprint in
            let (block, content) = pair
            guard let record = records[uri]?[fingerprint] else { return (block, nil, []) }
            let results = record.order.compactMap { key -> CallResult? in
                guard var result = record.results[key] else { return nil }
                result.range = record.content.moved(result.range, to: content)
                return result
            }
            return (block, record, results)
        }
    }

    var isIdle: Bool { running == nil && pending.isEmpty }

    /// A result as one comparable line.
    static func outputText(_ result: CallResult) -> String {
        let value: String = if case .string(let s) = result.content { s } else { result.content.serialized() }
        return "\(result.kind.rawValue): " + value.replacingOccurrences(of: "\n", with: "\\n")
    }
}
