import AsyncHTTPClient
import Foundation
import FoundationModelsRuntime
import JSON
import NIOCore
import NIOHTTP1
import OpenAPIRuntime
import Schema

/// A model served by an OpenAI-compatible endpoint (`POST {base}/chat/completions`):
/// llama.cpp's `llama-server`, llama-cpp-python, vLLM, Ollama or a gateway.
/// It backs `PrivateCloudComputeLanguageModel`.
///
/// - One model turn is one request; `streamResponse` asks for server-sent
///   events (`stream: true`, `stream_options.include_usage`), `respond` for
///   one JSON answer. A stream that ends without a finish reason is an error.
/// - Guided generation sends `response_format` `json_schema`; a server that
///   rejects it gets `json_object` + `schema` from then on. What comes back is
///   validated against the schema (ranges and patterns included).
/// - Tools go through the OpenAI tools API; fmplay's session runs them.
/// - 429 and 5xx answers are retried with doubling back-off (`Retry-After`
///   honoured, at most 10 s a pause); see `ServerFailure` for the errors.
/// - Cancelling the consuming task cancels the HTTP request (the connection closes).
public final class OpenAICompatibleModel: ServerLanguageModelBackend, @unchecked Sendable {
    public let settings: ServerSettings

    private struct State {
        var format: ResponseFormatStyle = .jsonSchema
        var contextSize: Int?
        var askedProps = false
        var listedModel: String?
        var quota = PrivateCloudComputeLanguageModel.QuotaUsage(status: .belowLimit(.init(isApproachingLimit: false)))
    }
    private let lock = NSLock()
    private var state = State()
    private func withState<T>(_ body: (inout State) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&state) }

    /// One client for the process (connection pooling across sessions); never shut down.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        // A read timeout bounds the silence between bytes; FMPLAY_SERVER_TIMEOUT bounds the whole request.
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(120))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init(settings: ServerSettings) { self.settings = settings }

    // MARK: LanguageModel

    public var name: String { settings.model ?? withState { $0.listedModel }.map { Self.shortName($0) } ?? settings.baseURL }
    /// URL and model: what decides the answers (never the API key).
    public var identity: String { "server:\(settings.baseURL)#\(settings.model ?? "default")" }
    public var endpointDescription: String { settings.description }
    public var contextSize: Int { withState { $0.contextSize } ?? PrivateCloudComputeLanguageModel.documentedContextSize }
    public var availability: SystemLanguageModel.Availability { .available }
    /// Whether the served model reasons is the server's business: a reasoning level is passed on as
    /// `reasoning_effort`, and `reasoning_content` comes back as reasoning.
    public var supportsReasoning: Bool { true }

    public var quotaUsage: PrivateCloudComputeLanguageModel.QuotaUsage {
        switch settings.simulatedQuota {
        case .limitReached?: return .init(status: .limitReached(.init()))
        case .nearingLimit?: return .init(status: .belowLimit(.init(isApproachingLimit: true)))
        case nil: return withState { $0.quota }
        }
    }

    /// Servers have no standard tokenizer endpoint: counting is not offered (an error, never a guess).
    public func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int {
        throw GenerationError.assetsUnavailable(.init(debugDescription:
            "tokenCount(for:) needs the model's tokenizer; the server model (\(endpointDescription)) has none fmplay can use"))
    }

    // MARK: Probe

    /// `GET {base}/models` (and once `GET {root}/props`, llama.cpp's). A
    /// refused connection is unreachable at once; a probe that times out
    /// counts as reachable (llama-cpp-python answers it only between generations).
    public func probe() async -> ServerProbe {
        do {
            let response = try await Self.client.execute(request(path: "/models", method: .GET),
                                                         timeout: .milliseconds(Int64(settings.probeTimeout * 1000)))
            let body = String(buffer: try await response.body.collect(upTo: 4 << 20))
            switch response.status.code {
            case 200:
                readModels(body)
            case 401, 403:
                return .unreachable("\(settings.baseURL) answered HTTP \(response.status.code): the API key is missing or was rejected; "
                    + "set FMPLAY_SERVER_API_KEY or FMPLAY_SERVER_API_KEY_FILE")
            default:
                return .unreachable("GET \(settings.baseURL)/models answered HTTP \(response.status.code): \(ServerFailure.ErrorBody(body).message)")
            }
        } catch {
            if ServerFailure.classify(error) == .connection {
                return .unreachable("cannot reach the server model at \(settings.baseURL) (\(error)); start the server or fix FMPLAY_SERVER_URL")
            }
            return .reachable(contextSize: withState { $0.contextSize })
        }
        if withState({ $0.contextSize == nil && !$0.askedProps }) {
            withState { $0.askedProps = true }
            await readProps()
        }
        return .reachable(contextSize: withState { $0.contextSize })
    }

    private func readModels(_ body: String) {
        guard let json = try? JSONValue.parse(body), let models = json["data"]?.arrayValue, !models.isEmpty else { return }
        let chosen = models.first { $0["id"]?.stringValue == settings.model } ?? models[0]
        let size = chosen["meta"]?["n_ctx"]?.intValue ?? chosen["context_length"]?.intValue ?? chosen["max_model_len"]?.intValue
        withState { state in
            state.listedModel = chosen["id"]?.stringValue
            if let size, size > 0 { state.contextSize = size }
        }
    }

    /// llama.cpp's `/props` lives at the server root, next to `/v1`.
    private func readProps() async {
        var root = settings.baseURL
        if root.hasSuffix("/v1") { root.removeLast(3) }
        var props = HTTPClientRequest(url: root + "/props")
        props.method = .GET
        if let key = settings.apiKey { props.headers.add(name: "Authorization", value: "Bearer " + key) }
        guard let response = try? await Self.client.execute(props, timeout: .milliseconds(Int64(settings.probeTimeout * 1000))),
              response.status == .ok, let data = try? await response.body.collect(upTo: 4 << 20),
              let json = try? JSONValue.parse(String(buffer: data)),
              let size = json["default_generation_settings"]?["n_ctx"]?.intValue ?? json["n_ctx"]?.intValue, size > 0 else { return }
        withState { $0.contextSize = size }
    }

    // MARK: Generation

    public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LanguageModelEvent, any Error>.makeStream()
        let task = Task {
            do {
                try await self.run(request) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: Task.isCancelled ? CancellationError() : error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(_ request: GenerationRequest, emit: (LanguageModelEvent) -> Void) async throws {
        if settings.simulatedQuota == .limitReached {
            throw PrivateCloudComputeLanguageModel.Error.quotaLimitReached(.init(debugDescription:
                "the usage limit is reached (simulated by FMPLAY_SERVER_SIMULATE_QUOTA=limitReached)"))
        }
        let start = ContinuousClock.now
        let response = try await send(request)
        var answer = ChatResponse()
        var firstText: ContinuousClock.Instant?
        if request.streaming {
            let bytes = response.body.map { buffer in ArraySlice(buffer.readableBytesView) }
            for try await event in bytes.asDecodedServerSentEvents() {
                try Task.checkCancellation()
                let data = (event.data ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                if data == "[DONE]" { break }
                if data.isEmpty { continue }
                guard let chunk = try? JSONValue.parse(data) else {
                    throw PrivateCloudComputeLanguageModel.Error.serviceUnavailable(.init(debugDescription:
                        "\(settings.baseURL) sent a stream event that is not JSON: \(data.prefix(200))"))
                }
                if chunk["error"] != nil {
                    throw ServerFailure.error(status: .internalServerError, body: .init(data), headers: response.headers, endpoint: settings.baseURL)
                }
                let piece = answer.consume(chunk: chunk)
                if let thought = piece.reasoning { emit(.reasoning(thought, tokenCount: 1)) }
                if let text = piece.text {
                    if firstText == nil { firstText = .now }
                    emit(.text(text, tokenCount: 1))
                }
            }
            guard answer.finishReason != nil else {
                throw PrivateCloudComputeLanguageModel.Error.serviceUnavailable(.init(debugDescription:
                    "\(settings.baseURL) ended the stream without a finish reason after \(answer.contentChunks) chunks; the answer is "
                    + "incomplete (a prompt over the server's context gives an empty stream on llama-cpp-python; one started "
                    + "without --interrupt_requests False cuts a stream when another request arrives)"))
            }
        } else {
            let body = try await response.body.collect(upTo: 64 << 20)
            guard let json = try? JSONValue.parse(String(buffer: body)) else {
                throw PrivateCloudComputeLanguageModel.Error.serviceUnavailable(.init(debugDescription:
                    "\(settings.baseURL) answered with a body that is not JSON: \(String(buffer: body).prefix(200))"))
            }
            answer.consume(completion: json)
            guard answer.finishReason != nil || answer.hasToolCalls || !answer.text.isEmpty else {
                throw PrivateCloudComputeLanguageModel.Error.serviceUnavailable(.init(debugDescription:
                    "\(settings.baseURL) answered without a choice: \(String(buffer: body).prefix(200))"))
            }
            if !answer.reasoning.isEmpty {
                emit(.reasoning(answer.reasoning, tokenCount: answer.usage?.reasoningTokens ?? 0))
            }
            if !answer.text.isEmpty {
                firstText = .now
                emit(.text(answer.text, tokenCount: answer.usage?.responseTokens ?? 0))
            }
        }
        if answer.finishReason == "content_filter" {
            throw GenerationError.guardrailViolation(.init(debugDescription: "\(settings.baseURL) stopped the answer with finish reason content_filter"))
        }
        if answer.hasToolCalls {
            emit(.toolCalls(try answer.toolCalls()))
        } else if let schema = request.schema {
            try ChatResponse.validate(answer.text, schema: schema, endpoint: settings.baseURL)
        }
        let end = ContinuousClock.now
        let usage = answer.usage ?? Usage(responseTokens: answer.contentChunks)
        // Streamed: decoding runs from the first token to the end. One JSON answer carries every token at
        // once, so its rate is over the whole request (prompt processing included).
        let decodeSeconds = request.streaming ? firstText.map { (end - $0).seconds } ?? 0 : (end - start).seconds
        emit(.finished(GenerationStatistics(
            usage: usage, timeToFirstToken: firstText.map { ($0 - start).seconds } ?? 0,
            tokensPerSecond: decodeSeconds > 0 && usage.responseTokens > 1
                ? Double(request.streaming ? usage.responseTokens - 1 : usage.responseTokens) / decodeSeconds : 0,
            stopReason: answer.stopReason)))
    }

    /// Sends the chat request: retries 429/5xx with back-off, falls back from
    /// `json_schema` to `json_object` + `schema` once, maps failures.
    private func send(_ request: GenerationRequest) async throws -> HTTPClientResponse {
        var attempt = 0
        var pause = settings.initialBackoff
        while true {
            try Task.checkCancellation()
            attempt += 1
            let format = withState { $0.format }
            var http = self.request(path: "/chat/completions", method: .POST)
            http.headers.add(name: "Content-Type", value: "application/json")
            if request.streaming { http.headers.add(name: "Accept", value: "text/event-stream") }
            let body = ChatRequest.body(for: request, model: settings.model, stream: request.streaming, format: format)
            http.body = .bytes(ByteBuffer(bytes: body.serializedBytes()))
            let response: HTTPClientResponse
            do {
                response = try await Self.client.execute(http, timeout: .milliseconds(Int64(settings.requestTimeout * 1000)))
            } catch {
                if Task.isCancelled { throw CancellationError() }
                throw ServerFailure.transportError(error, endpoint: settings.baseURL, timeout: settings.requestTimeout)
            }
            updateQuota(response.headers)
            if response.status == .ok { return response }

            let text = String(buffer: (try? await response.body.collect(upTo: 1 << 20)) ?? ByteBuffer())
            let errorBody = ServerFailure.ErrorBody(text)
            if request.schema != nil, format == .jsonSchema, errorBody.rejectsJSONSchemaFormat {
                withState { $0.format = .jsonObjectWithSchema }
                attempt -= 1
                continue
            }
            let failure = ServerFailure.error(status: response.status, body: errorBody, headers: response.headers, endpoint: settings.baseURL)
            if case PrivateCloudComputeLanguageModel.Error.quotaLimitReached(let q) = failure {
                withState { $0.quota = .init(status: .limitReached(.init()), resetDate: q.resetDate) }
            }
            guard attempt < settings.maximumAttempts, ServerFailure.isRetryable(response.status, errorBody) else { throw failure }
            let retryAfter = response.headers.first(name: "retry-after").flatMap(Double.init)
            try await Task.sleep(for: .milliseconds(Int64(min(10, retryAfter ?? pause) * 1000)))
            pause *= 2
        }
    }

    private func request(path: String, method: HTTPMethod) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: settings.baseURL + path)
        request.method = method
        if let key = settings.apiKey { request.headers.add(name: "Authorization", value: "Bearer " + key) }
        return request
    }

    private func updateQuota(_ headers: HTTPHeaders) {
        guard let remaining = QuotaHeaders.remaining(headers) else { return }
        let limit = QuotaHeaders.limit(headers)
        let reset = QuotaHeaders.resetDate(headers)
        withState { state in
            if remaining <= 0 {
                state.quota = .init(status: .limitReached(.init()), resetDate: reset)
            } else {
                // Approaching: a tenth of the budget or less left.
                let approaching = limit.map { remaining * 10 <= $0 } ?? false
                state.quota = .init(status: .belowLimit(.init(isApproachingLimit: approaching)), resetDate: approaching ? reset : nil)
            }
        }
    }

    /// The last path component of a model id that is a file path (llama-cpp-python lists the GGUF path).
    static func shortName(_ id: String) -> String {
        id.split(separator: "/").last.map(String.init) ?? id
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
