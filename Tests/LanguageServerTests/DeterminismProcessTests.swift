import Foundation
import JSON
import XCTest

/// The language server gives the same output as `fmplay run` for the same block on the real default model
/// (its worker runs the same evaluator with the same seed; `DeterminismTests` in CLITests covers the
/// directory, order and cache cases).
final class DeterminismProcessTests: XCTestCase {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CLITests/Fixtures/determinism/bridge.fmplay")

    /// kind and content of each result, as `fmplay run --format json` writes them.
    func cliResults(_ executable: URL, cache: String) throws -> [String] {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["run", Self.fixture.path, "--format", "json", "--no-cache"]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0, String(decoding: data, as: UTF8.self).contains("make setup") {
            throw XCTSkip("default model not installed: run `make setup`")
        }
        XCTAssertEqual(process.terminationStatus, 0)
        let json = try JSONValue.parse(String(decoding: data, as: UTF8.self))
        let blocks = json["files"]?[0]?["blocks"]?.arrayValue ?? []
        return blocks.flatMap { ($0["results"]?.arrayValue ?? []).map { "\($0["kind"]?.stringValue ?? "") \($0["content"]?.serialized() ?? "")" } }
    }

    func testLanguageServerAndCLIGiveTheSameOutput() throws {
        guard let executable = ProcessClient.executable else { throw XCTSkip("the fmplay executable was not built next to the tests") }
        let cache = NSTemporaryDirectory() + "fmplay-lsp-determinism-" + UUID().uuidString
        addTeardownBlock { try? FileManager.default.removeItem(atPath: cache) }
        let expected = try cliResults(executable, cache: cache)
        XCTAssertEqual(expected.count, 2, "a response and its print")

        let client = try ProcessClient(environment: ["XDG_CACHE_HOME": cache + "/lsp"])
        _ = try client.request("initialize", ["capabilities": [:], "initializationOptions": ["evaluate": "onSave"]])
        client.notify("initialized", [:])
        let uri = "file://" + Self.fixture.path
        let text = try String(contentsOf: Self.fixture, encoding: .utf8)
        client.notify("textDocument/didOpen", ["textDocument": ["uri": .string(uri), "languageId": "fmplay", "version": 1, "text": .string(text)]])
        client.notify("textDocument/didSave", ["textDocument": ["uri": .string(uri)]])
        let done = try client.wait(timeout: 300) { message in
            message["method"] == "fmplay/results"
                && !(message["params"]?["blocks"]?.arrayValue ?? []).isEmpty
                && (message["params"]?["blocks"]?.arrayValue ?? []).allSatisfy { $0["status"] == "done" || $0["status"] == "failed" }
        }
        let results = (done["params"]?["results"]?.arrayValue ?? []).filter { $0["complete"] == true }
        let served = results.map { "\($0["kind"]?.stringValue ?? "") \($0["value"]?.serialized() ?? "")" }
        XCTAssertEqual(served, expected)
        client.closeInput()
        _ = client.exitCode()
    }
}
