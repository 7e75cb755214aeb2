import Evaluations
import Foundation
import JSON
import PlaygroundResults

/// `fmplay report` / `fmplay run --format html`: one self-contained HTML page (inline CSS,
/// inline SVG, a small inline script; no network) for runs, evaluations and model comparisons.
/// Readable without JavaScript: everything is in tables and `<details>`; the script adds filters.
public struct ReportPage {
    public struct Options: Sendable {
        public var title: String
        /// Where the input came from (shown under the title).
        public var source: String
        /// Links to `file:line`: `linkBase + path + "#L" + line` when set (a repository URL for CI
        /// artifacts), else `file://` URLs of the paths resolved against `directory`.
        public var linkBase: String?
        public var directory: String
        public var generated: String?

        public init(title: String = "fmplay report", source: String, linkBase: String? = nil,
                    directory: String = FileManager.default.currentDirectoryPath, generated: String? = nil) {
            self.title = title
            self.source = source
            self.linkBase = linkBase
            self.directory = directory
            self.generated = generated
        }
    }

    let input: ReportInput
    let options: Options
    let models: [String]
    private var html = HTMLBuffer()
    /// Anchor ids of the result details, by run index, file path, block and result index.
    private var resultIDs: [String: String] = [:]

    public static func render(_ input: ReportInput, options: Options) -> String {
        var page = ReportPage(input: input, options: options)
        return page.build()
    }

    init(input: ReportInput, options: Options) {
        self.input = input
        self.options = options
        self.models = input.models
        for (r, run) in input.runs.enumerated() {
            for file in run.files {
                for block in file.blocks {
                    for index in block.results.indices {
                        resultIDs[Self.key(r, file.path, block.displayName, index)] = "r\(resultIDs.count + 1)"
                    }
                }
            }
        }
    }

    static func key(_ run: Int, _ path: String, _ block: String, _ index: Int) -> String { "\(run)\u{1}\(path)\u{1}\(block)\u{1}\(index)" }

    // MARK: Aggregates

    struct BlockKey: Hashable { var path: String; var block: String }

    struct BlockStats {
        var line = 0
        var runs = 0
        var succeeded = 0
        var cached = 0
        var duration = 0.0
        var promptTokens = 0
        var responseTokens = 0
        var responses = 0
        var firstTokenTimes: [Double] = []
        var passed = 0
        var failed = 0
        var errors: [String] = []
        var passRate: Double? {
            if passed + failed > 0 { return Double(passed) / Double(passed + failed) }
            return runs == 0 ? nil : Double(succeeded) / Double(runs)
        }
    }

    struct EvaluationKey: Hashable { var path: String; var block: String; var line: Int; var name: String }

    struct MetricStats {
        var passed = 0
        var failed = 0
        var scored = 0
        var ignored = 0
        var scores: [Double] = []
        var passRate: Double? { passed + failed == 0 ? nil : Double(passed) / Double(passed + failed) }
    }

    struct EvaluationStats {
        var metricOrder: [String] = []
        /// model -> metric -> counts
        var metrics: [String: [String: MetricStats]] = [:]
        var samples: [String: Int] = [:]
    }


    func blockStats() -> (order: [BlockKey], stats: [BlockKey: [String: BlockStats]]) {
        var order: [BlockKey] = []
        var stats: [BlockKey: [String: BlockStats]] = [:]
        for run in input.runs {
            for file in run.files {
                for block in file.blocks {
                    let key = BlockKey(path: file.path, block: block.displayName)
                    if stats[key] == nil { order.append(key); stats[key] = [:] }
                    var s = stats[key]![run.model] ?? BlockStats()
                    s.line = block.line
                    s.runs += 1
                    if block.status == .ok { s.succeeded += 1 } else if let error = block.error { s.errors.append(error) }
                    if block.cached { s.cached += 1 }
                    s.duration += block.duration
                    for result in block.results {
                        if let usage = result.usage {
                            s.promptTokens += usage.promptTokens
                            s.responseTokens += usage.responseTokens
                        }
                        if result.kind == .response || result.kind == .stream { s.responses += 1 }
                        if let ttft = result.timeToFirstToken { s.firstTokenTimes.append(ttft) }
                        for tally in result.evaluation?.tallies ?? [] {
                            s.passed += tally.passed
                            s.failed += tally.failed
                        }
                    }
                    stats[key]![run.model] = s
                }
            }
        }
        return (order, stats)
    }

