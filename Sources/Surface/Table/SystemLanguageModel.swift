/// The models: `SystemLanguageModel`, its use cases and availability, and the 27.0 server model.
extension Surface {
    static let systemLanguageModelTypes: [SurfaceType] = [
        SurfaceType(.class, "SystemLanguageModel", .v26_0, "The on-device language model (fmplay: the configured GGUF model).", [
            MemberSpec("init(useCase: SystemLanguageModel.UseCase = .general)", "The model specialized for a use case."),
            MemberSpec("static var `default`: SystemLanguageModel", "The base model for general use."),
            MemberSpec("var availability: SystemLanguageModel.Availability", ".available, or .unavailable(reason) when no model is configured."),
            MemberSpec("var isAvailable: Bool", "Whether the model can answer now."),
            MemberSpec("var contextSize: Int", "The context window in tokens.", .v26_4),
            MemberSpec("var supportedLanguages: [Locale.Language]", "The languages the model supports (from the model file; a Set in Apple's API)."),
            MemberSpec("var useCase: SystemLanguageModel.UseCase", "The use case the model was made for."),
            MemberSpec("func tokenCount(for: Any) async throws -> Int",
                       "Tokens the model's tokenizer counts for a prompt, instructions, tools, a schema or transcript entries.", .v26_4),
            MemberSpec("func supportsLocale(_: Locale = Locale.current) -> Bool", "Whether the model supports the locale's language (no argument: English)."),
        ]),
        SurfaceType(.struct, "SystemLanguageModel.UseCase", .v26_0, "What the model is specialized for.", [
            MemberSpec("static var general: SystemLanguageModel.UseCase", "General prompting."),
            MemberSpec("static var contentTagging: SystemLanguageModel.UseCase", "Tagging content: topics, entities, actions, emotions."),
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
        SurfaceType(.struct, "PrivateCloudComputeLanguageModel", .v27_0, "Apple's server model (fmplay: the configured server model).", [
            MemberSpec("init()", "The Private Cloud Compute model."),
        ]),
    ]
}
