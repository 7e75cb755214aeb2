import Schema

/// A model the runtime can talk to. The embedded GGUF engine (`EmbeddedModel`),
/// a scripted test model (`ScriptedLanguageModel`) and, later, a server model
/// implement it; `LanguageModelSession` adds FoundationModels semantics on top
/// (transcript bookkeeping, the tool loop, parsing, snapshots, errors).
///
/// Contract for implementers:
/// - `generate(_:)` runs ONE model turn: it reads the whole transcript of the
///   request (the last entry is a prompt or a tool output) and produces either
///   response text (`.text` pieces, then `.finished`) or tool calls
///   (`.toolCalls`, then `.finished`). It never executes tools.
/// - With `request.schema` set, the text pieces concatenate to JSON that
///   parses into the schema (guided generation). Without it, free text.
/// - With tools and `toolCallingMode` `.allowed` the model chooses; `.required`
///   means it must emit `.toolCalls`; `.disallowed` (or no tools) means it
///   must answer with text.
/// - Errors are thrown through the stream: `GenerationError` cases where they
///   happen (`exceededContextWindowSize` with the real context size,
///   `unsupportedGuide` for a guide the grammar cannot enforce, ...).
/// - Cancelling the consuming Task (or dropping the stream) stops generation
///   within one token: implementations must honour `onTermination`.
/// - Same model file + request + seed gives the same events (determinism).
public protocol LanguageModel: Sendable {
    /// A short human name, e.g. "SmolLM2-135M-Instruct Q4_1".
    var name: String { get }
    /// The identity of the weights for result caching (e.g. path + size +
    /// modification time, or a content hash). Two models with the same
    /// identity give the same output for the same request.
    var identity: String { get }
    /// The context window in tokens.
    var contextSize: Int { get }
    /// Whether the model can run now.
    var availability: SystemLanguageModel.Availability { get }
    /// The languages the model was trained for (ISO 639 codes such as "en"),
    /// or nil when the model does not say.
    var supportedLanguages: [String]? { get }
    /// Loads weights / fills caches for this transcript prefix ahead of a request.
    func prewarm(transcript: Transcript) async
    /// Runs one model turn. See the protocol documentation.
    func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error>
    /// How many tokens the model reads for `entries` (rendered in its own chat
    /// format, tool definitions included) plus, when given, the prompt
    /// description of `schema`. Backs `SystemLanguageModel.tokenCount(for:)`.
    func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int
    /// Whether the model has a thinking mode (27's `.reasoning` capability): it
    /// reports `.reasoning` events and honours `GenerationRequest.reasoningLevel`.
    var supportsReasoning: Bool { get }
}

extension LanguageModel {
    public func prewarm(transcript: Transcript) async {}
    public var isAvailable: Bool { availability == .available }
    public var supportedLanguages: [String]? { nil }
    public var supportsReasoning: Bool { false }
}

/// Everything one model turn needs.
public struct GenerationRequest: Sendable, Hashable {
    /// The conversation so far: instructions (with tool definitions), prompts,
    /// responses, tool calls and outputs. Ends with the entry to answer.
    public var transcript: Transcript
    /// When set, the response must be JSON for this schema (constrained decoding).
    public var schema: GenerationSchema?
    /// Whether to describe `schema` in the prompt (constraining happens either way).
    public var includeSchemaInPrompt: Bool
    /// The tools the model may call (empty when none are attached).
    public var tools: [Transcript.ToolDefinition]
    /// Sampling, temperature, token limit and tool-calling mode as the caller wrote them.
    public var options: GenerationOptions
    /// The seed to use when `options.samplingMode` carries none: the session's
    /// fixed default, so the same file gives the same output.
    public var seed: UInt64
    /// 27: how much the model should reason first (`ContextOptions.reasoningLevel`,
    /// `.reasoningLevel(_:)`); only sent to models that `supportsReasoning`.
    public var reasoningLevel: ReasoningLevel?
    /// Whether the caller streams the response (`streamResponse`): a server
    /// model then asks for server-sent events; otherwise one JSON answer.
    public var streaming: Bool

    public init(transcript: Transcript, schema: GenerationSchema? = nil, includeSchemaInPrompt: Bool = true,
                tools: [Transcript.ToolDefinition] = [], options: GenerationOptions = GenerationOptions(),
                seed: UInt64 = GenerationOptions.defaultSeed, reasoningLevel: ReasoningLevel? = nil, streaming: Bool = false) {
        self.reasoningLevel = reasoningLevel
        self.streaming = streaming
        self.transcript = transcript
        self.schema = schema
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.tools = tools
        self.options = options
        self.seed = seed
    }

