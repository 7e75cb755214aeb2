import Foundation
import Schema

/// What `PrivateCloudComputeLanguageModel` needs from the backend that serves
/// it (on Linux an OpenAI-compatible server, see the ServerModel target)
/// besides running model turns.
public protocol ServerLanguageModelBackend: LanguageModel {
    /// Asks the server whether it answers (a short request). `.reachable`
    /// carries the context size the server reports, when it reports one.
    func probe() async -> ServerProbe
    /// The request budget as the server last reported it.
    var quotaUsage: PrivateCloudComputeLanguageModel.QuotaUsage { get }
    /// Where requests go (URL and model name, never credentials).
    var endpointDescription: String { get }
}

/// The outcome of `ServerLanguageModelBackend.probe()`.
public enum ServerProbe: Sendable, Hashable {
    case reachable(contextSize: Int?)
    case unreachable(String)
}

/// `PrivateCloudComputeLanguageModel`: Apple's server model. fmplay serves
/// it with the configured OpenAI-compatible endpoint (`FMPLAY_SERVER_URL`,
/// `fmplay run --server`, the language server's `serverURL` setting).
///
/// - Not configured: `.unavailable(.deviceNotEligible)`, and requests throw
///   `GenerationError.assetsUnavailable` with `configurationHelp`.
/// - Configured but not answering: `.unavailable(.systemNotReady)`; requests
///   throw `PrivateCloudComputeLanguageModel.Error.networkFailure`.
/// - `contextSize` is what the server reports (llama.cpp's `/props`, a
///   models list with `meta.n_ctx`), else PCC's documented 32768.
public struct PrivateCloudComputeLanguageModel: LanguageModel {
    public enum UnavailableReason: String, Sendable, Hashable {
        case deviceNotEligible, systemNotReady
    }

    public enum Availability: Sendable, Hashable {
        case available
        case unavailable(UnavailableReason)
    }

    /// PCC's documented context size, used when the server does not report one.
    public static let documentedContextSize = 32768

    /// How to configure the server model (shown whenever it is not configured).
    public static let configurationHelp = """
        No server model is configured: set FMPLAY_SERVER_URL to an OpenAI-compatible endpoint \
        (for example http://127.0.0.1:8080/v1; optional FMPLAY_SERVER_MODEL, and FMPLAY_SERVER_API_KEY \
        or FMPLAY_SERVER_API_KEY_FILE), pass `fmplay run --server URL`, or set `serverURL` in the \
        language server's settings. README.md, "Server models", has llama.cpp, vLLM and Ollama set-ups.
        """

    /// The server backend, nil when none is configured.
    public let backend: (any ServerLanguageModelBackend)?

    public init(backend: (any ServerLanguageModelBackend)?) { self.backend = backend }

    public var name: String { backend.map { "Private Cloud Compute (\($0.name))" } ?? "Private Cloud Compute (not configured)" }
    public var identity: String { backend.map { "pcc:" + $0.identity } ?? "pcc:none" }

    /// The last known context size (synchronous; `currentContextSize()` asks the server).
    public var contextSize: Int { backend?.contextSize ?? Self.documentedContextSize }

    /// The synchronous availability of the runtime protocol: configured or
    /// not (`currentAvailability()` asks the server).
    public var availability: SystemLanguageModel.Availability {
        backend == nil ? .unavailable(.deviceNotEligible) : .available
    }

    public var supportedLanguages: [String]? { nil }
    /// What `supportedLanguages` answers in prompt files and what `supportsLocale` checks: servers do not list their
    /// languages, so a configured server has `LanguageSupport`'s assumed ones; an unconfigured model none.
    public var languages: [String] { backend == nil ? [] : LanguageSupport.languages(listed: supportedLanguages) }

    /// PCC has all four capabilities (reasoning included); an unconfigured model fails its requests with
    /// `configurationHelp` instead.
    public var supportsReasoning: Bool { backend?.supportsReasoning ?? true }

