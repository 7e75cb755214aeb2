import Foundation
import JSON
import Report
import XCTest

/// The report page from `fmplay run --format json` documents: escaping, counts, the matrix,
/// failures, the baseline order and bad input. The browser test (Tests/ReportBrowser) renders real runs.
final class ReportPageTests: XCTestCase {
    static let hostile = "<script>alert(\"x\")</script> & 'quoted' \"double\" </pre></details>"

    /// A run document: one file, one block with a response and an evaluation of two samples.
    func runJSON(model: String, response: String, secondPasses: Bool, seed: Int = 42, samples count: Int = 2) -> JSONValue {
        let metrics: [JSONValue] = [
            ["name": "Exact", "value": "passing"],
            ["name": "Exact", "value": secondPasses ? "passing" : "failing", "rationale": .string(Self.hostile)],
        ]
        let samples: [JSONValue] = (0..<count).map { i in
            [
                "index": .int(i), "prompt": .string("prompt \(i) \(Self.hostile)"), "expected": .null, "response": .string(response),
                "responseText": .string(response), "metrics": [metrics[i % 2]], "failed": .bool(i % 2 == 1 && !secondPasses),
            ]
        }
        let evaluation: JSONValue = [
            "evaluation": "CapitalEvaluation", "info": [:], "passRate": .double(secondPasses ? 1 : 0.5),
            "metrics": [], "summary": [], "samples": .array(samples),
            "errors": ["inferenceFailureCount": 0, "evaluatorFailureCount": 0, "failingEvaluatorTypes": [], "metricsNotFound": []],
        ]
        let results: [JSONValue] = [
            [
                "line": 3, "column": 5, "endLine": 3, "endColumn": 30, "iteration": 0, "kind": "response", "type": .null,
                "content": .string(response), "text": .string(response),
                "usage": ["promptTokens": 20, "cachedTokens": 0, "responseTokens": 7], "timeToFirstToken": 0.25,
                "snapshots": 0, "toolCalls": [["name": "getWeather", "arguments": ["city": .string(Self.hostile)], "output": .string(Self.hostile)]],
                "renderedPrompt": .string("<|im_start|>user\n\(Self.hostile)<|im_end|>"), "stopReason": "end of turn",
            ],
            [
                "line": 9, "column": 5, "endLine": 9, "endColumn": 20, "iteration": 0, "kind": "evaluation", "type": .null,
                "content": .null, "text": "CapitalEvaluation", "evaluation": evaluation,
            ],
        ]
        return [
            "model": .string(model), "seed": .string(String(seed)),
            "files": [["path": "Examples/<odd>.fmplay", "blocks": [[
                "name": "Capitals", "displayName": "Capitals", "line": 1, "status": "ok", "cached": false, "duration": 1.5,
                "results": .array(results),
            ]]]],
        ]
    }

