import Foundation
import Guidance
import JSON
import Schema
import XCTest

/// Random masked sampling: choosing any allowed token at every step must
/// always give output that parses and satisfies the schema. Checked by a
/// Swift validator here and by Python `jsonschema` (an independent
/// implementation) over the whole corpus.
final class RandomSamplingTests: XCTestCase {
    static let seeds: [UInt64] = [1, 2, 3, 4, 5]

    func testCorpusOutputsAreValid() throws {
        let vocabulary = SyntheticVocabulary.index
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("guidance-corpus-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        XCTAssertGreaterThanOrEqual(SchemaCorpus.schemas.count, 30)
        var written = 0
        for (name, schema) in SchemaCorpus.schemas {
            let grammar = try ByteGrammar.compile(schema)
            let schemaFolder = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: schemaFolder, withIntermediateDirectories: true)
            try SchemaCorpus.jsonSchema(schema).serialized(pretty: true)
                .write(to: schemaFolder.appendingPathComponent("schema.json"), atomically: true, encoding: .utf8)
            try schema.jsonSchema().serialized(pretty: true)
                .write(to: schemaFolder.appendingPathComponent("schema-fmplay.json"), atomically: true, encoding: .utf8)
            for seed in Self.seeds {
                guard let bytes = randomMaskedWalk(grammar, vocabulary: vocabulary, seed: seed) else {
                    XCTFail("\(name) seed \(seed): no complete value within the token budget")
                    continue
                }
                let text = String(decoding: bytes, as: UTF8.self)
                XCTAssertTrue(grammar.matches(bytes), "\(name): \(text)")
                guard let value = try? JSONValue.parse(text) else {
                    XCTFail("\(name) seed \(seed): not JSON: \(text)")
                    continue
                }
                XCTAssertTrue(SchemaCorpus.validate(value, schema.root, in: schema), "\(name) seed \(seed): invalid \(text)")
                try text.write(to: schemaFolder.appendingPathComponent("output-\(seed).json"), atomically: true, encoding: .utf8)
                written += 1
            }
        }
        XCTAssertEqual(written, SchemaCorpus.schemas.count * Self.seeds.count)
        try runPythonValidator(folder)
    }

    func testToolCallGrammarWithFreeTextAlternative() throws {
        let grammar = try ByteGrammar.toolCalls(ReferenceSchemas.tools, alternative: .freeText)
        let call = "<tool_call>\n{\"name\":\"getWeather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>"
        XCTAssertTrue(grammar.matches(Array(call.utf8)))
        XCTAssertTrue(grammar.matches(Array((call + "\n" + call).utf8)), "several calls")
        XCTAssertTrue(grammar.matches(Array("It is sunny in Paris.".utf8)), "free text")
        XCTAssertTrue(grammar.matches(Array("<b>bold</b> answer".utf8)), "text that starts like markup")
        XCTAssertTrue(grammar.matches(Array("<tool".utf8)), "a proper prefix of the opener is text")
        XCTAssertFalse(grammar.matches(Array("".utf8)), "an empty answer")
        XCTAssertFalse(grammar.matches(Array("<tool_call>\nhello".utf8)), "the opener commits to a call")
        XCTAssertFalse(grammar.matches(Array("<tool_call>\n{\"name\":\"bookFlight\",\"arguments\":{}}\n</tool_call>".utf8)))
        XCTAssertFalse(grammar.matches(Array((call + "trailing").utf8)))
        // Random walks are valid calls or text.
        for seed in RandomSamplingTests.seeds {
            guard let bytes = randomMaskedWalk(grammar, vocabulary: SyntheticVocabulary.index, seed: seed) else {
                return XCTFail("seed \(seed): no complete output")
            }
            XCTAssertTrue(grammar.matches(bytes))
        }
    }

    func testToolCallRequiredAndCustomFormat() throws {
        let format = ToolCallFormat(opener: "[CALL]", closer: "[/CALL]", separator: "")
        let grammar = try ByteGrammar.toolCalls(ReferenceSchemas.tools, alternative: .none, format: format)
        XCTAssertTrue(grammar.matches(Array("[CALL]{\"name\":\"getWeather\",\"arguments\":{\"city\":\"Oslo\"}}[/CALL]".utf8)))
        XCTAssertFalse(grammar.matches(Array("Just text".utf8)))
        let matcher = GrammarMatcher(grammar: grammar, vocabulary: SyntheticVocabulary.index)
        XCTAssertEqual(String(decoding: matcher.forcedBytes(), as: UTF8.self), "[CALL]{\"name\":\"")
    }

    func testToolCallWithGuidedAnswer() throws {
        let grammar = try ByteGrammar.toolCalls(ReferenceSchemas.tools, alternative: .value(ReferenceSchemas.searchSuggestions))
        XCTAssertTrue(grammar.matches(Array(#"{"searchTerms":["a","b","c","d"]}"#.utf8)))
        XCTAssertTrue(grammar.matches(Array("<tool_call>\n{\"name\":\"getWeather\",\"arguments\":{\"city\":\"Oslo\"}}\n</tool_call>".utf8)))
        XCTAssertFalse(grammar.matches(Array("free text".utf8)))
    }

    func testDuplicateToolNamesAreAnError() {
        XCTAssertThrowsError(try ByteGrammar.toolCalls(ReferenceSchemas.tools + [ReferenceSchemas.tools[0]], alternative: .freeText))
    }
}
