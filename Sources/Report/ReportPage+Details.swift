import Evaluations
import Foundation
import JSON
import PlaygroundResults

/// The failures, the baseline comparison and every response's details.
extension ReportPage {
    mutating func failures() {
        html.raw("<section id=\"failures\"><h2>Failures</h2>")
        var listed = 0
        for file in input.runs.flatMap(\.files) {
            if file.error != nil { listed += 1 }
            for result in file.blocks.flatMap(\.results) {
                if result.kind == .error { listed += 1 }
                listed += result.evaluation?.samples.filter(\.failed).count ?? 0
            }
        }
        html.beginRows(RowGroups(first: "<ul class=\"failures\">", rest: "<ul class=\"failures\">", close: "</ul>", rowHeight: 110, total: listed))
        var count = 0
        for (r, run) in input.runs.enumerated() {
            for file in run.files {
                if let error = file.error {
                    count += 1
                    html.row()
                    html.open("li", [("data-model", run.model), ("data-failed", "1")])
                    html.element("span", "\(file.path): \(error)", [("class", "error")])
                    html.close("li")
                }
                for block in file.blocks {
                    for (index, result) in block.results.enumerated() {
                        let anchor = resultIDs[Self.key(r, file.path, block.displayName, index)] ?? ""
                        if result.kind == .error {
                            count += 1
                            html.row()
                            html.open("li", [("data-model", run.model), ("data-failed", "1"), ("class", "failure")])
                            location(file.path, result.line)
                            html.text(" \(block.displayName) · \(run.model) · sample \(run.sample): ")
                            html.element("span", result.text, [("class", "error")])
                            html.raw(" <a href=\"#\(anchor)\">details</a>")
                            html.close("li")
                        }
                        guard let report = result.evaluation else { continue }
                        for sample in report.samples where sample.failed {
                            count += 1
                            html.row()
                            let failing = sample.metrics.filter { $0.value == .failing }
                            html.open("li", [("data-model", run.model), ("data-failed", "1"), ("class", "failure failing-sample"),
                                             ("data-metrics", "|" + sample.metrics.map(\.name).joined(separator: "|") + "|")])
                            location(file.path, result.line)
                            html.text(" \(report.name) #\(sample.index + 1) · \(run.model) · sample \(run.sample)")
                            html.raw("<div class=\"kv\"><b>prompt</b> ")
                            html.element("span", HTML.shortened(sample.prompt, 300), [("class", "prompt")])
                            html.raw("</div><div class=\"kv\"><b>response</b> ")
                            html.element("span", sample.responseText.map { HTML.shortened($0, 600) } ?? "(none)", [("class", "response")])
                            html.raw("</div>")
                            if let expected = sample.expected, !expected.isNull {
                                html.raw("<div class=\"kv\"><b>expected</b> "); html.text(expected.serialized()); html.raw("</div>")
                            }
                            for metric in failing {
                                html.element("div", metric.description, [("class", "kv bad")])
                            }
                            if let error = sample.subjectError { html.element("div", "no response: \(error)", [("class", "kv bad")]) }
                            for error in sample.evaluatorErrors { html.element("div", "evaluator error: \(error)", [("class", "kv bad")]) }
                            html.raw("<a href=\"#\(anchor)\">details</a>")
                            html.close("li")
                        }
                    }
                }
            }
        }
        html.endRows()
        if count == 0 { html.raw("<p class=\"ok\">No failures: every block ran and every metric passed.</p>") }
        html.raw("</section>")
    }

    // MARK: Baseline

