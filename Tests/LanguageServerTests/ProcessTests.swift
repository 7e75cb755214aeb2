import Foundation
import JSON
import LanguageServer
import XCTest

/// A client that talks to `fmplay lsp` as a real process over pipes.
final class ProcessClient: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSCondition()
    private var received: [JSONValue] = []
    private var nextID = 1

    /// The `fmplay` executable next to the test bundle (SwiftPM builds both into one directory).
    static var executable: URL? {
        let candidates = [Bundle.main.bundleURL, Bundle(for: ProcessClient.self).bundleURL.deletingLastPathComponent()]
        for directory in candidates {
            for base in [directory, directory.deletingLastPathComponent()] {
                let url = base.appendingPathComponent("fmplay")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        return nil
    }

    init(environment: [String: String] = [:]) throws {
        guard let executable = Self.executable else { throw XCTSkip("the fmplay executable was not built next to the tests") }
        process.executableURL = executable
        process.arguments = ["lsp"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var framer = MessageFramer()
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                for item in framer.append(Array(data)) {
                    guard case .message(let body) = item, let value = try? JSONValue.parse(body) else { continue }
                    lock.lock()
                    received.append(value)
                    lock.broadcast()
                    lock.unlock()
                }
            }
        }
    }

    func sendRaw(_ bytes: [UInt8]) {
        input.fileHandleForWriting.write(Data(bytes))
    }

    func notify(_ method: String, _ params: JSONValue) {
        sendRaw(MessageFramer.frame(JSONValue.object(["jsonrpc": "2.0", "method": .string(method), "params": params]).serializedBytes()))
    }

    @discardableResult
    func request(_ method: String, _ params: JSONValue, timeout: Double = 20) throws -> JSONValue {
        let id = nextID
        nextID += 1
        sendRaw(MessageFramer.frame(JSONValue.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).serializedBytes()))
        let response = try wait(timeout: timeout) { $0["id"] == .int(id) && $0["method"] == nil }
        if let error = response["error"] { throw ResponseFailure(code: error["code"]?.intValue ?? 0, message: error["message"]?.stringValue ?? "") }
        return response["result"] ?? .null
    }

    struct Timeout: Error {
        var received: Int
    }

    struct ResponseFailure: Error, Equatable {
        var code: Int
        var message: String
    }

    /// Waits for a message matching `predicate` among everything received so far.
    func wait(timeout: Double = 20, _ predicate: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let match = received.first(where: predicate) { return match }
            if !lock.wait(until: deadline), !received.contains(where: predicate) {
                throw Timeout(received: received.count)
            }
        }
    }

    func all(_ method: String) -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        return received.filter { $0["method"]?.stringValue == method }
    }

    /// Answers (with a null result) every request of `method` the server has sent so far.
    func answerRequests(_ method: String) {
        for request in all(method) {
            guard let id = request["id"] else { continue }
            sendRaw(MessageFramer.frame(JSONValue.object(["jsonrpc": "2.0", "id": id, "result": .null]).serializedBytes()))
        }
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits for the process to end; returns its exit code.
    func exitCode(timeout: Double = 20) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }
}

final class ProcessTests: XCTestCase {
    private let uri = "file:///projects/process-test.fmplay"

    private func initialize(_ client: ProcessClient, options: JSONValue = ["evaluate": "manual"]) throws {
        let result = try client.request("initialize", [
            "capabilities": [
                "general": ["positionEncodings": ["utf-8", "utf-16"]], "window": ["workDoneProgress": true],
                "textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]],
            ],
            "initializationOptions": options,
        ])
        XCTAssertEqual(result["capabilities"]?["positionEncoding"], "utf-8")
        client.notify("initialized", [:])
    }

