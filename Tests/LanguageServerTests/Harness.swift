import Foundation
import JSON
@testable import LanguageServer
import PromptLanguage
import XCTest

/// Collects what the server sends.
final class CollectingSink: MessageSink, @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [JSONRPCMessage] = []

    func send(_ message: JSONRPCMessage) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }

    func take() -> [JSONRPCMessage] {
        lock.lock()
        defer { messages.removeAll(); lock.unlock() }
        return messages
    }
}

/// A deterministic runner for tests: each model call of the block answers
/// `scripted <n>` word by word (one snapshot per word, `delay` apart), then
/// completes; a call whose text contains `overflow` fails with
/// `exceededContextWindowSize`. It stops within one word when cancelled.
struct ScriptedRunner: PlaygroundRunner {
    var words = 4
    var delay: Duration = .zero
    let runs = Counter()

    /// The blocks run, in order.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var blocks: [Int] = []
        func record(_ block: Int) { lock.lock(); blocks.append(block); lock.unlock() }
        var count: Int { lock.lock(); defer { lock.unlock() }; return blocks.count }
        var order: [Int] { lock.lock(); defer { lock.unlock() }; return blocks }
    }

    func run(_ request: BlockRunRequest, report: @escaping @Sendable (BlockEvent) -> Void) async -> BlockOutcome {
        runs.record(request.blockIndex)
        let source = request.analysis.file.source
        var tokens = 0
        for (index, call) in request.block.calls.enumerated() {
            let text = source.slice(call.range.offsets)
            if text.contains("overflow") {
                report(.result(CallResult(range: call.range.offsets, kind: .error, content: "exceededContextWindowSize: the prompt is too long")))
                return BlockOutcome(error: "exceededContextWindowSize: the prompt is too long", errorRange: call.range.offsets)
            }
            var answer: [String] = []
            for word in 0..<words {
                if Task.isCancelled { return BlockOutcome(error: "cancelled") }
                if delay > .zero { try? await Task.sleep(for: delay) }
                answer.append(word == 0 ? "scripted" : "\(index)-\(word)")
                tokens += 1
                report(.tokens(tokens))
                report(.result(CallResult(
                    range: call.range.offsets, kind: call.method == .streamResponse ? .stream : .response,
                    content: .string(answer.joined(separator: " ")), isComplete: false, promptTokens: 10, responseTokens: word + 1)))
            }
            report(.result(CallResult(
                range: call.range.offsets, kind: call.method == .streamResponse ? .stream : .response,
                content: .string(answer.joined(separator: " ")), isComplete: true, promptTokens: 10, cachedTokens: 4,
                responseTokens: words, timeToFirstToken: 0.05, tokensPerSecond: 80, transcript: "User: …\nAssistant: …")))
        }
        return BlockOutcome()
    }

    func clearCache() throws -> String { "cleared" }

    func tokenCount(of text: String, configuration: ServerConfiguration) -> TokenCount {
        guard configuration.modelPath != "/missing.gguf" else { return .unavailable("no model file at /missing.gguf") }
        return .counted(tokens: text.split(separator: " ").count, contextSize: 2048, model: configuration.modelPath ?? "scripted")
    }
}

/// Drives a `LanguageServer` in process: send messages, collect replies.
final class ServerHarness {
    let sink = CollectingSink()
    let queue = EventQueue<ServerEvent>()
    let server: LanguageServer
    private var nextID = 100
    /// Every message the server sent, in order, since the harness started.
    private(set) var sent: [JSONRPCMessage] = []
    private var answered: Set<RequestID> = []

    init(runner: any PlaygroundRunner = ScriptedRunner()) {
        server = LanguageServer(sink: sink, queue: queue, runner: runner)
    }

    /// Feeds raw bytes as the client would, framing included.
    func feed(_ messages: [JSONValue]) {
        var framer = MessageFramer()
        var events: [ServerEvent] = []
        for message in messages {
            events += framer.append(MessageFramer.frame(message.serializedBytes())).map { .framed($0) }
        }
        server.handle(events)
        settle()
    }

