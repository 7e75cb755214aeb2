import Foundation
import PromptLanguage

/// Thrown by `LanguageServer.analysis(_:)` while a large document's analysis runs off the loop.
struct AnalysisPending: Error {
    let uri: String
}

/// One analysis running on its own thread: the revision it is for and a stop flag the
/// analyzer reads between its phases.
final class BackgroundAnalysis: @unchecked Sendable {
    let revision: Int
    private let lock = NSLock()
    private var stopped = false

    init(revision: Int) {
        self.revision = revision
    }

    var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
}

extension LanguageServer {
    /// The stack of an analysis thread (the loop's main thread has 8 MB; the depth guards keep
    /// every walk far below this).
    static let analysisStackSize = 32 << 20

    /// Starts analysing `document` on its own thread, unless its revision is already being
    /// analysed; stops the analysis of an older revision. The result comes back as `.analyzed`.
    ///
    /// At most one analysis per document runs: while a stale one is still stopping (at its next
    /// phase), the new one waits, and starts when the stale result arrives.
    func analyzeInBackground(_ document: TextDocument) {
        let uri = document.uri
        if let running = backgroundAnalyses[uri] {
            if running.revision != document.revision { running.stop() }
            return
        }
        let job = BackgroundAnalysis(revision: document.revision)
        backgroundAnalyses[uri] = job
        let queue = queue
        let thread = Thread {
            // Below the loop: on a busy machine the loop gets the CPU first. (On Linux the nice
            // value is per thread, and `who == 0` is the calling thread.)
            #if os(Linux)
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            #endif
            let analysis = PromptAnalyzer.analyze(document.source, shouldStop: { job.isStopped })
            let update = AnalysisUpdate(
                uri: uri, revision: job.revision,
                analysis: job.isStopped ? nil : analysis.map { DocumentAnalysis(document: document, analysis: $0) })
            queue.post(.analyzed(update))
        }
        thread.name = "fmplay-lsp-analysis"
        thread.stackSize = Self.analysisStackSize
        thread.start()
    }

    /// A background analysis ended: keep it if it is still current, publish its diagnostics and
    /// answer the requests that waited for it; if the text changed meanwhile, analyse it again.
    func analysisArrived(_ update: AnalysisUpdate) {
        let uri = update.uri
        if backgroundAnalyses[uri]?.revision == update.revision { backgroundAnalyses[uri] = nil }
        guard var open = documents[uri] else { return }
        guard let analysis = update.analysis, analysis.revision == open.document.revision else {
            // Stale: analyse the current text (idle work starts it), then answer what waits.
            diagnosticsDue.insert(uri)
            return
        }
        open.analysis = analysis
        documents[uri] = open
        evaluation.reconcile(analysis)
        evaluation.documentChanged(uri)
        diagnosticsDue.insert(uri)
        if let reason = evaluationAfterAnalysis.removeValue(forKey: uri) { scheduleEvaluation(uri, reason: reason) }
        for message in parkedRequests.removeValue(forKey: uri) ?? [] { handle(message) }
    }

    /// `$/cancelRequest` for a request waiting for a background analysis: answered with RequestCancelled.
    func cancelParkedRequest(_ id: RequestID) {
        for (uri, messages) in parkedRequests {
            guard let index = messages.firstIndex(where: { if case .request(id, _, _) = $0 { true } else { false } }) else { continue }
            parkedRequests[uri]?.remove(at: index)
            if parkedRequests[uri]?.isEmpty == true { parkedRequests[uri] = nil }
            sink.send(.response(id: id, result: .failure(.requestCancelled)))
            return
        }
    }
}
