import FoundationModelsRuntime
import PromptInterpreter

/// The options entries of `Surface.table` (Table/GenerationOptions.swift).
extension Builtins {
    static let options: @Sendable (Value) -> GenerationOptions? = { if case .options(let o) = $0 { o } else { nil } }

    static let optionsBuiltins: [String: Builtin] = [
        "GenerationOptions.init(sampling:temperature:maximumResponseTokens:)": makeOptions,
        "GenerationOptions.init(sampling:temperature:maximumResponseTokens:toolCallingMode:)": makeOptions,
        "GenerationOptions.temperature": on(options) { _, o, _ in o.temperature.map(Value.double) ?? .null },
        "GenerationOptions.maximumResponseTokens": on(options) { _, o, _ in o.maximumResponseTokens.map(Value.int) ?? .null },
        "GenerationOptions.toolCallingMode": on(options) { _, o, _ in o.toolCallingMode.map(Value.toolCallingMode) ?? .null },
        "GenerationOptions.SamplingMode.greedy": constant(.samplingMode(.greedy)),
        "GenerationOptions.SamplingMode.random(top:seed:)": { i, c in try await i.implicitCall("random", c.callNode) },
        "GenerationOptions.SamplingMode.random(probabilityThreshold:seed:)": { i, c in try await i.implicitCall("random", c.callNode) },
        "GenerationOptions.ToolCallingMode.allowed": constant(.toolCallingMode(.allowed)),
        "GenerationOptions.ToolCallingMode.required": constant(.toolCallingMode(.required)),
        "GenerationOptions.ToolCallingMode.disallowed": constant(.toolCallingMode(.disallowed)),
        "GenerationOptions.ToolCallingMode.kind": { i, c in
            guard case .toolCallingMode(let mode) = c.base else { throw i.error("'kind' needs a ToolCallingMode", c.node) }
            return toolCallingKind("\(mode.kind)")
        },
        "GenerationOptions.ToolCallingMode.Kind.allowed": constant(toolCallingKind("allowed")),
        "GenerationOptions.ToolCallingMode.Kind.required": constant(toolCallingKind("required")),
        "GenerationOptions.ToolCallingMode.Kind.disallowed": constant(toolCallingKind("disallowed")),
        "ContextOptions.init(includeSchemaInPrompt:reasoningLevel:)": { i, c in
            let args = try await c.arguments(i)
            return .structure(type: "ContextOptions", fields: [
                ("includeSchemaInPrompt", args.value("includeSchemaInPrompt") ?? .null),
                ("reasoningLevel", args.value("reasoningLevel") ?? .null),
            ])
        },
        "ContextOptions.includeSchemaInPrompt": field("includeSchemaInPrompt"),
        "ContextOptions.reasoningLevel": field("reasoningLevel"),
        "ContextOptions.ReasoningLevel.light": constant(.enumCase(type: "ContextOptions.ReasoningLevel", name: "light", payload: [])),
        "ContextOptions.ReasoningLevel.moderate": constant(.enumCase(type: "ContextOptions.ReasoningLevel", name: "moderate", payload: [])),
        "ContextOptions.ReasoningLevel.deep": constant(.enumCase(type: "ContextOptions.ReasoningLevel", name: "deep", payload: [])),
        "ContextOptions.ReasoningLevel.custom(_:)": { i, c in
            .enumCase(type: "ContextOptions.ReasoningLevel", name: "custom", payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
        },
    ]

    static func toolCallingKind(_ name: String) -> Value {
        .enumCase(type: "GenerationOptions.ToolCallingMode.Kind", name: name, payload: [])
    }

    static let makeOptions: Builtin = { i, c in
        let args = try await c.arguments(i)
        var options = GenerationOptions()
        if case .samplingMode(let m) = args.value("sampling") ?? .null { options.samplingMode = m }
        if let given = args.value("temperature"), !given.isNull {
            guard let t = given.number, t.isFinite, t >= 0 else {
                throw i.error("temperature must be a finite number of at least 0, not \(given.description.prefix(30))", c.node)
            }
            options.temperature = t
        }
        if let given = args.value("maximumResponseTokens"), !given.isNull {
            let n = try i.intArgument(given, "maximumResponseTokens:", c.node)
            guard n > 0 else { throw i.error("maximumResponseTokens must be at least 1, not \(n)", c.node) }
            options.maximumResponseTokens = n
        }
        if case .toolCallingMode(let m) = args.value("toolCallingMode") ?? .null { options.toolCallingMode = m }
        return .options(options)
    }

    /// A stored field of a table type the interpreter keeps as a structure.
    static func field(_ name: String) -> Builtin {
        { i, c in
            guard case .structure(_, let fields) = c.base, let field = fields.first(where: { $0.name == name }) else {
                throw i.error("'\(name)' is not available on \(c.base.description.prefix(40))", c.node)
            }
            return field.value
        }
    }
}
