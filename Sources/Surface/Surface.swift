/// The one table of the prompt-file surface. To add an API member: add one
/// `MemberSpec` to its type in `Table/` and one implementation function under
/// the same id in `Sources/PlaygroundLibrary/` (see ARCHITECTURE.md).
public enum Surface {
    public static let table = SurfaceTable(
        types: swiftTypes + foundationTypes + systemLanguageModelTypes + sessionTypes + optionsTypes + contentTypes + agenticTypes + evaluationsTypes,
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
            "AnyDynamicProfile": "LanguageModelSession.AnyDynamicProfile",
            // A Character is a one-character String in prompt files (String lists isLetter, isNumber...).
            "Character": "String",
            // CGFloat is evaluated as a Double (as Float is): Double's members (`CGFloat.pi`).
            "CGFloat": "Double",
            // A .toolCalls payload is a collection of Transcript.ToolCall: an array of them in prompt files.
            "Transcript.ToolCalls": "Array",
        ])

    /// Modules a prompt file may import; any other `import` is FM311.
    static let modules: [SurfaceModule] = [
        SurfaceModule(name: "FoundationModels", documentation: "Apple's on-device language model framework (sessions, Generable, tools)."),
        SurfaceModule(name: "Playgrounds", documentation: "The #Playground macro: blocks fmplay runs and shows results for."),
        SurfaceModule(name: "Foundation", documentation: "Strings, Data, Locale, Date, UUID, JSON coding and date formatting as the table lists them."),
        SurfaceModule(name: "Evaluations", documentation: "Apple's evaluation framework for model features (27.0)."),
        SurfaceModule(name: "FoundationModelsUtilities", documentation: "Apple's open-source helpers for FoundationModels 27."),
        SurfaceModule(name: "RegexBuilder", documentation: "Regex { } builders, read in @Guide(.pattern(...))."),
        SurfaceModule(name: "Observation", documentation: "@Observable classes (a tool that keeps state, as in Apple's context-window article); observation itself has no effect in prompt files."),
        SurfaceModule(name: "Swift", documentation: "The standard library."),
        SurfaceModule(name: "Testing", documentation: "Swift Testing: @Test functions (run like blocks, with .evaluates(...)) and #expect/#require."),
    ]

    /// Global functions.
    static let functions: [MemberSpec] = [
        MemberSpec("func print(_: Any..., separator: String = \" \")",
                   "Prints the values separated by `separator`; each print is a result under its line."),
        MemberSpec("func round(_: Double) -> Double", "The nearest whole number, halves away from zero (Foundation)."),
        MemberSpec("func floor(_: Double) -> Double", "The largest whole number not above the value (Foundation)."),
        MemberSpec("func ceil(_: Double) -> Double", "The smallest whole number not below the value (Foundation)."),
        MemberSpec("func trunc(_: Double) -> Double", "The value without its fractional part (Foundation)."),
        MemberSpec("func sqrt(_: Double) -> Double", "The square root (Foundation)."),
        MemberSpec("func pow(_: Double, _: Double) -> Double", "The first value raised to the second (Foundation)."),
        MemberSpec("func exp(_: Double) -> Double", "e raised to the value (Foundation)."),
        MemberSpec("func log(_: Double) -> Double", "The natural logarithm (Foundation)."),
        MemberSpec("func log2(_: Double) -> Double", "The base-2 logarithm (Foundation)."),
        MemberSpec("func log10(_: Double) -> Double", "The base-10 logarithm (Foundation)."),
        MemberSpec("func sin(_: Double) -> Double", "The sine of an angle in radians (Foundation)."),
        MemberSpec("func cos(_: Double) -> Double", "The cosine of an angle in radians (Foundation)."),
        MemberSpec("func tan(_: Double) -> Double", "The tangent of an angle in radians (Foundation)."),
        MemberSpec("func atan2(_: Double, _: Double) -> Double", "The angle of the point (x: second, y: first) in radians (Foundation)."),
        MemberSpec("func hypot(_: Double, _: Double) -> Double", "The length of the hypotenuse (Foundation)."),
        MemberSpec("func debugPrint(_: Any..., separator: String = \" \")", "Prints the values as debugging text (strings quoted, types named)."),
        MemberSpec("func dump(_: Any) -> Any", "Prints the value's parts one per line (Swift's reflection tree) and returns the value."),
        MemberSpec("func max(_: Any...) -> Any", "The greatest of the values (the last of equal ones), or of one array's elements."),
        MemberSpec("func min(_: Any...) -> Any", "The least of the values (the first of equal ones), or of one array's elements."),
        MemberSpec("func abs(_: Any) -> Any", "The magnitude of an Int or a Double."),
        MemberSpec("func zip(_: Any, _: Any) -> [Any]", "Pairs of the two sequences' elements, as many as the shorter has."),
        MemberSpec("func stride(from: Any, to: Any, by: Any) -> [Any]", "From the start toward the end, by the step, without the end."),
        MemberSpec("func stride(from: Any, through: Any, by: Any) -> [Any]", "From the start toward the end, by the step, the end included when reached."),
        MemberSpec("func type(of: Any) -> Any", "The value's type (`String`, `Int`, the file's type)."),
        MemberSpec("func precondition(_: Bool, _: String = \"\")", "Stops the block with the message when the condition is false."),
        MemberSpec("func assert(_: Bool, _: String = \"\")", "Stops the block with the message when the condition is false."),
        MemberSpec("func fatalError(_: String = \"\")", "Stops the block with the message."),
        MemberSpec("func preconditionFailure(_: String = \"\")", "Stops the block with the message."),
    ]
}
