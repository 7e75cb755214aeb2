import Foundation
import JSON
@testable import LanguageServer
import XCTest

/// Large documents are analysed off the message loop: other documents' diagnostics and
/// requests do not wait for them, requests about them wait without blocking the loop, and
/// an edit stops the analysis of the text it replaced.
final class BackgroundAnalysisTests: XCTestCase {
    private let big = "file:///projects/big.fmplay"
    private let small = "file:///projects/small.fmplay"

    /// About `bytes` of declarations (one per line), with a block at the end.
    private func largeText(bytes: Int, marker: String = "x") -> String {
        let lines = (0...(bytes / 80)).map { "let constant\(marker)\($0) = \"" + String(repeating: "y", count: 60) + "\"\n" }
        return lines.joined() + "#Playground {\n    print(1)\n}\n"
    }

    private func published(_ harness: ServerHarness, _ uri: String) -> [JSONValue] {
        harness.notifications("textDocument/publishDiagnostics").filter { $0["uri"] == .string(uri) }
    }

    /// Handles events from the queue (background analyses) until `done` holds.
    private func pump(_ harness: ServerHarness, timeout: Double = 60, until done: () -> Bool) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !done(), Date() < deadline {
            harness.server.handle(harness.queue.takeAll(until: Date(timeIntervalSinceNow: 0.05)))
            harness.settle()
        }
    }

    func testSecondDocumentIsNotHeldUpByALargeOne() throws {
        let harness = ServerHarness()
        harness.initialize(options: ["evaluate": "manual"])
        let text = largeText(bytes: 80_000)
        XCTAssertGreaterThan(text.utf8.count, harness.server.backgroundAnalysisThreshold)
        // Both documents in one batch: the small one's diagnostics go out at once; the large one's
        // analysis has not been handled yet (its result waits in the loop's queue).
        harness.feed([
            ["jsonrpc": "2.0", "method": "textDocument/didOpen", "params": ["textDocument": ["uri": .string(big), "languageId": "fmplay", "version": 1, "text": .string(text)]]],
            ["jsonrpc": "2.0", "method": "textDocument/didOpen", "params": ["textDocument": ["uri": .string(small), "languageId": "fmplay", "version": 1, "text": "#Playground {\n    print(1)\n}\n"]]],
        ])
        XCTAssertEqual(published(harness, small).count, 1)
        XCTAssertEqual(published(harness, big).count, 0)
        // A request about the large document waits for its analysis; one about the small one does not.
        harness.feed([["jsonrpc": "2.0", "id": 7, "method": "textDocument/documentSymbol", "params": ServerHarness.document(big)]])
        XCTAssertFalse(harness.sent.contains { if case .response(.number(7)?, _) = $0 { true } else { false } })
        XCTAssertEqual(harness.request("textDocument/codeLens", ServerHarness.document(small)).arrayValue?.count, 1)

        pump(harness) { !published(harness, big).isEmpty }
        XCTAssertEqual(published(harness, big).last?["version"], 1)
        let symbols = harness.sent.compactMap { message -> JSONValue? in
            if case .response(.number(7)?, .success(let value)) = message { return value }
            return nil
        }
        XCTAssertEqual(symbols.count, 1)
        XCTAssertGreaterThan(symbols.first?.arrayValue?.count ?? 0, 500)
        // Now current: requests are answered at once.
        XCTAssertEqual(harness.request("textDocument/codeLens", ServerHarness.document(big)).arrayValue?.count, 1)
    }

    func testAnEditStopsTheAnalysisOfTheOldText() throws {
        let harness = ServerHarness()
        harness.initialize(options: ["evaluate": "manual"])
        harness.open(big, largeText(bytes: 60_000, marker: "a"))
        let first = try XCTUnwrap(harness.server.backgroundAnalyses[big])
        // Replaced before its analysis was handled: the old analysis is told to stop; the new one
        // starts once the old one has stopped (one analysis per document at a time).
        harness.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(big), "version": 2], "contentChanges": [["text": .string(largeText(bytes: 60_000, marker: "b"))]],
        ])
        XCTAssertTrue(first.isStopped)
        XCTAssertTrue(harness.server.backgroundAnalyses[big] === first)
        // A parked request cancelled by the client is answered with RequestCancelled.
        harness.feed([["jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": ServerHarness.at(big, 0, 5)]])
        harness.notify("$/cancelRequest", ["id": 9])
        XCTAssertTrue(harness.sent.contains { if case .response(.number(9)?, .failure(let error)) = $0 { error.code == -32800 } else { false } })

        pump(harness) { !published(harness, big).isEmpty }
        XCTAssertEqual(published(harness, big).map { $0["version"] }, [2], "only the current text's diagnostics are published")
        XCTAssertTrue(harness.server.backgroundAnalyses.isEmpty)
    }

    func testClosingADocumentAnswersItsWaitingRequests() {
        let harness = ServerHarness()
        harness.initialize(options: ["evaluate": "manual"])
        harness.open(big, largeText(bytes: 40_000))
        harness.feed([["jsonrpc": "2.0", "id": 11, "method": "textDocument/documentSymbol", "params": ServerHarness.document(big)]])
        harness.notify("textDocument/didClose", ServerHarness.document(big))
        XCTAssertTrue(harness.sent.contains { if case .response(.number(11)?, .failure(let error)) = $0 { error.code == -32602 } else { false } })
        pump(harness, timeout: 30) { harness.server.backgroundAnalyses.isEmpty }
    }
}

