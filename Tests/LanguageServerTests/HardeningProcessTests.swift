import Foundation
import JSON
import LanguageServer
import XCTest

/// Prompt code and protocol input that used to crash or hang `fmplay lsp`, sent to the real
/// process: after each, the server must still answer the next request.
final class HardeningProcessTests: XCTestCase {
    private let uri = "file:///projects/hardening.fmplay"

    private func start() throws -> (ProcessClient, URL) {
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-lsp-hardening-\(UUID().uuidString)")
        let client = try ProcessClient(environment: ["FMPLAY_BACKEND": "scripted", "XDG_CACHE_HOME": cacheDirectory.path])
        _ = try client.request("initialize", [
            "capabilities": ["general": ["positionEncodings": ["utf-8"]]],
            "initializationOptions": ["evaluate": "onSave"],
        ])
        client.notify("initialized", [:])
        return (client, cacheDirectory)
    }

    /// The server is alive: a request gets its answer.
    private func assertAnswers(_ client: ProcessClient, uri: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNoThrow(try client.request("textDocument/codeLens", ServerHarness.document(uri ?? self.uri)), file: file, line: line)
    }

    /// Every runtime check of the issue (and the budgets) as blocks of one document: each block fails
    /// with its error as a result, and the server keeps serving.
    func testRuntimeErrorsAreResultsAndTheServerSurvives() throws {
        let cases = [
            "let x = Int.max + 1", "let x = -Int.min", "let x = Int.min / -1", "let x = 1 % 0", "let x = [1].prefix(-1)",
            "let x = Array(repeating: 0, count: -1)", "let x = String(repeating: \"a\", count: -1)", "let x = Int(1e300)",
            "let x = Int(Double.infinity)", "let x = Array(0...Int.max)", "let x = [1][3]",
            "let o = GenerationOptions(sampling: .random(top: 1e300))", "let o = GenerationOptions(temperature: Double.nan)",
            "let s = String(repeating: \"ab\", count: 2_000_000_000)", "for _ in 0..<1_000_000_000 { print(\"x\") }",
            "var a = [1]\n    while true { a = a + a }",
        ]
        let text = cases.map { "#Playground {\n    \($0)\n    print(\"after\")\n}\n" }.joined(separator: "\n")
        let (client, cache) = try start()
        defer { try? FileManager.default.removeItem(at: cache) }
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(text)]])
        client.notify("textDocument/didSave", ServerHarness.document(uri))
        let done = try client.wait(timeout: 120) { message in
            let blocks = message["params"]?["blocks"]?.arrayValue ?? []
            return message["method"] == "fmplay/results" && blocks.count == cases.count && blocks.allSatisfy { $0["status"] == "failed" }
        }
        // Each block's summary is its runtime error.
        for block in done["params"]?["blocks"]?.arrayValue ?? [] {
            XCTAssertTrue(block["summary"]?.stringValue?.hasPrefix("✗ ") ?? false, "\(block)")
        }
        assertAnswers(client)
        XCTAssertEqual(try client.request("shutdown", .null), .null)
    }

    /// Deep nesting is one FM003 diagnostic, never a stack overflow.
    func testDeepNestingIsADiagnostic() throws {
        let (client, cache) = try start()
        defer { try? FileManager.default.removeItem(at: cache) }
        let documents = [
            "#Playground {\n    let x = " + String(repeating: "true ? 1 : ", count: 2000) + "0\n    print(x)\n}\n",
            "#Playground {\n    let x = \"a\"" + String(repeating: ".uppercased()", count: 5000) + "\n    print(x)\n}\n",
            "#Playground {\n    let x = " + String(repeating: "1 + ", count: 20000) + "0\n}\n",
            "struct A {\n    let x: Int" + String(repeating: "?", count: 3000) + "\n}\n",
            "#Playground {\n    let x = \"" + String(repeating: "\\(\"", count: 10000) + "x" + String(repeating: "\")", count: 10000) + "\"\n}\n",
        ]
        for (index, text) in documents.enumerated() {
            let uri = "file:///projects/deep-\(index).fmplay"
            client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(text)]])
            let published = try client.wait(timeout: 60) { $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["uri"] == .string(uri) }
            let codes = published["params"]?["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
            XCTAssertTrue(codes.contains("FM003"), "document \(index): \(codes)")
            assertAnswers(client, uri: uri)
        }
    }

    /// A 5 MB document is one FM002 (over the 4 MB limit for prompt files), not seconds of analysis
    /// on the message loop; a small document opened after it still gets its diagnostics.
    func testLargeDocumentIsRefused() throws {
        let (client, cache) = try start()
        defer { try? FileManager.default.removeItem(at: cache) }
        let line = "let constant = \"" + String(repeating: "x", count: 80) + "\"\n"
        let big = String(repeating: line, count: (5 << 20) / line.utf8.count + 1)
        client.notify("textDocument/didOpen", ["textDocument": ["uri": "file:///projects/big.fmplay", "languageId": "fmplay", "version": 1, "text": .string(big)]])
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": "#Playground {\n    print(1)\n}\n"]])
        let published = try client.wait(timeout: 60) { $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["uri"] == "file:///projects/big.fmplay" }
        let codes = published["params"]?["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        XCTAssertEqual(codes, ["FM002"])
        _ = try client.wait(timeout: 60) { $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["uri"] == .string(self.uri) }
        assertAnswers(client)
    }

    /// Positions and command arguments far out of range, a `null` body, an oversize frame.
    func testMalformedInputGetsErrorsWithTheRightCodes() throws {
        let (client, cache) = try start()
        defer { try? FileManager.default.removeItem(at: cache) }
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": "#Playground {\n    print(1)\n}\n"]])
        XCTAssertThrowsError(try client.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(uri), "line": .int(Int.max)]]])) {
            XCTAssertEqual(($0 as? ProcessClient.ResponseFailure)?.code, -32602)
        }
        XCTAssertThrowsError(try client.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [.string(uri), .int(Int.max)]])) {
            XCTAssertEqual(($0 as? ProcessClient.ResponseFailure)?.code, -32602)
        }
        _ = try client.request("textDocument/hover", ServerHarness.at(uri, Int.max, Int.max))
        _ = try client.request("textDocument/hover", ServerHarness.at(uri, 1, Int.max))
        _ = try client.request("textDocument/completion", ServerHarness.at(uri, 0, Int.max))
        _ = try client.request("textDocument/inlayHint", [
            "textDocument": ["uri": .string(uri)], "range": ["start": ServerHarness.position(Int.max, Int.max), "end": ServerHarness.position(Int.max, Int.max)],
        ])

        client.sendRaw(MessageFramer.frame(Array("null".utf8)))
        _ = try client.wait { $0["error"]?["code"] == -32600 && $0["id"] == .null }

        // Over the 64 MB default: refused with an error for its id, then the next message is read.
        let padding = String(repeating: " ", count: (64 << 20) + 16)
        client.sendRaw(MessageFramer.frame(Array("{\"jsonrpc\":\"2.0\",\"id\":777,\"method\":\"textDocument/hover\",\"params\":{}\(padding)}".utf8)))
        let refused = try client.wait(timeout: 60) { $0["id"] == 777 }
        XCTAssertEqual(refused["error"]?["code"], -32600)
        XCTAssertTrue(refused["error"]?["message"]?.stringValue?.contains("size limit") ?? false, "\(refused)")
        XCTAssertFalse(client.all("window/showMessage").isEmpty)
        assertAnswers(client)
        XCTAssertEqual(try client.request("shutdown", .null), .null)
    }
}
