import Foundation
import JSON
import XCTest

/// `fmplay report` and `fmplay run --format html` as processes, on the scripted backend.
final class ReportCommandTests: XCTestCase {
    func fmplay(_ arguments: [String], in directory: URL? = nil) throws -> FMPlayProcess.Output {
        let cache = try FMPlayProcess.temporaryDirectory(self).path
        return try FMPlayProcess.run(arguments, in: directory, environment: ["XDG_CACHE_HOME": cache, "FMPLAY_BACKEND": "scripted"])
    }

    func testReportFromJSONAndFromPromptFiles() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        let json = directory.appendingPathComponent("run.json").path
        let run = try fmplay(["run", "Examples/weather-tool.fmplay", "--samples", "2", "--format", "json"])
        XCTAssertTrue([0, 1].contains(run.status), run.stderr)
        try run.stdout.write(toFile: json, atomically: true, encoding: .utf8)

        let page = directory.appendingPathComponent("report.html").path
        let report = try fmplay(["report", json, "-o", page])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stderr.contains("wrote \(page)"), report.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 1, "only the page's own script")
        XCTAssertTrue(html.contains("Examples/weather-tool.fmplay:"))
        let parsed = try JSONValue.parse(run.stdout)
        let blocks = (parsed["runs"]?.arrayValue ?? []).flatMap { $0["files"]?.arrayValue ?? [] }.flatMap { $0["blocks"]?.arrayValue ?? [] }
        XCTAssertTrue(html.contains("id=\"total-blocks\">\(blocks.count)<"), "\(blocks.count) blocks")

        // Running the files itself: the same blocks, the run's exit status after the page is written.
        let direct = directory.appendingPathComponent("direct.html").path
        let ran = try fmplay(["report", "Examples/weather-tool.fmplay", "--samples", "2", "-o", direct])
        XCTAssertEqual(ran.status, run.status, ran.stderr)
        XCTAssertTrue(try String(contentsOfFile: direct, encoding: .utf8).contains("id=\"total-blocks\">\(blocks.count)<"))

        // `run --format html` is the same page for a run.
        let htmlRun = try fmplay(["run", "Examples/weather-tool.fmplay", "--format", "html"])
        XCTAssertTrue(htmlRun.stdout.hasPrefix("<!DOCTYPE html>"), htmlRun.stderr)
        XCTAssertTrue(htmlRun.stdout.contains("<section id=\"responses\">"))

        // One run of the default model (`{"files"}`, no label): the report names the model its results
        // name (the scripted backend's "scripted"), not "default"; so does `run --format html`.
        let single = directory.appendingPathComponent("single.json").path
        let one = try fmplay(["run", "Examples/weather-tool.fmplay", "--format", "json"])
        try one.stdout.write(toFile: single, atomically: true, encoding: .utf8)
        XCTAssertNil(try JSONValue.parse(one.stdout)["runs"])
        let named = try fmplay(["report", single, "-o", "-"])
        XCTAssertEqual(named.status, 0, named.stderr)
        for page in [named.stdout, htmlRun.stdout] {
            XCTAssertTrue(page.contains("<span class=\"model\">scripted</span>"), String(page.prefix(3000)))
            XCTAssertFalse(page.contains("<span class=\"model\">default</span>"))
        }

        // A baseline from the earlier JSON: nothing changed on the deterministic scripted model.
        let compared = try fmplay(["report", json, "--baseline", json, "-o", "-"])
        XCTAssertEqual(compared.status, 0, compared.stderr)
        XCTAssertTrue(compared.stdout.contains("0 regressions, 0 changed, 0 new"), String(compared.stdout.prefix(200)))
    }

    func testBadInputIsAUsageErrorNamingTheFile() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        let missing = try fmplay(["report", "nowhere/run.json"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nowhere/run.json: no such file; write it with `fmplay run --format json"), missing.stderr)

        let bad = directory.appendingPathComponent("bad.json").path
        try "{\"files\": [".write(toFile: bad, atomically: true, encoding: .utf8)
        let invalid = try fmplay(["report", bad])
        XCTAssertEqual(invalid.status, 2)
        XCTAssertTrue(invalid.stderr.contains("\(bad): not valid JSON"), invalid.stderr)

        let lint = directory.appendingPathComponent("lint.json").path
        try "{\"diagnostics\": []}".write(toFile: lint, atomically: true, encoding: .utf8)
        let wrong = try fmplay(["report", lint])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("this is not the output of `fmplay run --format json`"), wrong.stderr)

        let mixed = try fmplay(["report", lint, "Examples/"])
        XCTAssertEqual(mixed.status, 2)
        XCTAssertTrue(mixed.stderr.contains("not both"), mixed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: FMPlayProcess.packageRoot.appendingPathComponent("fmplay-report.html").path))
    }
}
