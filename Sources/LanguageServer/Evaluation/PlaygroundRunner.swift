import JSON
import PlaygroundEvaluator
import PlaygroundResults
import PromptLanguage

/// What the server needs from an evaluator: run one `#Playground` block,
/// reporting results as they stream. The command layer adapts the
/// `PlaygroundEvaluator` to this; tests use a scripted runner.
///
/// Contract: `run` stops promptly (within one generated token) when its task
/// is cancelled, and calls `report` from any thread.
public protocol PlaygroundRunner: Sendable {
    func run(_ request: BlockRunRequest, report: @escaping @Sendable (BlockEvent) -> Void) async -> BlockOutcome
    /// Empties the shared on-disk result cache; returns a sentence for the user.
    func clearCache() throws -> String
    /// Tokens of `text` with the tokenizer of the model the settings select, or why they cannot be counted.
    func tokenCount(of text: String, configuration: ServerConfiguration) -> TokenCount
    /// Called when the settings are (re)applied: a runner may get ready for runs with them
    /// (the worker runner starts its worker process). The default does nothing.
    func warmUp(_ configuration: ServerConfiguration)
}

extension PlaygroundRunner {
    public func warmUp(_ configuration: ServerConfiguration) {}
}

/// A prompt's size for hover: counted with the configured model's tokenizer,
/// or a sentence saying why not and how to fix it.
public enum TokenCount: Sendable, Equatable {
    case counted(tokens: Int, contextSize: Int, model: String)
    case unavailable(String)
}

public struct BlockRunRequest: Sendable {
    public var analysis: PromptAnalysis
    public var blockIndex: Int
    public var configuration: ServerConfiguration
    /// True for an explicit `fmplay.run`: do not answer from the result cache.
    public var ignoreCache: Bool

    public var block: PlaygroundBlock { analysis.file.playgrounds[blockIndex] }
}

/// One result of a model call or `print` in a block. A streaming call
/// reports a snapshot (`isComplete == false`) each time it grows; a later
/// report for the same call and iteration replaces the earlier one.
public struct CallResult: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case response, stream, print, error, evaluation
    }

    /// UTF-8 offsets of the call (or `print`) in the text that was evaluated.
    public var range: Swift.Range<Int>
    /// 0-based loop iteration (0 outside loops).
    public var iteration: Int
    public var kind: Kind
    /// The Generable type for structured results.
    public var typeName: String?
    /// A string for text results, the JSON value for structured ones, the message for errors.
    public var content: JSONValue
    public var isComplete: Bool
    public var promptTokens: Int
    public var cachedTokens: Int
    public var responseTokens: Int
    public var timeToFirstToken: Double?
    public var tokensPerSecond: Double?
    /// The session transcript after the call, as `print(session.transcript)` shows it.
    public var transcript: String?
    /// For an evaluation: the full report (summary table, failing samples) and its pass rate.
    public var details: String?
    public var passRate: Double?
    /// The prompt as the model read it and why generation stopped (hover transparency).
    public var renderedPrompt: String?
    public var stopReason: String?
    /// The evaluator's full result (tool calls, lifecycle, evaluation samples): what "Open report" shows.
    public var record: EvaluationResult?
    /// The model that answered (embedded, scripted or the server model).
    public var model: String?
    /// What happened while answering, in order (27's profiles): the active profile,
    /// lifecycle callbacks, tool calls and outputs.
    public var lifecycle: [String] = []

    public init(
        range: Swift.Range<Int>, iteration: Int = 0, kind: Kind, typeName: String? = nil, content: JSONValue, isComplete: Bool = true,
        promptTokens: Int = 0, cachedTokens: Int = 0, responseTokens: Int = 0, timeToFirstToken: Double? = nil,
        tokensPerSecond: Double? = nil, transcript: String? = nil, model: String? = nil
    ) {
        self.model = model
        self.range = range
        self.iteration = iteration
        self.kind = kind
        self.typeName = typeName
        self.content = content
        self.isComplete = isComplete
        self.promptTokens = promptTokens
        self.cachedTokens = cachedTokens
        self.responseTokens = responseTokens
        self.timeToFirstToken = timeToFirstToken
        self.tokensPerSecond = tokensPerSecond
        self.transcript = transcript
    }
}

public enum BlockEvent: Sendable, Equatable, Codable {
    case result(CallResult)
    /// Tokens generated so far in the block (for progress).
    case tokens(Int)
}

/// How a block run ended.
public struct BlockOutcome: Sendable, Equatable, Codable {
    /// Why the block failed (`exceededContextWindowSize: ...`), nil when it ran to the end.
    public var error: String?
    /// Where it failed, as UTF-8 offsets in the evaluated text.
    public var errorRange: Swift.Range<Int>?
    /// The results came from the result cache.
    public var fromCache: Bool

    public init(error: String? = nil, errorRange: Swift.Range<Int>? = nil, fromCache: Bool = false) {
        self.error = error
        self.errorRange = errorRange
        self.fromCache = fromCache
    }
}
