/// Every diagnostic, keyed by code: severity, name, one-line summary, an
/// explanation, an example that triggers it and the example fixed. `fmplay
/// explain FMnnn` prints an entry; hover on a diagnostic shows it; SARIF
/// rules read the name and summary. `DiagnosticCatalogueTests` checks that
/// each example triggers its code and each fixed example does not.
public struct DiagnosticExplanation: Sendable {
    public var code: DiagnosticCode
    public var severity: Severity
    public var name: String
    public var summary: String
    public var explanation: String
    /// A prompt file that triggers the diagnostic (empty for FM002, which is about the file itself).
    public var example: String
    /// The example fixed.
    public var fixed: String

    /// The text `fmplay explain` prints.
    public var rendered: String {
        var text = "\(code.rawValue) \(name) (\(severity.rawValue)): \(summary)\n\n\(explanation)\n"
        if !example.isEmpty { text += "\nExample:\n\n" + Self.indent(example) + "\nFixed:\n\n" + Self.indent(fixed) }
        return text
    }

    static func indent(_ code: String) -> String {
        code.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n") + "\n"
    }
}

public enum DiagnosticCatalogue {
    public static func entry(_ code: DiagnosticCode) -> DiagnosticExplanation {
        guard let entry = entries[code] else { preconditionFailure("no catalogue entry for \(code.rawValue)") }
        return entry
    }

    /// The entry for a code as a user types it (`FM101`, `fm101`, `101`); nil when unknown.
    public static func entry(named text: String) -> DiagnosticExplanation? {
        let upper = text.uppercased()
        let code = DiagnosticCode(rawValue: upper) ?? DiagnosticCode(rawValue: "FM" + upper)
        return code.map(entry)
    }

    public static var all: [DiagnosticExplanation] { DiagnosticCode.allCases.compactMap { entries[$0] } }

    /// The codes as runs of consecutive numbers, for messages: `FM001-FM003, FM101-FM117 and FM301-FM315`.
    public static var codeRanges: String {
        var runs: [(first: String, last: String, number: Int)] = []
        for code in all.map(\.code.rawValue) {
            guard let number = Int(code.dropFirst(2)) else { continue }
            if let last = runs.last, last.number + 1 == number {
                runs[runs.count - 1] = (last.first, code, number)
            } else {
                runs.append((code, code, number))
            }
        }
        let texts = runs.map { $0.first == $0.last ? $0.first : "\($0.first)-\($0.last)" }
        return texts.count < 2 ? texts.joined() : texts.dropLast().joined(separator: ", ") + " and " + texts.last!
    }

    private static let entries: [DiagnosticCode: DiagnosticExplanation] = {
        var result: [DiagnosticCode: DiagnosticExplanation] = [:]
        for entry in fileEntries + schemaEntries + toolEntries + sessionEntries {
            precondition(result[entry.code] == nil, "\(entry.code.rawValue) is in the catalogue twice")
            result[entry.code] = entry
        }
        return result
    }()

    static func e(_ code: DiagnosticCode, _ severity: Severity, _ name: String, _ summary: String, _ explanation: String,
                  example: String, fixed: String) -> DiagnosticExplanation {
        DiagnosticExplanation(code: code, severity: severity, name: name, summary: summary, explanation: explanation, example: example, fixed: fixed)
    }

    static let generable = "@Generable\nstruct Trip {\n"

    static let fileEntries: [DiagnosticExplanation] = [
        e(.syntaxError, .error, "syntax-error", "The file must parse as Swift.",
          "A prompt file is Swift: fmplay parses it with swift-syntax and reports what the parser cannot read, at its place. Nothing in a file with a syntax error runs.",
          example: generable + "    var days: = 3\n}", fixed: generable + "    var days: Int\n}"),
        e(.unreadableFile, .error, "unreadable-file", "The file must be a readable UTF-8 text file of reasonable size.",
          "fmplay reads prompt files as UTF-8 text of at most 4 MB. A missing, unreadable, binary, non-UTF-8 or oversized file is reported with its path, and the other files are still checked.",
          example: "", fixed: ""),
        e(.nestingTooDeep, .error, "nesting-too-deep", "Brackets and blocks may not nest deeper than the parser's limit.",
          "Very deep nesting (more than 128 levels, or more than 6 '[' in a row) would make the parser slow or exhaust its stack, so the nested code is not analysed. Split it into named constants or types.",
          example: "#Playground {\n    let deep = [[[[[[[[1]]]]]]]]\n}", fixed: "#Playground {\n    let inner = [[1]]\n    let deep = [[[inner]]]\n}"),
    ]