/// Evaluation runs in a supervised worker process: when the worker dies, the block reports
/// "evaluation crashed" with the signal, the server keeps serving, and the next run gets a new worker.
final class WorkerIsolationTests: XCTestCase {
    private let uri = "file:///projects/isolation.fmplay"

    /// The processes whose parent is `parent` (from /proc).
    private func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == parent
        }
    }

    func testKilledWorkerIsReportedAndTheServerKeepsServing() throws {
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-lsp-isolation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let client = try ProcessClient(environment: ["FMPLAY_BACKEND": "scripted", "XDG_CACHE_HOME": cacheDirectory.path])
        _ = try client.request("initialize", ["capabilities": [:], "initializationOptions": ["evaluate": "manual"]])
        client.notify("initialized", [:])
        let text = """
            #Playground {
                print("started")
                var total = 0
                for i in 0..<1_000_000_000 { total = total + i % 7 }
                print(total)
            }

            #Playground {
                print("second")
            }

            """
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(text)]])
        _ = try client.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(uri), "line": 0]]])
        // The block runs in the worker: its first print arrives, then the loop keeps it busy.
        _ = try client.wait(timeout: 60) { message in
            message["method"] == "fmplay/results"
                && (message["params"]?["results"]?.arrayValue ?? []).contains { $0["hint"]?.stringValue?.contains("started") ?? false }
        }
        let workers = children(of: client.process.processIdentifier)
        XCTAssertEqual(workers.count, 1, "one worker process: \(workers)")
        let worker = try XCTUnwrap(workers.first)
        XCTAssertEqual(kill(worker, SIGKILL), 0)

        let crashed = try client.wait(timeout: 30) { message in
            message["method"] == "textDocument/publishDiagnostics"
                && (message["params"]?["diagnostics"]?.arrayValue ?? []).contains { $0["message"]?.stringValue?.contains("evaluation crashed") ?? false }
        }
        let message = crashed["params"]?["diagnostics"]?.arrayValue?.first { $0["code"] == "evaluation" }?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("signal 9 (SIGKILL)"), message)
        XCTAssertEqual(crashed["params"]?["diagnostics"]?.arrayValue?.first?["range"]?["start"]?["line"], 0)

        // Still serving, and the next run gets a new worker.
        XCTAssertEqual(try client.request("textDocument/codeLens", ServerHarness.document(uri)).arrayValue?.isEmpty, false)
        _ = try client.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(uri), "line": 7]]])
        _ = try client.wait(timeout: 60) { message in
            message["method"] == "fmplay/results"
                && (message["params"]?["results"]?.arrayValue ?? []).contains { $0["hint"]?.stringValue?.contains("second") ?? false }
        }
        let next = children(of: client.process.processIdentifier)
        XCTAssertEqual(next.count, 1)
        XCTAssertNotEqual(next.first, worker)

        XCTAssertEqual(try client.request("shutdown", .null), .null)
        client.notify("exit", .null)
        XCTAssertEqual(client.exitCode(), 0)
    }
}
