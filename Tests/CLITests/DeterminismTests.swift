import Foundation
import JSON
import XCTest

/// Results people can trust: on the real default model, a block's output is
/// byte-identical whether its file runs alone, in a directory, after another
/// file (another prompt in the engine's KV cache first), cold or from the
/// result cache. (The language server runs the same evaluator in its worker.)
final class DeterminismTests: XCTestCase {
    static let fixtures = FMPlayProcess.packageRoot.appendingPathComponent("Tests/CLITests/Fixtures/determinism")

    /// kind and text of every result of `name` in a run's JSON, timings left out.
    func results(_ output: FMPlayProcess.Output, of name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        XCTAssertEqual(output.status, 0, output.stderr, file: file, line: line)
        let json = try JSONValue.parse(output.stdout)
        guard let found = json["files"]?.arrayValue?.first(where: { $0["path"]?.stringValue?.hasSuffix(name) == true }) else {
            XCTFail("\(name) is not in the run", file: file, line: line)
            return []
        }
        return (found["blocks"]?.arrayValue ?? []).flatMap { block in
            (block["results"]?.arrayValue ?? []).map { "\($0["kind"]?.stringValue ?? "") \($0["text"]?.stringValue ?? "")" }
        }
    }

    func testSameOutputAloneInADirectoryInAnyOrderColdOrCached() throws {
        let probe = try FMPlayProcess.run(["tokenize", "a"])
        if probe.status != 0, probe.stderr.contains("make setup") {
            throw XCTSkip("default model not installed: run `make setup`")
        }
        let cache = NSTemporaryDirectory() + "fmplay-determinism-" + UUID().uuidString
        addTeardownBlock { try? FileManager.default.removeItem(atPath: cache) }
        let environment = ["XDG_CACHE_HOME": cache]
        let run = { (arguments: [String]) in
            try FMPlayProcess.run(["run"] + arguments + ["--format", "json"], in: Self.fixtures, environment: environment)
        }
        for (name, other) in [("bridge.fmplay", "city.fmplay"), ("city.fmplay", "bridge.fmplay")] {
            let alone = try results(try run([name, "--no-cache"]), of: name)
            XCTAssertFalse(alone.isEmpty, name)
            XCTAssertEqual(try results(try run([".", "--no-cache"]), of: name), alone, "\(name) in a directory")
            XCTAssertEqual(try results(try run([other, name, "--no-cache"]), of: name), alone, "\(name) after \(other)")
            XCTAssertEqual(try results(try run([name, other, "--no-cache"]), of: name), alone, "\(name) before \(other)")
            XCTAssertEqual(try results(try run([name]), of: name), alone, "\(name) cold, writing the cache")
            let cached = try run([name])
            XCTAssertEqual(try results(cached, of: name), alone, "\(name) from the cache")
            XCTAssertTrue(cached.stdout.contains("\"cached\": true"), "the second run is the cached one")
        }
    }
}
