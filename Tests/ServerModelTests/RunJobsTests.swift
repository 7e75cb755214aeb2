import Foundation
import JSON
import XCTest

/// `fmplay run --jobs N` prints the same results as `--jobs 1`, in the same
/// order, on the embedded model with the fixed seed (timings and the KV-cache
/// counter, which depends on what ran before on the engine, aside).
final class RunJobsTests: XCTestCase {
    func fmplay(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try FMPlayRunner.run(arguments, environment: environment)
    }

    /// The JSON output without what legitimately varies between runs.
    func stable(_ json: JSONValue) -> JSONValue {
        switch json {
        case .object(let object):
            var copy = JSONObject()
            for (key, value) in object where !["duration", "timeToFirstToken", "tokensPerSecond", "cachedTokens"].contains(key) {
                copy[key] = stable(value)
            }
            return .object(copy)
        case .array(let items): return .array(items.map(stable))
        default: return json
        }
    }

    func writeBlocks(_ directory: URL) throws {
        for (index, topic) in ["a lighthouse", "bread", "a bakery", "rain"].enumerated() {
            let blocks = (1...2).map { n in
                """
                #Playground("\(topic) \(n)") {
                    let session = LanguageModelSession(instructions: "Answer in one short sentence.")
                    let response = try await session.respond(to: "Say something about \(topic), take \(n).",
                                                             options: GenerationOptions(maximumResponseTokens: 12))
                    print(response.content)
                }
                """
            }
            try ("import FoundationModels\nimport Playgrounds\n\n" + blocks.joined(separator: "\n\n") + "\n")
                .write(to: directory.appendingPathComponent("file\(index).fmplay"), atomically: true, encoding: .utf8)
        }
        // A file that cannot run (no blocks) and one with a failing block keep their places too.
        try "import FoundationModels\n".write(to: directory.appendingPathComponent("file2a-empty.fmplay"), atomically: true, encoding: .utf8)
        try """
            import FoundationModels
            import Playgrounds

            #Playground("fails") {
                let session = LanguageModelSession()
                let response = try await session.respond(to: "Hi", generating: Missing.self)
                print(response.content)
            }

            """.write(to: directory.appendingPathComponent("file1a-fails.fmplay"), atomically: true, encoding: .utf8)
    }

    func testJobsDoNotChangeTheOutput() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        try writeBlocks(directory)
        for backend in ["scripted", "embedded"] {
            var outputs: [Int: JSONValue] = [:]
            var texts: [Int: String] = [:]
            for jobs in [1, 3, 8] {
                let json = try fmplay(["run", directory.path, "--jobs", String(jobs), "--no-cache", "--format", "json", "--backend", backend])
                XCTAssertEqual(json.status, 1, "one block fails: \(json.stderr)")
                outputs[jobs] = stable(try JSONValue.parse(json.stdout))
                let text = try fmplay(["run", directory.path, "--jobs", String(jobs), "--no-cache", "--backend", backend])
                texts[jobs] = text.stdout.replacingOccurrences(of: #" in [0-9.]+ s"#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: #"[0-9.]+ tok/s|TTFT [0-9.]+ s|cached [0-9]+"#, with: "", options: .regularExpression)
            }
            XCTAssertEqual(outputs[1]?["files"]?.arrayValue?.count, 6, backend)
            XCTAssertEqual(outputs[3], outputs[1], backend)
            XCTAssertEqual(outputs[8], outputs[1], backend)
            XCTAssertEqual(texts[3], texts[1], backend)
            XCTAssertEqual(texts[8], texts[1], backend)
        }
    }

    func testJobsMustBePositive() throws {
        let run = try fmplay(["run", ".", "--jobs", "0", "--backend", "scripted"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("--jobs must be from 1 to 64"), run.stderr)
    }
}
