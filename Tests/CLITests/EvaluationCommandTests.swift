import Foundation
import JSON
import XCTest

/// Evaluations, samples, pass rates, baselines and model comparison through `fmplay run`.
final class EvaluationCommandTests: XCTestCase {
    func fmplay(_ arguments: [String], cache: String? = nil, environment extra: [String: String] = [:]) throws -> FMPlayProcess.Output {
        var environment = ["XDG_CACHE_HOME": try cache ?? FMPlayProcess.temporaryDirectory(self).path, "FMPLAY_BACKEND": "scripted"]
        for (key, value) in extra { environment[key] = value }
        return try FMPlayProcess.run(arguments, environment: environment)
    }

    func writeFile(_ text: String, in directory: URL? = nil, name: String = "e.fmplay") throws -> String {
        let base = try directory ?? FMPlayProcess.temporaryDirectory(self)
        let path = base.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// An evaluation whose metric passes on the scripted model for prompts mentioning "yes".
    static let evaluation = """
        import Evaluations
        struct E: Evaluation {
            let says = Metric("SaysYes")
            let length = Metric("Length")
            let dataset = ArrayLoader(samples: [
                ModelSample(prompt: "Say yes", expected: "yes"),
                ModelSample(prompt: "Say no", expected: "yes"),
            ])
            func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                let session = LanguageModelSession()
                let response = try await session.respond(to: sample.prompt)
                return ModelSubject(value: response.content)
            }
            var evaluators: Evaluators {
                Evaluator { sample, subject in subject.value.contains("yes") ? says.passing() : says.failing(rationale: "no yes") }
                Evaluator { _, subject in length.scoring(Double(subject.value.count)) }
            }
            func aggregateMetrics(using aggregator: inout MetricsAggregator) {
                aggregator.group("Quality") { $0.computeMean(of: says) }
            }
        }
        #Playground("Eval") {
            let result = try await E().run()
            print(result.aggregateValue(.mean(of: Metric("SaysYes"))))
        }
        """

    func testEvaluationInTextJSONAndJUnitWithTheSameNumbers() throws {
        let path = try writeFile(Self.evaluation)
        let text = try fmplay(["run", path])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("SaysYes  1/2 passed (50%)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Quality / Mean of SaysYes  0.5"), text.stdout)
        XCTAssertTrue(text.stdout.contains("failing samples:\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("response: \"Scripted reply to \"Say no\".\""), text.stdout)
        XCTAssertTrue(text.stdout.contains("evaluation metrics 1/2 passed (50%)"), text.stdout)

        let json = try JSONValue.parse(try fmplay(["run", path, "--format", "json"]).stdout)
        let report = json["files"]?[0]?["blocks"]?[0]?["results"]?.arrayValue?.first { $0["kind"]?.stringValue == "evaluation" }?["evaluation"]
        XCTAssertEqual(report?["passRate"]?.doubleValue, 0.5)
        XCTAssertEqual(report?["summary"]?[0]?["value"]?.doubleValue, 0.5)
        XCTAssertEqual(report?["samples"]?[1]?["responseText"]?.stringValue, "Scripted reply to \"Say no\".")
        XCTAssertEqual(report?["samples"]?[1]?["metrics"]?[0]?["value"]?.stringValue, "failing")
        XCTAssertEqual(report?["samples"]?[1]?["metrics"]?[0]?["rationale"]?.stringValue, "no yes")

        let junit = try fmplay(["run", path, "--format", "junit"]).stdout
        XCTAssertTrue(junit.contains("tests=\"3\" failures=\"1\""), junit)
        XCTAssertTrue(junit.contains("<testcase name=\"Eval / E #2\""), junit)
        XCTAssertTrue(junit.contains("<failure message=\"SaysYes: fail (no yes)\">"), junit)
        XCTAssertTrue(junit.contains("response: Scripted reply to &quot;Say no&quot;."), junit)
    }

