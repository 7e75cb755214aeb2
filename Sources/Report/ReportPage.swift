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
    var html = HTMLBuffer()
    /// Anchor ids of the result details, by run index, file path, block and result index.
    var resultIDs: [String: String] = [:]

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
}
