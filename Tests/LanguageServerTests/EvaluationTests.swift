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
            "textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]],
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

    /// `fmplay.runAll` on the sample document, then waits for the runs.
    private func runAll(_ harness: ServerHarness) {
        harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
        harness.runEvaluations()
    }

    /// Replaces characters `from..<to` of a 0-based line of the sample document.
    private func replace(_ harness: ServerHarness, version: Int, line: Int, from: Int, to: Int, with text: String) {
        harness.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(sampleURI), "version": .int(version)],
            "contentChanges": [["range": ["start": ServerHarness.position(line, from), "end": ServerHarness.position(line, to)], "text": .string(text)]],
        ])
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

        // Progress waits for the client to answer window/workDoneProgress/create, then: begin, (reports), end.
        XCTAssertEqual(harness.requests("window/workDoneProgress/create").count, 2)
        XCTAssertEqual(harness.notifications("$/progress").count, 0)
        harness.answer("window/workDoneProgress/create")
        let progress = harness.notifications("$/progress").compactMap { $0["value"]?["kind"]?.stringValue }
        XCTAssertEqual(progress.first, "begin")
        XCTAssertEqual(progress.last, "end")
        let refreshes = harness.requests("workspace/inlayHint/refresh").count
        XCTAssertGreaterThan(refreshes, 0)
        XCTAssertLessThan(refreshes, 16, "8 snapshots + 2 finishes arrived at once; refresh must be throttled")
    }

    /// The server model's settings (never the API key itself), and the hover naming the model that answered.
    func testServerModelSettingsAndAnsweringModel() throws {
        var configuration = ServerConfiguration()
        XCTAssertEqual(configuration.apply(["serverURL": "http://127.0.0.1:8080/v1", "serverModel": "qwen", "serverAPIKeyFile": "/run/key"]), [])
        XCTAssertEqual(configuration.serverURL, "http://127.0.0.1:8080/v1")
        XCTAssertEqual(configuration.serverModel, "qwen")
        XCTAssertEqual(configuration.serverAPIKeyFile, "/run/key")
        XCTAssertEqual(configuration.apply(["serverURL": nil]), [])
        XCTAssertNil(configuration.serverURL)
        XCTAssertEqual(configuration.apply(["serverModel": 3]).count, 1, "a non-string is reported")
        XCTAssertFalse(configuration.apply(["serverAPIKey": "sk-secret"]).isEmpty, "the key itself is no setting")

        var result = CallResult(range: 0..<1, kind: .response, content: .string("A title"))
        result.model = "Private Cloud Compute (qwen)"
        XCTAssertTrue(ResultRendering.details(result, iterations: 1, format: .plaintext).contains("Answered by Private Cloud Compute (qwen)"))
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

    func testProfileAnswerShowsItsProfileAndWhatHappenedInOrder() {
        var result = CallResult(range: 0..<1, kind: .response, content: .string("Start with a square base."))
        result.lifecycle = ["profile CraftProfile: BrainstormInstructions", "onActivate Profile@52:13", "toolCall passBaton({\"idea\":\"crane\"})",
                            "onToolCall passBaton", "toolOutput passBaton: The baton is passed.", "profile CraftProfile: TutorialInstructions",
                            "onDeactivate Profile@52:13", "onActivate Profile@66:13"]
        // The hint names the profile that answered (the last one active).
        XCTAssertEqual(ResultRendering.hint(result, iterations: 1, limit: 80), #"→ (CraftProfile: TutorialInstructions) "Start with a square base.""#)
        let hover = ResultRendering.details(result, iterations: 1, format: .plaintext)
        let listed = hover.components(separatedBy: "\n").filter { $0.range(of: #"^[0-9]+\. "#, options: .regularExpression) != nil }
        XCTAssertEqual(listed, result.lifecycle.enumerated().map { "\($0.offset + 1). \($0.element)" }, "every event, in order")
        // Plain results have no such section.
        XCTAssertFalse(ResultRendering.details(CallResult(range: 0..<1, kind: .response, content: .string("hi")), iterations: 1, format: .plaintext)
            .contains("What happened"))
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
        runAll(harness)
        XCTAssertEqual(runner.runs.count, 2)
        XCTAssertEqual(hints(harness).count, 2)

        // A blank line between declarations: no block's inputs change, results stay.
        replace(harness, version: 2, line: 2, from: 0, to: 0, with: "\n")
        XCTAssertEqual(hints(harness).count, 2)
        runAll(harness)
        XCTAssertEqual(runner.runs.count, 2, "unchanged blocks are not run again")

        // Editing the second block's prompt drops its results and reruns only it.
        let changed = locate("weather in Tokyo", in: sampleText)
        replace(harness, version: 3, line: changed.line + 1, from: changed.character + 11, to: changed.character + 16, with: "Kyoto")
        XCTAssertEqual(hints(harness).count, 1)
        runAll(harness)
        XCTAssertEqual(runner.runs.count, 3)
        XCTAssertEqual(hints(harness).count, 2)
    }

    /// One fingerprint: a block's results belong to its text and the declarations it uses. Editing a
    /// declaration no block uses keeps every result; editing one a block uses drops that block's
    /// results only, and only that block runs again.
    func testEditingADeclarationInvalidatesOnlyTheBlocksThatUseIt() throws {
        let runner = ScriptedRunner(words: 3)
        let harness = start(runner)
        runAll(harness)
        XCTAssertEqual(runner.runs.count, 2)
        let before = hints(harness)
        XCTAssertEqual(before.count, 2)

        // `cities` is used by no block: results stay where their calls are now, nothing runs again.
        let cities = locate("\"Kyoto\"]", in: sampleText)
        replace(harness, version: 2, line: cities.line, from: cities.character, to: cities.character + 8, with: "\"Kyoto\", \"Osaka\",\n    \"Nara\"]")
        XCTAssertEqual(hints(harness), before)
        let calls = harness.request("textDocument/inlayHint", [
            "textDocument": ["uri": .string(sampleURI)],
            "range": ["start": ServerHarness.position(0, 0), "end": ServerHarness.position(999, 0)],
        ]).arrayValue?.compactMap { $0["position"]?["line"]?.intValue } ?? []
        let edited = sampleText.replacingOccurrences(of: "\"Kyoto\"]", with: "\"Kyoto\", \"Osaka\",\n    \"Nara\"]")
        XCTAssertEqual(calls, [locate("session.respond(to: \"Name", in: edited).line, locate("session.respond(to: \"What", in: edited).line],
                       "the hints moved down with their calls")
        runAll(harness)
        XCTAssertEqual(runner.runs.count, 2, "no block uses cities: nothing runs again")

        // `TripTitle` is used by the first block only: its results go, the second block's stay.
        let guide = locate("A catchy title", in: edited)
        replace(harness, version: 3, line: guide.line, from: guide.character + 2, to: guide.character + 8, with: "short")
        XCTAssertEqual(hints(harness).count, 1)
        runAll(harness)
        XCTAssertEqual(runner.runs.order, [0, 1, 0], "only the block using TripTitle ran again")
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

/// Work-done progress and pulled configuration: the server waits for the client's answers.
final class ClientRequestTests: XCTestCase {
    func testProgressBeginsOnlyAfterTheClientCreatedTheToken() throws {
        let harness = ServerHarness(runner: ScriptedRunner())
        harness.initialize(["window": ["workDoneProgress": true]], options: ["evaluate": "manual"])
        harness.open(sampleURI, sampleText)
        harness.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(sampleURI), "block": 0]]])
        let token = try XCTUnwrap(harness.requests("window/workDoneProgress/create").first?["token"])
        XCTAssertEqual(harness.notifications("$/progress").count, 0, "no $/progress before the client answers create")
        harness.answer("window/workDoneProgress/create")
        harness.runEvaluations()
        let progress = harness.notifications("$/progress")
        XCTAssertEqual(progress.first?["value"]?["kind"], "begin")
        XCTAssertEqual(progress.last?["value"]?["kind"], "end")
        XCTAssertTrue(progress.allSatisfy { $0["token"] == token })
    }

    func testProgressEndedBeforeTheAnswerIsSentInOrderAndARefusalSendsNothing() {
        let harness = ServerHarness(runner: ScriptedRunner())
        harness.initialize(["window": ["workDoneProgress": true]], options: ["evaluate": "manual"])
        harness.open(sampleURI, sampleText)
        harness.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(sampleURI), "block": 0]]])
        harness.runEvaluations()
        XCTAssertEqual(harness.notifications("$/progress").count, 0)
        harness.answer("window/workDoneProgress/create")
        XCTAssertEqual(harness.notifications("$/progress").compactMap { $0["value"]?["kind"]?.stringValue }.filter { $0 != "report" }, ["begin", "end"])

        let refused = ServerHarness(runner: ScriptedRunner())
        refused.initialize(["window": ["workDoneProgress": true]], options: ["evaluate": "manual"])
        refused.open(sampleURI, sampleText)
        refused.request("workspace/executeCommand", ["command": "fmplay.run", "arguments": [["uri": .string(sampleURI), "block": 0]]])
        refused.answer("window/workDoneProgress/create", error: (code: -32603, message: "no progress here"))
        refused.runEvaluations()
        XCTAssertEqual(refused.notifications("$/progress").count, 0)
    }

    func testConfigurationIsPulledWhenTheClientSupportsIt() {
        let harness = ServerHarness(runner: ScriptedRunner())
        harness.initialize(["workspace": ["configuration": true]], options: ["evaluate": "manual"])
        let pulls = harness.requests("workspace/configuration")
        XCTAssertEqual(pulls.count, 1)
        XCTAssertEqual(pulls.first?["items"]?[0]?["section"], "fmplay")
        harness.answer("workspace/configuration", result: [["hintLength": 20, "maxTokens": 32]])
        XCTAssertEqual(harness.server.configuration.hintLength, 20)
        XCTAssertEqual(harness.server.configuration.maximumTokens, 32)
        XCTAssertEqual(harness.server.configuration.evaluate, .manual, "initializationOptions still apply")

        // A bare change notification (pull model) asks again; pushed settings apply directly.
        harness.notify("workspace/didChangeConfiguration", ["settings": nil])
        XCTAssertEqual(harness.requests("workspace/configuration").count, 2)
        harness.answer("workspace/configuration", result: [["hintLength": 50]])
        XCTAssertEqual(harness.server.configuration.hintLength, 50)
        harness.notify("workspace/didChangeConfiguration", ["settings": ["fmplay": ["hintLength": 60]]])
        XCTAssertEqual(harness.requests("workspace/configuration").count, 2)
        XCTAssertEqual(harness.server.configuration.hintLength, 60)

        // Clients without the capability are never asked.
        let plain = ServerHarness(runner: ScriptedRunner())
        plain.initialize([:])
        plain.notify("workspace/didChangeConfiguration", ["settings": nil])
        XCTAssertEqual(plain.requests("workspace/configuration").count, 0)
    }

    /// Hovers and hint tooltips come in the format the client asked for: Markdown only when
    /// `textDocument.hover.contentFormat` prefers it; plain text (no `**`, no fences) for
    /// clients that ask for `plaintext` only (ALE), prefer it, or say nothing.
    func testHoverFollowsTheClientsContentFormat() throws {
        let offers: [(JSONValue?, String)] = [
            (["markdown", "plaintext"], "markdown"), (["plaintext"], "plaintext"),
            (["plaintext", "markdown"], "plaintext"), (nil, "plaintext"), (["html", "markdown"], "markdown"),
        ]
        for (offer, expected) in offers {
            let harness = ServerHarness(runner: ScriptedRunner())
            harness.initialize(offer.map { ["textDocument": ["hover": ["contentFormat": $0]]] } ?? [:], options: ["evaluate": "manual"])
            harness.open(sampleURI, sampleText)
            harness.request("workspace/executeCommand", ["command": "fmplay.runAll", "arguments": [["uri": .string(sampleURI)]]])
            harness.runEvaluations()
            let call = locate("session.respond(to: \"Name", in: sampleText, offset: 10)
            let type = locate("TripTitle.self", in: sampleText, offset: 2)
            let prompt = locate("Name a trip", in: sampleText, offset: 2)
            let tooltips = harness.request("textDocument/inlayHint", [
                "textDocument": ["uri": .string(sampleURI)],
                "range": ["start": ServerHarness.position(0, 0), "end": ServerHarness.position(999, 0)],
            ]).arrayValue?.compactMap { $0["tooltip"] } ?? []
            XCTAssertEqual(tooltips.count, 2)
            var contents = tooltips
            for (line, character) in [call, type, prompt] {
                contents.append(try XCTUnwrap(harness.request("textDocument/hover", ServerHarness.at(sampleURI, line, character))["contents"]))
            }
            for content in contents {
                let value = try XCTUnwrap(content["value"]?.stringValue)
                XCTAssertEqual(content["kind"]?.stringValue, expected, "\(String(describing: offer)): \(value)")
                if expected == "plaintext" {
                    XCTAssertFalse(value.contains("```") || value.contains("**") || value.contains("`"), "\(String(describing: offer)): \(value)")
                } else {
                    XCTAssertTrue(value.contains("**"), value)
                }
            }
            let result = try XCTUnwrap(contents[2]["value"]?.stringValue)
            XCTAssertTrue(result.contains("scripted 0-1 0-2 0-3") && result.contains("10 prompt tokens (4 cached)"), result)
            let schema = try XCTUnwrap(contents[3]["value"]?.stringValue)
            XCTAssertTrue(schema.contains("TripTitle") && schema.contains("\"words\""), schema)
            if expected == "plaintext" {
                XCTAssertTrue(result.hasPrefix("response\n\nscripted 0-1 0-2 0-3\n"), result)
                XCTAssertEqual(contents[4]["value"]?.stringValue, "Prompt · 5 tokens of scripted's 2048-token context (0.2%)")
            }
        }
    }
}
