import Evaluations
import FoundationModelsRuntime
import PromptInterpreter
import Surface

/// Errors: the `Error` protocol's entries (a `catch` binding whose type lint cannot know), `LocalizedError`'s members
/// on every FoundationModels and Evaluations error type (`Surface.localizedErrorTypes`), and
/// `LanguageModelSession.ToolCallError` (a runtime `ToolCallError` dispatches to that type, `Value.surfaceTypeName`).
extension Builtins {
    static let errorValue: @Sendable (Value) -> ErrorValue? = { if case .error(let e) = $0 { e } else { nil } }
    static let toolCallError: @Sendable (Value) -> ToolCallError? = { if case .error(let e) = $0 { e.error as? ToolCallError } else { nil } }

    static let errorBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "Error.localizedDescription": errorDescription,
            "Error.description": on(errorValue) { _, e, _ in .string("\(e.error)") },
            "Error.debugDescription": on(errorValue) { _, e, _ in
                if let server = e.error as? PrivateCloudComputeLanguageModel.Error { return .string(server.debugDescription) }
                return .string((e.error as? GenerationError)?.context.debugDescription ?? "\(e.error)")
            },
            "Error.errorDescription": errorDescription,
            "Error.failureReason": failureReason,
            "Error.recoverySuggestion": constant(.null),
            "LanguageModelSession.ToolCallError.init(tool:underlyingError:)": { i, c in
                let args = try await c.arguments(i)
                guard let toolValue = args.value("tool"), let underlying = args.value("underlyingError") else {
                    throw i.error("LanguageModelSession.ToolCallError needs tool: (a value of a Tool type of the file) and underlyingError:", c.node)
                }
                let tool = try await i.fileTool(toolValue, c.node)
                let error: any Error = if case .error(let e) = underlying { e.error } else { ThrownValue(value: underlying) }
                return .error(ErrorValue(error: ToolCallError(toolName: tool.name, underlyingError: error, tool: tool)))
            },
            // What the tool threw: a value the file threw (`throw LookupError.notFound(q)`) is that value again, so
            // `if case LookupError.notFound(let q) = error.underlyingError` and `as? LookupError` match it.
            "LanguageModelSession.ToolCallError.underlyingError": on(toolCallError) { _, e, _ in
                (e.underlyingError as? ThrownValue)?.value ?? .error(ErrorValue(error: e.underlyingError))
            },
            "LanguageModelSession.ToolCallError.tool": on(toolCallError) { i, e, c in
                guard let source = (e.tool as? ClosureTool)?.source as? Value else {
                    throw i.error("the tool '\(e.toolName)' that threw is built in (not a value of the file); compare its name instead", c.node)
                }
                return source
            },
        ]
        for type in Surface.localizedErrorTypes {
            all["\(type).errorDescription"] = errorDescription
            all["\(type).localizedDescription"] = errorDescription
            all["\(type).failureReason"] = failureReason
            all["\(type).recoverySuggestion"] = constant(.null)
        }
        return all
    }()

    /// What went wrong, as text: a runtime error's description, or how a thrown table error value prints
    /// (`GeneratedContent.ParsingError`, a `GenerationSchema.SchemaError` case).
    static let errorDescription: Builtin = { _, c in
        if case .error(let e) = c.base { return .string("\(e.error)") }
        return .string(c.base.description)
    }

    /// The error's debug description: a generation or server error's context, a thrown table value's `debugDescription`
    /// (a payload's, for an enum case such as `GenerationSchema.SchemaError.undefinedReferences(..., context:)`); else nil.
    static let failureReason: Builtin = { _, c in
        func debugDescription(_ value: Value) -> Value? {
            guard case .structure(_, let fields) = value, let text = fields.first(where: { $0.name == "debugDescription" })?.value,
                  case .string = text else { return nil }
            return text
        }
        switch c.base {
        case .error(let e):
            if let server = e.error as? PrivateCloudComputeLanguageModel.Error { return .string(server.debugDescription) }
            if case .invalidJSONFormat(let reason)? = e.error as? EvaluationResultsError { return .string(reason) }
            return (e.error as? GenerationError).map { .string($0.context.debugDescription) } ?? .null
        case .structure:
            return debugDescription(c.base) ?? .null
        case .enumCase(_, _, let payload):
            return payload.lazy.compactMap { debugDescription($0.value) }.first ?? .null
        default:
            return .null
        }
    }
}
