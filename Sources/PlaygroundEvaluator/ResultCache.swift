import Foundation
import JSON

/// Block results on disk, addressed by a content key (see `PlaygroundEvaluator.cacheKey`).
/// One JSON file per key under `<directory>/results/`. Shared by `fmplay run`
/// and the language server; writes are atomic (temp file + rename).
public struct ResultCache: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `$XDG_CACHE_HOME/fmplay`, else `~/.cache/fmplay`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/fmplay" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/fmplay"
    }

    private func path(_ key: String) -> String { directory + "/results/" + key + ".json" }

    public func load(_ key: String) -> [EvaluationResult]? {
        guard let data = FileManager.default.contents(atPath: path(key)),
              let json = try? JSONValue.parse(Array(data)), let items = json["results"]?.arrayValue else { return nil }
        let results = items.compactMap(EvaluationResult.init(json:))
        return results.count == items.count ? results : nil
    }

    /// Best effort: a cache that cannot be written only costs speed.
    public func store(_ key: String, results: [EvaluationResult]) {
        let json: JSONValue = ["version": 1, "results": .array(results.map(\.jsonValue))]
        let target = path(key)
        let temporary = target + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        do {
            try FileManager.default.createDirectory(atPath: directory + "/results", withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary, contents: Data(json.serialized().utf8)) else { return }
            _ = rename(temporary, target)
        } catch {
            return
        }
    }
}