    /// Whether the server answers now, and why not.
    public func currentAvailability() async -> (Availability, message: String?) {
        guard let backend else { return (.unavailable(.deviceNotEligible), Self.configurationHelp) }
        switch await backend.probe() {
        case .reachable: return (.available, nil)
        case .unreachable(let why): return (.unavailable(.systemNotReady), why)
        }
    }

    /// The server's context size when it reports one, else 32768.
    public func currentContextSize() async -> Int {
        guard let backend else { return Self.documentedContextSize }
        if case .reachable(let size?) = await backend.probe() { return size }
        return backend.contextSize
    }

    public var quotaUsage: QuotaUsage { backend?.quotaUsage ?? QuotaUsage(status: .belowLimit(.init(isApproachingLimit: false))) }

    public func prewarm(transcript: Transcript) async {
        await backend?.prewarm(transcript: transcript)
    }

    public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Swift.Error> {
        guard let backend else {
            return AsyncThrowingStream { $0.finish(throwing: GenerationError.assetsUnavailable(.init(debugDescription: Self.configurationHelp))) }
        }
        return backend.generate(request)
    }

    public func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int {
        guard let backend else { throw GenerationError.assetsUnavailable(.init(debugDescription: Self.configurationHelp)) }
        return try await backend.tokenCount(for: entries, schema: schema)
    }

    // MARK: Quota

    /// `PrivateCloudComputeLanguageModel.QuotaUsage`: the request budget. On
    /// a server it comes from the rate-limit headers of the last response
    /// (`x-ratelimit-limit-requests`, `-remaining-requests`, `-reset-requests`)
    /// and from a 429 `insufficient_quota` answer; `FMPLAY_SERVER_SIMULATE_QUOTA`
    /// (`limitReached` or `nearingLimit`) simulates it, like Xcode's scheme option.
    public struct QuotaUsage: Sendable, Hashable {
        public enum Status: Sendable, Hashable {
            case belowLimit(BelowLimit)
            case limitReached(LimitReached)
        }

        public struct BelowLimit: Sendable, Hashable {
            public var isApproachingLimit: Bool
            public init(isApproachingLimit: Bool) { self.isApproachingLimit = isApproachingLimit }
        }

        public struct LimitReached: Sendable, Hashable {
            public init() {}
        }

        public var status: Status
        public var resetDate: Date?

        public init(status: Status, resetDate: Date? = nil) {
            self.status = status
            self.resetDate = resetDate
        }

        public var isLimitReached: Bool {
            if case .limitReached = status { return true }
            return false
        }

        /// Servers offer no upgrade flow: always nil (no upgrade path is offered).
        public var hasLimitIncreaseSuggestion: Bool { false }
    }

    // MARK: Errors

    /// `PrivateCloudComputeLanguageModel.Error`.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        public struct QuotaLimitReached: Sendable, Hashable {
            public var resetDate: Date?
            public var debugDescription: String
            public init(resetDate: Date? = nil, debugDescription: String) {
                self.resetDate = resetDate
                self.debugDescription = debugDescription
            }
        }

        public struct Context: Sendable, Hashable {
            public var debugDescription: String
            public init(debugDescription: String) { self.debugDescription = debugDescription }
        }

        case quotaLimitReached(QuotaLimitReached)
        case networkFailure(Context)
        case serviceUnavailable(Context)

        public var caseName: String {
            switch self {
            case .quotaLimitReached: "quotaLimitReached"
            case .networkFailure: "networkFailure"
            case .serviceUnavailable: "serviceUnavailable"
            }
        }

        public var debugDescription: String {
            switch self {
            case .quotaLimitReached(let q): q.debugDescription
            case .networkFailure(let c), .serviceUnavailable(let c): c.debugDescription
            }
        }

        public var description: String { "PrivateCloudComputeLanguageModel.Error.\(caseName): \(debugDescription)" }
    }
}