    /// The seed in effect: the one in `options.samplingMode`, else `seed`.
    public var effectiveSeed: UInt64 { options.samplingMode?.seed ?? seed }
}

/// What a model turn reports, in order: any number of `.text` pieces OR one
/// `.toolCalls`, then exactly one `.finished`.
public enum LanguageModelEvent: Sendable, Hashable {
    /// Text appended to the response so far (JSON text under a schema), and
    /// how many tokens produced it.
    case text(String, tokenCount: Int)
    /// The model calls these tools; the session runs them and asks again.
    case toolCalls([Transcript.ToolCall])
    /// Reasoning text (models that `supportsReasoning`), before any answer text or tool calls.
    case reasoning(String, tokenCount: Int)
    /// Token counts and timings for the turn. Always last.
    case finished(GenerationStatistics)
}

/// Token counts of one model turn or of a whole response.
public struct Usage: Sendable, Hashable {
    /// Tokens of the prompt (the rendered transcript), including cached ones.
    public var promptTokens: Int
    /// Of `promptTokens`, how many were reused from a KV cache.
    public var cachedTokens: Int
    /// Tokens generated.
    public var responseTokens: Int
    /// Of `responseTokens`, how many were reasoning (27's `reasoningTokenCount`).
    public var reasoningTokens: Int
    /// Further statistics by name (27's `metadata`). fmplay's models report none; a usage built by
    /// `Usage(input:output:metadata:)` keeps what it was given.
    public var metadata: [String: GeneratedContent]

    public init(promptTokens: Int = 0, cachedTokens: Int = 0, responseTokens: Int = 0, reasoningTokens: Int = 0,
                metadata: [String: GeneratedContent] = [:]) {
        self.promptTokens = promptTokens
        self.cachedTokens = cachedTokens
        self.responseTokens = responseTokens
        self.reasoningTokens = reasoningTokens
        self.metadata = metadata
    }

    public var totalTokens: Int { promptTokens + responseTokens }

    /// The usage of a response after one more model turn. A response with
    /// tool rounds takes several turns, each reading the whole transcript so
    /// far; every token is counted once:
    /// - `promptTokens`: the first turn's prompt plus, for each later turn,
    ///   the prompt tokens it did not reuse from the KV cache (the tool calls
    ///   and outputs appended since), so it is about the context the answer
    ///   was generated from, never a sum of overlapping prompts;
    /// - `cachedTokens`: the first turn's KV-cache reuse, i.e. the prompt
    ///   prefix computed before this response (later turns reuse what this
    ///   response computed itself, which is not a cache hit);
    /// - `responseTokens`: every generated token (tool calls and the answer).
    public func adding(turn: Usage, isFirst: Bool) -> Usage {
        if isFirst { return turn }
        return Usage(promptTokens: promptTokens + max(0, turn.promptTokens - turn.cachedTokens), cachedTokens: cachedTokens,
                     responseTokens: responseTokens + turn.responseTokens, reasoningTokens: reasoningTokens + turn.reasoningTokens)
    }
}

/// Usage plus timings of a model turn (or of a response: several turns when tools ran).
public struct GenerationStatistics: Sendable, Hashable {
    public var usage: Usage
    /// Seconds from the request to the first generated token.
    public var timeToFirstToken: Double
    /// Generated tokens per second of decoding (after the first token).
    public var tokensPerSecond: Double
    /// The prompt exactly as the model read it (chat template applied), when the backend knows it.
    public var renderedPrompt: String?
    /// Why generation stopped (of the last turn, for a response with tool rounds).
    public var stopReason: ResponseStopReason?
    /// The name of the model that answered (the last turn's: a profile's `.model(...)` can switch it).
    public var modelName: String?

    public init(usage: Usage = Usage(), timeToFirstToken: Double = 0, tokensPerSecond: Double = 0,
                renderedPrompt: String? = nil, stopReason: ResponseStopReason? = nil, modelName: String? = nil) {
        self.modelName = modelName
        self.usage = usage
        self.timeToFirstToken = timeToFirstToken
        self.tokensPerSecond = tokensPerSecond
        self.renderedPrompt = renderedPrompt
        self.stopReason = stopReason
    }
}

/// Why a model turn ended (fmplay addition, shown in `--verbose`, JSON and hover).
public enum ResponseStopReason: String, Sendable, Hashable {
    /// The model emitted its end-of-turn token (or the guided value was complete).
    case endOfTurn
    /// `maximumResponseTokens` or the context size was reached.
    case tokenLimit
    /// The model called tools (the session then runs them and asks again).
    case toolCalls
    /// The request was cancelled (or timed out); recorded on the block's error result.
    case cancelled
    /// The model kept calling tools past the session's tool-round bound; recorded on the error result.
    case toolRoundLimit
}