    static let schemaEntries: [DiagnosticExplanation] = [
        e(.unsupportedPropertyType, .error, "unsupported-property-type", "Generable properties must have generable types.",
          "The model can only generate String, Int, Double, Float, Decimal, Bool, arrays and optionals of those, and other @Generable types. Dates, URLs, dictionaries and tuples have no schema; use a String (and parse it) or a @Generable struct.",
          example: generable + "    var start: Date\n}", fixed: generable + "    var start: String\n}"),
        e(.referencedTypeNotGenerable, .error, "referenced-type-not-generable", "Types used by Generable types must be @Generable.",
          "A @Generable type's schema includes the types of its properties, so every type it uses that is declared in the file must be @Generable too.",
          example: "struct Place {\n    var name: String\n}\n\n" + generable + "    var place: Place\n}",
          fixed: "@Generable\nstruct Place {\n    var name: String\n}\n\n" + generable + "    var place: Place\n}"),
        e(.generableOnUnsupportedDeclaration, .error, "generable-on-unsupported-declaration", "@Generable applies to structs and enums only.",
          "@Generable describes a value the model generates: a struct (an object) or an enum (a choice). Classes, actors, protocols and extensions cannot be generated.",
          example: "@Generable\nclass Trip {\n    var days = 3\n}", fixed: "@Generable\nstruct Trip {\n    var days: Int\n}"),
        e(.enumWithoutCases, .error, "enum-without-cases", "A @Generable enum needs at least one case.",
          "The model picks one case of a @Generable enum; with no cases there is nothing it could generate.",
          example: "@Generable\nenum Mood {}", fixed: "@Generable\nenum Mood {\n    case happy, sad\n}"),
        e(.guideOnWrongType, .error, "guide-on-wrong-type", "Each guide constrains one kind of property type.",
          "Count guides constrain arrays, range/minimum/maximum numbers, anyOf/constant/pattern strings. A guide on another type would be ignored by the model, so it is an error.",
          example: generable + "    @Guide(.count(3))\n    var name: String\n}", fixed: generable + "    @Guide(.count(3))\n    var stops: [String]\n}"),
        e(.contradictoryBounds, .error, "contradictory-bounds", "A minimum may not exceed its maximum.",
          "A range or minimum/maximum pair that no number satisfies can never be generated.",
          example: generable + "    @Guide(.range(10...1))\n    var days: Int\n}", fixed: generable + "    @Guide(.range(1...10))\n    var days: Int\n}"),
        e(.contradictoryCounts, .error, "contradictory-counts", "Array count guides must admit some length.",
          "Count guides on one array are combined; if no length satisfies all of them the array cannot be generated.",
          example: generable + "    @Guide(.count(5), .maximumCount(3))\n    var stops: [String]\n}",
          fixed: generable + "    @Guide(.count(3))\n    var stops: [String]\n}"),
        e(.negativeCount, .error, "negative-count", "Counts may not be negative.",
          "An array cannot have fewer than zero elements.",
          example: generable + "    @Guide(.count(-1))\n    var stops: [String]\n}", fixed: generable + "    @Guide(.count(1))\n    var stops: [String]\n}"),
        e(.emptyAnyOf, .error, "empty-any-of", ".anyOf needs at least one value.",
          "`.anyOf([])` allows no string at all, so the property could never be generated.",
          example: generable + "    @Guide(.anyOf([]))\n    var kind: String\n}", fixed: generable + "    @Guide(.anyOf([\"city\", \"beach\"]))\n    var kind: String\n}"),
        e(.duplicateAnyOfValue, .error, "duplicate-any-of-value", ".anyOf values must be distinct.",
          "A value listed twice in `.anyOf` is almost always a typo for another value.",
          example: generable + "    @Guide(.anyOf([\"a\", \"b\", \"a\"]))\n    var kind: String\n}", fixed: generable + "    @Guide(.anyOf([\"a\", \"b\", \"c\"]))\n    var kind: String\n}"),
        e(.invalidPattern, .error, "invalid-pattern", "Patterns must be valid regular expressions.",
          "A `.pattern` guide is compiled into the grammar that constrains generation; a regex that does not compile cannot constrain anything.",
          example: generable + "    @Guide(.pattern(\"(unclosed\"))\n    var code: String\n}", fixed: generable + "    @Guide(.pattern(\"(closed)\"))\n    var code: String\n}"),
        e(.constantBreaksPattern, .error, "constant-breaks-pattern", "A constant or choice must match the property's pattern.",
          "When a property has both a pattern and a constant (or anyOf values), the values must match the pattern, or nothing can be generated.",
          example: generable + "    @Guide(.pattern(/[0-9]+/), .constant(\"abc\"))\n    var code: String\n}",
          fixed: generable + "    @Guide(.pattern(/[0-9]+/), .constant(\"123\"))\n    var code: String\n}"),
        e(.infiniteRecursiveType, .error, "infinite-recursive-type", "Recursive types need a base case.",
          "A type that contains itself through required properties could only be generated forever. Make the recursive property optional or an array.",
          example: "@Generable\nstruct Node {\n    var value: Int\n    var next: Node\n}",
          fixed: "@Generable\nstruct Node {\n    var value: Int\n    var next: Node?\n}"),
        e(.duplicateMember, .error, "duplicate-member", "Property and case names must be unique within a type.",
          "The schema names properties and cases; two with one name cannot both be described.",
          example: "@Generable\nenum Mood {\n    case happy, sad, happy\n}", fixed: "@Generable\nenum Mood {\n    case happy, sad\n}"),
        e(.summaryPropertyNotLast, .info, "summary-property-not-last", "Summaries generate best after what they summarise.",
          "Properties are generated in declaration order. A summary generated before the details it sums up cannot see them; declare it last.",
          example: generable + "    var summary: String\n    var stops: [String]\n}", fixed: generable + "    var stops: [String]\n    var summary: String\n}"),
        e(.unrecognizedGuide, .error, "unrecognized-guide", "Guides must be known guides with literal arguments.",
          "fmplay builds the schema from the guides' literal arguments. An unknown guide, or an argument computed at run time, cannot be read, so it would be silently dropped.",
          example: generable + "    @Guide(.foo(3))\n    var days: Int\n}", fixed: generable + "    @Guide(.maximum(3))\n    var days: Int\n}"),
        e(.missingTypeAnnotation, .error, "missing-type-annotation", "Generable properties need an explicit type.",
          "The schema is built from declared types; a generated property written without one has none to read. (A property with a starting value, such as `let id = UUID()`, is not generated: like Apple's macro, fmplay leaves it out of the schema and it keeps that value.)",
          example: generable + "    var title\n}", fixed: generable + "    var title: String\n}"),
    ]

