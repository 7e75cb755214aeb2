import Foundation
import JSON
@testable import LanguageServer
import PlaygroundEvaluator
import PlaygroundResults
import XCTest

/// `fmplay.openReport`: the report of the document's last results, written to the cache directory.
final class OpenReportTests: XCTestCase {
    /// Answers every call with a hostile text and records the evaluator's full result, as `EvaluatorRunner` does.
    struct RecordingRunner: PlaygroundRunner {
        static let answer = "<script>alert('x')</script> \"quoted\""

        func run(_ request: BlockRunRequest, report: @escaping @Sendable (BlockEvent) -> Void) async -> BlockOutcome {
            for call in request.block.calls {
                var result = CallResult(range: call.range.offsets, kind: .response, content: .string(Self.answer), promptTokens: 10, responseTokens: 3)
                result.record = EvaluationResult(
                    kind: .response, line: call.range.start.line, column: call.range.start.column, endLine: call.range.end.line,
                    endColumn: call.range.end.column, content: .string(Self.answer), text: Self.answer,
                    usage: .init(promptTokens: 10, cachedTokens: 0, responseTokens: 3, reasoningTokens: 0))
                report(.result(result))
            }
            return BlockOutcome()
        }

        func clearCache() throws -> String { "cleared" }
        func tokenCount(of text: String, configuration: ServerConfiguration) -> TokenCount { .unavailable("not in this test") }
    }

    func testWritesTheReportOfTheLastResults() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-open-report-\(UUID().uuidString)").path
        let previous = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        setenv("XDG_CACHE_HOME", cache, 1)
        defer {
            if let previous { setenv("XDG_CACHE_HOME", previous, 1) } else { unsetenv("XDG_CACHE_HOME") }
            try? FileManager.default.removeItem(atPath: cache)
        }
        let harness = ServerHarness(runner: RecordingRunner())
        harness.initialize([:], options: ["evaluate": "manual"])
        harness.open(sampleURI, sampleText)
        let command: JSONValue = ["command": "fmplay.openReport", "arguments": [["uri": .string(sampleURI)]]]
        // Nothing has run yet: a clear error, not an empty page.
        guard case .failure(let error) = harness.response("workspace/executeCommand", command) else { return XCTFail("expected an error") }
        XCTAssertTrue(error.message.contains("no finished results yet; run a block first"), error.message)

        harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
        harness.runEvaluations()
        let path = try XCTUnwrap(harness.request("workspace/executeCommand", command).stringValue)
        XCTAssertEqual(path, cache + "/fmplay/reports/trip.fmplay.html")
        let html = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &quot;quoted&quot;"))
        XCTAssertFalse(html.contains(RecordingRunner.answer))
        XCTAssertTrue(html.contains("href=\"file:///projects/trip.fmplay#L"), "links go to the document's lines")
        XCTAssertTrue(html.contains("id=\"total-blocks\">2<"), "both blocks of the sample ran")
        XCTAssertTrue(LanguageServer.commands.contains("fmplay.openReport"))
    }
}
