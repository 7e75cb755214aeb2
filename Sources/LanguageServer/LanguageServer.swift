import Foundation
import IDE
import JSON

/// What the server's single message loop reacts to.
public enum ServerEvent: Sendable {
    /// A framed message (or a framing problem) from the client.
    case framed(MessageFramer.Item)
    /// The client closed its end of the connection.
    case endOfInput
    /// Progress from a background evaluation.
    case evaluation(EvaluationUpdate)
    /// A large document's analysis, done off the loop (or given up because the text changed).
    case analyzed(AnalysisUpdate)
}

/// The result of a background analysis: for one revision of one document, nil when it was stopped.
public struct AnalysisUpdate: Sendable {
    let uri: String
    let revision: Int
    let analysis: DocumentAnalysis?
}

/// The fmplay language server: JSON-RPC dispatch, the LSP lifecycle, open
/// documents and the features.
///
/// Threading: one loop (`run`) owns all state and handles events in arrival
/// order, so edits to a document apply in order and every request sees the
/// edits that came before it. Evaluation runs on other threads and reports
/// back through the event queue; nothing else mutates the server.
public final class LanguageServer {
    public enum Lifecycle: Sendable, Equatable {
        case uninitialized, running, shutDown
    }

    public static let name = "fmplay"
    public static let languageID = "fmplay"
    public static let commands = ["fmplay.run", "fmplay.runAll", "fmplay.cancel", "fmplay.clearCache", "fmplay.openReport"]

    let sink: any MessageSink
    let queue: EventQueue<ServerEvent>
    public private(set) var lifecycle: Lifecycle = .uninitialized
    /// Set when the loop should stop: 0 after shutdown + exit or end of input, 1 for exit without shutdown.
    public private(set) var exitCode: Int32?
    public private(set) var encoding: PositionEncoding = .utf16
    /// Hovers and hint tooltips: Markdown only for clients that ask for it.
    public private(set) var hoverFormat: MarkupFormat = .plaintext
    var clientCapabilities: JSONValue = .null
    public internal(set) var configuration = ServerConfiguration()
    var documents: [String: OpenDocument] = [:]
    /// Documents whose diagnostics must be (re)published when the loop is idle.
    var diagnosticsDue: Set<String> = []
    var nextOutgoingID = 1
    /// Server-to-client requests awaiting a response: their purpose and what to do with the answer.
    var outgoingRequests: [RequestID: OutgoingRequest] = [:]
    /// Work-done progress tokens, from `window/workDoneProgress/create` until `end`.
    var progressTokens: [String: ProgressToken] = [:]
    let evaluation: EvaluationCoordinator
    var timers = Timers()
    /// Documents of at least this many UTF-8 bytes are analysed on their own thread, off the
    /// loop, so they never hold up other documents; smaller ones are analysed on the loop
    /// (a few milliseconds), which keeps every request answered in order.
    public var backgroundAnalysisThreshold = LanguageServer.defaultBackgroundAnalysisThreshold
    public static let defaultBackgroundAnalysisThreshold = 16 << 10
    /// Background analyses running, by document (the revision each is for, and its stop flag).
    var backgroundAnalyses: [String: BackgroundAnalysis] = [:]
    /// Requests that need an analysis still running in the background, by document, in arrival order.
    var parkedRequests: [String: [JSONRPCMessage]] = [:]
    /// Evaluations to schedule once a document's background analysis arrives.
    var evaluationAfterAnalysis: [String: EvaluationReason] = [:]
    var lastViewRefresh = Date.distantPast
    var lastProgressReport = Date.distantPast

    public init(sink: any MessageSink, queue: EventQueue<ServerEvent> = EventQueue(), runner: any PlaygroundRunner) {
        self.sink = sink
        self.queue = queue
        self.evaluation = EvaluationCoordinator(runner: runner, queue: queue)
        evaluation.progress = { [unowned self] event in self.handleProgress(event) }
    }

