import Foundation
import FoundationModelsRuntime
import JSON
import PlaygroundEvaluator
import XCTest

/// Every example runs with the scripted model, and the results (timings
/// zeroed) match the golden JSON.
final class ExamplesGoldenTests: XCTestCase {
    func testExamplesAgainstScriptedModel() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let examples = root.appendingPathComponent("Examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".fmplay") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 8)
        var files: [JSONValue] = []
        let model = ScriptedLanguageModel()  // one model for all files, as `fmplay run` uses
        for name in names {
            let source = try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
            // The path as `fmplay run Examples/` names it: failed expectations quote it in their errors.
            let result = await PlaygroundEvaluator(configuration: EvaluationConfiguration(model: model))
                .evaluate(source: source, path: "Examples/" + name)
            // Blocks run to the end; an example's #expect may fail on the scripted model's made-up answers
            // (expectations state what a good answer from a real model is).
            for block in result.blocks {
                let failures = block.results.filter { $0.kind == .error }
                XCTAssertTrue(failures.allSatisfy { $0.text.hasPrefix("Expectation failed") }, "\(name): \(block.error ?? "")")
            }
            var json = normalizedTimings(result.jsonValue)
            if case .object(var object) = json { object["path"] = .string("Examples/" + name); json = .object(object) }
            files.append(json)
        }
        assertGolden(JSONValue.object(["files": .array(files)]).serialized(pretty: true) + "\n", named: "examples-scripted.json")
    }
}
