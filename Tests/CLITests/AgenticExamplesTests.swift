import Foundation
import JSON
import XCTest

/// The seed-003 examples (`Examples/agentic-*.fmplay`) on the real default
/// model, as a user runs them: every block runs to the end and every `#expect`
/// holds (they check mechanics: which profile answered, which hooks fired, the
/// tool call `.required` produced, what the transcript keeps). The scripted
/// model's run is in the examples golden (EvaluatorTests).
final class AgenticExamplesTests: XCTestCase {
    func testAgenticExamplesRunOnTheDefaultModel() throws {
        let probe = try FMPlayProcess.run(["tokenize", "a"])
        if probe.status != 0, probe.stderr.contains("make setup") {
            throw XCTSkip("default model not installed: run `make setup`")
        }
        let examples = FMPlayProcess.packageRoot.appendingPathComponent("Examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path)
            .filter { $0.hasPrefix("agentic-") && $0.hasSuffix(".fmplay") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 7, "one example per seed-003 sample group")
        let output = try FMPlayProcess.run(["run"] + names.map { "Examples/" + $0 } + ["--format", "json", "--no-cache"])
        let report = try JSONValue.parse(output.stdout)
        var blocks = 0
        for file in report["files"]?.arrayValue ?? [] {
            let path = file["path"]?.stringValue ?? "?"
            for block in file["blocks"]?.arrayValue ?? [] {
                blocks += 1
                let name = block["name"]?.stringValue ?? "?"
                let errors = (block["results"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "error" }.compactMap { $0["text"]?.stringValue }
                XCTAssertEqual(block["status"]?.stringValue, "ok", "\(path) \(name): \(block["error"]?.stringValue ?? "") \(errors)")
                XCTAssertTrue(errors.isEmpty, "\(path) \(name): \(errors)")
            }
        }
        XCTAssertGreaterThanOrEqual(blocks, 12)
        XCTAssertEqual(output.status, 0, output.stderr)
    }
}