    // MARK: The loop

    /// Handles events until `exit` or end of input; returns the exit code.
    public func run() -> Int32 {
        while exitCode == nil {
            let events = queue.takeAll(until: timers.nextDeadline)
            handle(events)
            fireDueTimers()
            if queue.isEmpty { idle() }
        }
        evaluation.cancelAll()
        return exitCode ?? 0
    }

    /// Handles a batch of events in order. Requests that a `$/cancelRequest`
    /// in the same batch cancels are answered with RequestCancelled.
    public func handle(_ events: [ServerEvent]) {
        var messages: [(ServerEvent, Result<JSONRPCMessage, UnreadableMessage>?)] = []
        var cancelled = Set<RequestID>()
        for event in events {
            if case .framed(.message(let body)) = event {
                let decoded = JSONRPCMessage.decode(body)
                if case .success(.notification("$/cancelRequest", let params)) = decoded,
                   let id = params["id"].flatMap(RequestID.init) {
                    cancelled.insert(id)
                }
                messages.append((event, decoded))
            } else {
                messages.append((event, nil))
            }
        }
        for (event, decoded) in messages where exitCode == nil {
            switch event {
            case .framed(.malformed(let reason)):
                // A frame that cannot be read has no readable id: JSON-RPC answers it with a parse error and a null id.
                logMessage(.error, "fmplay lsp: \(reason)")
                sink.send(.response(id: nil, result: .failure(.parseError("fmplay lsp: \(reason)"))))
            case .framed(.oversized(let length, let prefix)):
                // Refused, not dropped: the request it held gets an error, and the user is told.
                let message = "fmplay lsp: a message of \(length) bytes is over the size limit (fmplay lsp --max-message-size raises it); it was refused"
                if let id = RequestID.scan(prefix) {
                    sink.send(.response(id: id, result: .failure(.invalidRequest(message))))
                }
                showMessage(.error, message)
            case .framed(.message):
                switch decoded! {
                case .failure(let unreadable):
                    sink.send(.response(id: unreadable.id, result: .failure(unreadable.error)))
                case .success(.request(let id, let method, _)) where cancelled.contains(id) && method != "shutdown":
                    sink.send(.response(id: id, result: .failure(.requestCancelled)))
                case .success(let message):
                    handle(message)
                }
            case .endOfInput:
                exitCode = 0
            case .evaluation(let update):
                apply(update)
            case .analyzed(let update):
                analysisArrived(update)
            }
        }
    }

    /// Handles one decoded message.
    public func handle(_ message: JSONRPCMessage) {
        switch message {
        case .request(let id, let method, let params):
            let result: Result<JSONValue, ResponseError>
            do {
                result = .success(try respond(to: method, params: params))
            } catch let pending as AnalysisPending {
                // Answered when the document's analysis arrives; other events go on meanwhile.
                parkedRequests[pending.uri, default: []].append(message)
                return
            } catch let error as ResponseError {
                result = .failure(error)
            } catch {
                result = .failure(ResponseError(code: ResponseError.internalErrorCode, message: "\(method) failed: \(error)"))
            }
            sink.send(.response(id: id, result: result))
        case .notification(let method, let params):
            do {
                try notified(method, params: params)
            } catch {
                // Notifications have no response; say what went wrong in the log.
                logMessage(.error, "fmplay lsp: \(method): \(error)")
            }
        case .response(let id, let result):
            guard let id, let request = outgoingRequests.removeValue(forKey: id) else { return }
            if case .failure(let error) = result {
                logMessage(.warning, "fmplay lsp: the client answered \(request.purpose) with error \(error.code): \(error.message)")
            }
            request.onAnswer?(result)
        }
    }

    // MARK: Requests