    func evaluationStats() -> (order: [EvaluationKey], stats: [EvaluationKey: EvaluationStats]) {
        var order: [EvaluationKey] = []
        var stats: [EvaluationKey: EvaluationStats] = [:]
        for run in input.runs {
            for file in run.files {
                for block in file.blocks {
                    for result in block.results {
                        guard let report = result.evaluation else { continue }
                        let key = EvaluationKey(path: file.path, block: block.displayName, line: result.line, name: report.name)
                        if stats[key] == nil { order.append(key); stats[key] = EvaluationStats() }
                        stats[key]!.samples[run.model, default: 0] += report.samples.count
                        for tally in report.tallies where !stats[key]!.metricOrder.contains(tally.name) {
                            stats[key]!.metricOrder.append(tally.name)
                        }
                        for sample in report.samples {
                            for metric in sample.metrics {
                                var m = stats[key]!.metrics[run.model, default: [:]][metric.name] ?? MetricStats()
                                switch metric.value {
                                case .passing: m.passed += 1
                                case .failing: m.failed += 1
                                case .scoring(let x): m.scored += 1; m.scores.append(x)
                                case .ignore, nil: m.ignored += 1
                                }
                                stats[key]!.metrics[run.model, default: [:]][metric.name] = m
                            }
                        }
                    }
                }
            }
        }
        return (order, stats)
    }

    var metricNames: [String] {
        var names: [String] = []
        for run in input.runs {
            for file in run.files {
                for block in file.blocks {
                    for report in block.results.compactMap(\.evaluation) {
                        for tally in report.tallies where !names.contains(tally.name) { names.append(tally.name) }
                    }
                }
            }
        }
        return names
    }

    // MARK: Page