    mutating func baseline() {
        guard !input.baseline.isEmpty else { return }
        let rank: (ReportInput.BaselineEntry) -> Int = { $0.isRegression ? 0 : ($0.status == "changed" ? 1 : ($0.status == "new" ? 2 : 3)) }
        let entries = input.baseline.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
        let regressions = entries.filter(\.isRegression).count
        let changed = entries.filter { $0.status == "changed" && !$0.isRegression }.count
        let unchanged = entries.filter { $0.status == "unchanged" }.count
        html.raw("<section id=\"baseline\"><h2>Compared with the baseline</h2>")
        html.element("p", "\(regressions) regression\(regressions == 1 ? "" : "s"), \(changed) changed, \(entries.count - regressions - changed - unchanged) new, \(unchanged) unchanged (regressions first)",
                     [("class", "meta"), ("id", "baseline-counts")])
        html.beginRows(.table("baseline", columns: ["block", "model", "status", "changes"], rowHeight: 60, total: entries.count))
        for entry in entries {
            html.row()
            let status = entry.isRegression ? "regression" : entry.status
            html.open("tr", [("data-model", entry.model), ("data-failed", entry.isRegression ? "1" : "0"), ("class", "baseline-\(status)")])
            html.raw("<td>"); html.text("\(entry.path) · \(entry.block)"); html.raw("</td>")
            html.element("td", entry.model, [("class", "model")])
            html.element("td", status, [("class", entry.isRegression ? "bad" : (entry.status == "unchanged" ? "dim" : ""))])
            html.raw("<td>")
            if !entry.changes.isEmpty {
                html.raw("<pre class=\"diff\">")
                for line in entry.changes {
                    let cls = line.hasPrefix("  - ") ? "del" : (line.hasPrefix("  + ") ? "ins" : (line.hasPrefix("  ") ? "same" : "head"))
                    html.element("span", line, [("class", cls)])
                    html.raw("\n")
                }
                html.raw("</pre>")
            }
            html.raw("</td></tr>")
        }
        html.endRows()
        html.raw("</section>")
    }

    // MARK: Responses

    mutating func responses() {
        html.raw("<section id=\"responses\"><h2>Responses</h2>")
        html.raw("<noscript><p class=\"meta\">Each response's details (output, tokens, tool calls, prompt, transcript, evaluation samples) "
            + "are in the page and open with JavaScript; the tables above show every result without it.</p></noscript>")
        for (r, run) in input.runs.enumerated() {
            let runLabel = "\(run.model) · sample \(run.sample)" + (run.seed.map { " (seed \($0))" } ?? "")
            html.open("details", [("class", "run"), ("data-model", run.model), ("open", "")])
            html.raw("<summary>"); html.text(runLabel); html.raw("</summary>")
            for file in run.files {
                for block in file.blocks {
                    html.open("div", [("class", "block"), ("data-failed", block.status == .error ? "1" : "0")])
                    html.raw("<h3>"); html.text("\(block.displayName) "); location(file.path, block.line)
                    html.element("span", block.status == .ok ? "ok" : "failed", [("class", block.status == .ok ? "ok" : "bad")])
                    if block.cached { html.raw(" <span class=\"dim\">cached</span>") }
                    html.raw("</h3>")
                    if let error = block.error { html.element("p", error, [("class", "error")]) }
                    for (index, result) in block.results.enumerated() {
                        resultDetails(result, id: resultIDs[Self.key(r, file.path, block.displayName, index)] ?? "", path: file.path)
                    }
                    html.close("div")
                }
            }
            html.close("details")
        }
        html.raw("</section>")
    }