    private func respond(to method: String, params: JSONValue) throws -> JSONValue {
        switch lifecycle {
        case .uninitialized where method != "initialize":
            throw ResponseError.serverNotInitialized
        case .running where method == "initialize":
            throw ResponseError.invalidRequest("initialize was already received")
        case .shutDown:
            throw ResponseError.invalidRequest("the server is shutting down; only exit is accepted")
        default:
            break
        }
        switch method {
        case "initialize": return try initialize(decode(InitializeParams.self, params))
        case "shutdown":
            lifecycle = .shutDown
            evaluation.cancelAll()
            return .null
        case "textDocument/diagnostic": return try encode(pullDiagnostics(decode(DocumentParams.self, params)))
        case "textDocument/codeAction": return try encode(codeActions(decode(CodeActionParams.self, params)))
        case "textDocument/inlayHint": return try encode(inlayHints(decode(RangeParams.self, params)))
        case "textDocument/codeLens": return try encode(codeLenses(decode(DocumentParams.self, params)))
        case "textDocument/hover": return try encode(hover(decode(TextDocumentPositionParams.self, params)))
        case "textDocument/completion": return try encode(completion(decode(TextDocumentPositionParams.self, params)))
        case "textDocument/signatureHelp": return try encode(signatureHelp(decode(TextDocumentPositionParams.self, params)))
        case "textDocument/definition": return try encode(definition(decode(TextDocumentPositionParams.self, params)))
        case "textDocument/documentSymbol": return try encode(documentSymbols(decode(DocumentParams.self, params)))
        case "workspace/executeCommand": return try executeCommand(decode(ExecuteCommandParams.self, params))
        default:
            throw ResponseError.methodNotFound(method)
        }
    }

    // MARK: Notifications

    private func notified(_ method: String, params: JSONValue) throws {
        if method == "exit" {
            exitCode = lifecycle == .shutDown ? 0 : 1
            return
        }
        // Before initialize, notifications other than exit are dropped (LSP 3.17).
        guard lifecycle == .running else { return }
        switch method {
        case "initialized": pullConfiguration()
        case "textDocument/didOpen": didOpen(try decode(DidOpenTextDocumentParams.self, params))
        case "textDocument/didChange": try didChange(decode(DidChangeTextDocumentParams.self, params))
        case "textDocument/didClose": didClose(try decode(DidCloseTextDocumentParams.self, params))
        case "textDocument/didSave": didSave(try decode(DidSaveTextDocumentParams.self, params))
        case "workspace/didChangeConfiguration":
            let settings = try decode(DidChangeConfigurationParams.self, params).settings ?? .null
            // Pull-model clients send a bare notification (settings null or not ours): ask for the section.
            if clientSupports("workspace", "configuration"), !Self.holdsSettings(settings) {
                pullConfiguration()
            } else {
                applySettings(settings)
            }
        case "$/cancelRequest":
            // Requests in the same batch were handled when it was read; a finished request needs
            // nothing; one waiting for a background analysis is answered now.
            if let id = params["id"].flatMap(RequestID.init) { cancelParkedRequest(id) }
        case "window/workDoneProgress/cancel":
            if let token = try decode(WorkDoneProgressCancelParams.self, params).token.stringValue {
                evaluation.cancel(progressToken: token)
            }
        case "$/setTrace", "workspace/didChangeWatchedFiles", "workspace/didChangeWorkspaceFolders":
            break
        default:
            // Unknown notifications are ignored; `$/` ones must be (LSP 3.17).
            if !method.hasPrefix("$/") { logMessage(.log, "fmplay lsp: ignored notification \(method)") }
        }
    }

    // MARK: Lifecycle

    struct InitializeParams: Codable {
        var capabilities: JSONValue?
        var initializationOptions: JSONValue?
    }

