import Foundation
import JSON

/// Block results on disk, addressed by a content key (see `PlaygroundEvaluator.cacheKey`).
/// One file per key under `<directory>/results/`. Shared by `fmplay run`
/// and the language server; writes are atomic (temp file + rename).
///
/// Entries are never trusted: a file is a header line
/// `{"version":2,"key":"<key>","sha256":"<digest of the rest>"}` followed by
/// the results JSON. An entry whose key is not the one asked for, whose digest
/// does not match, or that does not parse is ignored (a miss), and the run
/// that follows rewrites it.
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
        guard let data = FileManager.default.contents(atPath: path(key)) else { return nil }
        return Self.decode(Array(data), key: key)
    }

    /// The results of an entry's bytes, or nil unless its header names `key` and its digest matches.
    static func decode(_ bytes: [UInt8], key: String) -> [EvaluationResult]? {
        guard let newline = bytes.firstIndex(of: 0x0A),
              let header = try? JSONValue.parse(Array(bytes[..<newline])),
              header["version"]?.intValue == 3, header["key"]?.stringValue == key else { return nil }
        let body = Array(bytes[(newline + 1)...])
        guard header["sha256"]?.stringValue == SHA256.hex(body),
              let json = try? JSONValue.parse(body), let items = json["results"]?.arrayValue else { return nil }
        // Every result carries its range as UTF-8 offsets (the evaluator stores them in content coordinates).
        let results = items.compactMap(EvaluationResult.init(json:))
        guard results.count == items.count, results.allSatisfy({ $0.offsets != nil }) else { return nil }
        return results
    }

    static func encode(_ results: [EvaluationResult], key: String) -> [UInt8] {
        let body = Array((["results": .array(results.map(\.jsonValue))] as JSONValue).serialized().utf8)
        let header: JSONValue = ["version": 3, "key": .string(key), "sha256": .string(SHA256.hex(body))]
        return Array(header.serialized().utf8) + [0x0A] + body
    }

    /// Best effort: a cache that cannot be written only costs speed.
    public func store(_ key: String, results: [EvaluationResult]) {
        let target = path(key)
        let temporary = target + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        do {
            try FileManager.default.createDirectory(atPath: directory + "/results", withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary, contents: Data(Self.encode(results, key: key))) else { return }
            _ = rename(temporary, target)
        } catch {
            return
        }
    }
}
