import Evaluations
import Foundation
import JSON
import PlaygroundResults

/// The model comparison: one row per result place and sample, one column per model.
extension ReportPage {
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
}