    private func initialize(_ params: InitializeParams) -> JSONValue {
        clientCapabilities = params.capabilities ?? .null
        let offers = clientCapabilities["general"]?["positionEncodings"]?.arrayValue?.compactMap(\.stringValue)
        encoding = PositionEncoding.negotiate(clientOffers: offers)
        hoverFormat = MarkupFormat.negotiate(clientCapabilities["textDocument"]?["hover"]?["contentFormat"])
        if let options = params.initializationOptions {
            reportSettingsProblems(configuration.apply(options))
        }
        evaluation.configure(configuration)
        lifecycle = .running
        return [
            "capabilities": serverCapabilities,
            "serverInfo": ["name": .string(Self.name), "version": .string(Self.version)],
        ]
    }

    public static let version = "0.1.0"

    var serverCapabilities: JSONValue {
        [
            "positionEncoding": .string(encoding.rawValue),
            "textDocumentSync": ["openClose": true, "change": 2, "save": ["includeText": false]],
            "diagnosticProvider": ["identifier": "fmplay", "interFileDependencies": false, "workspaceDiagnostics": false],
            "codeActionProvider": ["codeActionKinds": ["quickfix"]],
            "inlayHintProvider": ["resolveProvider": false],
            "codeLensProvider": ["resolveProvider": false],
            "hoverProvider": true,
            "completionProvider": ["triggerCharacters": [".", "(", ":", " "], "resolveProvider": false],
            "signatureHelpProvider": ["triggerCharacters": ["(", ","], "retriggerCharacters": [")"]],
            "definitionProvider": true,
            "documentSymbolProvider": true,
            "executeCommandProvider": ["commands": .array(Self.commands.map { .string($0) })],
        ]
    }

    func clientSupports(_ path: String...) -> Bool {
        var value: JSONValue? = clientCapabilities
        for key in path { value = value?[key] }
        return value?.boolValue == true
    }

    /// Applies settings from any source and lets everything that depends on them know.
    func applySettings(_ settings: JSONValue) {
        reportSettingsProblems(configuration.apply(settings))
        evaluation.configure(configuration)
        refreshViews()
    }

    /// Whether a didChangeConfiguration payload carries fmplay settings (pushed),
    /// rather than being a bare change signal of the pull model.
    static func holdsSettings(_ settings: JSONValue) -> Bool {
        guard case .object(let object) = settings, !object.isEmpty else { return false }
        if object["fmplay"] != nil { return true }
        return object.keys.contains { ServerConfiguration.acceptedKeys.contains($0) }
    }

    /// `workspace/configuration` for the `fmplay` section, when the client supports the pull model.
    func pullConfiguration() {
        guard clientSupports("workspace", "configuration") else { return }
        sendRequest("workspace/configuration", ["items": [["section": "fmplay"]]], purpose: "workspace/configuration") { [unowned self] answer in
            guard case .success(let value) = answer else { return }
            guard let first = value.arrayValue?.first else {
                logMessage(.warning, "fmplay lsp: workspace/configuration answered \(value.kindDescription), not an array of settings")
                return
            }
            applySettings(first)
        }
    }

    private func reportSettingsProblems(_ problems: [String]) {
        for problem in problems { showMessage(.warning, "fmplay: \(problem)") }
    }

    // MARK: Documents

    /// An open document and what the server derived from it.
    struct OpenDocument {
        var document: TextDocument
        var analysis: DocumentAnalysis?
        /// The revision whose diagnostics were last published.
        var publishedRevision: Int?
    }

    private func didOpen(_ params: DidOpenTextDocumentParams) {
        let item = params.textDocument
        documents[item.uri] = OpenDocument(
            document: TextDocument(uri: item.uri, languageID: item.languageId, version: item.version, text: item.text))
        diagnosticsDue.insert(item.uri)
        // Earlier results (cache) show at once; evaluation starts by trigger.
        if configuration.evaluate != .manual { scheduleEvaluation(item.uri, reason: .opened) }
    }

