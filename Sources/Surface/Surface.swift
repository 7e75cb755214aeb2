/// The one table of the prompt-file surface. To add an API member: add one
/// `MemberSpec` to its type in `Table/` and one implementation function under
/// the same id in `PlaygroundEvaluator/Builtins/` (see ARCHITECTURE.md).
public enum Surface {
    public static let table = SurfaceTable(
        types: swiftTypes + systemLanguageModelTypes + sessionTypes + optionsTypes + contentTypes + agenticTypes + evaluationsTypes,
        functions: functions,
        modules: modules,
        aliases: [
            "GenerationError": "LanguageModelSession.GenerationError",
            "SamplingMode": "GenerationOptions.SamplingMode",
            "ToolCallingMode": "GenerationOptions.ToolCallingMode",
            "ReasoningLevel": "ContextOptions.ReasoningLevel",
            "UseCase": "SystemLanguageModel.UseCase",
            "Response": "LanguageModelSession.Response",
            "ResponseStream": "LanguageModelSession.ResponseStream",
            "Usage": "LanguageModelSession.Usage",
            "Property": "DynamicGenerationSchema.Property",
        ])

    /// Modules a prompt file may import; any other `import` is FM311.
    static let modules: [SurfaceModule] = [
        SurfaceModule(name: "FoundationModels", documentation: "Apple's on-device language model framework (sessions, Generable, tools)."),
        SurfaceModule(name: "Playgrounds", documentation: "The #Playground macro: blocks fmplay runs and shows results for."),
        SurfaceModule(name: "Foundation", documentation: "Strings, Data and Locale as the table lists them."),
        SurfaceModule(name: "Evaluations", documentation: "Apple's evaluation framework for model features (27.0)."),
        SurfaceModule(name: "FoundationModelsUtilities", documentation: "Apple's open-source helpers for FoundationModels 27."),
        SurfaceModule(name: "RegexBuilder", documentation: "Regex { } builders, read in @Guide(.pattern(...))."),
        SurfaceModule(name: "Swift", documentation: "The standard library."),
        SurfaceModule(name: "Testing", documentation: "Swift Testing: @Test functions (run like blocks, with .evaluates(...)) and #expect/#require."),
    ]

    /// Global functions.
    static let functions: [MemberSpec] = [
        MemberSpec("func print(_: Any..., separator: String = \" \")",
                   "Prints the values separated by `separator`; each print is a result under its line."),
    ]
}
