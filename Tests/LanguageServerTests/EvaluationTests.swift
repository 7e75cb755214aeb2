import Foundation
import JSON
@testable import LanguageServer
import XCTest

/// Background evaluation through the scripted runner: results, hints, lenses,
/// refresh throttling, cancellation and staleness.
final class EvaluationTests: XCTestCase {
    private func start(_ runner: ScriptedRunner = ScriptedRunner(), text: String = sampleText, options: JSONValue = ["evaluate": "manual"]) -> ServerHarness {
        let harness = ServerHarness(runner: runner)
        harness.initialize([
            "workspace": ["inlayHint": ["refreshSupport": true], "codeLens": ["refreshSupport": true]],
            "window": ["workDoneProgress": true],
        ], options: options)
        harness.open(sampleURI, text)
        return harness
    }

    private func hints(_ harness: ServerHarness) -> [String] {
        harness.request("textDocument/inlayHint", [
            "textDocument": ["uri": .string(sampleURI)],
            "range": ["start": ServerHarness.position(0, 0), "end": ServerHarness.position(999, 0)],
        ]).arrayValue?.compactMap { $0["label"]?.stringValue } ?? []
    }

    private func lensTitles(_ harness: ServerHarness) -> [String] {
        harness.request("textDocument/codeLens", ServerHarness.document(sampleURI)).arrayValue?.compactMap { $0["command"]?["title"]?.stringValue } ?? []
    }

    func testRunAllShowsHintsLensesHoverAndResults() throws {
        let harness = start()
        XCTAssertEqual(lensTitles(harness), ["▶ Run", "▶ Run"])
        harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
        harness.runEvaluations()
        XCTAssertEqual(hints(harness), [#"→ "scripted 0-1 0-2 0-3""#, #"→ "scripted 0-1 0-2 0-3""#])
        let lenses = lensTitles(harness)
        XCTAssertEqual(lenses.count, 4)
        XCTAssertEqual(lenses[0], "▶ Run")
        XCTAssertTrue(lenses[1].hasPrefix("✓ 1 result · ") && lenses[1].hasSuffix(" · 4 tok · 80 tok/s"), lenses[1])

        let results = try XCTUnwrap(harness.notifications("fmplay/results").last)
        XCTAssertEqual(results["uri"]?.stringValue, sampleURI)
        XCTAssertEqual(results["results"]?[0]?["value"], "scripted 0-1 0-2 0-3")
        XCTAssertEqual(results["blocks"]?[0]?["status"], "done")
        XCTAssertEqual(results["blocks"]?[0]?["name"], "titles")

        let call = locate("session.respond(to: \"Name", in: sampleText, offset: 10)
        let hover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, call.line, call.character))
        let markdown = try XCTUnwrap(hover["contents"]?["value"]?.stringValue)
        XCTAssertTrue(markdown.contains("scripted 0-1 0-2 0-3") && markdown.contains("10 prompt tokens (4 cached)")
            && markdown.contains("first token 50 ms") && markdown.contains("80 tok/s") && markdown.contains("Transcript:"), markdown)

        // Progress: begin, (reports), end; refreshes were requested but throttled.
        let progress = harness.notifications("$/progress").compactMap { $0["value"]?["kind"]?.stringValue }
        XCTAssertEqual(progress.first, "begin")
        XCTAssertEqual(progress.last, "end")
        let refreshes = harness.requests("workspace/inlayHint/refresh").count
        XCTAssertGreaterThan(refreshes, 0)
        XCTAssertLessThan(refreshes, 16, "8 snapshots + 2 finishes arrived at once; refresh must be throttled")
    }