    private func didChange(_ params: DidChangeTextDocumentParams) throws {
        let uri = params.textDocument.uri
        guard var open = documents[uri] else {
            throw ResponseError.invalidParams("didChange for \(uri), which is not open")
        }
        open.document.apply(params.contentChanges, version: params.textDocument.version, encoding: encoding)
        open.analysis = nil
        documents[uri] = open
        diagnosticsDue.insert(uri)
        if configuration.evaluate == .onChange {
            timers.schedule(.evaluate(uri), after: Double(configuration.debounceMilliseconds) / 1000)
        }
    }

    private func didClose(_ params: DidCloseTextDocumentParams) {
        let uri = params.textDocument.uri
        documents[uri] = nil
        diagnosticsDue.remove(uri)
        evaluation.documentClosed(uri)
        backgroundAnalyses.removeValue(forKey: uri)?.stop()
        evaluationAfterAnalysis[uri] = nil
        // Requests that waited for its analysis now fail: the document is not open.
        for message in parkedRequests.removeValue(forKey: uri) ?? [] { handle(message) }
        // Clear what this server published for the document.
        sendNotification("textDocument/publishDiagnostics", PublishDiagnosticsParams(uri: uri, version: nil, diagnostics: []))
    }

    private func didSave(_ params: DidSaveTextDocumentParams) {
        let uri = params.textDocument.uri
        if let text = params.text, var open = documents[uri], text != open.document.text {
            open.document.apply([TextDocument.Change(text: text)], version: open.document.version, encoding: encoding)
            open.analysis = nil
            documents[uri] = open
            diagnosticsDue.insert(uri)
        }
        if configuration.evaluate == .onSave { scheduleEvaluation(uri, reason: .saved) }
    }

    /// The open document or an invalid-params error naming it.
    func openDocument(_ uri: String) throws -> OpenDocument {
        guard let open = documents[uri] else {
            throw ResponseError.invalidParams("\(uri) is not open; send textDocument/didOpen first")
        }
        return open
    }

    /// The analysis of the document's current text, computed at most once per revision.
    /// A large document's analysis runs on its own thread: until it arrives this throws
    /// `AnalysisPending` (requests wait for it, idle work skips the document).
    func analysis(_ uri: String) throws -> DocumentAnalysis {
        var open = try openDocument(uri)
        if let analysis = open.analysis, analysis.revision == open.document.revision { return analysis }
        if open.document.bytes.count >= backgroundAnalysisThreshold {
            analyzeInBackground(open.document)
            throw AnalysisPending(uri: uri)
        }
        let analysis = DocumentAnalysis(document: open.document)
        open.analysis = analysis
        documents[uri] = open
        return analysis
    }

    // MARK: Idle work and timers

    /// Runs when no events are waiting: publishes diagnostics that are due
    /// and cancels evaluations that edits made stale.
    func idle() {
        for uri in diagnosticsDue {
            if let current = try? analysis(uri) { evaluation.reconcile(current) }
        }
        // Views first: a refresh can make evaluation failures due as diagnostics.
        if !evaluation.changedDocumentsIsEmpty { viewsChanged() }
        for uri in diagnosticsDue.sorted() {
            publishDiagnostics(uri)
        }
        diagnosticsDue.removeAll()
    }

    func fireDueTimers() {
        for timer in timers.takeDue() {
            switch timer {
            case .evaluate(let uri):
                scheduleEvaluation(uri, reason: .changed)
            case .refreshViews:
                refreshViews()
            }
        }
    }

    // MARK: Sending

    public enum MessageType: Int, Sendable { case error = 1, warning = 2, info = 3, log = 4 }

    public func logMessage(_ type: MessageType, _ message: String) {
        sink.send(.notification(method: "window/logMessage", params: ["type": .int(type.rawValue), "message": .string(message)]))
    }

    public func showMessage(_ type: MessageType, _ message: String) {
        sink.send(.notification(method: "window/showMessage", params: ["type": .int(type.rawValue), "message": .string(message)]))
    }

