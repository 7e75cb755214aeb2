import Foundation
import JSON
import XCTest

/// `fmplay run` as a process, on the scripted backend (fast and deterministic).
final class RunCommandTests: XCTestCase {
    /// `fmplay` on the scripted backend with a private result cache.
    func fmplay(_ arguments: [String], environment extra: [String: String] = [:]) throws -> FMPlayProcess.Output {
        let cache = try FMPlayProcess.temporaryDirectory(self).path
        var environment = ["XDG_CACHE_HOME": cache, "FMPLAY_BACKEND": "scripted"]
        for (key, value) in extra { environment[key] = value }
        return try FMPlayProcess.run(arguments, environment: environment)
    }

    func writeFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "fmplay-cli-" + UUID().uuidString + ".fmplay"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// The CLI's JSON is the evaluator's, so it must equal the evaluator's golden run of Examples/.
    func testJSONMatchesTheEvaluatorGolden() throws {
        let run = try fmplay(["run", "Examples/", "--format", "json"])
        // Exit 1: the examples' expectations (what a good answer is) fail on the scripted model's made-up answers.
        XCTAssertEqual(run.status, 1, run.stderr)
        let json = try JSONValue.parse(run.stdout)
        let golden = FMPlayProcess.packageRoot.appendingPathComponent("Tests/EvaluatorTests/Golden/examples-scripted.json")
        let expected = try String(contentsOf: golden, encoding: .utf8)
        XCTAssertEqual(zeroTimings(json).serialized(pretty: true) + "\n", expected)
        // The contract's fields are present.
        let result = json["files"]?[0]?["blocks"]?[0]?["results"]?[0]
        for field in ["line", "column", "startOffset", "endOffset", "iteration", "kind", "type", "content", "text"] {
            XCTAssertNotNil(result?[field], field)
        }
    }

    func testExitCodesAndErrors() throws {
        let missing = try fmplay(["run", "no/such/dir"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("no such file or directory: no/such/dir"), missing.stderr)

        let failing = try writeFile("""
            #Playground("bad") {
                let names = ["a"]
                print(names[2])
            }
            """)
        let failed = try fmplay(["run", failing])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stdout.contains("error: index out of range (index 2, count 1)"), failed.stdout)
        XCTAssertTrue(failed.stdout.contains("FAILED bad"), failed.stdout)

        let usage = try fmplay(["run", failing, "--block", "x", "--line", "2"])
        XCTAssertEqual(usage.status, 2)
        let unknown = try fmplay(["run", failing, "--block", "nothing"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no block matches --block nothing"), unknown.stderr)
    }

    /// Every numeric option is finite and in range, or a usage error naming it (exit 2), never a trap.
    func testNumericOptionsAreValidated() throws {
        let file = try writeFile("#Playground {\n    print(1)\n}\n")
        let bad: [([String], String)] = [
            (["--timeout", "nan"], "--timeout must be a finite number"), (["--timeout", "inf"], "--timeout must be a finite number"),
            (["--timeout", "1e300"], "at most 604800"), (["--timeout", "0"], "greater than 0"), (["--timeout=-1"], "greater than 0"),
            (["--temperature", "nan"], "--temperature must be a finite number"), (["--temperature=-0.5"], "at least 0"),
            (["--max-tokens", "0"], "--max-tokens must be between 1"), (["--max-tokens", "9223372036854775807"], "--max-tokens must be between 1"),
            (["--line", "0"], "--line must be between 1"), (["--memory-limit", "0"], "--memory-limit must be between 1"),
            (["--string-limit", "100000"], "--string-limit must be between 1 and 4096"),
        ]
        for (options, expected) in bad {
            let run = try fmplay(["run", file] + options)
            XCTAssertEqual(run.status, 2, "\(options)")
            XCTAssertTrue(run.stderr.contains(expected), "\(options): \(run.stderr)")
        }
        let fine = try fmplay(["run", file, "--timeout", "30", "--temperature", "0.7", "--memory-limit", "512"])
        XCTAssertEqual(fine.status, 0, fine.stderr + fine.stdout)
    }

    /// A runtime error Swift would trap on fails the block with its line and column; the process lives.
    func testRuntimeTrapsAreBlockErrors() throws {
        let file = try writeFile("#Playground(\"overflow\") {\n    let x = Int.max + 1\n    print(x)\n}\n")
        let run = try fmplay(["run", file])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stdout.contains("error: arithmetic overflow: 9223372036854775807 + 1 does not fit in Int"), run.stdout)
    }

    func testJSONLinesAndSelection() throws {
        let run = try fmplay(["run", "Examples/multi-turn-haiku.fmplay", "--format", "jsonl", "--block", "Multi-turn haiku"])
        // The scripted model's "haiku" is one line, so the example's #expect (three lines) fails: exit 1, one error line.
        XCTAssertEqual(run.status, 1, run.stderr)
        let lines = run.stdout.split(separator: "\n").map { try? JSONValue.parse(String($0)) }
        XCTAssertEqual(lines.count, 6)
        for line in lines {
            XCTAssertEqual(line?["path"]?.stringValue, "Examples/multi-turn-haiku.fmplay")
            XCTAssertEqual(line?["block"]?.stringValue, "Multi-turn haiku")
        }
        let byLine = try fmplay(["run", "Examples/multi-turn-haiku.fmplay", "--format", "jsonl", "--line", "12"])
        XCTAssertTrue(byLine.stdout.split(separator: "\n").allSatisfy { $0.contains("\"block\":\"Rhyming assistant\"") }, byLine.stdout)
    }

    func testJUnitHasOneCasePerBlockAndFailures() throws {
        let file = try writeFile("""
            #Playground("good") {
                print("fine")
            }

            #Playground("bad") {
                print(missingName)
            }
            """)
        let run = try fmplay(["run", file, "--format", "junit"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("tests=\"2\" failures=\"1\""), run.stdout)
        XCTAssertTrue(run.stdout.contains("<testcase name=\"good\""), run.stdout)
        XCTAssertTrue(run.stdout.contains("<failure message="), run.stdout)
    }

    func testPipedTextIsPlainAndSecondRunIsCached() throws {
        let cacheDirectory = NSTemporaryDirectory() + "fmplay-cli-shared-" + UUID().uuidString
        addTeardownBlock { try? FileManager.default.removeItem(atPath: cacheDirectory) }
        let first = try fmplay(["run", "Examples/weather-tool.fmplay"], environment: ["XDG_CACHE_HOME": cacheDirectory])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertFalse(first.stdout.contains("\u{1B}["), "no escape codes when piped")
        XCTAssertTrue(first.stdout.contains("tool getWeather("), first.stdout)
        let second = try fmplay(["run", "Examples/weather-tool.fmplay"], environment: ["XDG_CACHE_HOME": cacheDirectory])
        XCTAssertTrue(second.stdout.contains("(cached)"), second.stdout)
        let uncached = try fmplay(["run", "Examples/weather-tool.fmplay", "--no-cache"], environment: ["XDG_CACHE_HOME": cacheDirectory])
        XCTAssertFalse(uncached.stdout.contains("(cached)"), uncached.stdout)
    }

    func zeroTimings(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var result = JSONObject()
            for (key, item) in object {
                result[key] = ["duration", "timeToFirstToken", "tokensPerSecond"].contains(key) ? .int(0) : zeroTimings(item)
            }
            return .object(result)
        case .array(let items): return .array(items.map(zeroTimings))
        default: return value
        }
    }
}
