import Foundation
import FoundationModelsRuntime
import JSON
import PlaygroundEvaluator
import PlaygroundResults
import XCTest

/// Collects evaluator events from concurrent callbacks.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [EvaluationEvent] = []
    func append(_ event: EvaluationEvent) { lock.lock(); events.append(event); lock.unlock() }
    var all: [EvaluationEvent] { lock.lock(); defer { lock.unlock() }; return events }
    var snapshotCount: Int { all.filter { if case .snapshot = $0 { true } else { false } }.count }
}

extension XCTestCase {
    func evaluate(_ source: String, model: (any LanguageModel)? = ScriptedLanguageModel(), cache: ResultCache? = nil,
                  seed: UInt64 = GenerationOptions.defaultSeed, timeout: Double? = nil,
                  selection: PlaygroundEvaluator.Selection = .all, log: EventLog? = nil) async -> FileResult {
        let evaluator = PlaygroundEvaluator(configuration: EvaluationConfiguration(model: model, seed: seed, timeout: timeout, cache: cache))
        return await evaluator.evaluate(source: source, path: "test.fmplay", selection: selection) { log?.append($0) }
    }

    /// The texts of the print results of the first block.
    func prints(_ result: FileResult, block: Int = 0, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        guard result.blocks.indices.contains(block) else {
            XCTFail("no block \(block)", file: file, line: line)
            return []
        }
        let found = result.blocks[block]
        if found.status != .ok { XCTFail("block failed: \(found.error ?? "")", file: file, line: line) }
        return found.results.filter { $0.kind == .print }.map(\.text)
    }

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "fmplay-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// Compares with a golden file beside the tests; a missing golden is written
    /// (and the test fails once); `UPDATE_GOLDEN=1` rewrites it.
    func assertGolden(_ actual: String, named name: String, file: StaticString = #filePath, line: UInt = #line) {
        let directory = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Golden")
        let path = directory.appendingPathComponent(name).path
        let update = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1"
        if update || !FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: path, contents: Data(actual.utf8))
            if !update { XCTFail("wrote missing golden file \(path); rerun", file: file, line: line) }
            return
        }
        let expected = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        if expected != actual {
            XCTFail("output differs from \(path) (UPDATE_GOLDEN=1 rewrites it):\n\(actual)", file: file, line: line)
        }
    }
}

/// Replaces timings (which vary run to run) with 0 so JSON can be compared.
func normalizedTimings(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let object):
        var result = JSONObject()
        for (key, item) in object {
            result[key] = ["duration", "timeToFirstToken", "tokensPerSecond"].contains(key) ? .int(0) : normalizedTimings(item)
        }
        return .object(result)
    case .array(let items): return .array(items.map(normalizedTimings))
    default: return value
    }
}
