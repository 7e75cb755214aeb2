import Foundation
import JSON
@testable import LanguageServer
import PromptLanguage
import XCTest

/// Transport, JSON-RPC and lifecycle, in process.
final class ProtocolTests: XCTestCase {
    func testRequestBeforeInitializeIsServerNotInitialized() {
        let harness = ServerHarness()
        XCTAssertEqual(harness.response("textDocument/hover", ServerHarness.at("file:///a.fmplay", 0, 0)).errorCode, -32002)
        // Notifications before initialize are dropped, not answered.
        harness.open("file:///a.fmplay", "let x = 1")
        XCTAssertTrue(harness.notifications("textDocument/publishDiagnostics").isEmpty)
        harness.initialize()
        XCTAssertEqual(harness.response("initialize", ["capabilities": [:]]).errorCode, -32600)
    }

    func testPositionEncodingNegotiation() {
        let utf16 = ServerHarness().initialize()
        XCTAssertEqual(utf16["capabilities"]?["positionEncoding"], "utf-16")
        let utf8 = ServerHarness().initialize(["general": ["positionEncodings": ["utf-16", "utf-8"]]])
        XCTAssertEqual(utf8["capabilities"]?["positionEncoding"], "utf-8")
        let utf32Only = ServerHarness().initialize(["general": ["positionEncodings": ["utf-32"]]])
        XCTAssertEqual(utf32Only["capabilities"]?["positionEncoding"], "utf-16")
    }

