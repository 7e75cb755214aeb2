import FoundationModelsRuntime
import PromptLanguage

/// The prompt, content, schema, transcript and feedback entries of `Surface.table` (Table/Content.swift).
extension Builtins {
    static let transcript: @Sendable (Value) -> Transcript? = { if case .transcript(let t) = $0 { t } else { nil } }
    static let content: @Sendable (Value) -> GeneratedContent? = { if case .content(let c) = $0 { c } else { nil } }

    static let contentBuiltins: [String: Builtin] = [
        "Instructions.init(_:)": { i, c in .instructions(Instructions(try await i.builderText(c.callNode))) },
        "Instructions.description": describe,
        "Prompt.init(_:)": { i, c in .prompt(Prompt(try await i.builderText(c.callNode))) },
        "Prompt.description": describe,
        "GeneratedContent.init(_:)": { i, c in .content((try await c.arguments(i).unlabelled.first ?? .null).generatedContent) },
        "GeneratedContent.init(properties:)": { i, c in .content((try await c.arguments(i).value("properties") ?? .null).generatedContent) },
        "GeneratedContent.init(json:)": { i, c in
            guard let json = try await c.arguments(i).value("json")?.stringValue else { throw i.error("GeneratedContent(json:) needs a string", c.node) }
            do { return .content(try GeneratedContent(json: json)) } catch { throw ThrownValue(value: .string("\(error)")) }
        },
        "GeneratedContent.jsonString": on(content) { _, g, _ in .string(g.jsonString) },
        "GeneratedContent.isComplete": on(content) { _, g, _ in .bool(g.isComplete) },
        "GeneratedContent.count": on(content) { i, g, c in
            guard let items = g.arrayValue else { throw i.error("count needs array content; this content is \(g.jsonString.prefix(40))", c.node) }
            return .int(items.count)
        },
        "GeneratedContent.description": describe,
        "GeneratedContent.value(_:)": on(content) { _, g, _ in .content(g) },
        "GeneratedContent.value(_:forProperty:)": on(content) { i, g, c in
            guard let property = try await c.arguments(i).value("forProperty")?.stringValue else { return .content(g) }
            guard let found = g[property] else { throw ThrownValue(value: .string("no property '\(property)' in \(g.jsonString)")) }
            return .content(found)
        },
        "GenerationSchema.init(root:dependencies:)": { i, c in try i.makeGenerationSchema(try await c.arguments(i), c.callNode) },
        "DynamicGenerationSchema.init(name:description:properties:)": dynamicSchema,
        "DynamicGenerationSchema.init(name:description:anyOf:)": dynamicSchema,
        "DynamicGenerationSchema.init(arrayOf:minimumElements:maximumElements:)": dynamicSchema,
        "DynamicGenerationSchema.init(type:guides:)": dynamicSchema,
        "DynamicGenerationSchema.init(referenceTo:)": dynamicSchema,
        "DynamicGenerationSchema.null": { i, c in throw i.error(DynamicSchemaSupport.nullMessage, c.node) },
        "DynamicGenerationSchema.Property.init(name:description:schema:isOptional:)": { i, c in
            try i.makeDynamicProperty(try await c.arguments(i), c.callNode)
        },
        "Transcript.count": on(transcript) { _, t, _ in .int(t.count) },
        "Transcript.isEmpty": on(transcript) { _, t, _ in .bool(t.isEmpty) },
        "Transcript.first": on(transcript) { _, t, _ in t.first.map(Value.transcriptEntry) ?? .null },
        "Transcript.last": on(transcript) { _, t, _ in t.last.map(Value.transcriptEntry) ?? .null },
        "Transcript.entries": on(transcript) { _, t, _ in .array(t.map(Value.transcriptEntry)) },
        "Transcript.description": on(transcript) { _, t, _ in .string(t.description) },
        "Transcript.enumerated()": on(transcript) { _, t, _ in
            .array(t.enumerated().map { .tuple([(label: "offset", value: .int($0.offset)), (label: "element", value: .transcriptEntry($0.element))]) })
        },
        "Transcript.Entry.description": describe,
        "ToolOutput.init(_:)": { i, c in try await c.arguments(i).unlabelled.first ?? .null },
        "LanguageModelFeedback.Sentiment.positive": feedback("Sentiment", "positive"),
        "LanguageModelFeedback.Sentiment.negative": feedback("Sentiment", "negative"),
        "LanguageModelFeedback.Sentiment.neutral": feedback("Sentiment", "neutral"),
        "LanguageModelFeedback.Issue.init(category:explanation:)": { i, c in try await i.makeFeedbackIssue(c.callNode) },
        "LanguageModelFeedback.Issue.category": field("category"),
        "LanguageModelFeedback.Issue.explanation": field("explanation"),
        "LanguageModelFeedback.Issue.Category.didNotFollowInstructions": feedback("Issue.Category", "didNotFollowInstructions"),
        "LanguageModelFeedback.Issue.Category.incorrect": feedback("Issue.Category", "incorrect"),
        "LanguageModelFeedback.Issue.Category.stereotypeOrBias": feedback("Issue.Category", "stereotypeOrBias"),
        "LanguageModelFeedback.Issue.Category.suggestiveOrSexual": feedback("Issue.Category", "suggestiveOrSexual"),
        "LanguageModelFeedback.Issue.Category.tooVerbose": feedback("Issue.Category", "tooVerbose"),
        "LanguageModelFeedback.Issue.Category.triggeredGuardrailUnexpectedly": feedback("Issue.Category", "triggeredGuardrailUnexpectedly"),
        "LanguageModelFeedback.Issue.Category.unhelpful": feedback("Issue.Category", "unhelpful"),
        "LanguageModelFeedback.Issue.Category.vulgarOrOffensive": feedback("Issue.Category", "vulgarOrOffensive"),
    ]

    static let dynamicSchema: Builtin = { i, c in try i.makeDynamicSchema(try await c.arguments(i), c.callNode) }

    static func feedback(_ type: String, _ name: String) -> Builtin {
        constant(.enumCase(type: "LanguageModelFeedback." + type, name: name, payload: []))
    }
}
