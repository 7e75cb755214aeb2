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
    func analyzeInBackground(_ document: TextDocument) {
        let uri = document.uri
        if let running = backgroundAnalyses[uri], running.revision == document.revision { return }
        backgroundAnalyses[uri]?.stop()
        let job = BackgroundAnalysis(revision: document.revision)
        backgroundAnalyses[uri] = job
        let queue = queue
        let thread = Thread {
            let analysis = PromptAnalyzer.analyze(document.text, shouldStop: { job.isStopped })
            let update = AnalysisUpdate(
                uri: uri, revision: job.revision,
                analysis: job.isStopped ? nil : analysis.map { DocumentAnalysis(document: document, analysis: $0) })
            queue.post(.analyzed(update))
        }
        thread.name = "fmplay-lsp-analysis"
        thread.stackSize = Self.analysisStackSize
        thread.start()
    }

    /// A background analysis ended: keep it if it is still current, publish its diagnostics,
    /// and answer the requests that waited for it (those for a newer revision wait again).
    func analysisArrived(_ update: AnalysisUpdate) {
        let uri = update.uri
        if backgroundAnalyses[uri]?.revision == update.revision { backgroundAnalyses[uri] = nil }
        guard var open = documents[uri] else { return }
        if let analysis = update.analysis, analysis.revision == open.document.revision {
            open.analysis = analysis
            documents[uri] = open
            evaluation.reconcile(analysis)
            evaluation.documentChanged(uri)
            diagnosticsDue.insert(uri)
            if let reason = evaluationAfterAnalysis.removeValue(forKey: uri) { scheduleEvaluation(uri, reason: reason) }
        }
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
