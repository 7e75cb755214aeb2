import EmbeddedModel
import Foundation
import FoundationModelsRuntime
import Guidance
import JSON
import PlaygroundEvaluator
import Schema
import XCTest

/// `DynamicGenerationSchema(name:anyOf: [DynamicGenerationSchema])` in a prompt file: a union of
/// object schemas, generated as exactly one member under its name (`{"Cat":{...}}`).
final class DynamicUnionTests: XCTestCase {
    static let source = """
        #Playground {
            let cat = DynamicGenerationSchema(name: "Cat", description: "A cat", properties: [
                DynamicGenerationSchema.Property(name: "name", schema: DynamicGenerationSchema(type: String.self)),
                DynamicGenerationSchema.Property(name: "lives", schema: DynamicGenerationSchema(type: Int.self)),
            ])
            let dog = DynamicGenerationSchema(name: "Dog", properties: [
                DynamicGenerationSchema.Property(name: "breed", schema: DynamicGenerationSchema(type: String.self)),
                DynamicGenerationSchema.Property(name: "good", schema: DynamicGenerationSchema(type: Bool.self)),
            ])
            let pet = DynamicGenerationSchema(name: "Pet", description: "A pet", anyOf: [cat, dog])
            let schema = try GenerationSchema(root: pet, dependencies: [])
            let response = try await LanguageModelSession().respond(to: "Describe a pet: a cat or a dog", schema: schema)
            print(response.content)
        }
        """

    /// The schema exactly as the evaluator builds it (what it sends to the model).
    private func evaluatorSchema() async throws -> GenerationSchema {
        let model = ScriptedLanguageModel()
        let result = await PlaygroundEvaluator(configuration: EvaluationConfiguration(model: model)).evaluate(source: Self.source, path: "pet.fmplay")
        XCTAssertEqual(result.blocks.first?.status, .ok, result.blocks.first?.error ?? "")
        return try XCTUnwrap(model.receivedRequests.first?.schema, "no schema sent")
    }

    func testGrammarAllowsExactlyOneMemberShape() async throws {
        let grammar = try ByteGrammar.compile(try await evaluatorSchema())
        for accepted in [#"{"Cat":{"name":"Tom","lives":9}}"#, #"{"Dog":{"breed":"collie","good":true}}"#] {
            XCTAssertTrue(grammar.matches(Array(accepted.utf8)), accepted)
        }
        for rejected in [#"{"name":"Tom","lives":9}"#, #"{"Cat":{"breed":"collie","good":true}}"#, #"{"Cat":{"name":"Tom"}}"#,
                         #"{"Cat":{"name":"Tom","lives":9},"Dog":{"breed":"x","good":false}}"#, #""Cat""#, #"{"Bird":{}}"#] {
            XCTAssertFalse(grammar.matches(Array(rejected.utf8)), rejected)
        }
    }

    func testJSONSchemaIsAnAnyOfOfTheMemberShapes() async throws {
        let document = try await evaluatorSchema().jsonSchema(title: "Pet")
        let pet = document["anyOf"] != nil ? document : try XCTUnwrap(document["$defs"]?["Pet"], document.serialized(pretty: true))
        XCTAssertEqual(pet["description"]?.stringValue, "A pet")
        let branches = try XCTUnwrap(pet["anyOf"]?.arrayValue, document.serialized(pretty: true))
        XCTAssertEqual(branches.count, 2)
        XCTAssertEqual(branches[0]["required"], .array([.string("Cat")]))
        XCTAssertEqual(branches[0]["description"]?.stringValue, "A cat")
        XCTAssertEqual(branches[0]["properties"]?["Cat"]?["required"], .array([.string("name"), .string("lives")]))
        XCTAssertEqual(branches[0]["properties"]?["Cat"]?["properties"]?["lives"]?["type"]?.stringValue, "integer")
        XCTAssertEqual(branches[1]["properties"]?["Dog"]?["properties"]?["good"]?["type"]?.stringValue, "boolean")
    }

    func testTheDefaultModelGeneratesOneValidMember() async throws {
        _ = try DefaultModel.requirePath()
        let model = try XCTUnwrap(DefaultModel.model, "the default model failed to load")
        let schema = try await evaluatorSchema()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dynamic-union-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schemaFolder = folder.appendingPathComponent("Pet")
        try FileManager.default.createDirectory(at: schemaFolder, withIntermediateDirectories: true)
        try schema.jsonSchema(title: "Pet").serialized(pretty: true)
            .write(to: schemaFolder.appendingPathComponent("schema-fmplay.json"), atomically: true, encoding: .utf8)
        for seed: UInt64 in 1...2 {
            let evaluator = PlaygroundEvaluator(configuration: EvaluationConfiguration(model: model, seed: seed, maximumResponseTokens: 120))
            let result = await evaluator.evaluate(source: Self.source, path: "pet.fmplay")
            let block = try XCTUnwrap(result.blocks.first)
            XCTAssertEqual(block.status, .ok, "seed \(seed): \(block.error ?? "")")
            let response = try XCTUnwrap(block.results.first { $0.kind == .response })
            let text = response.content.serialized()
            XCTAssertEqual(response.content.objectValue?.count, 1, "seed \(seed): \(text)")
            XCTAssertTrue(response.content["Cat"] != nil || response.content["Dog"] != nil, "seed \(seed): \(text)")
            XCTAssertTrue(SchemaCorpus.validate(response.content, schema.root, in: schema), "seed \(seed): invalid \(text)")
            XCTAssertEqual(schema.violations(of: GeneratedContent(response.content)), [], "seed \(seed): \(text)")
            // The evaluator reads the member: print shows `Cat(name: ...)` or `Dog(breed: ...)`.
            let printed = try XCTUnwrap(block.results.first { $0.kind == .print }?.text)
            XCTAssertTrue(printed.hasPrefix("Cat(") || printed.hasPrefix("Dog("), "seed \(seed): \(printed)")
            try text.write(to: schemaFolder.appendingPathComponent("output-\(seed).json"), atomically: true, encoding: .utf8)
        }
        try runPythonValidator(folder)
    }
}