    func testSamplesPassRatesAndMinimum() throws {
        let path = try writeFile(Self.evaluation)
        let run = try fmplay(["run", path, "--samples", "3", "--format", "json", "--min-pass-rate", "0.4"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try JSONValue.parse(run.stdout)
        XCTAssertEqual(json["runs"]?.arrayValue?.count, 3)
        let seeds = json["runs"]?.arrayValue?.compactMap { $0["seed"]?.stringValue } ?? []
        XCTAssertEqual(seeds.first, "42", "sample 1 uses --seed")
        XCTAssertEqual(Set(seeds).count, 3, "each sample has its own seed")
        XCTAssertEqual(json["passRates"]?[0]?["runs"]?.intValue, 3)
        XCTAssertEqual(json["passRates"]?[0]?["metricsPassed"]?.intValue, 3)
        XCTAssertEqual(json["passRates"]?[0]?["passRate"]?.doubleValue, 0.5)

        let strict = try fmplay(["run", path, "--samples", "2", "--min-pass-rate", "0.9"])
        XCTAssertEqual(strict.status, 1)
        XCTAssertTrue(strict.stderr.contains("pass rate 50% is below --min-pass-rate 90%"), strict.stderr)
        XCTAssertTrue(strict.stdout.contains("pass rates over 2 samples per block"), strict.stdout)

        let bad = try fmplay(["run", path, "--min-pass-rate", "2"])
        XCTAssertEqual(bad.status, 2)
        let unknownOption = try fmplay(["run", path, "--no-such-option"])
        XCTAssertEqual(unknownOption.status, 2, "usage errors exit 2, as the README says")
    }

    func testBaselineShowsWhatChanged() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        let baseline = directory.appendingPathComponent("baseline").path
        let path = try writeFile("#Playground(\"Greeting\") {\n    print(\"hello\")\n}\n", in: directory)
        let first = try fmplay(["run", path, "--baseline", baseline])
        XCTAssertTrue(first.stdout.contains("Greeting: new"), first.stdout)
        let same = try fmplay(["run", path, "--baseline", baseline])
        XCTAssertTrue(same.stdout.contains("Greeting: unchanged"), same.stdout)
        _ = try writeFile("#Playground(\"Greeting\") {\n    print(\"hello there\")\n}\n", in: directory)
        let changed = try fmplay(["run", path, "--baseline", baseline, "--format", "json"])
        let entry = try JSONValue.parse(changed.stdout)["baseline"]?[0]
        XCTAssertEqual(entry?["status"]?.stringValue, "changed")
        XCTAssertEqual(entry?["changes"]?.arrayValue?.compactMap(\.stringValue), ["line 2:", "  - hello", "  + hello there"])
    }

    func testModelsSideBySide() throws {
        let path = try writeFile(Self.evaluation)
        let run = try fmplay(["run", path, "--model", "a.gguf", "--model", "b.gguf"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("== model a.gguf · sample 1/1"), run.stdout)
        XCTAssertTrue(run.stdout.contains("== model b.gguf · sample 1/1"), run.stdout)
        XCTAssertTrue(run.stdout.contains("(models side by side)"), run.stdout)
        XCTAssertTrue(run.stdout.contains("block  |  a.gguf  |  b.gguf") || run.stdout.contains("a.gguf") && run.stdout.contains("|  b.gguf"), run.stdout)
    }

    /// One result per block: the same block gives byte-identical output alone, in a directory
    /// after other files, cold or cached. On the real default model when it is installed
    /// (the KV cache then holds other prompts' tokens), else on the scripted model.
    func testOneResultPerBlock() throws {
        let directory = try FMPlayProcess.temporaryDirectory(self)
        let blockFile = try writeFile("""
            #Playground("Capital") {
                let session = LanguageModelSession(instructions: "Answer in one short sentence.")
                let response = try await session.respond(to: "What is the capital of France?", options: GenerationOptions(maximumResponseTokens: 20))
                print(response.content)
            }
            """, in: directory, name: "b.fmplay")
        _ = try writeFile("""
            #Playground("Other") {
                let session = LanguageModelSession(instructions: "Answer in one short sentence about cooking, geography and rivers.")
                let response = try await session.respond(to: "Name a long river in Europe and a dish from its region.", options: GenerationOptions(maximumResponseTokens: 20))
            }
            """, in: directory, name: "a.fmplay")
        // The real model when one is installed (the default model or FMPLAY_MODEL).
        let models = try FMPlayProcess.run(["models", "--format", "json"])
        let real = !(((try? JSONValue.parse(models.stdout))?.arrayValue ?? []).isEmpty)
        let environment = real ? ["FMPLAY_BACKEND": "embedded"] : [:]
        func content(_ arguments: [String], cache: String) throws -> String {
            let run = try fmplay(arguments + ["--format", "json", "--block", "Capital"], cache: cache, environment: environment)
            let json = try JSONValue.parse(run.stdout)
            let block = json["files"]?.arrayValue?.compactMap { $0["blocks"]?.arrayValue }.flatMap { $0 }.first
            return block?["results"]?.arrayValue?.map { ($0["text"]?.stringValue ?? "") }.joined(separator: "\n") ?? "(no block: \(run.stderr))"
        }
        let cold = try FMPlayProcess.temporaryDirectory(self).path
        let alone = try content(["run", blockFile, "--no-cache"], cache: cold)
        let afterOther = try content(["run", directory.path, "--no-cache"], cache: cold)
        let shared = try FMPlayProcess.temporaryDirectory(self).path
        let first = try content(["run", directory.path], cache: shared)
        let cached = try content(["run", blockFile], cache: shared)
        XCTAssertFalse(alone.isEmpty)
        XCTAssertEqual(afterOther, alone, "a directory run (another file first) gives the same output")
        XCTAssertEqual(first, alone)
        XCTAssertEqual(cached, alone, "the cached result equals the computed one")
    }
}
