/// `LanguageModelSession.GenerationError` (the 26.x taxonomy prompt files catch).
public enum GenerationError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Context: Sendable, Hashable {
        public let debugDescription: String
        /// Why generation stopped, when fmplay ended it (not part of Apple's API): `.toolRoundLimit`.
        public let stopReason: ResponseStopReason?
        /// For a context overflow: the model's context size and the tokens the request needed, when known
        /// (27.0's `LanguageModelError.ContextSizeExceeded` carries both).
        public let contextSize: Int?
        public let tokenCount: Int?
        public init(debugDescription: String, stopReason: ResponseStopReason? = nil, contextSize: Int? = nil, tokenCount: Int? = nil) {
            self.debugDescription = debugDescription
            self.stopReason = stopReason
            self.contextSize = contextSize
            self.tokenCount = tokenCount
        }
    }

    case exceededContextWindowSize(Context)
    case assetsUnavailable(Context)
    case guardrailViolation(Context)
    case unsupportedGuide(Context)
    case unsupportedLanguageOrLocale(Context)
    case decodingFailure(Context)
    case rateLimited(Context)
    case concurrentRequests(Context)
    case refusal(Context)
    /// 27.0's `LanguageModelError.timeout`: no response in time (server models).
    case timeout(Context)

    /// The case name as written in Swift, e.g. "exceededContextWindowSize".
    public var caseName: String {
        switch self {
        case .exceededContextWindowSize: "exceededContextWindowSize"
        case .assetsUnavailable: "assetsUnavailable"
        case .guardrailViolation: "guardrailViolation"
        case .unsupportedGuide: "unsupportedGuide"
        case .unsupportedLanguageOrLocale: "unsupportedLanguageOrLocale"
        case .decodingFailure: "decodingFailure"
        case .rateLimited: "rateLimited"
        case .concurrentRequests: "concurrentRequests"
        case .refusal: "refusal"
        case .timeout: "timeout"
        }
    }

    /// The case of 27.0's `LanguageModelError` this error is, or nil for the three that moved elsewhere
    /// (`assetsUnavailable` to `SystemLanguageModel.Error`, `decodingFailure` to `GeneratedContent.ParsingError`,
    /// `concurrentRequests` to `LanguageModelSession.Error`).
    public var languageModelErrorCaseName: String? {
        switch self {
        case .exceededContextWindowSize: "contextSizeExceeded"
        case .unsupportedGuide: "unsupportedGenerationGuide"
        case .guardrailViolation, .unsupportedLanguageOrLocale, .rateLimited, .refusal, .timeout: caseName
        case .assetsUnavailable, .decodingFailure, .concurrentRequests: nil
        }
    }

    public var context: Context {
        switch self {
        case .exceededContextWindowSize(let c), .assetsUnavailable(let c), .guardrailViolation(let c),
             .unsupportedGuide(let c), .unsupportedLanguageOrLocale(let c), .decodingFailure(let c),
             .rateLimited(let c), .concurrentRequests(let c), .refusal(let c), .timeout(let c):
            c
        }
    }

    public var description: String { "GenerationError.\(caseName): \(context.debugDescription)" }
}

/// `LanguageModelSession.ToolCallError`: a tool's `call(arguments:)` threw.
public struct ToolCallError: Error, Sendable, CustomStringConvertible {
    public var toolName: String
    public var underlyingError: any Error
    /// The tool that threw.
    public var tool: (any Tool)?

    public init(toolName: String, underlyingError: any Error, tool: (any Tool)? = nil) {
        self.toolName = toolName
        self.underlyingError = underlyingError
        self.tool = tool
    }

    public var description: String { "ToolCallError: tool '\(toolName)' failed: \(underlyingError)" }
}

/// 27's `LanguageModelSession.Error`: a failure caused by incorrect use of a session.
public enum SessionUsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session received a request while another one was running.
    case concurrentRequests
    /// The transcript was set while a request was in progress.
    case transcriptMutationWhileResponding

    public var caseName: String {
        switch self {
        case .concurrentRequests: "concurrentRequests"
        case .transcriptMutationWhileResponding: "transcriptMutationWhileResponding"
        }
    }

    public var description: String {
        switch self {
        case .concurrentRequests:
            "LanguageModelSession.Error.concurrentRequests: the session is already responding; wait for the request to finish"
        case .transcriptMutationWhileResponding:
            "LanguageModelSession.Error.transcriptMutationWhileResponding: session.transcript was set while a request was in progress; change it only when isResponding is false (inside lifecycle modifiers, write history through @SessionProperty(\\.history))"
        }
    }
}

/// 27's `LanguageModelError` (the cases fmplay raises).
public enum LanguageModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request needs a capability the model lacks (`.reasoning`, `.toolCalling`, ...).
    case unsupportedCapability(capability: String, modelName: String)

    public var caseName: String {
        switch self {
        case .unsupportedCapability: "unsupportedCapability"
        }
    }

    public var description: String {
        switch self {
        case .unsupportedCapability(let capability, let modelName):
            "LanguageModelError.unsupportedCapability(.\(capability)): the model \(modelName) has no \(capability) capability"
                + (capability == "reasoning" ? " (reasoning levels need a model with a thinking mode, such as a Qwen3 GGUF model given with --model; remove the reasoning level for this model)" : "")
        }
    }
}