    mutating func resultDetails(_ result: EvaluationResult, id: String, path: String) {
        let failed = result.kind == .error || (result.evaluation?.samples.contains(where: \.failed) ?? false)
        html.open("details", [("id", id), ("class", "result kind-\(result.kind.rawValue)"), ("data-failed", failed ? "1" : "0")])
        html.raw("<summary>")
        html.element("span", "line \(result.line)\(result.iteration > 0 ? " [\(result.iteration)]" : "")", [("class", "dim")])
        html.text(" \(result.kind.rawValue)\(result.typeName.map { " \($0)" } ?? ""): ")
        html.element("span", HTML.shortened(result.evaluation?.headline ?? result.text, 160), [("class", failed ? "bad" : "")])
        // The body is a <template>: parsed but neither styled nor laid out until the script moves it
        // into the <details> on first open (a report of 1,000 samples holds tens of thousands of nodes).
        html.raw("</summary><template><div class=\"body\">")
        location(path, result.line)
        html.element("pre", result.text, [("class", "output")])
        var facts: [(String, String)] = []
        if let usage = result.usage {
            facts.append(("tokens", "prompt \(usage.promptTokens) (cached \(usage.cachedTokens)), response \(usage.responseTokens)"
                + (usage.reasoningTokens > 0 ? ", reasoning \(usage.reasoningTokens)" : "")))
        }
        if let ttft = result.timeToFirstToken { facts.append(("time to first token", HTML.seconds(ttft))) }
        if let tps = result.tokensPerSecond, tps > 0 { facts.append(("tokens per second", HTML.format3(tps))) }
        if let stop = result.stopReason { facts.append(("stop reason", stop)) }
        if result.kind == .stream { facts.append(("snapshots", "\(result.snapshots)")) }
        if !facts.isEmpty {
            html.raw("<dl class=\"facts\">")
            for (name, value) in facts { html.element("dt", name); html.element("dd", value) }
            html.raw("</dl>")
        }
        if !result.toolCalls.isEmpty {
            html.raw("<table class=\"tools\"><thead><tr><th>tool</th><th>arguments</th><th>output</th></tr></thead><tbody>")
            for call in result.toolCalls {
                html.raw("<tr>")
                html.element("td", call.name)
                html.raw("<td>"); html.element("code", call.arguments.serialized()); html.raw("</td>")
                html.raw("<td>"); html.element("code", call.output); html.raw("</td>")
                html.raw("</tr>")
            }
            html.raw("</tbody></table>")
        }
        if !result.lifecycle.isEmpty {
            html.raw("<ol class=\"lifecycle\">")
            for step in result.lifecycle { html.element("li", step) }
            html.raw("</ol>")
        }
        if let prompt = result.renderedPrompt {
            html.raw("<details><summary>prompt as the model read it</summary>")
            html.element("pre", prompt, [("class", "prompt")])
            html.raw("</details>")
        }
        if let transcript = result.transcript {
            html.raw("<details><summary>transcript</summary>")
            html.element("pre", transcript)
            html.raw("</details>")
        }
        if let report = result.evaluation { evaluationSamples(report) }
        html.raw("</div></template></details>")
    }

    mutating func evaluationSamples(_ report: EvaluationReport) {
        if !report.aggregates.isEmpty {
            html.element("pre", report.groupedSummary, [("class", "aggregates")])
        }
        html.beginRows(.table("samples", columns: ["#", "prompt", "response", "metrics"], rowHeight: 80, total: report.samples.count))
        for sample in report.samples {
            html.row()
            html.open("tr", [("data-failed", sample.failed ? "1" : "0"), ("data-metrics", "|" + sample.metrics.map(\.name).joined(separator: "|") + "|")])
            html.element("td", "\(sample.index + 1)")
            html.raw("<td>"); html.text(sample.prompt)
            if let instructions = sample.instructions { html.element("div", "instructions: \(instructions)", [("class", "dim")]) }
            if let expected = sample.expected, !expected.isNull { html.element("div", "expected: \(expected.serialized())", [("class", "dim")]) }
            html.raw("</td><td>")
            html.text(sample.responseText ?? "(none)")
            for call in sample.toolCalls { html.element("div", "tool \(call.name)(\(call.arguments.serialized()))", [("class", "dim")]) }
            if let error = sample.subjectError { html.element("div", "no response: \(error)", [("class", "bad")]) }
            html.raw("</td><td>")
            for metric in sample.metrics {
                let tone = metric.value == .failing ? "bad" : (metric.value == .passing ? "ok" : "")
                html.element("div", metric.description, [("class", tone)])
            }
            for error in sample.evaluatorErrors { html.element("div", "evaluator error: \(error)", [("class", "bad")]) }
            html.raw("</td></tr>")
        }
        html.endRows()
    }
}
