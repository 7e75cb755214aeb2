import FoundationModelsRuntime
import JSON
import Schema
import XCTest
@testable import ServerModel

/// Failure handling against `FakeServer`: retries and back-off, the error
/// each answer maps to, malformed and unfinished streams, timeouts and
/// cancellation.
final class ErrorPathTests: XCTestCase {
    var server: FakeServer!

    func start(_ replies: [FakeServer.Reply], timeout: Double = 30, attempts: Int = 3) throws -> OpenAICompatibleModel {
        server = FakeServer(replies)
        try server.start()
        addTeardownBlock { [server] in server?.stop() }
        return OpenAICompatibleModel(settings: ServerSettings(baseURL: server.baseURL, requestTimeout: timeout, probeTimeout: 2,
                                                              maximumAttempts: attempts, initialBackoff: 0.05))
    }

    func request(streaming: Bool = false, schema: GenerationSchema? = nil) -> GenerationRequest {
        GenerationRequest(transcript: Transcript(entries: [.prompt(.init(id: "1", segments: [.text(.init(content: "Hi"))]))]),
                          schema: schema, streaming: streaming)
    }

    func events(_ model: OpenAICompatibleModel, _ request: GenerationRequest) async throws -> [LanguageModelEvent] {
        var events: [LanguageModelEvent] = []
        for try await event in model.generate(request) { events.append(event) }
        return events
    }

    func error(_ model: OpenAICompatibleModel, _ request: GenerationRequest) async -> (any Error)? {
        do { _ = try await events(model, request); return nil } catch { return error }
    }

    static let ok = #"{"choices":[{"message":{"role":"assistant","content":"Fine."},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}"#

