import Foundation
import JSON
import XCTest

final class LintCommandTests: XCTestCase {
    func write(_ text: String, _ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func testExamplesLintClean() throws {
        let output = try FMPlayProcess.run(["lint", "Examples/"])
        XCTAssertEqual(output.status, 0, output.stdout)
        XCTAssertTrue(output.stdout.hasPrefix("0 errors, 0 warnings, 0 notes in "), output.stdout)
    }

    func testTextFormatIsClangStyleWithSourceLineAndCaret() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        try write("@Generable\nstruct Event {\n\tvar when: Date\n    @Guide(.count(3))\n    var title: String\n}\n", "event.fmplay", in: directory)
        let output = try FMPlayProcess.run(["lint", "event.fmplay"], in: directory)
        XCTAssertEqual(output.status, 1)
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines[0], "event.fmplay:3:12: error: property 'when' cannot be generated: Date cannot be generated; use a String with a @Guide(description:) or .pattern giving the format, such as ISO 8601 [FM101]")
        XCTAssertEqual(lines[1], "\tvar when: Date")
        XCTAssertEqual(lines[2], "\t          ^~~~")
        XCTAssertEqual(lines[3], "  fix-it: use 'String'")
        XCTAssertTrue(lines[4].hasPrefix("event.fmplay:4:12: error: .count applies to array properties"), lines[4])
        XCTAssertEqual(lines.last(where: { !$0.isEmpty }), "2 errors, 0 warnings, 0 notes in 1 file")
    }

    func testStrictTurnsWarningsIntoFailure() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        try write("#Playground {\n    let options = GenerationOptions(temperature: 1.5)\n}\n", "warm.fmplay", in: directory)
        XCTAssertEqual(try FMPlayProcess.run(["lint", "warm.fmplay"], in: directory).status, 0)
        let strict = try FMPlayProcess.run(["lint", "--strict", "warm.fmplay"], in: directory)
        XCTAssertEqual(strict.status, 1)
        XCTAssertTrue(strict.stdout.contains("warm.fmplay:2:50: warning: temperature 1.5"), strict.stdout)
    }

    func testInputProblemsAreReportedAndOtherFilesStillLinted() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        try write("@Generable\nstruct A {\n    var when: Date\n}\n", "good/a.fmplay", in: directory)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Data([0x6C, 0x65, 0x74, 0x0A, 0x78, 0xFF, 0xFE, 0x0A]).write(to: directory.appendingPathComponent("latin1.fmplay"))
        try Data([0x7F, 0x45, 0x4C, 0x46, 0x00, 0x01]).write(to: directory.appendingPathComponent("binary.fmplay"))
        try Data(repeating: 0x20, count: 10 * 1024 * 1024).write(to: directory.appendingPathComponent("huge.fmplay"))
        try write("let deep = " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n", "deep.fmplay", in: directory)
        try write("struct Plain {}\n", "plain.swift", in: directory)
        try write("#Playground {\n    print(\"hi\")\n}\n", "playground.swift", in: directory)

        let output = try FMPlayProcess.run([
            "lint", "missing.fmplay", "empty", "latin1.fmplay", "binary.fmplay", "huge.fmplay", "deep.fmplay", "plain.swift",
            "playground.swift", "good",
        ], in: directory)
        XCTAssertEqual(output.status, 2)
        let text = output.stdout
        for expected in [
            "missing.fmplay: error: no such file or directory",
            "empty: error: directory contains no prompt files (*.fmplay)",
            "latin1.fmplay:2:2: error: invalid UTF-8 (byte 0xFF at offset 5); save the file as UTF-8",
            "binary.fmplay: error: binary file (it contains NUL bytes)",
            "huge.fmplay: error: file is 10.0 MB, larger than the 4 MB limit for prompt files",
            "deep.fmplay:1:18: error: brackets nest too deeply here",
            "plain.swift: error: not a prompt file: .swift files are linted only when they contain a #Playground block",
            "good/a.fmplay:3:15: error: property 'when' cannot be generated",
        ] {
            XCTAssertTrue(text.contains(expected), "missing '\(expected)' in:\n\(text)")
        }
        XCTAssertFalse(text.contains("playground.swift:"), text)
        XCTAssertTrue(text.contains("in 3 files; 6 input problems"), text)
    }

    func testJSONFormat() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        try write("@Generable\nenum Empty {}\n", "e.fmplay", in: directory)
        let output = try FMPlayProcess.run(["lint", "--format", "json", "e.fmplay", "nope.fmplay"], in: directory)
        XCTAssertEqual(output.status, 2)
        let json = try JSONValue.parse(output.stdout)
        let diagnostic = try XCTUnwrap(json["files"]?[0]?["diagnostics"]?[0])
        XCTAssertEqual(diagnostic["code"], "FM104")
        XCTAssertEqual(diagnostic["severity"], "error")
        XCTAssertEqual(diagnostic["range"]?["start"], ["line": 2, "column": 6, "offset": 16])
        XCTAssertEqual(json["problems"]?[0]?["path"], "nope.fmplay")
        XCTAssertEqual(json["summary"]?["errors"], 1)
    }

    func testSARIFFormat() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        try write("@Generable\nstruct Trip {\n    var city: String\n    var city: String\n}\n", "trip.fmplay", in: directory)
        let output = try FMPlayProcess.run(["lint", "--format", "sarif", "trip.fmplay"], in: directory)
        XCTAssertEqual(output.status, 1)
        let sarif = try JSONValue.parse(output.stdout)
        XCTAssertEqual(sarif["version"], "2.1.0")
        let run = try XCTUnwrap(sarif["runs"]?[0])
        XCTAssertEqual(run["tool"]?["driver"]?["name"], "fmplay")
        XCTAssertEqual(run["columnKind"], "utf16CodeUnits")
        let rules = try XCTUnwrap(run["tool"]?["driver"]?["rules"]?.arrayValue)
        let result = try XCTUnwrap(run["results"]?[0])
        XCTAssertEqual(result["ruleId"], "FM114")
        XCTAssertEqual(result["level"], "error")
        let ruleIndex = try XCTUnwrap(result["ruleIndex"]?.intValue)
        XCTAssertEqual(rules[ruleIndex]["id"], "FM114")
        let location = try XCTUnwrap(result["locations"]?[0]?["physicalLocation"])
        XCTAssertEqual(location["artifactLocation"]?["uri"], "trip.fmplay")
        XCTAssertEqual(location["region"], ["startLine": 4, "startColumn": 9, "endLine": 4, "endColumn": 13])
        XCTAssertEqual(result["relatedLocations"]?[0]?["message"]?["text"], "first declared here")
    }
}
