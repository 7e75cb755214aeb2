/// The models: `SystemLanguageModel`, its use cases and availability, and the 27.0 server model.
extension Surface {
    static let systemLanguageModelTypes: [SurfaceType] = [
        SurfaceType(.class, "SystemLanguageModel", .v26_0, "The on-device language model (fmplay: the configured GGUF model).", [
            MemberSpec("init(useCase: SystemLanguageModel.UseCase = .general, guardrails: SystemLanguageModel.Guardrails = .default)",
                       "The model specialized for a use case, with guardrails (fmplay's models have no guardrail model: see Guardrails)."),
            MemberSpec("static var `default`: SystemLanguageModel", "The base model for general use."),
            MemberSpec("var availability: SystemLanguageModel.Availability", ".available, or .unavailable(reason) when no model is configured."),
            MemberSpec("var isAvailable: Bool", "Whether the model can answer now."),
            MemberSpec("var contextSize: Int", "The context window in tokens (back-deployed to 26.0).", .v26_0),
            MemberSpec("var supportedLanguages: [Locale.Language]",
                       "The languages the model file lists (general.languages; a Set in Apple's API), or English when it lists none (Locale.current's language in prompt files); empty with no model. supportsLocale(_:) accepts exactly these languages."),
            MemberSpec("var useCase: SystemLanguageModel.UseCase", "The use case the model was made for: keep the use case you created the model with.", .fmplay),
            MemberSpec("func tokenCount(for: Any) async throws -> Int",
                       "Tokens the model's tokenizer counts for a prompt, instructions, tools, a schema or transcript entries.", .v26_4),
            MemberSpec("func supportsLocale(_: Locale = Locale.current) -> Bool",
                       "Whether the locale's language is one of supportedLanguages (no argument: Locale.current, English)."),
            MemberSpec("var capabilities: LanguageModelCapabilities",
                       "What the model can do: guided generation and tool calling always, reasoning when the model has a thinking mode.", .v27_0),
            MemberSpec("var variant: SystemLanguageModel.Variant",
                       "The variant of the model behind this instance (fmplay: the configured model, named by its file; neither core3 nor coreAdvanced3).", .v27_0),
        ]),
        SurfaceType(.struct, "SystemLanguageModel.Variant", .v27_0, "The variant of an on-device model (Hashable: compare with ==).", [
            MemberSpec("static var core3: SystemLanguageModel.Variant", "AFM 3 Core."),
            MemberSpec("static var coreAdvanced3: SystemLanguageModel.Variant", "AFM 3 Core Advanced."),
            MemberSpec("var displayName: String", "The user-facing name of the variant (fmplay: the model's name for the configured model)."),
        ]),
        SurfaceType(.struct, "LanguageModelCapabilities", .v27_0, "A set of capabilities a language model provides.", [
            MemberSpec("init(_: [LanguageModelCapabilities.Capability])", "A set of these capabilities."),
            MemberSpec("func contains(_: LanguageModelCapabilities.Capability) -> Bool", "Whether the model has the capability."),
        ]),
        SurfaceType(.struct, "LanguageModelCapabilities.Capability", .v27_0, "A capability a model may or may not have (compare with ==).", [
            MemberSpec("static var guidedGeneration: LanguageModelCapabilities.Capability", "Output that conforms to a generation schema."),
            MemberSpec("static var reasoning: LanguageModelCapabilities.Capability", "Reasoning separately from the response (a thinking mode)."),
            MemberSpec("static var toolCalling: LanguageModelCapabilities.Capability", "Calling tools."),
        ]),
        SurfaceType(.struct, "SystemLanguageModel.UseCase", .v26_0, "What the model is specialized for.", [
            MemberSpec("static var general: SystemLanguageModel.UseCase", "General prompting."),
            MemberSpec("static var contentTagging: SystemLanguageModel.UseCase", "Tagging content: topics, entities, actions, emotions."),
        ]),
        SurfaceType(.struct, "SystemLanguageModel.Guardrails", .v26_0,
                    "Which guardrails check input and output. fmplay's models run no guardrail model, so no request raises guardrailViolation under either setting (as under permissiveContentTransformations for content you transform).", [
            MemberSpec("static var `default`: SystemLanguageModel.Guardrails", "The default guardrails."),
            MemberSpec("static var permissiveContentTransformations: SystemLanguageModel.Guardrails",
                       "Guardrails that allow transforming potentially unsafe text the user provided (summaries, rewrites, tags)."),
        ]),
        SurfaceType(.enum, "SystemLanguageModel.Error", .v27_0, "Why the on-device model could not run a request (catch by case).", [
            MemberSpec("case assetsUnavailable(_: SystemLanguageModel.Error.AssetsUnavailable)",
                       "The model's assets are not available (fmplay: no model file is configured)."),
        ] + localizedErrorMembers),
        SurfaceType(.struct, "SystemLanguageModel.Error.AssetsUnavailable", .v27_0, "What assetsUnavailable carries.", [
            MemberSpec("var debugDescription: String", "What went wrong."),
        ]),
        SurfaceType(.enum, "SystemLanguageModel.Availability", .v26_0, "Whether the model can be used.", [
            MemberSpec("case available", "The model is ready."),
            MemberSpec("case unavailable(_: SystemLanguageModel.Availability.UnavailableReason)", "The model cannot be used, and why."),
        ]),
        SurfaceType(.enum, "SystemLanguageModel.Availability.UnavailableReason", .v26_0, "Why the model is unavailable.", [
            MemberSpec("case deviceNotEligible", "The device cannot run the model."),
            MemberSpec("case appleIntelligenceNotEnabled", "Apple Intelligence is off."),
            MemberSpec("case modelNotReady", "The model is not downloaded or configured (fmplay: no model file)."),
        ]),
        SurfaceType(.class, "PrivateCloudComputeLanguageModel", .v27_0,
                    "Apple's server model (fmplay: the OpenAI-compatible endpoint in FMPLAY_SERVER_URL or --server).", [
            MemberSpec("init()", "The Private Cloud Compute model."),
            MemberSpec("var availability: PrivateCloudComputeLanguageModel.Availability",
                       ".available, or .unavailable(.deviceNotEligible) with no server configured, .unavailable(.systemNotReady) when it does not answer."),
            MemberSpec("var isAvailable: Bool", "Whether the server answers now."),
            MemberSpec("var contextSize: Int", "The context size the server reports, else 32768 (read with try await)."),
            MemberSpec("var capabilities: LanguageModelCapabilities",
                       "What the server model can do: guided generation, tool calling and reasoning (as the server answers them)."),
            MemberSpec("var quotaUsage: PrivateCloudComputeLanguageModel.QuotaUsage", "The request budget, from the server's rate-limit headers."),
            MemberSpec("func supportsLocale(_: Locale = Locale.current) -> Bool", "Whether the locale's language is one of supportedLanguages (no argument: English)."),
            MemberSpec("var supportedLanguages: [Locale.Language]",
                       "The languages the server model supports (read with try await): servers do not list theirs, so English (Locale.current's language) once a server is configured, none before; supportsLocale(_:) accepts exactly these."),
        ]),
        SurfaceType(.enum, "PrivateCloudComputeLanguageModel.Availability", .v27_0, "Whether the server model can be used.", [
            MemberSpec("case available", "The server answers."),
            MemberSpec("case unavailable(_: PrivateCloudComputeLanguageModel.Availability.UnavailableReason)", "The server model cannot be used, and why."),
        ]),
        SurfaceType(.enum, "PrivateCloudComputeLanguageModel.Availability.UnavailableReason", .v27_0, "Why the server model is unavailable.", [
            MemberSpec("case deviceNotEligible", "fmplay: no server is configured (FMPLAY_SERVER_URL, --server, serverURL)."),
            MemberSpec("case systemNotReady", "fmplay: the configured server does not answer."),
        ]),
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel.QuotaUsage", .v27_0, "The server model's request budget.", [
            MemberSpec("var status: PrivateCloudComputeLanguageModel.QuotaUsage.Status", ".belowLimit(info) or .limitReached(info)."),
            MemberSpec("var isLimitReached: Bool", "Whether requests now throw quotaLimitReached."),
            MemberSpec("var resetDate: Date?", "When the budget resets (from the server's rate-limit reset header), nil when the server did not say."),
            MemberSpec("var limitIncreaseSuggestion: PrivateCloudComputeLanguageModel.QuotaUsage.LimitIncreaseSuggestion?",
                       "An upgrade flow to offer; nil: servers offer none."),
        ]),
        SurfaceType(.enum, "PrivateCloudComputeLanguageModel.QuotaUsage.Status", .v27_0, "Below the limit or at it.", [
            MemberSpec("case belowLimit(_: PrivateCloudComputeLanguageModel.QuotaUsage.Status.BelowLimit)", "Requests are served."),
            MemberSpec("case limitReached(_: PrivateCloudComputeLanguageModel.QuotaUsage.Status.LimitReached)", "Requests throw quotaLimitReached."),
        ]),
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel.QuotaUsage.Status.BelowLimit", .v27_0, "Details below the limit.", [
            MemberSpec("var isApproachingLimit: Bool", "A tenth of the budget or less is left."),
        ]),
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel.QuotaUsage.Status.LimitReached", .v27_0, "Details at the limit.", []),
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel.QuotaUsage.LimitIncreaseSuggestion", .v27_0, "A way to raise the limit.", [
            MemberSpec("func show()", "Presents the upgrade flow."),
        ]),
        SurfaceType(.enum, "PrivateCloudComputeLanguageModel.Error", .v27_0, "Why a request to the server model failed (catch by case).", [
            MemberSpec("case quotaLimitReached(_: PrivateCloudComputeLanguageModel.Error.QuotaLimitReached)", "The request budget is used up (429 insufficient_quota)."),
            MemberSpec("case networkFailure(_: PrivateCloudComputeLanguageModel.Error.NetworkFailure)", "The server cannot be reached."),
            MemberSpec("case serviceUnavailable(_: PrivateCloudComputeLanguageModel.Error.ServiceUnavailable)", "The server failed (503, other 5xx, an unfinished stream)."),
        ] + localizedErrorMembers),
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel.Error.QuotaLimitReached", .v27_0, "What quotaLimitReached carries.", [
            MemberSpec("var debugDescription: String", "What went wrong."),
            MemberSpec("var resetDate: Date?", "When requests are allowed again (from the server's rate-limit reset header), nil when the server did not say."),
            MemberSpec("var limitIncreaseSuggestion: PrivateCloudComputeLanguageModel.QuotaUsage.LimitIncreaseSuggestion?",
                       "An upgrade flow to offer; nil: servers offer none."),
        ]),
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel.Error.NetworkFailure", .v27_0, "What networkFailure carries.", [
            MemberSpec("var debugDescription: String", "What went wrong."),
        ]),
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel.Error.ServiceUnavailable", .v27_0, "What serviceUnavailable carries.", [
            MemberSpec("var debugDescription: String", "What went wrong."),
        ]),
    ]
}
