/// Prompts, instructions, generated content, schemas, transcripts, feedback.
extension Surface {
    static let contentTypes: [SurfaceType] = [
        SurfaceType(.struct, "Instructions", .v26_0, "What the model should do in every turn of a session.", [
            MemberSpec("init(_: String)", "Instructions from text."),
            MemberSpec("init(_: () -> Instructions)", "Instructions written with a builder: each line a part."),
            MemberSpec("var description: String", "The text."),
        ]),
        SurfaceType(.struct, "Prompt", .v26_0, "What one request asks.", [
            MemberSpec("init(_: String)", "A prompt from text."),
            MemberSpec("init(_: () -> Prompt)", "A prompt written with a builder: each line a part."),
            MemberSpec("var description: String", "The text."),
        ]),
        SurfaceType(.struct, "GeneratedContent", .v26_0,
                    "A generated value of any shape (its properties also answer by name, as the value's fields).", [
            MemberSpec("init(_: Any)", "Content from a value."),
            MemberSpec("init(properties: [String: Any])", "An object with these properties."),
            MemberSpec("init(json: String) throws", "Content parsed from JSON."),
            MemberSpec("var jsonString: String", "The content as JSON."),
            MemberSpec("var isComplete: Bool", "Whether the content is complete (false in stream snapshots)."),
            MemberSpec("var count: Int", "The number of elements of array content."),
            MemberSpec("var description: String", "The content as text."),
            MemberSpec("func value(_: Any.Type = Any.self) throws -> Any", "The content as a value."),
            MemberSpec("func value(_: Any.Type = Any.self, forProperty: String) throws -> Any", "The value of one property; throws when it is missing."),
        ]),
        SurfaceType(.struct, "GenerationSchema", .v26_0, "A schema built at run time from DynamicGenerationSchema values.", [
            MemberSpec("init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema] = []) throws",
                       "The schema of `root`, with the schemas it refers to by name."),
        ]),
        SurfaceType(.struct, "DynamicGenerationSchema", .v26_0, "A schema described at run time.", [
            MemberSpec("init(name: String, description: String? = nil, properties: [DynamicGenerationSchema.Property])", "An object schema."),
            MemberSpec("init(name: String, description: String? = nil, anyOf: [Any])",
                       "A choice: string values (a string enum) or object schemas (a union)."),
            MemberSpec("init(arrayOf: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil)", "An array schema."),
            MemberSpec("init(type: Any.Type, guides: [Any] = [])", "The schema of a built-in type (String, Int, Double, Bool, GeneratedContent)."),
            MemberSpec("init(referenceTo: String)", "A reference to a named schema among the dependencies."),
            MemberSpec("static var null: DynamicGenerationSchema", "A value that is always null; fmplay cannot generate it (FM309).", .v26_4),
        ]),
        SurfaceType(.struct, "DynamicGenerationSchema.Property", .v26_0, "One property of a dynamic object schema.", [
            MemberSpec("init(name: String, description: String? = nil, schema: DynamicGenerationSchema, isOptional: Bool = false)",
                       "A property with its schema."),
        ]),
        SurfaceType(.struct, "Transcript", .v26_0, "The entries of a session (itself a collection of entries).", [
            MemberSpec("var structuredTranscript: StructuredTranscript", "The transcript as evaluators read it (added by Evaluations).", .v27_0),
            MemberSpec("var count: Int", "The number of entries."),
            MemberSpec("var isEmpty: Bool", "Whether there are no entries."),
            MemberSpec("var first: Transcript.Entry?", "The first entry (the instructions, when there are some)."),
            MemberSpec("var last: Transcript.Entry?", "The last entry."),
            MemberSpec("var entries: [Transcript.Entry]", "The entries (the 26.0 beta form).", .beta),
            MemberSpec("var history: [Transcript.Entry]", "The entries after a leading instructions entry.", .v27_0),
            MemberSpec("func enumerated() -> [(offset: Int, element: Transcript.Entry)]", "Each entry with its position."),
            MemberSpec("var description: String", "The readable form print shows."),
        ]),
        SurfaceType(.enum, "Transcript.Entry", .v26_0, "One entry: instructions, prompt, tool calls, tool output or response.", [
            MemberSpec("var description: String", "The entry as text."),
        ]),
        SurfaceType(.struct, "ToolOutput", .beta, "The 26.0 beta return type of a tool's call(arguments:).", [
            MemberSpec("init(_: Any)", "Output from a string or GeneratedContent."),
        ]),
        SurfaceType(.struct, "LanguageModelFeedback", .v26_0, "Feedback about a response, for logFeedbackAttachment.", []),
        SurfaceType(.enum, "LanguageModelFeedback.Sentiment", .v26_0, "How the response was received.", [
            MemberSpec("case positive", "The response was good."),
            MemberSpec("case negative", "The response was bad."),
            MemberSpec("case neutral", "Neither."),
        ]),
        SurfaceType(.struct, "LanguageModelFeedback.Issue", .v26_0, "One problem with a response.", [
            MemberSpec("init(category: LanguageModelFeedback.Issue.Category, explanation: String? = nil)", "An issue of a category, explained."),
            MemberSpec("var category: LanguageModelFeedback.Issue.Category", "What kind of problem."),
            MemberSpec("var explanation: String?", "The explanation, or nil."),
        ]),
        SurfaceType(.enum, "LanguageModelFeedback.Issue.Category", .v26_0, "Kinds of problems.", [
            MemberSpec("case didNotFollowInstructions", "The response ignored the instructions."),
            MemberSpec("case incorrect", "The response is wrong."),
            MemberSpec("case stereotypeOrBias", "The response is biased."),
            MemberSpec("case suggestiveOrSexual", "The response is suggestive."),
            MemberSpec("case tooVerbose", "The response is too long."),
            MemberSpec("case triggeredGuardrailUnexpectedly", "A guardrail stopped a harmless request."),
            MemberSpec("case unhelpful", "The response does not help."),
            MemberSpec("case vulgarOrOffensive", "The response is offensive."),
        ]),
    ]
}
