import FoundationModelsRuntime
import JSON
import Schema
import XCTest
@testable import ServerModel

/// What the server sends, parsed without a server: chunk sequences as
/// llama-cpp-python and llama.cpp send them (see the reference notes).
final class ChatResponseTests: XCTestCase {
    func chunk(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    func testStreamedTextFinishReasonAndUsage() throws {
        var response = ChatResponse()
        XCTAssertEqual(response.consume(chunk: try chunk(#"{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}"#)), .init())
        XCTAssertEqual(response.consume(chunk: try chunk(#"{"choices":[{"delta":{"content":"Hel"},"finish_reason":null}]}"#)).text, "Hel")
        XCTAssertEqual(response.consume(chunk: try chunk(#"{"choices":[{"delta":{"content":"lo"},"finish_reason":null}]}"#)).text, "lo")
        XCTAssertNil(response.finishReason)
        _ = response.consume(chunk: try chunk(#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#))
        _ = response.consume(chunk: try chunk(#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":5}}}"#))
        XCTAssertEqual(response.text, "Hello")
        XCTAssertEqual(response.contentChunks, 2)
        XCTAssertEqual(response.finishReason, "stop")
        XCTAssertEqual(response.usage, Usage(promptTokens: 12, cachedTokens: 5, responseTokens: 2))
        XCTAssertEqual(response.stopReason, .endOfTurn)
    }

    /// Reasoning models (vLLM, llama.cpp with a reasoning parser, DeepSeek-style gateways) send
    /// `reasoning_content` before the answer; it is reasoning, never answer text.
    func testReasoningContentIsReasoning() throws {
        var response = ChatResponse()
        XCTAssertEqual(response.consume(chunk: try chunk(#"{"choices":[{"delta":{"reasoning_content":"Think"}}]}"#)), .init(reasoning: "Think"))
        XCTAssertEqual(response.consume(chunk: try chunk(#"{"choices":[{"delta":{"reasoning_content":"ing."}}]}"#)).reasoning, "ing.")
        XCTAssertEqual(response.consume(chunk: try chunk(#"{"choices":[{"delta":{"content":"42"},"finish_reason":"length"}]}"#)), .init(text: "42"))
        XCTAssertEqual(response.reasoning, "Thinking.")
        XCTAssertEqual(response.text, "42")
        XCTAssertEqual(response.stopReason, .tokenLimit)

        var whole = ChatResponse()
        whole.consume(completion: try chunk(#"{"choices":[{"message":{"content":"42","reasoning_content":"Six times seven."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":12,"completion_tokens_details":{"reasoning_tokens":10}}}"#))
        XCTAssertEqual(whole.reasoning, "Six times seven.")
        XCTAssertEqual(whole.usage?.reasoningTokens, 10)
    }

    func testToolCallArgumentsArriveInFragments() throws {
        var response = ChatResponse()
        _ = response.consume(chunk: try chunk(#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"getWeather","arguments":"{\"ci"}}]}}]}"#))
        _ = response.consume(chunk: try chunk(#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\": \"Cairo\"} "}}]}}]}"#))
        _ = response.consume(chunk: try chunk(#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#))
        let calls = try response.toolCalls()
        XCTAssertEqual(calls.count, 1)
        XCTAssertEqual(calls[0].toolName, "getWeather")
        XCTAssertEqual(calls[0].arguments["city"]?.stringValue, "Cairo")
    }

    func testToolCallWithArgumentsThatAreNotJSONIsADecodingFailure() throws {
        var response = ChatResponse()
        response.consume(completion: try chunk(#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{city:"}}]},"finish_reason":"tool_calls"}]}"#))
        XCTAssertThrowsError(try response.toolCalls()) { error in
            guard case GenerationError.decodingFailure(let context)? = error as? GenerationError else { return XCTFail("\(error)") }
            XCTAssertTrue(context.debugDescription.contains("'f'"), context.debugDescription)
        }
    }

    func testWholeCompletion() throws {
        var response = ChatResponse()
        response.consume(completion: try chunk(#"{"choices":[{"message":{"role":"assistant","content":"Hi."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}"#))
        XCTAssertEqual(response.text, "Hi.")
        XCTAssertEqual(response.finishReason, "stop")
        XCTAssertEqual(response.usage, Usage(promptTokens: 9, cachedTokens: 0, responseTokens: 3))
        XCTAssertFalse(response.hasToolCalls)
    }

    /// Servers do not all enforce ranges or patterns: fmplay checks them.
    func testValidationCatchesRangesAndPatternsTheServerIgnored() throws {
        let schema = GenerationSchema(root: .reference("Reading"), definitions: [
            Definition(name: "Reading", kind: .object([
                Property(name: "value", type: .integer(NumberGuides(minimum: 1, maximum: 10))),
                Property(name: "code", type: .string(StringGuides(pattern: "[A-Z]{3}"))),
            ])),
        ])
        XCTAssertNoThrow(try ChatResponse.validate(#"{"value": 3, "code": "ABC"}"#, schema: schema, endpoint: "test"))
        for bad in [#"{"value": 15, "code": "ABC"}"#, #"{"value": 3, "code": "abcd"}"#, #"{"value": 3}"#, "not json"] {
            XCTAssertThrowsError(try ChatResponse.validate(bad, schema: schema, endpoint: "test"), bad) { error in
                guard case GenerationError.decodingFailure? = error as? GenerationError else { return XCTFail("\(error)") }
            }
        }
    }

    func testRateLimitDurations() {
        XCTAssertEqual(QuotaHeaders.duration("1s"), 1)
        XCTAssertEqual(QuotaHeaders.duration("6m0s"), 360)
        XCTAssertEqual(QuotaHeaders.duration("20ms"), 0.02)
        XCTAssertEqual(QuotaHeaders.duration("1h2m3.5s"), 3723.5)
        XCTAssertNil(QuotaHeaders.duration("soon"))
    }

    func testErrorBodies() {
        let overflow = ServerFailure.ErrorBody(#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, you requested 4451 tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#)
        XCTAssertTrue(overflow.isContextOverflow)
        let llamacpp = ServerFailure.ErrorBody(#"{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error","n_prompt_tokens":4435,"n_ctx":2048}}"#)
        XCTAssertTrue(llamacpp.isContextOverflow)
        let format = ServerFailure.ErrorBody(#"{"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}]","type":"internal_server_error"}}"#)
        XCTAssertTrue(format.rejectsJSONSchemaFormat)
        XCTAssertFalse(overflow.rejectsJSONSchemaFormat)
        XCTAssertTrue(ServerFailure.ErrorBody(#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#).isQuota)
    }

    func testSettingsNeverShowTheKey() throws {
        let settings = try XCTUnwrap(ServerSettings.resolve(environment: [
            "FMPLAY_SERVER_URL": "http://127.0.0.1:8080/v1/", "FMPLAY_SERVER_API_KEY": "sk-secret-123", "FMPLAY_SERVER_MODEL": "m",
        ]))
        XCTAssertEqual(settings.baseURL, "http://127.0.0.1:8080/v1")
        XCTAssertEqual(settings.apiKey, "sk-secret-123")
        let model = OpenAICompatibleModel(settings: settings)
        for shown in [settings.description, model.identity, model.name, model.endpointDescription, "\(settings)"] {
            XCTAssertFalse(shown.contains("sk-secret"), shown)
        }
        XCTAssertNil(try ServerSettings.resolve(environment: [:]))
        XCTAssertThrowsError(try ServerSettings.resolve(url: "ftp://x", environment: [:]))
        XCTAssertThrowsError(try ServerSettings.resolve(environment: ["FMPLAY_SERVER_URL": "http://h/v1", "FMPLAY_SERVER_API_KEY_FILE": "/nonexistent/key"]))
        XCTAssertThrowsError(try ServerSettings.resolve(environment: ["FMPLAY_SERVER_URL": "http://h/v1", "FMPLAY_SERVER_SIMULATE_QUOTA": "maybe"]))
    }

    func testKeyFromAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-key-\(UUID().uuidString)")
        try "sk-from-file\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let settings = try XCTUnwrap(ServerSettings.resolve(environment: ["FMPLAY_SERVER_URL": "http://h/v1", "FMPLAY_SERVER_API_KEY_FILE": file.path]))
        XCTAssertEqual(settings.apiKey, "sk-from-file")
    }
}