    func testSessionOverPipes() throws {
        let client = try ProcessClient()
        XCTAssertThrowsError(try client.request("textDocument/hover", ServerHarness.at(uri, 0, 0))) { error in
            XCTAssertEqual((error as? ProcessClient.ResponseFailure)?.code, -32002)
        }
        try initialize(client)
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(sampleText)]])
        let first = try client.wait { $0["method"] == "textDocument/publishDiagnostics" }
        XCTAssertEqual(first["params"]?["diagnostics"], [])

        // Malformed JSON and a wrong Content-Length do not stop the server.
        client.sendRaw(MessageFramer.frame(Array("{oops".utf8)))
        _ = try client.wait { $0["error"]?["code"] == -32700 }
        client.sendRaw(Array("Content-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\"}".utf8))

        // An incremental edit that breaks the file, then diagnostics for version 2.
        let end = locate("cities = [\"Tokyo\", \"Kyoto\"]", in: sampleText, offset: 27)
        client.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(uri), "version": 2],
            "contentChanges": [["range": ["start": ServerHarness.position(end.line, end.character - 1), "end": ServerHarness.position(end.line, end.character)], "text": ""]],
        ])
        let broken = try client.wait { $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["version"] == 2 }
        XCTAssertNotEqual(broken["params"]?["diagnostics"], [])

        let completion = locate("generating: TripTitle", in: sampleText, offset: 12)
        let items = try client.request("textDocument/completion", ServerHarness.at(uri, completion.line, completion.character))
        XCTAssertTrue(items["items"]?.arrayValue?.contains { $0["label"] == "TripTitle.self" } ?? false)

        let hover = locate("Name a trip", in: sampleText, offset: 1)
        let prompt = try client.request("textDocument/hover", ServerHarness.at(uri, hover.line, hover.character))
        XCTAssertTrue(prompt["contents"]?["value"]?.stringValue?.hasPrefix("**Prompt**") ?? false)

        let lenses = try client.request("textDocument/codeLens", ServerHarness.document(uri))
        XCTAssertEqual(lenses.arrayValue?.compactMap { $0["command"]?["title"]?.stringValue }, ["▶ Run", "▶ Run"])

        XCTAssertEqual(try client.request("shutdown", .null), .null)
        client.notify("exit", .null)
        XCTAssertEqual(client.exitCode(), 0)
    }

    /// Prompt-string hovers count tokens with the tokenizer of the configured model, and say
    /// clearly why they cannot when that model is missing or has no tokenizer.
    func testHoverCountsTokensWithTheConfiguredModel() throws {
        let client = try ProcessClient()
        try initialize(client)
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(sampleText)]])
        let position = locate("Name a trip", in: sampleText, offset: 1)
        client.notify("workspace/didChangeConfiguration", ["settings": ["modelPath": "/nonexistent/fmplay-model.gguf"]])
        let missing = try client.request("textDocument/hover", ServerHarness.at(uri, position.line, position.character))
        let text = missing["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(text.hasPrefix("**Prompt** · ") && text.contains("tokens cannot be counted") && text.contains("/nonexistent/fmplay-model.gguf"), text)

        let scripted = try ProcessClient(environment: ["FMPLAY_BACKEND": "scripted"])
        try initialize(scripted)
        scripted.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(sampleText)]])
        let hover = try scripted.request("textDocument/hover", ServerHarness.at(uri, position.line, position.character))
        XCTAssertTrue(hover["contents"]?["value"]?.stringValue?.contains("tokens cannot be counted: the scripted test model") ?? false, "\(hover)")
    }

    func testExitWithoutShutdownIsOneAndEndOfInputIsZero() throws {
        let abrupt = try ProcessClient()
        try initialize(abrupt)
        abrupt.notify("exit", .null)
        XCTAssertEqual(abrupt.exitCode(), 1)

        let closed = try ProcessClient()
        try initialize(closed)
        closed.closeInput()
        XCTAssertEqual(closed.exitCode(), 0)
    }

    func testOversizeAndInvalidUTF8DoNotCrash() throws {
        let client = try ProcessClient()
        try initialize(client)
        client.sendRaw(Array("Content-Length: 999999999999\r\n\r\n".utf8))
        client.closeInput()
        XCTAssertEqual(client.exitCode(), 0)

        let second = try ProcessClient()
        try initialize(second)
        second.sendRaw(MessageFramer.frame([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D]))
        _ = try second.wait { $0["error"]?["code"] == -32700 }
        XCTAssertEqual(try second.request("shutdown", .null), .null)
    }

    /// The scripted model end to end: save evaluates, results stream in as
    /// `fmplay/results` and hints, hover shows the output, run and cancel work.
    func testEvaluationWithTheScriptedModel() throws {
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-lsp-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let client = try ProcessClient(environment: ["FMPLAY_BACKEND": "scripted", "XDG_CACHE_HOME": cacheDirectory.path])
        let result = try client.request("initialize", [
            "capabilities": ["workspace": ["inlayHint": ["refreshSupport": true]], "window": ["workDoneProgress": true]],
            "initializationOptions": ["evaluate": "onSave", "hintLength": 60],
        ])
        XCTAssertEqual(result["capabilities"]?["positionEncoding"], "utf-16")
        client.notify("initialized", [:])
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(sampleText)]])
        client.notify("textDocument/didSave", ServerHarness.document(uri))

        let done = try client.wait(timeout: 60) { message in
            message["method"] == "fmplay/results"
                && (message["params"]?["blocks"]?.arrayValue ?? []).allSatisfy { $0["status"] == "done" || $0["status"] == "failed" }
                && message["params"]?["blocks"]?.arrayValue?.count == 2
        }
        let results = done["params"]?["results"]?.arrayValue ?? []
        XCTAssertFalse(results.isEmpty, "\(done)")
        let first = try XCTUnwrap(results.first)
        XCTAssertEqual(first["type"], "TripTitle")
        XCTAssertTrue(first["hint"]?.stringValue?.hasPrefix("→ TripTitle(words: ") ?? false, "\(first)")
        XCTAssertFalse(client.all("workspace/inlayHint/refresh").isEmpty)
        // Progress starts once the client has answered window/workDoneProgress/create.
        XCTAssertFalse(client.all("window/workDoneProgress/create").isEmpty)
        client.answerRequests("window/workDoneProgress/create")
        _ = try client.wait { $0["method"] == "$/progress" && $0["params"]?["value"]?["kind"] == "end" }
        XCTAssertEqual(client.all("$/progress").first?["params"]?["value"]?["kind"], "begin")

        let hints = try client.request("textDocument/inlayHint", [
            "textDocument": ["uri": .string(uri)], "range": ["start": ServerHarness.position(0, 0), "end": ServerHarness.position(999, 0)],
        ])
        XCTAssertEqual(hints.arrayValue?.first?["label"], first["hint"])

        let call = locate("session.respond(to: \"Name", in: sampleText, offset: 10)
        let hover = try client.request("textDocument/hover", ServerHarness.at(uri, call.line, call.character))
        // This client names no hover contentFormat: plain text, the JSON without a fence.
        XCTAssertEqual(hover["contents"]?["kind"], "plaintext")
        let value = hover["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.contains("\"words\": [") && !value.contains("```"), "\(hover)")

        let lenses = try client.request("textDocument/codeLens", ServerHarness.document(uri)).arrayValue ?? []
        let titles = lenses.compactMap { $0["command"]?["title"]?.stringValue }
        XCTAssertEqual(titles.first, "▶ Run")
        XCTAssertTrue(titles.contains { $0.hasPrefix("✓ ") }, "\(titles)")

        // An explicit run generates again; cancel answers and leaves the block runnable.
        let run = try XCTUnwrap(lenses.first?["command"]?["arguments"])
        XCTAssertEqual(try client.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": run]), .null)
        XCTAssertEqual(try client.request("workspace/executeCommand", ["command": "fmplay.cancel", "arguments": run]), .null)
        XCTAssertEqual(try client.request("workspace/executeCommand", ["command": "fmplay.clearCache"]).stringValue?.hasPrefix("cleared"), true)
        let after = try client.request("textDocument/codeLens", ServerHarness.document(uri)).arrayValue ?? []
        XCTAssertEqual(after.first?["command"]?["title"], "▶ Run")

        XCTAssertEqual(try client.request("shutdown", .null), .null)
        client.notify("exit", .null)
        XCTAssertEqual(client.exitCode(), 0)
    }
}