    func testRetriesA429ThenSucceeds() async throws {
        let model = try start([.status(429, body: #"{"error":{"message":"slow down","type":"rate_limit_exceeded"}}"#), .status(200, body: Self.ok)])
        let events = try await events(model, request())
        XCTAssertEqual(events.first, .text("Fine.", tokenCount: 2))
        XCTAssertEqual(server.requestCount, 2)
        guard case .finished(let statistics)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(statistics.usage, Usage(promptTokens: 4, responseTokens: 2))
    }

    func testPersistent429IsRateLimitedAfterBoundedRetries() async throws {
        let busy = FakeServer.Reply.status(429, body: #"{"error":{"message":"slow down"}}"#)
        let model = try start([busy, busy, busy, busy])
        let failure = await error(model, request())
        guard case GenerationError.rateLimited? = failure as? GenerationError else { return XCTFail("\(String(describing: failure))") }
        XCTAssertEqual(server.requestCount, 3, "three attempts, no more")
    }

    func testInsufficientQuotaIsQuotaLimitReachedWithoutRetry() async throws {
        let model = try start([.status(429, body: #"{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
                                       headers: [("x-ratelimit-reset-requests", "6m0s")])])
        let failure = await error(model, request())
        guard case PrivateCloudComputeLanguageModel.Error.quotaLimitReached(let info)? = failure as? PrivateCloudComputeLanguageModel.Error else {
            return XCTFail("\(String(describing: failure))")
        }
        XCTAssertNotNil(info.resetDate)
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertTrue(model.quotaUsage.isLimitReached)
    }

    func testRateLimitHeadersSetApproachingLimit() async throws {
        let model = try start([.status(200, body: Self.ok, headers: [("x-ratelimit-limit-requests", "100"), ("x-ratelimit-remaining-requests", "5")])])
        _ = try await events(model, request())
        XCTAssertEqual(model.quotaUsage.status, .belowLimit(.init(isApproachingLimit: true)))
    }

    func test500sAreRetriedThenServiceUnavailable() async throws {
        let failing = FakeServer.Reply.status(500, body: #"{"error":{"message":"boom"}}"#)
        let model = try start([failing, failing, failing])
        let failure = await error(model, request())
        guard case PrivateCloudComputeLanguageModel.Error.serviceUnavailable(let context)? = failure as? PrivateCloudComputeLanguageModel.Error else {
            return XCTFail("\(String(describing: failure))")
        }
        XCTAssertTrue(context.debugDescription.contains("boom"), context.debugDescription)
        XCTAssertEqual(server.requestCount, 3)
    }

    func test503IsServiceUnavailable() async throws {
        let model = try start([.status(503, body: "overloaded")], attempts: 1)
        let failure = await error(model, request())
        guard case PrivateCloudComputeLanguageModel.Error.serviceUnavailable? = failure as? PrivateCloudComputeLanguageModel.Error else {
            return XCTFail("\(String(describing: failure))")
        }
    }

    func testContextOverflowIsExceededContextWindowSize() async throws {
        let model = try start([.status(400, body: #"{"error":{"message":"This model's maximum context length is 2048 tokens.","code":"context_length_exceeded"}}"#)])
        let failure = await error(model, request())
        guard case GenerationError.exceededContextWindowSize? = failure as? GenerationError else { return XCTFail("\(String(describing: failure))") }
        XCTAssertEqual(server.requestCount, 1, "not retried")
    }

    func testStreamWithoutFinishReasonIsAnErrorNotATruncatedAnswer() async throws {
        let model = try start([.events([#"{"choices":[{"delta":{"content":"Half"},"finish_reason":null}]}"#], done: true)])
        let failure = await error(model, request(streaming: true))
        guard case PrivateCloudComputeLanguageModel.Error.serviceUnavailable(let context)? = failure as? PrivateCloudComputeLanguageModel.Error else {
            return XCTFail("\(String(describing: failure))")
        }
        XCTAssertTrue(context.debugDescription.contains("without a finish reason"), context.debugDescription)
    }

    func testEmptyStreamIsAnError() async throws {
        let model = try start([.events([], done: false)])
        let failure = await error(model, request(streaming: true))
        XCTAssertTrue(failure is PrivateCloudComputeLanguageModel.Error, "\(String(describing: failure))")
    }

    func testMalformedEventIsAnError() async throws {
        let model = try start([.events([#"{"choices":[{"delta":{"content":"#], done: true)])
        let failure = await error(model, request(streaming: true))
        guard case PrivateCloudComputeLanguageModel.Error.serviceUnavailable(let context)? = failure as? PrivateCloudComputeLanguageModel.Error else {
            return XCTFail("\(String(describing: failure))")
        }
        XCTAssertTrue(context.debugDescription.contains("not JSON"), context.debugDescription)
    }

    func testStreamedTokensArriveAsTheyAreSent() async throws {
        let chunks = ["A", "B", "C"].map { #"{"choices":[{"delta":{"content":"\#($0)"},"finish_reason":null}]}"# }
            + [#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#]
        let model = try start([.events(chunks, delay: 0.05)])
        let events = try await events(model, request(streaming: true))
        XCTAssertEqual(Array(events.prefix(3)), [.text("A", tokenCount: 1), .text("B", tokenCount: 1), .text("C", tokenCount: 1)])
        guard case .finished(let statistics)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(statistics.usage.responseTokens, 3, "no usage in the stream: one token per chunk")
    }

    func testSlowServerTimesOut() async throws {
        let model = try start([.silence], timeout: 0.5)
        let failure = await error(model, request())
        guard case GenerationError.timeout? = failure as? GenerationError else { return XCTFail("\(String(describing: failure))") }
    }

    func testCancellationClosesTheRequest() async throws {
        let model = try start([.silence])
        let request = request()
        let task = Task { () -> [LanguageModelEvent] in
            var events: [LanguageModelEvent] = []
            for try await event in model.generate(request) { events.append(event) }
            return events
        }
        for _ in 0..<200 where server.requestCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(server.requestCount, 1)
        task.cancel()
        let result = await task.result
        // A cancelled consumer's stream ends early: no answer arrives.
        if case .success(let events) = result { XCTAssertTrue(events.isEmpty, "\(events)") }
        for _ in 0..<200 where server.abandoned == 0 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(server.abandoned, 1, "the connection is closed when the request is cancelled")
    }

    func testJSONSchemaRejectedFallsBackToJSONObjectOnce() async throws {
        let schema = GenerationSchema(root: .reference("Cat"), definitions: [
            Definition(name: "Cat", kind: .object([Property(name: "name", type: .string(.none))])),
        ])
        let rejected = FakeServer.Reply.status(500, body: #"{"error":{"message":"Input should be 'text' or 'json_object'"}}"#)
        let answer = #"{"choices":[{"message":{"content":"{\"name\": \"Tom\"}"},"finish_reason":"stop"}]}"#
        let model = try start([rejected, .status(200, body: answer), .status(200, body: answer)])
        _ = try await events(model, request(schema: schema))
        _ = try await events(model, request(schema: schema))
        XCTAssertEqual(server.requestCount, 3)
        let formats = try server.bodies.map { try JSONValue.parse($0)["response_format"]?["type"]?.stringValue }
        XCTAssertEqual(formats, ["json_schema", "json_object", "json_object"])
        XCTAssertNotNil(try JSONValue.parse(server.bodies[1])["response_format"]?["schema"]?.objectValue)
    }

    func testOutputOutsideTheSchemaIsADecodingFailure() async throws {
        let schema = GenerationSchema(root: .reference("Dice"), definitions: [
            Definition(name: "Dice", kind: .object([Property(name: "roll", type: .integer(NumberGuides(minimum: 1, maximum: 6)))])),
        ])
        let model = try start([.status(200, body: #"{"choices":[{"message":{"content":"{\"roll\": 9}"},"finish_reason":"stop"}]}"#)])
        let failure = await error(model, request(schema: schema))
        guard case GenerationError.decodingFailure(let context)? = failure as? GenerationError else { return XCTFail("\(String(describing: failure))") }
        XCTAssertTrue(context.debugDescription.contains("above the maximum"), context.debugDescription)
    }

    func testUnreachableServer() async throws {
        // A port nothing listens on: bind one, note it, close it.
        let probe = FakeServer([])
        try probe.start()
        let url = probe.baseURL
        probe.stop()
        let model = OpenAICompatibleModel(settings: ServerSettings(baseURL: url, maximumAttempts: 3, initialBackoff: 0.05))
        let pcc = PrivateCloudComputeLanguageModel(backend: model)
        let (availability, message) = await pcc.currentAvailability()
        XCTAssertEqual(availability, .unavailable(.systemNotReady))
        XCTAssertTrue(message?.contains("FMPLAY_SERVER_URL") ?? false, message ?? "")
        let failure = await error(model, request())
        guard case PrivateCloudComputeLanguageModel.Error.networkFailure? = failure as? PrivateCloudComputeLanguageModel.Error else {
            return XCTFail("\(String(describing: failure))")
        }
    }

    func testNotConfigured() async {
        let pcc = PrivateCloudComputeLanguageModel(backend: nil)
        let (availability, message) = await pcc.currentAvailability()
        XCTAssertEqual(availability, .unavailable(.deviceNotEligible))
        XCTAssertTrue(message?.contains("FMPLAY_SERVER_URL") ?? false)
        let contextSize = await pcc.currentContextSize()
        XCTAssertEqual(contextSize, 32768)
    }

    func testRequestCarriesKeyModelSeedAndTools() async throws {
        let model = try start([.status(200, body: Self.ok)])
        let keyed = OpenAICompatibleModel(settings: ServerSettings(baseURL: server.baseURL, model: "my-model", apiKey: "sk-test"))
        var request = request()
        request.tools = [Transcript.ToolDefinition(name: "getWeather", description: "Weather", parameters: GenerationSchema(root: .reference("A"), definitions: [
            Definition(name: "A", kind: .object([Property(name: "city", type: .string(.none))])),
        ]))]
        request.options.toolCallingMode = .required
        _ = model
        _ = try await events(keyed, request)
        let body = try JSONValue.parse(server.bodies[0])
        XCTAssertEqual(body["model"], "my-model")
        XCTAssertEqual(body["seed"]?.intValue, 42)
        XCTAssertEqual(body["tool_choice"]?["function"]?["name"], "getWeather")
        XCTAssertEqual(body["tools"]?[0]?["function"]?["parameters"]?["properties"]?["city"]?["type"], "string")
    }

    /// A reasoning level goes out as `reasoning_effort`; `reasoning_content` comes back as the
    /// session's `.reasoning` entry and reasoning tokens, never as answer text.
    func testReasoningLevelAndReasoningContent() async throws {
        let reply = #"{"choices":[{"message":{"role":"assistant","content":"42","reasoning_content":"Six times seven."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":12,"completion_tokens_details":{"reasoning_tokens":10}}}"#
        let model = try start([.status(200, body: reply)])
        let session = LanguageModelSession(model: PrivateCloudComputeLanguageModel(backend: model))
        let response = try await session.respond(to: Prompt("What is 6 x 7?"), schema: nil, contextOptions: ContextOptions(reasoningLevel: .deep))
        XCTAssertEqual(response.content.stringValue, "42")
        XCTAssertEqual(try JSONValue.parse(server.bodies[0])["reasoning_effort"], "high")
        XCTAssertEqual(response.usage.reasoningTokens, 10)
        let reasoning = session.transcript.entries.compactMap { entry -> String? in
            if case .reasoning(let r) = entry { return r.segments.map(\.text).joined() }
            return nil
        }
        XCTAssertEqual(reasoning, ["Six times seven."])
    }
}
