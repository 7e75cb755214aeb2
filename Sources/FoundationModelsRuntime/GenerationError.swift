/// `LanguageModelSession.GenerationError` (the 26.x taxonomy prompt files catch).
public enum GenerationError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Context: Sendable, Hashable {
        public let debugDescription: String
        public init(debugDescription: String) { self.debugDescription = debugDescription }
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

    public init(toolName: String, underlyingError: any Error) {
        self.toolName = toolName
        self.underlyingError = underlyingError
    }

    public var description: String { "ToolCallError: tool '\(toolName)' failed: \(underlyingError)" }
}