    static let tool = "struct Weather: Tool {\n"
    static let toolBody = "    @Generable\n    struct Arguments {\n        var city: String\n    }\n    func call(arguments: Arguments) async throws -> String {\n        \"Sunny in \\(arguments.city)\"\n    }\n}"

    static let toolEntries: [DiagnosticExplanation] = [
        e(.toolNameMissing, .error, "empty-tool-name", "A tool's name must not be empty.",
          "The model calls a tool by its name, and model APIs reject an empty one. A tool may leave `name` out: Apple documents that the framework then uses the type name (its PlannerTool sample does), so that is not a diagnostic; a type name model APIs would reject is FM203.",
          example: tool + "    let name = \"\"\n    let description = \"Looks up the weather\"\n" + toolBody,
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody),
        e(.toolDescriptionMissing, .error, "tool-description-missing", "Tools need a non-empty description.",
          "The description is how the model decides when to call the tool.",
          example: tool + "    let name = \"getWeather\"\n" + toolBody,
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody),
        e(.invalidToolName, .error, "invalid-tool-name", "Tool names must match ^[A-Za-z0-9_-]{1,64}$.",
          "Model APIs reject other tool names (spaces, punctuation, more than 64 characters). A tool without `name` is named after its type (Apple's documented default), so a type name outside the pattern (`struct Météo: Tool`) is reported too, with a fix-it that declares a name.",
          example: tool + "    let name = \"get weather!\"\n    let description = \"Looks up the weather\"\n" + toolBody,
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody),
        e(.duplicateToolName, .error, "duplicate-tool-name", "Tool names must be unique within a session.",
          "Two tools with one name in a session could not be told apart by the model.",
          example: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody
            + "\n\nstruct Forecast: Tool {\n    let name = \"getWeather\"\n    let description = \"Forecasts\"\n" + toolBody
            + "\n\n#Playground {\n    let session = LanguageModelSession(tools: [Weather(), Forecast()])\n}",
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody
            + "\n\nstruct Forecast: Tool {\n    let name = \"getForecast\"\n    let description = \"Forecasts\"\n" + toolBody
            + "\n\n#Playground {\n    let session = LanguageModelSession(tools: [Weather(), Forecast()])\n}"),
        e(.toolArgumentsNotGenerable, .error, "tool-arguments-not-generable", "Tool Arguments must be a @Generable type.",
          "The model generates a tool's arguments; their type must be @Generable so fmplay can build the schema.",
          example: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n    struct Arguments {\n        var city: String\n    }\n    func call(arguments: Arguments) async throws -> String {\n        arguments.city\n    }\n}",
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody),
        e(.toolCallSignature, .error, "tool-call-signature", "Tools need func call(arguments: Arguments) async throws -> Output.",
          "fmplay runs a tool through `call(arguments:)`; another name or label is never called.",
          example: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n    @Generable\n    struct Arguments {\n        var city: String\n    }\n    func call(args: Arguments) async throws -> String {\n        args.city\n    }\n}",
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody),
        e(.legacyToolOutput, .warning, "legacy-tool-output", "ToolOutput is the beta form; return a PromptRepresentable value.",
          "The 26.0 betas returned `ToolOutput`; since 26.0 a tool returns any PromptRepresentable value (a String, a @Generable value).",
          example: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n    @Generable\n    struct Arguments {\n        var city: String\n    }\n    func call(arguments: Arguments) async throws -> ToolOutput {\n        ToolOutput(\"Sunny\")\n    }\n}",
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody),
    ]

    static let playground = "#Playground {\n    let session = LanguageModelSession()\n"

    static let sessionEntries: [DiagnosticExplanation] = [
        e(.notATool, .error, "not-a-tool", "tools: takes Tool values.",
          "A session's tools must be instances of types conforming to Tool, declared in the file.",
          example: "struct Helper {\n    var x: Int\n}\n\n#Playground {\n    let session = LanguageModelSession(tools: [Helper(x: 1)])\n}",
          fixed: tool + "    let name = \"getWeather\"\n    let description = \"Looks up the weather\"\n" + toolBody
            + "\n\n#Playground {\n    let session = LanguageModelSession(tools: [Weather()])\n}"),
        e(.generatingNotGenerable, .error, "generating-not-generable", "generating: takes a @Generable type.",
          "Guided generation needs a schema, which only @Generable types (and String) have.",
          example: "struct Plain {\n    var x: Int\n}\n\n" + playground + "    let r = try await session.respond(to: \"x\", generating: Plain.self)\n}",
          fixed: "@Generable\nstruct Plain {\n    var x: Int\n}\n\n" + playground + "    let r = try await session.respond(to: \"x\", generating: Plain.self)\n}"),
        e(.interpolatedInstructions, .warning, "interpolated-instructions", "Instructions should be static text.",
          "Instructions take precedence over prompts; interpolating run-time values (user input) into them lets that input override your instructions. Put run-time values in the prompt.",
          example: "#Playground {\n    let audience = \"kids\"\n    let session = LanguageModelSession(instructions: \"Write for \\(audience).\")\n}",
          fixed: "#Playground {\n    let audience = \"kids\"\n    let session = LanguageModelSession(instructions: \"Write for the audience named in the prompt.\")\n}"),
        e(.unknownUseCase, .error, "unknown-use-case", "SystemLanguageModel.UseCase is .general or .contentTagging.",
          "The on-device model has two use cases; any other name does not exist.",
          example: "#Playground {\n    let model = SystemLanguageModel(useCase: .summarization)\n}",
          fixed: "#Playground {\n    let model = SystemLanguageModel(useCase: .general)\n}"),
        e(.reasoningOnDeviceModel, .error, "reasoning-on-device-model", "The on-device model does not support reasoning.",
          "A reasoning level needs a model that reasons (27.0's server model); the on-device model would reject the request.",
          example: playground + "    let r = try await session.respond(to: \"Why?\", contextOptions: ContextOptions(reasoningLevel: .deep))\n}",
          fixed: playground + "    let r = try await session.respond(to: \"Why?\", contextOptions: ContextOptions())\n}"),
        e(.unsupportedSwift, .error, "unsupported-swift", "Prompt files support a subset of Swift.",
          "fmplay interprets prompt files; Swift it cannot run is an error at its place rather than being ignored. The supported subset is listed in ARCHITECTURE.md (SupportedSwiftChecker).",
          example: "#Playground {\n    let answer = readLine()\n    print(answer)\n}",
          fixed: "#Playground {\n    let answer = \"yes\"\n    print(answer)\n}"),
        e(.statementOutsidePlayground, .error, "statement-outside-playground", "Statements run only inside #Playground blocks.",
          "Only #Playground blocks run; a statement (or a model call) at the top level would never execute.",
          example: "let session = LanguageModelSession()", fixed: "#Playground {\n    let session = LanguageModelSession()\n}"),
        e(.generationOptionOutOfRange, .warning, "generation-option-out-of-range", "GenerationOptions values must be in their documented ranges.",
          "Temperature is 0...1 and maximumResponseTokens at least 1; other values are clamped or rejected by models.",
          example: "#Playground {\n    let hot = GenerationOptions(temperature: 2.0)\n}", fixed: "#Playground {\n    let hot = GenerationOptions(temperature: 0.9)\n}"),
        e(.unsupportedDynamicSchema, .error, "unsupported-dynamic-schema", "This DynamicGenerationSchema form cannot be generated by fmplay.",
          "fmplay's guided generation cannot produce `.null` schemas or `anyOf:` members that are not object schemas; the block would fail.",
          example: "#Playground {\n    let note = DynamicGenerationSchema.Property(name: \"note\", schema: .null)\n}",
          fixed: "#Playground {\n    let note = DynamicGenerationSchema.Property(name: \"note\", schema: DynamicGenerationSchema(type: String.self), isOptional: true)\n}"),
        e(.unknownMember, .error, "unknown-member", "Members, argument labels and cases must exist in the supported API.",
          "Every type, member, label and case prompt files may use is in fmplay's surface table (Sources/Surface). Anything else would fail when the block runs, so it is an error at lint time, with the closest name as a fix-it. Completion lists what a value supports.",
          example: playground + "    let r = try await session.respond(to: \"Hi\", opitons: GenerationOptions(sampling: .gready))\n}",
          fixed: playground + "    let r = try await session.respond(to: \"Hi\", options: GenerationOptions(sampling: .greedy))\n}"),
        e(.unknownImport, .error, "unknown-import", "Prompt files import only the modules fmplay knows.",
          "Prompt files can use FoundationModels, Playgrounds, Foundation, Evaluations, Testing, FoundationModelsUtilities, RegexBuilder, Observation and Swift; other modules (SwiftUI, app frameworks) are not available when the file runs.",
          example: "import FoundationModels\nimport SwiftUI\n\n#Playground {\n    print(\"hello\")\n}",
          fixed: "import FoundationModels\n\n#Playground {\n    print(\"hello\")\n}"),
        e(.missingTryAwait, .error, "missing-try-await", "An async throwing call must be marked with try await, as in Swift.",
          "respond, collect, an evaluation's run() and tokenCount are async and can throw. Swift does not compile such a call without `try await`, so prompt files reject it too, with a fix-it that inserts what is missing.",
          example: "#Playground {\n    let session = LanguageModelSession()\n    let response = session.respond(to: \"Hi\")\n    print(response.content)\n}",
          fixed: "#Playground {\n    let session = LanguageModelSession()\n    let response = try await session.respond(to: \"Hi\")\n    print(response.content)\n}"),
        e(.unsupportedEvaluations, .error, "unsupported-evaluations", "An Evaluations form Apple documents that fmplay does not implement.",
          "fmplay implements Apple's Evaluations framework as prompt files use it: ArrayLoader datasets of ModelSample values, subject(from:), Evaluator closures and EvaluatorProtocol types, ModelJudgeEvaluator, ToolCallEvaluator, MetricsAggregator, run()/run(info:) and @Test(.evaluates(...)). Other documented forms (JSONLoader, StreamLoader, SampleGenerator, ScoringScale.custom, saving and loading result files, test traits other than .evaluates) would be ignored or fail when the block runs, so each is an error naming it and what to write instead.",
          example: "import Evaluations\n\nstruct Capitals: Evaluation {\n    let dataset = JSONLoader(url: URL(fileURLWithPath: \"capitals.jsonl\"))\n}",
          fixed: "import Evaluations\n\nstruct Capitals: Evaluation {\n    let dataset = ArrayLoader(samples: [ModelSample(prompt: \"Capital of France?\", expected: \"Paris\")])\n}"),
        e(.unimplementedAPI, .error, "unimplemented-api", "A FoundationModels 27.0 API that fmplay does not implement.",
          "fmplay runs most of the 27.0 agentic API (dynamic profiles and instructions with their type erasers AnyDynamicProfile, AnyDynamicInstructions and EmptyDynamicInstructions, modifiers, lifecycle callbacks, session properties, transcript control, FoundationModelsUtilities' history modifiers and skills). The builder types written by hand (TupleDynamicInstructions, ConditionalDynamicProfile, DynamicProfileBuilder...), custom LanguageModel executors, ChatCompletionsLanguageModel, Attachment and SessionPropertyKey conformances are not: instead of failing when the block runs, lint names the API and what to write instead.",
          example: "import FoundationModels\n\nstruct Parts: DynamicInstructions {\n    var body: some DynamicInstructions {\n        TupleDynamicInstructions(Instructions(\"a\"), Instructions(\"b\"))\n    }\n}",
          fixed: "import FoundationModels\n\nstruct Parts: DynamicInstructions {\n    var body: some DynamicInstructions {\n        Instructions(\"a\")\n        Instructions(\"b\")\n    }\n}"),
        e(.dynamicBuilder, .error, "dynamic-builder", "A statement the dynamic instructions or dynamic profile builder cannot hold.",
          "The bodies of DynamicInstructions, DynamicProfile, Profile { } and DynamicInstructions.ForEach are result builders. The dynamic instructions builder has no loops (no buildArray): repeat a part with DynamicInstructions.ForEach(items) { item in ... }. A dynamic profile's body must resolve to exactly one Profile: two profiles side by side are an error; choose one with if/else or an exhaustive switch.",
          example: "import FoundationModels\n\nstruct Topics: DynamicInstructions {\n    var topics: [String]\n    var body: some DynamicInstructions {\n        for topic in topics {\n            Instructions(\"Cover \\(topic).\")\n        }\n    }\n}",
          fixed: "import FoundationModels\n\nstruct Topics: DynamicInstructions {\n    var topics: [String]\n    var body: some DynamicInstructions {\n        DynamicInstructions.ForEach(topics) { topic in\n            Instructions(\"Cover \\(topic).\")\n        }\n    }\n}"),
        e(.notInAppleAPI, .warning, "not-in-apple-api", "A name fmplay accepts that Apple's FoundationModels does not have.",
          "fmplay keeps a few names of its own (older spellings of token counts, shortcuts on transcript entries). They run, but the same code does not compile with Apple's SDK, so lint warns and names the documented form to write instead.",
          example: playground + "    let response = try await session.respond(to: \"Hi\")\n    print(response.usage.promptTokens)\n}",
          fixed: playground + "    let response = try await session.respond(to: \"Hi\")\n    print(response.usage.input.totalTokenCount)\n}"),
    ]
}