    func page(_ document: JSONValue) throws -> String {
        let input = try ReportInput.parse(Array(document.serialized().utf8), file: "run.json")
        return ReportPage.render(input, options: ReportPage.Options(source: "run.json", directory: "/repo"))
    }

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    func testModelOutputIsEscapedEverywhere() throws {
        let html = try page(["runs": [runJSON(model: "m\"<1>", response: Self.hostile, secondPasses: false)]])
        // The page's own script is the only one; no quote or tag from the outputs survives unescaped.
        XCTAssertEqual(count("<script", in: html), 1)
        XCTAssertFalse(html.contains("alert(\"x\")"))
        XCTAssertFalse(html.contains("'quoted'"))
        XCTAssertFalse(html.contains("m\"<1>"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;"))
        XCTAssertTrue(html.contains("&lt;|im_start|&gt;user"))
        XCTAssertTrue(html.contains("Examples/&lt;odd&gt;.fmplay:3"))
        XCTAssertEqual(count("</pre>", in: html), count("<pre", in: html))
        XCTAssertEqual(count("</details>", in: html), count("<details", in: html))
    }

    func testCountsMatrixFailuresAndLinks() throws {
        let html = try page(["runs": [
            runJSON(model: "A.gguf", response: "Paris", secondPasses: true),
            runJSON(model: "B.gguf", response: "Lyon", secondPasses: false),
            runJSON(model: "B.gguf", response: "Lyon", secondPasses: false, seed: 7),
        ]])
        // One matrix column per model.
        XCTAssertEqual(count("<th class=\"model-col\"", in: html), 2)
        // Metric counts per model, over samples: A passes 2/2; B fails 1 of 2 in each of its 2 runs.
        XCTAssertTrue(html.contains("<tr data-model=\"B.gguf\" data-metrics=\"|Exact|\" data-failed=\"1\" data-evaluation=\"CapitalEvaluation\"><td>Exact</td><td class=\"model\">B.gguf</td><td data-count=\"passed\">2</td><td data-count=\"failed\" class=\"bad\">2</td>"), html)
        XCTAssertTrue(html.contains("<td data-count=\"passed\">2</td><td data-count=\"failed\" class=\"\">0</td>"))
        // Both failing samples of B are listed, none of A.
        XCTAssertEqual(count("class=\"failure failing-sample\"", in: html), 2)
        XCTAssertTrue(html.contains("CapitalEvaluation #2 · B.gguf · sample 2"))
        // The bar chart: A at 100% (360 px), B at 50%.
        XCTAssertTrue(html.contains("<rect class=\"bar good\" x=\"380\" y=\"4\" width=\"360\""))
        XCTAssertTrue(html.contains("<rect class=\"bar fair\" x=\"380\" y=\"26\" width=\"180\""))
        // Links go to file:line.
        XCTAssertTrue(html.contains("href=\"file:///repo/Examples/%3Codd%3E.fmplay#L9\""))
        XCTAssertTrue(html.contains("id=\"total-metrics\">4/6 (66.7%)"))
    }

    /// Long tables and lists come in boxes of rows the browser lays out only on screen; every response's
    /// details body is a <template> the script moves in on first open.
    func testLongTablesComeInBoxesAndDetailsAreTemplates() throws {
        let html = try page(["runs": [
            runJSON(model: "A.gguf", response: "Paris", secondPasses: false, samples: 60),
            runJSON(model: "B.gguf", response: "Lyon", secondPasses: false, samples: 60),
        ]])
        // 1 response row + 60 sample rows in the matrix, 25 rows a box: 3 boxes, one header row, one column per model in each.
        XCTAssertEqual(count("<table class=\"matrix\">", in: html), 3)
        XCTAssertEqual(count("<th class=\"model-col\"", in: html), 2)
        XCTAssertEqual(count("<col class=\"model-col\">", in: html), 6)
        XCTAssertEqual(count("<div class=\"rows\" style=\"contain-intrinsic-size:auto ", in: html),
                       3 + 1 /* summary */ + 2 /* 60 failing samples, 40 a box */ + 2 * 2 /* each run's 60 samples, 40 a box */)
        XCTAssertEqual(count("class=\"failure failing-sample\"", in: html), 60)
        // The last matrix box holds 11 rows (61 - 2 x 25) of 90 px.
        XCTAssertTrue(html.contains("<div class=\"rows\" style=\"contain-intrinsic-size:auto 990px\"><table class=\"matrix\">"))
        // Each result's details: a summary, then its body in a template.
        XCTAssertEqual(count("<details id=\"r", in: html), 4)
        XCTAssertEqual(count("</summary><template><div class=\"body\">", in: html), 4)
        XCTAssertEqual(count("</div></template></details>", in: html), 4)
        XCTAssertEqual(count("<template>", in: html), count("</template>", in: html))
    }

    func testBaselineRegressionsComeFirst() throws {
        let old = try ReportInput.parse(runJSON(model: "A", response: "Paris", secondPasses: true), file: "old.json")
        var new = try ReportInput.parse(["runs": [runJSON(model: "A", response: "Lyon", secondPasses: false)]], file: "new.json")
        new.baseline = new.compared(with: old)
        XCTAssertEqual(new.baseline.count, 1)
        XCTAssertTrue(new.baseline[0].isRegression, "\(new.baseline[0].changes)")
        XCTAssertTrue(new.baseline[0].changes.contains("  - Paris"))
        XCTAssertTrue(new.baseline[0].changes.contains("  + Lyon"))
        new.baseline.insert(ReportInput.BaselineEntry(path: "x.fmplay", block: "Unchanged", model: "A", status: "unchanged", changes: []), at: 0)
        let html = ReportPage.render(new, options: ReportPage.Options(source: "new.json"))
        let regression = try XCTUnwrap(html.range(of: "class=\"baseline-regression\""))
        let unchanged = try XCTUnwrap(html.range(of: "class=\"baseline-unchanged\""))
        XCTAssertLessThan(regression.lowerBound, unchanged.lowerBound)
        XCTAssertTrue(html.contains("<span class=\"del\">  - Paris</span>"))
        XCTAssertTrue(html.contains("1 regression, 0 changed, 0 new, 1 unchanged"))
    }

    /// A one-run document (`{"files"}`, no label) or a run labelled "default" is named after the model its
    /// results name; a run labelled with its --model file keeps that label.
    func testRunsOfTheDefaultModelAreNamedAfterTheModelThatAnswered() throws {
        func document(label: String?, answeredBy: String?) throws -> ReportInput {
            var object = try XCTUnwrap(runJSON(model: "unused", response: "Paris", secondPasses: true).objectValue)
            object["model"] = label.map(JSONValue.string)
            object["seed"] = nil
            if let answeredBy {
                var file = try XCTUnwrap(object["files"]?[0]?.objectValue)
                var block = try XCTUnwrap(file["blocks"]?[0]?.objectValue)
                var results = try XCTUnwrap(block["results"]?.arrayValue)
                var response = try XCTUnwrap(results[0].objectValue)
                response["model"] = .string(answeredBy)
                results[0] = .object(response)
                block["results"] = .array(results)
                file["blocks"] = [.object(block)]
                object["files"] = [.object(file)]
            }
            // With a label: a run of `{"runs"}`; without: the one-run document `fmplay run --format json` writes.
            let json: JSONValue = label == nil ? .object(object) : ["runs": [.object(object), .object(object)]]
            return try ReportInput.parse(Array(json.serialized().utf8), file: "run.json")
        }
        XCTAssertEqual(try document(label: nil, answeredBy: "SmolLM2 135M Instruct").models, ["SmolLM2 135M Instruct"])
        let sampled = try document(label: "default", answeredBy: "SmolLM2 135M Instruct")
        XCTAssertEqual(sampled.models, ["SmolLM2 135M Instruct"])
        XCTAssertEqual(sampled.runs.map(\.sample), [1, 2])
        XCTAssertEqual(try document(label: "b.gguf", answeredBy: "Gemma 3 270m").models, ["b.gguf"])
        XCTAssertEqual(try document(label: nil, answeredBy: nil).models, ["default"])
        let html = ReportPage.render(try document(label: nil, answeredBy: "SmolLM2 135M Instruct"), options: ReportPage.Options(source: "run.json"))
        XCTAssertTrue(html.contains("<span class=\"model\">SmolLM2 135M Instruct</span>"))
        XCTAssertTrue(html.contains("<td class=\"model\">SmolLM2 135M Instruct</td>"))
        XCTAssertFalse(html.contains(">default<"))
    }

    func testBadInputNamesTheFileAndTheFix() {
        XCTAssertThrowsError(try ReportInput.parse(Array("{\"files\": [".utf8), file: "run.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("run.json: not valid JSON"), "\(error)")
            XCTAssertTrue("\(error)".contains("fmplay run --format json"), "\(error)")
        }
        XCTAssertThrowsError(try ReportInput.parse(Array("{\"diagnostics\": []}".utf8), file: "lint.json")) { error in
            XCTAssertEqual("\(error)", "lint.json: has no \"files\" array; this is not the output of `fmplay run --format json`")
        }
        XCTAssertThrowsError(try ReportInput.parse(Array("{\"runs\": [{\"files\": [{\"path\": \"a\"}]}]}".utf8), file: "r.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("r.json: runs[0].files[0] is not a file result"), "\(error)")
        }
    }

    func testEscapeCoversAttributeAndTextContexts() {
        XCTAssertEqual(HTML.escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;")
        XCTAssertEqual(HTML.escape("plain é ✓"), "plain é ✓")
    }
}