    /// Runs the loop's idle work and collects output.
    func settle() {
        server.fireDueTimers()
        server.idle()
        sent += sink.take()
    }

    @discardableResult
    func initialize(_ capabilities: JSONValue = [:], options: JSONValue? = nil) -> JSONValue {
        var params: JSONObject = ["capabilities": capabilities]
        if let options { params["initializationOptions"] = options }
        let result = request("initialize", .object(params))
        notify("initialized", [:])
        return result
    }

    func notify(_ method: String, _ params: JSONValue) {
        feed([["jsonrpc": "2.0", "method": .string(method), "params": params]])
    }

    /// Sends a request and returns its result, failing the test on an error response.
    @discardableResult
    func request(_ method: String, _ params: JSONValue, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
        switch response(method, params) {
        case .success(let value): return value
        case .failure(let error):
            XCTFail("\(method) failed: \(error.code) \(error.message)", file: file, line: line)
            return .null
        }
    }

    func response(_ method: String, _ params: JSONValue) -> Result<JSONValue, ResponseError> {
        nextID += 1
        let id = RequestID.number(nextID)
        feed([["jsonrpc": "2.0", "id": .int(nextID), "method": .string(method), "params": params]])
        for message in sent.reversed() {
            if case .response(id, let result) = message { return result }
        }
        return .failure(ResponseError(code: 0, message: "no response"))
    }

    func open(_ uri: String, _ text: String, version: Int = 1) {
        notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": .int(version), "text": .string(text)]])
    }

    /// Handles evaluation updates until the coordinator is idle (or `timeout` passes).
    func runEvaluations(timeout: Double = 10) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !server.evaluation.isIdle, Date() < deadline {
            server.handle(queue.takeAll(until: Date(timeIntervalSinceNow: 0.05)))
            settle()
        }
        // Let throttled refreshes fire.
        Thread.sleep(forTimeInterval: LanguageServer.refreshInterval)
        server.handle(queue.takeAll(until: Date(timeIntervalSinceNow: 0.01)))
        settle()
    }

    /// Answers every request of `method` the server sent and the client has not answered yet.
    func answer(_ method: String, result: JSONValue? = .null, error: (code: Int, message: String)? = nil) {
        var responses: [JSONValue] = []
        for message in sent {
            guard case .request(let id, method, _) = message, !answered.contains(id) else { continue }
            answered.insert(id)
            if let error {
                responses.append(["jsonrpc": "2.0", "id": id.json, "error": ["code": .int(error.code), "message": .string(error.message)]])
            } else {
                responses.append(["jsonrpc": "2.0", "id": id.json, "result": result ?? .null])
            }
        }
        feed(responses)
    }

    func notifications(_ method: String) -> [JSONValue] {
        sent.compactMap { if case .notification(method, let params) = $0 { params } else { nil } }
    }

    func requests(_ method: String) -> [JSONValue] {
        sent.compactMap { if case .request(_, method, let params) = $0 { params } else { nil } }
    }

    static func position(_ line: Int, _ character: Int) -> JSONValue { ["line": .int(line), "character": .int(character)] }

    static func document(_ uri: String) -> JSONValue { ["textDocument": ["uri": .string(uri)]] }

    static func at(_ uri: String, _ line: Int, _ character: Int) -> JSONValue {
        ["textDocument": ["uri": .string(uri)], "position": position(line, character)]
    }
}

/// The line and UTF-16 column of the first occurrence of `needle` in `text` (plus `offset` characters).
func locate(_ needle: String, in text: String, offset: Int = 0) -> (line: Int, character: Int) {
    guard let range = text.range(of: needle) else { return (-1, -1) }
    let before = text[..<range.lowerBound]
    let line = before.filter { $0 == "\n" }.count
    let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
    return (line, text[lineStart..<range.lowerBound].utf16.count + offset)
}
