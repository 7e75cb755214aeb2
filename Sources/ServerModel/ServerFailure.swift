import AsyncHTTPClient
import Foundation
import FoundationModelsRuntime
import JSON
import NIOHTTP1

/// Maps what a server answers (or fails to) to the errors prompt files catch.
///
/// | answer | error |
/// | --- | --- |
/// | 400 `context_length_exceeded` / `exceed_context_size_error` | `GenerationError.exceededContextWindowSize` |
/// | 429 `insufficient_quota` | `PrivateCloudComputeLanguageModel.Error.quotaLimitReached` |
/// | 429 otherwise (after the retries) | `GenerationError.rateLimited` |
/// | 503 and other 5xx (after the retries) | `PrivateCloudComputeLanguageModel.Error.serviceUnavailable` |
/// | 401/403 | `GenerationError.assetsUnavailable` (the key is never shown) |
/// | no connection | `PrivateCloudComputeLanguageModel.Error.networkFailure` |
/// | the deadline passed | `GenerationError.timeout` |
enum ServerFailure {
    /// The `error` object of an OpenAI-style error body, or the text.
    struct ErrorBody {
        var message: String
        var type: String?
        var code: String?

        init(_ text: String) {
            let json = try? JSONValue.parse(text)
            let error = json?["error"]
            message = error?["message"]?.stringValue ?? error?.stringValue ?? json?["detail"]?.stringValue
                ?? json?["message"]?.stringValue ?? String(text.prefix(300))
            type = error?["type"]?.stringValue
            code = error?["code"]?.stringValue ?? error?["code"]?.intValue.map(String.init)
        }

        var isContextOverflow: Bool {
            code == "context_length_exceeded" || type == "exceed_context_size_error"
                || message.localizedCaseInsensitiveContains("maximum context length")
                || message.localizedCaseInsensitiveContains("exceeds the available context size")
        }

        var isQuota: Bool { code == "insufficient_quota" || type == "insufficient_quota" }

        /// The server does not take `response_format: json_schema` (llama-cpp-python).
        var rejectsJSONSchemaFormat: Bool {
            message.contains("'text' or 'json_object'") || (message.contains("response_format") && message.contains("json_schema"))
        }
    }

    static func error(status: HTTPResponseStatus, body: ErrorBody, headers: HTTPHeaders, endpoint: String) -> any Error {
        let said = "\(endpoint) answered HTTP \(status.code): \(body.message)"
        if body.isContextOverflow {
            return GenerationError.exceededContextWindowSize(.init(debugDescription: said
                + ". Shorten the prompt or the transcript, or start the server with a larger context."))
        }
        switch status.code {
        case 429 where body.isQuota:
            return PrivateCloudComputeLanguageModel.Error.quotaLimitReached(.init(resetDate: QuotaHeaders.resetDate(headers), debugDescription: said))
        case 429:
            return GenerationError.rateLimited(.init(debugDescription: said))
        case 401, 403:
            return GenerationError.assetsUnavailable(.init(debugDescription: "\(endpoint) answered HTTP \(status.code): the API key is missing "
                + "or was rejected; set FMPLAY_SERVER_API_KEY or FMPLAY_SERVER_API_KEY_FILE"))
        case 404:
            return GenerationError.assetsUnavailable(.init(debugDescription: said
                + ". Check FMPLAY_SERVER_URL (it names the API base, e.g. http://127.0.0.1:8080/v1) and FMPLAY_SERVER_MODEL."))
        default:
            return PrivateCloudComputeLanguageModel.Error.serviceUnavailable(.init(debugDescription: said))
        }
    }

    /// Whether an answer is worth another attempt.
    static func isRetryable(_ status: HTTPResponseStatus, _ body: ErrorBody) -> Bool {
        if body.isQuota || body.isContextOverflow { return false }
        return status.code == 429 || (500...599).contains(status.code)
    }

    enum Transport { case timeout, connection }

    static func classify(_ error: any Error) -> Transport {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout { return .timeout }
        return .connection
    }

    static func transportError(_ error: any Error, endpoint: String, timeout: Double) -> any Error {
        switch classify(error) {
        case .timeout:
            return GenerationError.timeout(.init(debugDescription:
                "\(endpoint) gave no complete answer within \(Int(timeout)) s (FMPLAY_SERVER_TIMEOUT sets the limit)"))
        case .connection:
            return PrivateCloudComputeLanguageModel.Error.networkFailure(.init(debugDescription:
                "cannot reach \(endpoint): \(error). Start the server or check FMPLAY_SERVER_URL."))
        }
    }
}

/// OpenAI's rate-limit headers.
enum QuotaHeaders {
    static func limit(_ headers: HTTPHeaders) -> Int? { headers.first(name: "x-ratelimit-limit-requests").flatMap { Int($0) } }
    static func remaining(_ headers: HTTPHeaders) -> Int? { headers.first(name: "x-ratelimit-remaining-requests").flatMap { Int($0) } }

    /// `x-ratelimit-reset-requests` ("1s", "6m0s", "20ms") or `Retry-After` (seconds) from now.
    static func resetDate(_ headers: HTTPHeaders, now: Date = Date()) -> Date? {
        if let text = headers.first(name: "x-ratelimit-reset-requests"), let seconds = duration(text) { return now + seconds }
        if let text = headers.first(name: "retry-after"), let seconds = Double(text) { return now + seconds }
        return nil
    }

    /// Go-style durations: "1h2m3.5s", "20ms".
    static func duration(_ text: String) -> Double? {
        var total = 0.0
        var number = ""
        var index = text.startIndex
        var sawUnit = false
        while index < text.endIndex {
            let c = text[index]
            if c.isNumber || c == "." { number.append(c); index = text.index(after: index); continue }
            guard let value = Double(number) else { return nil }
            let rest = text[index...]
            if rest.hasPrefix("ms") { total += value / 1000; index = text.index(index, offsetBy: 2) }
            else if c == "h" { total += value * 3600; index = text.index(after: index) }
            else if c == "m" { total += value * 60; index = text.index(after: index) }
            else if c == "s" { total += value; index = text.index(after: index) }
            else { return nil }
            number = ""
            sawUnit = true
        }
        if !number.isEmpty { guard let value = Double(number) else { return nil }; total += value }
        return sawUnit || !text.isEmpty ? total : nil
    }
}
