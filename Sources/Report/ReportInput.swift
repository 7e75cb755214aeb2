import Foundation
import JSON
import PlaygroundResults

/// What a report shows: every run (one model, one seed) with its file results, and the
/// baseline comparison when there is one. Built from `fmplay run --format json` or from a run in memory.
public struct ReportInput: Sendable {
    /// One run of every file on one model with one seed.
    public struct Run: Sendable {
        public var model: String
        public var seed: String?
        /// 1-based sample number among the runs of the same model.
        public var sample: Int
        public var files: [FileResult]

        public init(model: String, seed: String?, sample: Int, files: [FileResult]) {
            self.model = model
            self.seed = seed
            self.sample = sample
            self.files = files
        }
    }

    /// One block compared with its baseline (`fmplay run --baseline`, or `fmplay report --baseline OLD.json`).
    public struct BaselineEntry: Sendable {
        public var path: String
        public var block: String
        public var model: String
        /// "new", "unchanged" or "changed".
        public var status: String
        /// A line diff per changed output (`  `, `- `, `+ ` lines under `line N:`) and metric deltas.
        public var changes: [String]

        public init(path: String, block: String, model: String, status: String, changes: [String]) {
            self.path = path
            self.block = block
            self.model = model
            self.status = status
            self.changes = changes
        }

        /// A metric went down (`name: 0.8 -> 0.6 (-0.2)`) or an output became an error.
        public var isRegression: Bool {
            changes.contains { line in
                (line.contains(" -> ") && line.hasSuffix(")") && line.contains("(-"))
                    || (line.hasPrefix("line ") && line.hasSuffix(": new error"))
            }
        }
    }

    public var runs: [Run]
    public var baseline: [BaselineEntry]

    /// Runs of the default model are labelled "default" (by `fmplay run` and the language server), and a
    /// one-run document (`{"files"}`) has no label at all: the report names such runs after the model
    /// their results say answered (`model`: the GGUF's `general.name`), when one did.
    public init(runs: [Run], baseline: [BaselineEntry] = []) {
        self.runs = runs
        self.baseline = baseline
        let unnamed = runs.lazy.filter { $0.model == Self.unnamedModel }
        guard let name = unnamed.flatMap(\.files).flatMap(\.blocks).flatMap(\.results).compactMap(\.model).first else { return }
        for index in self.runs.indices where self.runs[index].model == Self.unnamedModel { self.runs[index].model = name }
        for index in self.baseline.indices where self.baseline[index].model == Self.unnamedModel { self.baseline[index].model = name }
    }

    /// The label of a run on the default model.
    static let unnamedModel = "default"

    /// Models in the order they first ran.
    public var models: [String] {
        var seen: [String] = []
        for run in runs where !seen.contains(run.model) { seen.append(run.model) }
        return seen
    }

    /// Runs per model (the `--samples` count).
    public var samples: Int { models.map { model in runs.filter { $0.model == model }.count }.max() ?? 0 }

    /// Reads the JSON document of `fmplay run --format json` (`{"files": ...}` for one run,
    /// `{"runs": [{"model", "seed", "files"}]}` for several). `file` names the input in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(ReportInputError) -> ReportInput {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw ReportInputError("\(file): not valid JSON (\(error)); write it with `fmplay run --format json PATHS > \(file)`")
        }
        return try parse(json, file: file)
    }

    public static func parse(_ json: JSONValue, file: String) throws(ReportInputError) -> ReportInput {
        func files(_ value: JSONValue?, at place: String) throws(ReportInputError) -> [FileResult] {
            guard let items = value?.arrayValue else {
                throw ReportInputError("\(file): \(place.isEmpty ? "" : place + " ")has no \"files\" array; this is not the output of `fmplay run --format json`")
            }
            var results: [FileResult] = []
            for (index, item) in items.enumerated() {
                guard let result = FileResult(json: item) else {
                    throw ReportInputError("\(file): \(place.isEmpty ? "" : place + ".")files[\(index)] is not a file result of `fmplay run --format json` "
                        + "(it needs \"path\" and \"blocks\" with displayName, line, status and results); write it again with the current fmplay")
                }
                results.append(result)
            }
            return results
        }
        guard json.objectValue != nil else {
            throw ReportInputError("\(file): expected a JSON object from `fmplay run --format json`, found \(json.serialized().prefix(40))")
        }
        var runs: [Run] = []
        if let items = json["runs"]?.arrayValue {
            var counts: [String: Int] = [:]
            for (index, item) in items.enumerated() {
                let model = item["model"]?.stringValue ?? unnamedModel
                counts[model, default: 0] += 1
                runs.append(Run(model: model, seed: item["seed"]?.stringValue, sample: counts[model]!,
                                files: try files(item["files"], at: "runs[\(index)]")))
            }
        } else {
            runs = [Run(model: unnamedModel, seed: nil, sample: 1, files: try files(json["files"], at: ""))]
        }
        let baseline = (json["baseline"]?.arrayValue ?? []).map {
            BaselineEntry(path: $0["path"]?.stringValue ?? "", block: $0["block"]?.stringValue ?? "", model: $0["model"]?.stringValue ?? unnamedModel,
                          status: $0["status"]?.stringValue ?? "new", changes: ($0["changes"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        return ReportInput(runs: runs, baseline: baseline)
    }

    /// Compares the first sample of each model with `old` (another run's report input), block by block,
    /// as `fmplay run --baseline` does: a line diff per changed output, then metric deltas.
    public func compared(with old: ReportInput) -> [BaselineEntry] {
        var entries: [BaselineEntry] = []
        for model in models {
            guard let run = runs.first(where: { $0.model == model }) else { continue }
            let previous = old.runs.first { $0.model == model } ?? (old.models.count == 1 ? old.runs.first : nil)
            for file in run.files {
                for block in file.blocks {
                    var entry = BaselineEntry(path: file.path, block: block.displayName, model: model, status: "new", changes: [])
                    if let before = previous?.files.first(where: { $0.path == file.path })?.blocks.first(where: { $0.displayName == block.displayName }) {
                        entry.changes = BlockSnapshot(block).changes(since: BlockSnapshot(before))
                        entry.status = entry.changes.isEmpty ? "unchanged" : "changed"
                    }
                    entries.append(entry)
                }
            }
        }
        return entries
    }
}

/// Bad report input: the message names the file and says how to fix it.
public struct ReportInputError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
