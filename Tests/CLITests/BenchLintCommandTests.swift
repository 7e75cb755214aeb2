import Foundation
import JSON
import XCTest

/// `fmplay bench lint`: the generated file and the report's fields (timings are not asserted;
/// the target lives in the benchmark, not in tests).
final class BenchLintCommandTests: XCTestCase {
    func testJSONReportHasEveryPhaseAndTheRequestedSize() throws {
        for arguments in [["bench", "lint", "--lines", "120", "--runs", "2", "--format", "json"],
                          ["bench", "--format", "json", "lint", "--lines", "120", "--runs", "2"]] {
            let output = try FMPlayProcess.run(arguments)
            XCTAssertEqual(output.status, 0, output.stderr)
            let json = try JSONValue.parse(output.stdout)
            XCTAssertEqual(json["lines"], 121, "120 lines plus the empty line after the final newline")
            XCTAssertEqual(json["runs"], 2)
            XCTAssertEqual(json["target_ms"], 200.0)
            let phases = json["phases_ms"]?.objectValue?.keys ?? []
            XCTAssertEqual(phases, ["parse", "depth guard", "syntax diagnostics", "model", "schemas", "schema checks", "tool checks", "session checks", "supported Swift", "evaluations", "unimplemented API", "dynamic builders", "surface"])
            for key in ["first_ms", "median_ms", "p95_ms", "min_ms"] {
                XCTAssertGreaterThan(json[key]?.doubleValue ?? 0, 0, key)
            }
        }
    }

    func testWrittenFileLintsCleanAtABlockBoundary() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        let path = directory.appendingPathComponent("bench.fmplay").path
        // 3 header lines + 2 blocks of 49 lines end exactly after the second block.
        let written = try FMPlayProcess.run(["bench", "lint", "--lines", "101", "--write-file", path])
        XCTAssertEqual(written.status, 0, written.stderr)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n", omittingEmptySubsequences: false).count, 102)
        XCTAssertTrue(text.contains("struct Plan1 {") && !text.contains("Plan2"))
        let lint = try FMPlayProcess.run(["lint", path])
        XCTAssertEqual(lint.status, 0, lint.stdout)
        XCTAssertTrue(lint.stdout.contains("0 errors, 0 warnings"), lint.stdout)
    }

    func testBadArgumentsAreUsageErrors() throws {
        let output = try FMPlayProcess.run(["bench", "lint", "--lines", "0"])
        XCTAssertNotEqual(output.status, 0)
        XCTAssertTrue(output.stderr.contains("--lines must be between 1 and 10000000"), output.stderr)
    }
}
