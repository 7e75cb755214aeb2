/// FoundationModels 27.0's agentic API: profiles, their modifiers, error
/// policies and session properties (the runtime is FoundationModelsRuntime's
/// `ProfileConfiguration`; the evaluator's side is `DynamicProfiles.swift`).
extension Surface {
    static let profileModifiers: [MemberSpec] = [
        MemberSpec("func model(_: SystemLanguageModel) -> LanguageModelSession.Profile", "The model this profile answers with (on-device or server)."),
        MemberSpec("func temperature(_: Double?) -> LanguageModelSession.Profile", "The sampling temperature; nil leaves it to an enclosing profile."),
        MemberSpec("func samplingMode(_: GenerationOptions.SamplingMode?) -> LanguageModelSession.Profile", "The sampling mode."),
        MemberSpec("func maximumResponseTokens(_: Int?) -> LanguageModelSession.Profile", "The most tokens one response may have."),
        MemberSpec("func reasoningLevel(_: ContextOptions.ReasoningLevel?) -> LanguageModelSession.Profile",
                   "How much the model reasons first (models with a thinking mode; others throw unsupportedCapability)."),
        MemberSpec("func toolCallingMode(_: GenerationOptions.ToolCallingMode?) -> LanguageModelSession.Profile", "Whether tools may, must or must not be called."),
        MemberSpec("func transcriptErrorHandlingPolicy(_: TranscriptErrorHandlingPolicy?) -> LanguageModelSession.Profile",
                   "What a failed request leaves in the transcript."),
        MemberSpec("func historyTransform(_: ([Transcript.Entry]) -> [Transcript.Entry]) -> LanguageModelSession.Profile",
                   "Rewrites what the model sees for each inference (outermost first); the session's transcript keeps everything."),
        MemberSpec("func modifier(_: Any) -> LanguageModelSession.Profile", "Applies a DynamicProfileModifier's body(content:)."),
        MemberSpec("func onActivate(perform: () -> Void) -> LanguageModelSession.Profile", "Runs when this profile becomes active."),
        MemberSpec("func onDeactivate(perform: () -> Void) -> LanguageModelSession.Profile", "Runs when this profile stops being active."),
        MemberSpec("func onPrompt(perform: () -> Void) -> LanguageModelSession.Profile", "Runs after the prompt is added, before the first inference."),
        MemberSpec("func onResponse(perform: () -> Void) -> LanguageModelSession.Profile", "Runs after this profile's response is added."),
        MemberSpec("func onReasoning(perform: () -> Void) -> LanguageModelSession.Profile", "Runs after reasoning is added (models with a thinking mode)."),
        MemberSpec("func onToolCall(perform: () -> Void) -> LanguageModelSession.Profile", "Runs for each tool call, before the tool runs."),
        MemberSpec("func onToolOutput(perform: () -> Void) -> LanguageModelSession.Profile", "Runs after each tool output is added."),
        MemberSpec("func rollingWindow(size: RollingWindowSize) -> LanguageModelSession.Profile",
                   "FoundationModelsUtilities: the model sees the last n entries (.entries(n)).", .v27_0),
        MemberSpec("func rollingWindow(entries: Int) -> LanguageModelSession.Profile",
                   "FoundationModelsUtilities: the model sees the last n entries.", .v27_0),
        MemberSpec("func droppingCompletedToolCalls() -> LanguageModelSession.Profile",
                   "FoundationModelsUtilities: tool calls and outputs before the last response are hidden from the model.", .v27_0),
    ]