    mutating func build() -> String {
        html.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        // Nothing on the page may reach the network: styles and the script are inline, images are SVG in the page.
        html.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">")
        html.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        html.element("title", options.title)
        html.raw("<style>\(ReportAssets.css)</style></head><body>")
        header()
        filters()
        summary()
        evaluations()
        if models.count > 1 { matrix() }
        failures()
        baseline()
        responses()
        html.raw("<footer>Written by fmplay. Self-contained: no network, no external scripts or fonts.</footer>")
        html.raw("<script>\(ReportAssets.script)</script></body></html>\n")
        return html.text
    }

    func link(_ path: String, _ line: Int) -> String {
        if let base = options.linkBase {
            let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
            return base + relative + "#L\(line)"
        }
        let absolute = path.hasPrefix("/") ? path : options.directory + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
        return "file://" + encoded + "#L\(line)"
    }

    mutating func location(_ path: String, _ line: Int) {
        html.element("a", "\(path):\(line)", [("class", "loc"), ("href", link(path, line))])
    }

    mutating func header() {
        let results = input.runs.flatMap(\.files)
        let blocks = results.flatMap(\.blocks)
        let failedBlocks = blocks.filter { $0.status == .error }.count + results.filter { $0.error != nil }.count
        let tallies = blocks.flatMap { $0.results.compactMap(\.evaluation) }.flatMap(\.tallies)
        let passed = tallies.reduce(0) { $0 + $1.passed }
        let failed = tallies.reduce(0) { $0 + $1.failed }
        let samples = blocks.flatMap { $0.results.compactMap(\.evaluation) }.reduce(0) { $0 + $1.samples.count }
        let responses = blocks.flatMap(\.results).filter { $0.kind == .response || $0.kind == .stream }
        let tokens = responses.reduce(0) { $0 + ($1.usage?.responseTokens ?? 0) }
        html.raw("<header>")
        html.element("h1", options.title)
        var meta = "from \(options.source) · \(input.runs.count) run\(input.runs.count == 1 ? "" : "s"): \(models.count) model\(models.count == 1 ? "" : "s") × \(input.samples) sample\(input.samples == 1 ? "" : "s")"
        if let generated = options.generated { meta += " · \(generated)" }
        html.element("p", meta, [("class", "meta")])
        html.raw("<p class=\"models\">")
        for model in models { html.element("span", model, [("class", "model")]) }
        html.raw("</p><dl class=\"totals\">")
        func total(_ name: String, _ value: String, _ id: String, _ tone: String = "") {
            html.raw("<div class=\"total \(tone)\"><dt>\(HTML.escape(name))</dt>")
            html.element("dd", value, [("id", id)])
            html.raw("</div>")
        }
        total("blocks run", "\(blocks.count)", "total-blocks")
        total("blocks failed", "\(failedBlocks)", "total-failed", failedBlocks > 0 ? "bad" : "ok")
        if passed + failed > 0 {
            total("metrics passed", "\(passed)/\(passed + failed) (\(HTML.percent(Double(passed) / Double(passed + failed))))", "total-metrics",
                  failed > 0 ? "bad" : "ok")
            total("evaluation samples", "\(samples)", "total-samples")
        }
        total("responses", "\(responses.count)", "total-responses")
        total("response tokens", "\(tokens)", "total-tokens")
        html.raw("</dl><nav><a href=\"#summary\">Blocks</a>")
        if !metricNames.isEmpty { html.raw(" · <a href=\"#evaluations\">Evaluations</a>") }
        if models.count > 1 { html.raw(" · <a href=\"#matrix\">Model comparison</a>") }
        html.raw(" · <a href=\"#failures\">Failures</a>")
        if !input.baseline.isEmpty { html.raw(" · <a href=\"#baseline\">Baseline</a>") }
        html.raw(" · <a href=\"#responses\">Responses</a></nav></header>")
    }

    /// Hidden without JavaScript (the tables show everything then); the script shows and wires it.
    mutating func filters() {
        html.raw("<form id=\"filters\" hidden><label><input type=\"checkbox\" name=\"failures\"> failures only</label>")
        html.raw("<label>model <select name=\"model\"><option value=\"\">all</option>")
        for model in models { html.element("option", model, [("value", model)]) }
        html.raw("</select></label>")
        let metrics = metricNames
        if !metrics.isEmpty {
            html.raw("<label>metric <select name=\"metric\"><option value=\"\">all</option>")
            for metric in metrics { html.element("option", metric, [("value", metric)]) }
            html.raw("</select></label>")
        }
        html.raw("<button type=\"button\" id=\"expand\">expand all</button><button type=\"button\" id=\"collapse\">collapse all</button>")
        html.raw("<output id=\"shown\"></output></form>")
    }

    mutating func summary() {
        let (order, stats) = blockStats()
        html.raw("<section id=\"summary\"><h2>Blocks</h2>")
        html.beginRows(.table("summary", columns: ["location", "block", "model", "status", "pass rate", "time", "tokens (prompt / response)", "TTFT (mean)"],
                              rowHeight: 30, total: order.reduce(0) { $0 + (stats[$1]?.count ?? 0) }))
        for key in order {
            for model in models {
                guard let s = stats[key]?[model] else { continue }
                html.row()
                let failed = s.succeeded < s.runs || s.failed > 0
                html.open("tr", [("data-model", model), ("data-failed", failed ? "1" : "0")])
                html.raw("<td>"); location(key.path, s.line); html.raw("</td>")
                html.element("td", key.block)
                html.element("td", model, [("class", "model")])
                var status = s.succeeded == s.runs ? "ok" : "failed"
                if s.runs > 1 { status += s.succeeded == s.runs ? " \(s.runs)/\(s.runs)" : " \(s.runs - s.succeeded)/\(s.runs)" }
                html.open("td", [("class", s.succeeded == s.runs ? "ok" : "bad")])
                html.text(status)
                if let error = s.errors.first { html.raw("<div class=\"error\">"); html.text(HTML.shortened(error, 160)); html.raw("</div>") }
                html.close("td")
                if let rate = s.passRate {
                    let detail = s.passed + s.failed > 0 ? "\(s.passed)/\(s.passed + s.failed) metrics" : "\(s.succeeded)/\(s.runs) runs"
                    html.raw("<td class=\"\(rate == 1 ? "ok" : "bad")\">")
                    html.text("\(HTML.percent(rate)) · \(detail)")
                    html.raw("</td>")
                } else {
                    html.raw("<td>–</td>")
                }
                html.element("td", s.cached == s.runs ? "cached" : HTML.seconds(s.duration) + (s.cached > 0 ? " (\(s.cached) cached)" : ""))
                html.element("td", "\(s.promptTokens) / \(s.responseTokens)")
                let ttft = s.firstTokenTimes.isEmpty ? "–" : HTML.seconds(s.firstTokenTimes.reduce(0, +) / Double(s.firstTokenTimes.count))
                html.element("td", ttft)
                html.close("tr")
            }
        }
        html.endRows()
        for file in input.runs.flatMap(\.files) where file.error != nil {
            html.element("p", "\(file.path): \(file.error ?? "")", [("class", "error")])
        }
        html.raw("</section>")
    }

    mutating func evaluations() {
        let (order, stats) = evaluationStats()
        guard !order.isEmpty else { return }
        html.raw("<section id=\"evaluations\"><h2>Evaluations</h2>")
        for key in order {
            let s = stats[key]!
            html.open("article", [("class", "evaluation"), ("data-metrics", "|" + s.metricOrder.joined(separator: "|") + "|")])
            html.raw("<h3>")
            html.text("\(key.name) ")
            html.raw("<small>")
            html.text("\(key.block) · ")
            location(key.path, key.line)
            html.raw("</small></h3>")
            var bars: [BarChart.Bar] = []
            for metric in s.metricOrder {
                for model in models {
                    guard let m = s.metrics[model]?[metric], let rate = m.passRate else { continue }
                    bars.append(BarChart.Bar(label: models.count > 1 ? "\(metric) · \(model)" : metric, value: rate,
                                             caption: "\(HTML.percent(rate)) (\(m.passed)/\(m.passed + m.failed))"))
                }
            }
            if !bars.isEmpty { html.raw(BarChart.svg(bars, title: "\(key.name): pass rate per metric")) }
            html.raw("<table class=\"metrics\"><thead><tr><th>metric</th><th>model</th><th>passing</th><th>failing</th><th>ignored</th><th>scored (mean)</th><th>pass rate</th></tr></thead><tbody>")
            for metric in s.metricOrder {
                for model in models {
                    guard let m = s.metrics[model]?[metric] else { continue }
                    html.open("tr", [("data-model", model), ("data-metrics", "|\(metric)|"), ("data-failed", m.failed > 0 ? "1" : "0"),
                                     ("data-evaluation", key.name)])
                    html.element("td", metric)
                    html.element("td", model, [("class", "model")])
                    html.element("td", "\(m.passed)", [("data-count", "passed")])
                    html.element("td", "\(m.failed)", [("data-count", "failed"), ("class", m.failed > 0 ? "bad" : "")])
                    html.element("td", "\(m.ignored)", [("data-count", "ignored")])
                    html.element("td", m.scores.isEmpty ? "–" : "\(m.scored) (\(HTML.format3(m.scores.reduce(0, +) / Double(m.scores.count))))",
                                 [("data-count", "scored")])
                    html.element("td", m.passRate.map(HTML.percent) ?? "–")
                    html.close("tr")
                }
            }
            html.raw("</tbody></table></article>")
        }
        html.raw("</section>")
    }

    // MARK: Model comparison

    /// A row of the matrix: one result place (or one evaluation sample) in one sample run.
    struct MatrixRow {
        var path: String
        var block: String
        var line: Int
        var label: String
        var sample: Int
        /// model -> cell
        var cells: [String: MatrixCell] = [:]
    }

    struct MatrixCell {
        var text: String
        var verdict: String
        var failed: Bool
        var metrics: [String]
        var anchor: String?
    }

    func matrixRows() -> [MatrixRow] {
        var order: [String] = []
        var rows: [String: MatrixRow] = [:]
        func add(_ key: String, _ row: @autoclosure () -> MatrixRow, model: String, cell: MatrixCell) {
            if rows[key] == nil { order.append(key); rows[key] = row() }
            rows[key]!.cells[model] = cell
        }
        for (r, run) in input.runs.enumerated() {
            for file in run.files {
                for block in file.blocks {
                    for (index, result) in block.results.enumerated() {
                        let anchor = resultIDs[Self.key(r, file.path, block.displayName, index)]
                        if let report = result.evaluation {
                            for sample in report.samples {
                                let key = "e\u{1}\(file.path)\u{1}\(block.displayName)\u{1}\(result.line)\u{1}\(report.name)\u{1}\(sample.index)\u{1}\(run.sample)"
                                let failing = sample.metrics.filter { $0.value == .failing }.map(\.name)
                                var verdict = sample.failed ? "fail" : "pass"
                                if !failing.isEmpty { verdict += ": " + failing.joined(separator: ", ") }
                                if let error = sample.subjectError { verdict += " (no response: \(error))" }
                                add(key, MatrixRow(path: file.path, block: block.displayName, line: result.line,
                                                   label: "\(report.name) #\(sample.index + 1): \(HTML.shortened(sample.prompt, 80))", sample: run.sample),
                                    model: run.model,
                                    cell: MatrixCell(text: sample.responseText ?? "", verdict: verdict, failed: sample.failed,
                                                     metrics: sample.metrics.map(\.name), anchor: anchor))
                            }
                        } else {
                            let key = "r\u{1}\(file.path)\u{1}\(block.displayName)\u{1}\(result.line)\u{1}\(result.column)\u{1}\(result.iteration)\u{1}\(run.sample)"
                            let verdict = result.kind == .error ? "error" : (result.stopReason.map { "ok · \($0)" } ?? "ok")
                            add(key, MatrixRow(path: file.path, block: block.displayName, line: result.line,
                                               label: "\(result.kind.rawValue)\(result.iteration > 0 ? " [\(result.iteration)]" : "")", sample: run.sample),
                                model: run.model,
                                cell: MatrixCell(text: result.text, verdict: verdict, failed: result.kind == .error, metrics: [], anchor: anchor))
                        }
                    }
                }
            }
        }
        return order.map { rows[$0]! }
    }

    mutating func matrix() {
        html.raw("<section id=\"matrix\"><h2>Model comparison</h2>")
        let rows = matrixRows()
        let colgroup = "<colgroup><col><col><col>" + String(repeating: "<col class=\"model-col\">", count: models.count) + "</colgroup>"
        let head = "<thead><tr><th>location</th><th>result</th><th>sample</th>"
            + models.map { "<th class=\"model-col\" data-model=\"\(HTML.escape($0))\">\(HTML.escape($0))</th>" }.joined() + "</tr></thead>"
        html.beginRows(RowGroups(first: "<table class=\"matrix\">" + colgroup + head + "<tbody>", rest: "<table class=\"matrix\">" + colgroup + "<tbody>",
                                 close: "</tbody></table>", every: 25, rowHeight: 90, total: rows.count))
        for row in rows {
            html.row()
            let metrics = Set(row.cells.values.flatMap(\.metrics))
            var attributes = [("data-failed", row.cells.values.contains(where: \.failed) ? "1" : "0")]
            if !metrics.isEmpty { attributes.append(("data-metrics", "|" + metrics.sorted().joined(separator: "|") + "|")) }
            html.open("tr", attributes)
            html.raw("<td>"); location(row.path, row.line); html.raw("<div class=\"dim\">"); html.text(row.block); html.raw("</div></td>")
            html.element("td", row.label)
            html.element("td", "\(row.sample)")
            for model in models {
                guard let cell = row.cells[model] else { html.raw("<td data-model=\"\(HTML.escape(model))\">–</td>"); continue }
                html.open("td", [("data-model", model), ("class", cell.failed ? "cell bad" : "cell")])
                html.element("div", HTML.shortened(cell.text, 400), [("class", "out")])
                html.element("div", cell.verdict, [("class", cell.failed ? "verdict bad" : "verdict ok")])
                if let anchor = cell.anchor { html.raw("<a class=\"more\" href=\"#\(anchor)\">details</a>") }
                html.close("td")
            }
            html.close("tr")
        }
        html.endRows()
        html.raw("</section>")
    }

    // MARK: Failures

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
