/// How a response is generated: options, sampling, tool calling, context options.
extension Surface {
    static let optionsTypes: [SurfaceType] = [
        SurfaceType(.struct, "GenerationOptions", .v26_0, "How a response is sampled and how long it may be.", [
            MemberSpec("init(samplingMode: GenerationOptions.SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil)",
                       "Options; nil leaves the model's default (fmplay run --temperature/--max-tokens)."),
            MemberSpec("init(samplingMode: GenerationOptions.SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil, toolCallingMode: GenerationOptions.ToolCallingMode?)",
                       "Options with a tool-calling mode.", .v27_0),
            MemberSpec("init(sampling: GenerationOptions.SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil)",
                       "Options (the 26.0 spelling of init(samplingMode:...); deprecated in 27.0)."),
            MemberSpec("var samplingMode: GenerationOptions.SamplingMode?", "How the next token is chosen, or nil for the model's default."),
            MemberSpec("var sampling: GenerationOptions.SamplingMode?", "The 26.0 name of samplingMode (deprecated in 27.0)."),
            MemberSpec("var temperature: Double?", "The temperature, or nil for the default."),
            MemberSpec("var maximumResponseTokens: Int?", "The response length limit in tokens, or nil."),
            MemberSpec("var toolCallingMode: GenerationOptions.ToolCallingMode?", "The tool calling mode, or nil (.allowed).", .v27_0),
        ]),
        SurfaceType(.struct, "GenerationOptions.SamplingMode", .v26_0, "How the next token is chosen.", [
            MemberSpec("static var greedy: GenerationOptions.SamplingMode", "Always the most likely token."),
            MemberSpec("static func random(top: Int, seed: UInt64? = nil) -> GenerationOptions.SamplingMode", "Samples among the k most likely tokens."),
            MemberSpec("static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> GenerationOptions.SamplingMode",
                       "Samples among the most likely tokens whose probabilities add up to the threshold."),
            MemberSpec("var kind: GenerationOptions.SamplingMode.Kind", "The strategy this mode uses to choose the next token.", .v27_0),
        ]),
        SurfaceType(.enum, "GenerationOptions.SamplingMode.Kind", .v27_0, "The strategy a sampling mode uses.", [
            MemberSpec("case greedy", "Always the most likely token."),
            MemberSpec("case randomTopK(_: Int, seed: UInt64?)", "Samples among the k most likely tokens."),
            MemberSpec("case randomProbabilityThreshold(_: Double, seed: UInt64?)", "Samples among the tokens whose probabilities add up to the threshold."),
        ]),
        SurfaceType(.struct, "GenerationOptions.ToolCallingMode", .v27_0, "Whether the model may, must or must not call tools.", [
            MemberSpec("static var allowed: GenerationOptions.ToolCallingMode", "The model decides (the default)."),
            MemberSpec("static var required: GenerationOptions.ToolCallingMode", "The model must call a tool on every turn."),
            MemberSpec("static var disallowed: GenerationOptions.ToolCallingMode", "The model may not call tools."),
            MemberSpec("var kind: GenerationOptions.ToolCallingMode.Kind", "The tool-calling behavior this mode represents."),
        ]),
        SurfaceType(.enum, "GenerationOptions.ToolCallingMode.Kind", .v27_0, "The tool-calling behavior of a mode.", [
            MemberSpec("case allowed", "The model may or may not call tools."),
            MemberSpec("case required", "The model must call one or more tools before it responds."),
            MemberSpec("case disallowed", "The model can't call tools."),
        ]),
        SurfaceType(.struct, "ContextOptions", .v27_0, "What goes into the model's context besides the transcript.", [
            MemberSpec("init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ContextOptions.ReasoningLevel? = nil)",
                       "Whether the schema is described in the prompt; a reasoning level (reasoning models only)."),
            MemberSpec("var includeSchemaInPrompt: Bool?", "Whether the schema is described in the prompt."),
            MemberSpec("var reasoningLevel: ContextOptions.ReasoningLevel?", "The reasoning level, or nil."),
        ]),
        SurfaceType(.enum, "ContextOptions.ReasoningLevel", .v27_0, "How much a reasoning model thinks (fmplay's models do not reason: FM305).", [
            MemberSpec("case light", "A little reasoning."),
            MemberSpec("case moderate", "Some reasoning."),
            MemberSpec("case deep", "Much reasoning."),
            MemberSpec("case custom(_: String)", "A level the model names."),
        ]),
    ]
}
