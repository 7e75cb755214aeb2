import EmbeddedModel
import Foundation
import FoundationModelsRuntime
import JSON
import PlaygroundEvaluator
import PromptLanguage
import Schema
import XCTest

/// A slice of Benchmarks/guided-corpus on the real default model: each prompt
/// file runs through the evaluator with random sampling (the default
/// top-k/top-p/min-p chain, seeded), and every output must parse, satisfy its
/// schema and every guide (Swift validator) and pass python-jsonschema against
/// `GenerationSchema.jsonSchema()` (what `fmplay schema` prints).
/// The whole corpus x 5 seeds is `Benchmarks/guided_corpus.py`.
final class GuidedCorpusTests: XCTestCase {
    /// Files chosen to cover the shapes (root enum, associated values, recursion,
    /// count/element/range/negative/anyOf/constant/pattern guides, tool arguments)
    /// with short outputs; each runs with its own seed, 1...5 all used.
    static let slice: [(file: String, seed: UInt64)] = [
        ("02-search-suggestions", 1), ("06-mood", 2), ("08-npc", 3), ("13-reviews", 4), ("18-weather-report", 5),
        ("21-api-envelope", 1), ("22-support-ticket", 2), ("26-weather-arguments", 3), ("30-shape", 4), ("31-expression", 5),
    ]

    static let corpusFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/guided-corpus")

    func testCorpusSliceOnTheDefaultModelIsValid() async throws {
        _ = try DefaultModel.requirePath()
        let model = try XCTUnwrap(DefaultModel.model, "the default model failed to load")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("guided-corpus-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        var checked = 0
        for (name, seed) in Self.slice {
            let url = Self.corpusFolder.appendingPathComponent(name + ".fmplay")
            let source = try String(contentsOf: url, encoding: .utf8)
            let schemas = PromptAnalyzer.analyze(source).file.schemas
            // 160 tokens keeps the test short; a value cut by the budget is still
            // completed validly (the decoder finishes it), which this also checks.
            let evaluator = PlaygroundEvaluator(configuration: EvaluationConfiguration(model: model, seed: seed, maximumResponseTokens: 160))
            let result = await evaluator.evaluate(source: source, path: url.path)
            let block = try XCTUnwrap(result.blocks.first, "\(name): no block")
            XCTAssertEqual(block.status, .ok, "\(name) seed \(seed): \(block.error ?? "")")
            guard let response = block.results.first(where: { $0.kind == .response }), let type = response.typeName,
                  let schema = schemas[type] else {
                XCTFail("\(name) seed \(seed): no typed response in \(block.results.map(\.text))")
                continue
            }
            let text = response.content.serialized()
            XCTAssertTrue(SchemaCorpus.validate(response.content, schema.root, in: schema), "\(name) seed \(seed): invalid \(text)")
            XCTAssertEqual(schema.violations(of: GeneratedContent(response.content)), [], "\(name) seed \(seed): \(text)")
            let schemaFolder = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: schemaFolder, withIntermediateDirectories: true)
            try schema.jsonSchema(title: type).serialized(pretty: true)
                .write(to: schemaFolder.appendingPathComponent("schema-fmplay.json"), atomically: true, encoding: .utf8)
            try text.write(to: schemaFolder.appendingPathComponent("output-\(seed).json"), atomically: true, encoding: .utf8)
            checked += 1
        }
        XCTAssertEqual(checked, Self.slice.count)
        try runPythonValidator(folder)
    }
}