    func testErrorsKeepTheServerServing() {
        let harness = ServerHarness()
        harness.initialize()
        var framer = MessageFramer()
        let events = framer.append(MessageFramer.frame(Array(#"{"jsonrpc":"2.0","id":1,"method":"#.utf8)))
            + framer.append(MessageFramer.frame([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]))  // invalid UTF-8
            + framer.append(MessageFramer.frame(Array("[1,2]".utf8)))
        harness.server.handle(events.map { .framed($0) })
        harness.settle()
        let errors = harness.sent.compactMap { message -> Int? in
            if case .response(nil, .failure(let error)) = message { return error.code }
            return nil
        }
        XCTAssertEqual(errors, [-32700, -32700, -32600])
        XCTAssertEqual(harness.response("fmplay/unknown", [:]).errorCode, -32601)
        let invalid = harness.response("textDocument/hover", ["textDocument": ["uri": 5], "position": ServerHarness.position(0, 0)])
        XCTAssertEqual(invalid.errorCode, -32602)
        XCTAssertEqual(invalid.errorMessage, "invalid params: textDocument.uri: expected String, found number 5")
        XCTAssertEqual(harness.response("textDocument/hover", ServerHarness.at("file:///missing.fmplay", 0, 0)).errorCode, -32602)
        // Still serving.
        XCTAssertEqual(harness.request("shutdown", .null), .null)
    }

    func testExitCodes() {
        let clean = ServerHarness()
        clean.initialize()
        clean.request("shutdown", .null)
        XCTAssertEqual(clean.response("textDocument/hover", ServerHarness.at("file:///a", 0, 0)).errorCode, -32600)
        clean.notify("exit", .null)
        XCTAssertEqual(clean.server.exitCode, 0)

        let abrupt = ServerHarness()
        abrupt.initialize()
        abrupt.notify("exit", .null)
        XCTAssertEqual(abrupt.server.exitCode, 1)

        let endOfInput = ServerHarness()
        endOfInput.initialize()
        endOfInput.server.handle([.endOfInput])
        XCTAssertEqual(endOfInput.server.exitCode, 0)
    }

    func testCancelRequestInTheSameBatchCancels() {
        let harness = ServerHarness()
        harness.initialize()
        harness.open("file:///a.fmplay", "let x = 1\n")
        harness.feed([
            ["jsonrpc": "2.0", "id": 7, "method": "textDocument/documentSymbol", "params": ServerHarness.document("file:///a.fmplay")],
            ["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": 7]],
        ])
        XCTAssertTrue(harness.sent.contains { if case .response(.number(7), .failure(let e)) = $0 { e.code == -32800 } else { false } })
    }

    func testLogAndShowMessagesForBadSettings() {
        let harness = ServerHarness()
        harness.initialize([:], options: ["evaluate": "sometimes", "hintLength": 30, "fmplay": nil])
        XCTAssertEqual(harness.server.configuration.hintLength, 30)
        let shown = harness.notifications("window/showMessage").compactMap { $0["message"]?.stringValue }
        XCTAssertTrue(shown.contains { $0.contains("setting evaluate must be") }, "\(shown)")
        harness.notify("workspace/didChangeConfiguration", ["settings": ["fmplay": ["evaluate": "manual", "maxTokens": 64]]])
        XCTAssertEqual(harness.server.configuration.evaluate, .manual)
        XCTAssertEqual(harness.server.configuration.maximumTokens, 64)
        // Limits and the time-out: in range or refused by name (NaN cannot arrive in JSON; 1e300 can).
        harness.notify("workspace/didChangeConfiguration", ["settings": ["timeoutSeconds": 1e300, "memoryLimitMB": 0, "elementLimit": 5000, "outputLimitMB": 2]])
        XCTAssertNil(harness.server.configuration.timeoutSeconds)
        XCTAssertNil(harness.server.configuration.memoryLimitMB)
        XCTAssertEqual(harness.server.configuration.elementLimit, 5000)
        XCTAssertEqual(harness.server.configuration.outputLimitMB, 2)
        let refused = harness.notifications("window/showMessage").compactMap { $0["message"]?.stringValue }
        XCTAssertTrue(refused.contains { $0.contains("setting timeoutSeconds must be") }, "\(refused)")
        XCTAssertTrue(refused.contains { $0.contains("setting memoryLimitMB must be an integer from 1 to 1048576") }, "\(refused)")
        harness.notify("workspace/didChangeConfiguration", ["settings": ["timeoutSeconds": 30]])
        XCTAssertEqual(harness.server.configuration.timeoutSeconds, 30)
        // An edit to a document that is not open is logged, not answered.
        harness.notify("textDocument/didChange", ["textDocument": ["uri": "file:///nope", "version": 2], "contentChanges": [["text": "x"]]])
        XCTAssertTrue(harness.notifications("window/logMessage").contains { $0["message"]?.stringValue?.contains("not open") ?? false })
    }
}

final class FramingTests: XCTestCase {
    func testSplitsMessagesAcrossArbitraryChunks() {
        let bodies = [#"{"a":1}"#, #"{"b":"☕"}"#, "{}"].map { Array($0.utf8) }
        let stream = bodies.flatMap { MessageFramer.frame($0) }
        for chunkSize in [1, 2, 3, 7, 1000] {
            var framer = MessageFramer()
            var items: [MessageFramer.Item] = []
            var index = 0
            while index < stream.count {
                items += framer.append(stream[index..<min(stream.count, index + chunkSize)])
                index += chunkSize
            }
            XCTAssertEqual(items, bodies.map { .message($0) }, "chunk size \(chunkSize)")
            XCTAssertNil(framer.finish())
        }
    }

    func testHeadersAreCaseInsensitiveAndMayUseBareNewlines() {
        var framer = MessageFramer()
        let items = framer.append(Array("content-length: 2\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n{}".utf8))
        XCTAssertEqual(items, [.message(Array("{}".utf8))])
    }

    func testGarbageAndBadLengthsResynchronize() {
        var framer = MessageFramer()
        let good = MessageFramer.frame(Array(#"{"ok":true}"#.utf8))
        let stream = Array("garbage without headers}".utf8) + good
            + Array("Content-Length: nope\r\n\r\n".utf8) + good
            + Array("X-Other: 1\r\n\r\n".utf8) + good
        let items = framer.append(stream)
        let messages = items.filter { if case .message = $0 { true } else { false } }
        let problems = items.filter { if case .malformed = $0 { true } else { false } }
        XCTAssertEqual(messages.count, 3)
        XCTAssertEqual(problems.count, 3, "\(items)")
    }

    func testOversizeMessageIsSkipped() {
        var framer = MessageFramer(maximumMessageSize: 16)
        let big = MessageFramer.frame(Array(repeating: UInt8(ascii: "x"), count: 100))
        let small = MessageFramer.frame(Array("{}".utf8))
        var items = framer.append(big[0..<50])
        items += framer.append(big[50...] + small)
        XCTAssertEqual(items.count, 2)
        // Reported with the first bytes of its body (up to 4096), so the server can answer its id.
        XCTAssertEqual(items[0], .oversized(length: 100, prefix: Array(repeating: UInt8(ascii: "x"), count: 100)))
        XCTAssertEqual(items[1], .message(Array("{}".utf8)))
    }

    /// An oversize request is refused with -32600 for its id (read from its first bytes), not dropped.
    func testOversizeRequestIdIsFound() {
        var framer = MessageFramer(maximumMessageSize: 1024)
        let body = Array(#"{"jsonrpc":"2.0","id":42,"method":"textDocument/hover","params":{"x":""#.utf8)
            + Array(repeating: UInt8(ascii: "y"), count: 10_000) + Array(#""}}"#.utf8)
        var items: [MessageFramer.Item] = []
        for chunk in MessageFramer.frame(body).chunked(by: 700) { items += framer.append(chunk) }
        guard case .oversized(let length, let prefix)? = items.first else { return XCTFail("\(items)") }
        XCTAssertEqual(length, body.count)
        XCTAssertEqual(prefix.count, MessageFramer.oversizedPrefixLength)
        XCTAssertEqual(RequestID.scan(prefix), .number(42))
        XCTAssertEqual(RequestID.scan(Array(#"{"id" : "abc","method":"x""#.utf8)), .string("abc"))
        XCTAssertNil(RequestID.scan(Array(#"{"method":"x""#.utf8)))
        // A declared length far over the limit, then end of input: reported once, no trap.
        var huge = MessageFramer(maximumMessageSize: 1024)
        let hugeItems = huge.append(Array("Content-Length: 9223372036854775807\r\n\r\n{\"id\":5".utf8))
        XCTAssertEqual(hugeItems, [])
        guard case .oversized(_, let tail)? = huge.finish() else { return XCTFail("no report at the end") }
        XCTAssertEqual(RequestID.scan(tail), .number(5))
    }

    func testTruncatedInputIsReportedAtTheEnd() {
        var framer = MessageFramer()
        XCTAssertEqual(framer.append(Array("Content-Length: 10\r\n\r\n{}".utf8)), [])
        XCTAssertNotNil(framer.finish())
    }

    /// Random and mutated streams through the framer and the dispatcher: no
    /// crash, and the server still answers a valid request afterwards.
    func testFuzzedStreamsNeverBreakTheServer() {
        var generator = SplitMix64(seed: 0xF0_0D)
        let valid: [JSONValue] = [
            ["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": [:]]],
            ["jsonrpc": "2.0", "method": "textDocument/didOpen", "params": ["textDocument": [
                "uri": "file:///f.fmplay", "languageId": "fmplay", "version": 1, "text": "#Playground {\n let s = 1\n}\n",
            ]]],
            ["jsonrpc": "2.0", "method": "textDocument/didChange", "params": [
                "textDocument": ["uri": "file:///f.fmplay", "version": 2],
                "contentChanges": [["range": ["start": ["line": 1, "character": 2], "end": ["line": 9, "character": 99]], "text": "é😀\r\n"]],
            ]],
            ["jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": ServerHarness.at("file:///f.fmplay", 1, 3)],
            ["jsonrpc": "2.0", "id": 3, "method": "textDocument/completion", "params": ServerHarness.at("file:///f.fmplay", 0, 40)],
            ["jsonrpc": "2.0", "id": 4, "method": "textDocument/inlayHint", "params": [
                "textDocument": ["uri": "file:///f.fmplay"], "range": ["start": ["line": 0, "character": 0], "end": ["line": 99, "character": 0]],
            ]],
            ["jsonrpc": "2.0", "id": 5, "method": "workspace/executeCommand", "params": ["command": "fmplay.run", "arguments": [["uri": "file:///f.fmplay", "line": 0]]]],
        ]
        let validStream = valid.flatMap { MessageFramer.frame($0.serializedBytes()) }
        for round in 0..<200 {
            var stream = validStream
            switch round % 4 {
            case 0:  // flip random bytes
                for _ in 0..<Int(generator.next() % 20 + 1) {
                    let index = Int(generator.next() % UInt64(stream.count))
                    stream[index] = UInt8(truncatingIfNeeded: generator.next())
                }
            case 1:  // delete a random range
                let start = Int(generator.next() % UInt64(stream.count))
                let length = Int(generator.next() % 64)
                stream.removeSubrange(start..<min(stream.count, start + length))
            case 2:  // insert random bytes
                let insert = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                stream.insert(contentsOf: insert, at: Int(generator.next() % UInt64(stream.count)))
            default:  // pure noise
                stream = (0..<Int(generator.next() % 512)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            }
            let harness = ServerHarness()
            var framer = MessageFramer(maximumMessageSize: 4096)
            var index = 0
            while index < stream.count {
                let size = Int(generator.next() % 97 + 1)
                let items = framer.append(stream[index..<min(stream.count, index + size)])
                harness.server.handle(items.map { .framed($0) })
                harness.settle()
                index += size
            }
            if let last = framer.finish() { harness.server.handle([.framed(last)]) }
            harness.server.evaluation.cancelAll()
            // The server still answers (initialize may or may not have survived the mutation).
            guard harness.server.exitCode == nil else { continue }
            let answer = harness.response("fmplay/ping", [:])
            XCTAssertNotNil(answer.errorCode, "round \(round)")
        }
    }
}

/// A small deterministic generator for the fuzz test.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Result where Success == JSONValue, Failure == ResponseError {
    var errorCode: Int? { if case .failure(let error) = self { error.code } else { nil } }
    var errorMessage: String? { if case .failure(let error) = self { error.message } else { nil } }
}

final class PositionEncodingTests: XCTestCase {
    // "a😀é" : a = 1 byte, 😀 = 4 bytes (2 UTF-16 units), é = 2 bytes.
    let table = SourceText("a😀é\r\nx\ry\nlast")

    func testOffsetsToPositions() {
        XCTAssertEqual(table.lineCount, 4)
        XCTAssertEqual(table.position(of: 5, in: .utf16), LSPPosition(line: 0, character: 3))
        XCTAssertEqual(table.position(of: 5, in: .utf8), LSPPosition(line: 0, character: 5))
        XCTAssertEqual(table.position(of: 5, in: .utf32), LSPPosition(line: 0, character: 2))
        XCTAssertEqual(table.position(of: 9, in: .utf16), LSPPosition(line: 1, character: 0))  // after \r\n
        XCTAssertEqual(table.position(of: 11, in: .utf16), LSPPosition(line: 2, character: 0))  // after a bare \r
        XCTAssertEqual(table.position(of: 1000, in: .utf16), LSPPosition(line: 3, character: 4))
    }

    func testPositionsToOffsetsClampAndRoundDown() {
        XCTAssertEqual(table.offset(of: LSPPosition(line: 0, character: 3), in: .utf16), 5)
        XCTAssertEqual(table.offset(of: LSPPosition(line: 0, character: 2), in: .utf16), 1)  // inside the surrogate pair
        XCTAssertEqual(table.offset(of: LSPPosition(line: 0, character: 99), in: .utf16), 7)  // end of line, before \r\n
        XCTAssertEqual(table.offset(of: LSPPosition(line: 0, character: 3), in: .utf8), 1)  // inside 😀's bytes
        XCTAssertEqual(table.offset(of: LSPPosition(line: 9, character: 0), in: .utf16), table.bytes.count)
        XCTAssertEqual(table.offset(of: LSPPosition(line: -1, character: 5), in: .utf16), 0)
        for offset in [0, 1, 5, 7, 9, 11, 13, 17] {
            XCTAssertEqual(table.offset(of: table.position(of: offset, in: .utf16), in: .utf16), offset)
        }
    }

    /// One position table: `\r\n` and a lone `\r` end lines for the command line (`fmplay lint` prints
    /// `range.start.line`) and for the language server's positions alike (swift-syntax agrees:
    /// `SourceTextTests`).
    func testCommandLineAndLanguageServerCountLineEndsAlike() throws {
        let text = "import FoundationModels\r\n\r\nlet a = 1\rlet b = 2\n\r\nlet broken = [1, 2\r\n#Playground {\r    print(a)\r}\r"
        let analysis = PromptAnalyzer.analyze(text)
        let diagnostic = try XCTUnwrap(analysis.diagnostics.first { $0.code.rawValue == "FM001" })
        XCTAssertEqual(diagnostic.range.start.line, 6, "line 6: 'let broken' after \\r\\n, \\r\\n, \\r, \\n, \\r\\n")
        XCTAssertEqual(analysis.file.playgrounds.first?.range.start.line, 7)
        XCTAssertEqual(analysis.file.source.lineText(4), "let b = 2")

        let harness = ServerHarness()
        harness.initialize(["general": ["positionEncodings": ["utf-16"]]])
        harness.open(sampleURI, text)
        let published = try XCTUnwrap(harness.notifications("textDocument/publishDiagnostics").last?["diagnostics"]?.arrayValue)
        let lsp = try XCTUnwrap(published.first { $0["code"]?.stringValue == "FM001" })
        XCTAssertEqual(lsp["range"]?["start"]?["line"]?.intValue, diagnostic.range.start.line - 1)
        XCTAssertEqual(lsp["range"]?["start"]?["character"]?.intValue, diagnostic.range.start.column - 1)
    }

    func testIncrementalChangesApplyInOrder() {
        var document = TextDocument(uri: "u", languageID: "fmplay", version: 1, text: "let a = \"😀\"\nlet b = 2\n")
        document.apply([
            TextDocument.Change(range: LSPRange(start: LSPPosition(line: 0, character: 9), end: LSPPosition(line: 0, character: 11)), text: "é"),
            TextDocument.Change(range: LSPRange(start: LSPPosition(line: 1, character: 8), end: LSPPosition(line: 1, character: 9)), text: "3"),
        ], version: 2, encoding: .utf16)
        XCTAssertEqual(document.text, "let a = \"é\"\nlet b = 3\n")
        XCTAssertEqual(document.version, 2)
        document.apply([TextDocument.Change(text: "new")], version: 3, encoding: .utf16)
        XCTAssertEqual(document.text, "new")
    }
}

extension Array {
    fileprivate func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
