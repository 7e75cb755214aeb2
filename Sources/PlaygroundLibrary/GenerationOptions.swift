import FoundationModelsRuntime
import PromptInterpreter
import SwiftSyntax

/// The options entries of `Surface.table` (Table/GenerationOptions.swift).
extension Builtins {
    static let options: @Sendable (Value) -> GenerationOptions? = { if case .options(let o) = $0 { o } else { nil } }

    static let optionsBuiltins: [String: Builtin] = [
        "GenerationOptions.init(samplingMode:temperature:maximumResponseTokens:)": makeOptions,
        "GenerationOptions.init(samplingMode:temperature:maximumResponseTokens:toolCallingMode:)": makeOptions,
        "GenerationOptions.init(sampling:temperature:maximumResponseTokens:)": makeOptions,
        "GenerationOptions.samplingMode": on(options) { _, o, _ in o.samplingMode.map(Value.samplingMode) ?? .null },
        "GenerationOptions.sampling": on(options) { _, o, _ in o.samplingMode.map(Value.samplingMode) ?? .null },
        "GenerationOptions.samplingMode=": setOption { i, o, v, n in o.samplingMode = try samplingModeValue(i, v, n) },
        "GenerationOptions.sampling=": setOption { i, o, v, n in o.samplingMode = try samplingModeValue(i, v, n) },
        "GenerationOptions.temperature=": setOption { i, o, v, n in o.temperature = try temperatureValue(i, v, n) },
        "GenerationOptions.maximumResponseTokens=": setOption { i, o, v, n in o.maximumResponseTokens = try maximumResponseTokensValue(i, v, n) },
        "GenerationOptions.toolCallingMode=": setOption { i, o, v, n in o.toolCallingMode = try toolCallingModeValue(i, v, n) },
        "GenerationOptions.temperature": on(options) { _, o, _ in o.temperature.map(Value.double) ?? .null },
        "GenerationOptions.maximumResponseTokens": on(options) { _, o, _ in o.maximumResponseTokens.map(Value.int) ?? .null },
        "GenerationOptions.toolCallingMode": on(options) { _, o, _ in o.toolCallingMode.map(Value.toolCallingMode) ?? .null },
        "GenerationOptions.SamplingMode.greedy": constant(.samplingMode(.greedy)),
        "GenerationOptions.SamplingMode.random(top:seed:)": { i, c in try await i.implicitCall("random", c.callNode) },
        "GenerationOptions.SamplingMode.random(probabilityThreshold:seed:)": { i, c in try await i.implicitCall("random", c.callNode) },
        "GenerationOptions.SamplingMode.kind": on(samplingMode) { _, mode, _ in samplingKind(mode.kind) },
        "GenerationOptions.SamplingMode.Kind.greedy": constant(samplingKind(.greedy)),
        "GenerationOptions.SamplingMode.Kind.randomTopK(_:seed:)": { i, c in
            let args = try await c.arguments(i)
            return samplingKind(.randomTopK(try i.intArgument(args.items.first?.value ?? .null, "randomTopK(_:seed:)", c.node),
                                            seed: try seedArgument(i, args.value("seed"), c)))
        },
        "GenerationOptions.SamplingMode.Kind.randomProbabilityThreshold(_:seed:)": { i, c in
            let args = try await c.arguments(i)
            guard let threshold = args.items.first?.value.number else {
                throw i.error("randomProbabilityThreshold(_:seed:) needs a number", c.node)
            }
            return samplingKind(.randomProbabilityThreshold(threshold, seed: try seedArgument(i, args.value("seed"), c)))
        },
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

    static let samplingMode: @Sendable (Value) -> GenerationOptions.SamplingMode? = { if case .samplingMode(let m) = $0 { m } else { nil } }

    /// `mode.kind` as a case of `GenerationOptions.SamplingMode.Kind` (`switch mode.kind { case .randomTopK(let k, let seed): ... }`).
    static func samplingKind(_ kind: GenerationOptions.SamplingMode.Kind) -> Value {
        let type = "GenerationOptions.SamplingMode.Kind"
        let seed = { (seed: UInt64?) in seed.map { Value.int(Int(truncatingIfNeeded: $0)) } ?? .null }
        switch kind {
        case .greedy: return .enumCase(type: type, name: "greedy", payload: [])
        case .randomTopK(let k, let s): return .enumCase(type: type, name: "randomTopK", payload: [(nil, .int(k)), ("seed", seed(s))])
        case .randomProbabilityThreshold(let p, let s):
            return .enumCase(type: type, name: "randomProbabilityThreshold", payload: [(nil, .double(p)), ("seed", seed(s))])
        }
    }

    static func seedArgument(_ i: Interpreter, _ value: Value?, _ c: BuiltinCall) throws -> UInt64? {
        guard let value, !value.isNull else { return nil }
        let n = try i.intArgument(value, "seed:", c.node)
        return try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.unsigned(n, what: "seed") }
    }

    static func toolCallingKind(_ name: String) -> Value {
        .enumCase(type: "GenerationOptions.ToolCallingMode.Kind", name: name, payload: [])
    }

    static let makeOptions: Builtin = { i, c in
        let args = try await c.arguments(i)
        var options = GenerationOptions()
        options.samplingMode = try samplingModeValue(i, args.value("samplingMode") ?? args.value("sampling"), c.node)
        options.temperature = try temperatureValue(i, args.value("temperature"), c.node)
        options.maximumResponseTokens = try maximumResponseTokensValue(i, args.value("maximumResponseTokens"), c.node)
        options.toolCallingMode = try toolCallingModeValue(i, args.value("toolCallingMode"), c.node)
        return .options(options)
    }

    /// `options.name = value` for the options' settable properties.
    static func setOption(_ change: @escaping @Sendable (Interpreter, inout GenerationOptions, Value, Syntax) throws -> Void) -> Builtin {
        { i, c in
            guard case .options(var options) = c.base else { throw i.error("'\(c.entry.name)' needs GenerationOptions", c.node) }
            try change(i, &options, c.newValue, c.node)
            return .options(options)
        }
    }

    static func samplingModeValue(_ i: Interpreter, _ given: Value?, _ node: Syntax) throws -> GenerationOptions.SamplingMode? {
        guard let given, !given.isNull else { return nil }
        guard case .samplingMode(let mode) = given else {
            throw i.error("samplingMode needs a GenerationOptions.SamplingMode (.greedy, .random(top:), .random(probabilityThreshold:)), not \(given.description.prefix(30))", node)
        }
        return mode
    }

    static func temperatureValue(_ i: Interpreter, _ given: Value?, _ node: Syntax) throws -> Double? {
        guard let given, !given.isNull else { return nil }
        guard let t = given.number, t.isFinite, t >= 0 else {
            throw i.error("temperature must be a finite number of at least 0, not \(given.description.prefix(30))", node)
        }
        return t
    }

    static func maximumResponseTokensValue(_ i: Interpreter, _ given: Value?, _ node: Syntax) throws -> Int? {
        guard let given, !given.isNull else { return nil }
        let n = try i.intArgument(given, "maximumResponseTokens:", node)
        guard n > 0 else { throw i.error("maximumResponseTokens must be at least 1, not \(n)", node) }
        return n
    }

    static func toolCallingModeValue(_ i: Interpreter, _ given: Value?, _ node: Syntax) throws -> GenerationOptions.ToolCallingMode? {
        guard let given, !given.isNull else { return nil }
        guard case .toolCallingMode(let mode) = given else {
            throw i.error("toolCallingMode needs .allowed, .required or .disallowed, not \(given.description.prefix(30))", node)
        }
        return mode
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