    func testHintLengthLoopsAndErrors() {
        var result = CallResult(range: 0..<1, iteration: 2, kind: .response, content: .string("A long title\nthat goes on and on and on"))
        XCTAssertEqual(ResultRendering.hint(result, iterations: 3, limit: 30), #"→ [3/3] "A long title that g…""#)
        result.isComplete = false
        result.iteration = 0
        XCTAssertEqual(ResultRendering.hint(result, iterations: 1, limit: 24), #"→ "A long title that…" ⋯"#)
        let structured = CallResult(range: 0..<1, kind: .response, typeName: "SearchSuggestions", content: ["searchTerms": ["a", "b", "c", "d"]])
        XCTAssertEqual(ResultRendering.hint(structured, iterations: 1, limit: 60), "→ SearchSuggestions(searchTerms: 4 items)")
    }

    func testEvaluationErrorIsADiagnosticAtTheCallAndTheLensStatus() throws {
        let text = sampleText.replacingOccurrences(of: "What is the weather in Tokyo?", with: "overflow")
        let harness = start(text: text)
        harness.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(sampleURI), "block": 1]]])
        harness.runEvaluations()
        let diagnostics = harness.notifications("textDocument/publishDiagnostics").last?["diagnostics"]?.arrayValue ?? []
        let evaluation = try XCTUnwrap(diagnostics.first { $0["code"] == "evaluation" })
        XCTAssertEqual(evaluation["range"]?["start"]?["line"], .int(locate("overflow", in: text).line))
        XCTAssertTrue(evaluation["message"]?.stringValue?.hasPrefix("exceededContextWindowSize") ?? false)
        XCTAssertEqual(lensTitles(harness), ["▶ Run", "▶ Run", "✗ exceededContextWindowSize"])
    }

    func testCancelStopsARunWithinOneToken() {
        let runner = ScriptedRunner(words: 200, delay: .milliseconds(20))
        let harness = start(runner)
        harness.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(sampleURI), "block": 0]]])
        XCTAssertEqual(lensTitles(harness).first, "■ Cancel")
        harness.server.handle(harness.queue.takeAll(until: Date(timeIntervalSinceNow: 0.15)))
        harness.request("workspace/executeCommand", ["command": "fmplay.cancel", "arguments": [["uri": .string(sampleURI), "block": 0]]])
        let cancelledAt = Date()
        harness.runEvaluations(timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 2, "a 200-word run was cancelled, so it must not run to the end")
        XCTAssertEqual(lensTitles(harness), ["▶ Run", "■ cancelled", "▶ Run"])
    }

    func testEditsCancelStaleRunsAndKeepUnchangedResults() throws {
        let runner = ScriptedRunner(words: 3)
        let harness = start(runner)
        harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
        harness.runEvaluations()
        XCTAssertEqual(runner.runs.count, 2)
        XCTAssertEqual(hints(harness).count, 2)

        // A blank line between declarations: no block's inputs change, results stay.
        harness.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(sampleURI), "version": 2],
            "contentChanges": [["range": ["start": ServerHarness.position(2, 0), "end": ServerHarness.position(2, 0)], "text": "\n"]],
        ])
        XCTAssertEqual(hints(harness).count, 2)
        harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
        harness.runEvaluations()
        XCTAssertEqual(runner.runs.count, 2, "unchanged blocks are not run again")

        // Editing the second block's prompt drops its results and reruns only it.
        let changed = locate("weather in Tokyo", in: sampleText)
        harness.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(sampleURI), "version": 3],
            "contentChanges": [["range": ["start": ServerHarness.position(changed.line + 1, changed.character + 11),
                                          "end": ServerHarness.position(changed.line + 1, changed.character + 16)], "text": "Kyoto"]],
        ])
        XCTAssertEqual(hints(harness).count, 1)
        harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
        harness.runEvaluations()
        XCTAssertEqual(runner.runs.count, 3)
        XCTAssertEqual(hints(harness).count, 2)
    }

    func testAnEditToARunningBlockCancelsIt() {
        let runner = ScriptedRunner(words: 500, delay: .milliseconds(10))
        let harness = start(runner)
        harness.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(sampleURI), "block": 0]]])
        let prompt = locate("Name a trip", in: sampleText)
        harness.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(sampleURI), "version": 2],
            "contentChanges": [["range": ["start": ServerHarness.position(prompt.line, prompt.character),
                                          "end": ServerHarness.position(prompt.line, prompt.character + 4)], "text": "Plan"]],
        ])
        let editedAt = Date()
        harness.runEvaluations(timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(editedAt), 2)
        XCTAssertEqual(lensTitles(harness), ["▶ Run", "▶ Run"], "the stale run's record is gone and nothing else ran")
    }

    func testQueueRunsWhatTheClientLooksAtFirst() {
        let runner = ScriptedRunner(words: 2)
        let harness = start(runner)
        // The client asks hints only for the second block's lines (what is on screen).
        let second = locate("#Playground {", in: sampleText)
        harness.request("textDocument/inlayHint", [
            "textDocument": ["uri": .string(sampleURI)],
            "range": ["start": ServerHarness.position(second.line, 0), "end": ServerHarness.position(second.line + 4, 0)],
        ])
        harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
        harness.runEvaluations()
        XCTAssertEqual(runner.runs.order, [1, 0])
    }

    func testOnSaveEvaluatesAndQueueFollowsTheVisibleRange() {
        let runner = ScriptedRunner(words: 2)
        let harness = start(runner, options: ["evaluate": "onSave"])
        harness.runEvaluations()
        XCTAssertEqual(runner.runs.count, 2, "opening evaluates (from the cache when possible)")
        harness.notify("textDocument/didSave", ServerHarness.document(sampleURI))
        harness.runEvaluations()
        XCTAssertEqual(runner.runs.count, 2, "saving an unchanged file runs nothing")
        XCTAssertEqual(harness.server.evaluation.isIdle, true)
    }
}
