import Foundation
import JSON
import PlaygroundEvaluator
import PlaygroundResults
import Report

/// `fmplay.openReport`: writes the HTML report (the page of `fmplay report`) of the document's
/// last results and returns its path, for the client to open.
extension LanguageServer {
    /// Reads `[{"uri": ...}]` or `["uri"]`.
    func openReport(_ arguments: [JSONValue]) throws -> JSONValue {
        guard let uri = arguments.first?["uri"]?.stringValue ?? arguments.first?.stringValue else {
            throw ResponseError.invalidParams("fmplay.openReport: give the document as [{\"uri\": \"file:///...\"}]")
        }
        let current = try analysis(uri)
        let path = Self.filePath(uri)
        var blocks: [BlockResult] = []
        for (block, record, results) in evaluation.blocks(uri, in: current) {
            guard let record, case .done(let outcome) = record.status else { continue }
            blocks.append(BlockResult(
                name: block.name, displayName: block.displayName, index: block.index, line: block.range.start.line,
                status: outcome.error == nil ? .ok : .error, error: outcome.error, results: results.compactMap(\.record),
                cached: outcome.fromCache, duration: record.duration ?? 0))
        }
        guard !blocks.isEmpty else {
            throw ResponseError.requestFailed("fmplay.openReport: \(path) has no finished results yet; run a block first (▶ Run or fmplay.runAll)")
        }
        let model = configuration.modelPath.map { ($0 as NSString).lastPathComponent } ?? "default"
        let input = ReportInput(runs: [ReportInput.Run(model: model, seed: nil, sample: 1, files: [FileResult(path: path, blocks: blocks)])])
        let page = ReportPage.render(input, options: ReportPage.Options(
            title: "fmplay report · " + (path as NSString).lastPathComponent, source: "the language server's last results",
            directory: (path as NSString).deletingLastPathComponent))
        let directory = ResultCache.defaultDirectory(environment: ProcessInfo.processInfo.environment) + "/reports"
        let name = String((path as NSString).lastPathComponent.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        let target = directory + "/" + name + ".html"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(page.utf8).write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw ResponseError.requestFailed("fmplay.openReport: cannot write \(target): \(error); check that the cache directory is writable (XDG_CACHE_HOME)")
        }
        return .string(target)
    }

    /// The file path of a `file://` URI (percent-decoded); other URIs are shown as they are.
    static func filePath(_ uri: String) -> String {
        guard uri.hasPrefix("file://") else { return uri }
        let rest = String(uri.dropFirst("file://".count))
        return rest.removingPercentEncoding ?? rest
    }
}