    static let agenticTypes: [SurfaceType] = [
        SurfaceType(.struct, "LanguageModelSession.Profile", .v27_0,
                    "Dynamic instructions (text and tools) bound to a configuration: model, options, callbacks, history view.",
                    [MemberSpec("init(_: () -> DynamicInstructions)", "A profile with its dynamic instructions.")] + profileModifiers),
        SurfaceType(.struct, "LanguageModelSession.AnyDynamicProfile", .v27_0,
                    "A type-erased dynamic profile: it resolves as the profile it wraps, before every inference.", [
            MemberSpec("init(_: Any)", "Wraps the dynamic profile you specify."),
            MemberSpec("init(erasing: Any)", "Wraps the dynamic profile you specify."),
        ]),
        SurfaceType(.struct, "AnyDynamicInstructions", .v27_0, "Type-erased dynamic instructions: the text and tools of the ones it wraps.", [
            MemberSpec("init(_: Any)", "Wraps the dynamic instructions you specify."),
            MemberSpec("init(erasing: Any)", "Wraps the dynamic instructions you specify."),
        ]),
        SurfaceType(.struct, "EmptyDynamicInstructions", .v27_0, "Dynamic instructions with no text and no tools.", [
            MemberSpec("init()", "Creates an empty instance."),
        ]),
        SurfaceType(.struct, "TranscriptErrorHandlingPolicy", .v27_0, "What a failed request leaves in the transcript.", [
            MemberSpec("static var revertTranscript: TranscriptErrorHandlingPolicy", "Back to the state before the request (the default)."),
            MemberSpec("static var preserveTranscript: TranscriptErrorHandlingPolicy", "Keep it as it was when the error happened; the last entry may be partial."),
        ]),
        SurfaceType(.struct, "LanguageModelSession.TranscriptErrorHandlingPolicy", .v27_0,
                    "The talk's spelling of TranscriptErrorHandlingPolicy (the documentation declares it at top level).", [
            MemberSpec("static var revertTranscript: TranscriptErrorHandlingPolicy", "Back to the state before the request (the default)."),
            MemberSpec("static var preserveTranscript: TranscriptErrorHandlingPolicy", "Keep it as it was when the error happened."),
        ]),
        SurfaceType(.enum, "RollingWindowSize", .v27_0, module: "FoundationModelsUtilities",
                    "FoundationModelsUtilities: how much history .rollingWindow(size:) keeps.", [
            MemberSpec("case entries(_: Int)", "The last n transcript entries."),
        ]),
        SurfaceType(.class, "SkillActivations", .v27_0, module: "FoundationModelsUtilities",
                    "FoundationModelsUtilities: which instruction skills are active (shared by Skills and your code).", [
            MemberSpec("init()", "No skill active."),
            MemberSpec("func activate(_: String)", "Turns the named skill on."),
            MemberSpec("func deactivate(_: String)", "Turns the named skill off."),
            MemberSpec("func isActive(_: String) -> Bool", "Whether the named skill is on."),
            MemberSpec("var activeSkillNames: [String]", "The active skills, in activation order."),
            MemberSpec("var count: Int", "How many skills are active."),
            MemberSpec("var isEmpty: Bool", "Whether no skill is active."),
        ]),
        SurfaceType(.struct, "Skill", .v27_0, module: "FoundationModelsUtilities",
                    "FoundationModelsUtilities: a skill the model can load through the Skills tool.", [
            MemberSpec("init(name: String, description: String, prompt: String, onActivate: () -> Void = {})",
                       "An on-demand skill: activating it returns the prompt as the tool's output."),
            MemberSpec("init(name: String, description: String, instructions: Instructions, allowsDeactivation: Bool = false, onActivate: () -> Void = {}, onDeactivate: () -> Void = {})",
                       "An instructions skill: while active, its instructions are part of the session's instructions."),
            MemberSpec("init(name: String, description: String, allowsDeactivation: Bool = false, onActivate: () -> Void = {}, onDeactivate: () -> Void = {}, instructions: () -> DynamicInstructions)",
                       "A skill written with a builder: strings make a prompt skill; Instructions and tools an instructions skill."),
        ]),
        SurfaceType(.struct, "Skills", .v27_0, module: "FoundationModelsUtilities",
                    "FoundationModelsUtilities: dynamic instructions listing skills, with one tool (activate_skill or toggle_skill) to load them.", [
            MemberSpec("init(activations: SkillActivations, toolName: String? = nil, toolDescription: String? = nil, instructions: Instructions? = nil, strictSchema: Bool = false, skills: () -> [Skill])",
                       "The skills, listed with a builder."),
            MemberSpec("init(activations: SkillActivations, toolName: String? = nil, toolDescription: String? = nil, instructions: Instructions? = nil, strictSchema: Bool = false, skills: [Skill])",
                       "The skills, as an array."),
        ]),
        SurfaceType(.class, "SessionPropertyValues", .v27_0, "A session's property values.", [
            MemberSpec("var history: [Transcript.Entry]", "The transcript after its instructions entry."),
        ]),
    ]
}