    func sendNotification(_ method: String, _ params: some Encodable) {
        guard let value = try? JSONValueEncoder().encode(params) else { return }
        sink.send(.notification(method: method, params: value))
    }

    /// A server-to-client request; `onAnswer` runs on the loop when the client answers.
    struct OutgoingRequest {
        var purpose: String
        var onAnswer: ((Result<JSONValue, ResponseError>) -> Void)?
    }

    func sendRequest(_ method: String, _ params: JSONValue, purpose: String, onAnswer: ((Result<JSONValue, ResponseError>) -> Void)? = nil) {
        let id = RequestID.string("fmplay-\(nextOutgoingID)")
        nextOutgoingID += 1
        outgoingRequests[id] = OutgoingRequest(purpose: purpose, onAnswer: onAnswer)
        sink.send(.request(id: id, method: method, params: params))
    }

    // MARK: Coding helpers

    func decode<T: Decodable>(_ type: T.Type, _ params: JSONValue) throws -> T {
        do {
            return try JSONValueDecoder().decode(type, from: params)
        } catch {
            throw ResponseError.invalidParams("invalid params: \(error.description)")
        }
    }

    func encode(_ value: some Encodable) throws -> JSONValue {
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            throw ResponseError(code: ResponseError.internalErrorCode, message: "could not encode the result: \(error.description)")
        }
    }
}

/// One-shot timers for the loop, keyed so a timer can be pushed back (debounce).
struct Timers {
    enum Kind: Hashable {
        case evaluate(String)
        case refreshViews
    }

    private var due: [Kind: Date] = [:]

    var nextDeadline: Date? { due.values.min() }

    /// Schedules `kind` after `delay` seconds, replacing an earlier schedule.
    mutating func schedule(_ kind: Kind, after delay: Double) {
        due[kind] = Date(timeIntervalSinceNow: delay)
    }

    /// Schedules `kind` unless it is already scheduled (throttle).
    mutating func scheduleIfIdle(_ kind: Kind, after delay: Double) {
        if due[kind] == nil { due[kind] = Date(timeIntervalSinceNow: delay) }
    }

    func isScheduled(_ kind: Kind) -> Bool { due[kind] != nil }

    mutating func takeDue() -> [Kind] {
        let now = Date()
        let fired = due.filter { $0.value <= now }.map(\.key)
        for kind in fired { due[kind] = nil }
        return fired
    }
}

extension LanguageServer {
    /// `serve` on a thread of its own (64 MB stack), awaited: the loop blocks while it waits for
    /// events, so it must not hold one of Swift concurrency's few cooperative threads, which run
    /// evaluation and the worker's supervision (on a 2-core machine there are two).
    public static func serveOnOwnThread(
        input: Int32 = 0, output: Int32 = 1, runner: any PlaygroundRunner,
        maximumMessageSize: Int = MessageFramer.defaultMaximumMessageSize
    ) async -> Int32 {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: serve(input: input, output: output, runner: runner, maximumMessageSize: maximumMessageSize))
            }
            thread.name = "fmplay-lsp-loop"
            thread.stackSize = 64 << 20
            thread.start()
        }
    }

    /// Serves LSP over a pair of file descriptors (stdin/stdout for `fmplay lsp`)
    /// until `exit` or end of input; returns the process exit code. The loop
    /// runs on the calling thread (never a cooperative-pool thread, which
    /// evaluation needs); a second thread reads the input.
    public static func serve(
        input: Int32 = 0, output: Int32 = 1, runner: any PlaygroundRunner,
        maximumMessageSize: Int = MessageFramer.defaultMaximumMessageSize
    ) -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // a vanished client is an EPIPE, not a crash
        let queue = EventQueue<ServerEvent>()
        StdinReader.start(descriptor: input, maximumMessageSize: maximumMessageSize) { queue.post($0) }
        let server = LanguageServer(sink: FileDescriptorSink(descriptor: output), queue: queue, runner: runner)
        return server.run()
    }
}
