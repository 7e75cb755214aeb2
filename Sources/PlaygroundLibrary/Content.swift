import FoundationModelsRuntime
import PromptInterpreter
import PromptLanguage
import Surface

/// The prompt, content, schema, transcript and feedback entries of `Surface.table` (Table/Content.swift).
extension Builtins {
    static let transcript: @Sendable (Value) -> Transcript? = { if case .transcript(let t) = $0 { t } else { nil } }
    static let entry: @Sendable (Value) -> Transcript.Entry? = { if case .transcriptEntry(let e) = $0 { e } else { nil } }
    static let content: @Sendable (Value) -> GeneratedContent? = { if case .content(let c) = $0 { c } else { nil } }
    /// The `T.self` a `value(_:)` call names, nil when it names none.
    static func requestedType(_ args: Arguments) -> String? { if case .type(let name)? = args.unlabelled.first { name } else { nil } }

    static let contentBuiltins: [String: Builtin] = [
        "Instructions.init(_:)": { i, c in .instructions(Instructions(try await i.builderText(c.callNode, instructions: true))) },
        "Instructions.description": describe,
        "Prompt.init(_:)": { i, c in .prompt(Prompt(try await i.builderText(c.callNode))) },
        "Prompt.description": describe,
        "GeneratedContent.init(_:)": { i, c in .content((try await c.arguments(i).unlabelled.first ?? .null).generatedContent) },
        "GeneratedContent.init(_:id:)": { i, c in
            let args = try await c.arguments(i)
            return try identified((args.unlabelled.first ?? .null).generatedContent, args, i, c)
        },
        "GeneratedContent.init(properties:id:)": { i, c in
            let args = try await c.arguments(i)
            return try identified((args.value("properties") ?? .null).generatedContent, args, i, c)
        },
        "GeneratedContent.init(json:)": { i, c in
            guard let json = try await c.arguments(i).value("json")?.stringValue else { throw i.error("GeneratedContent(json:) needs a string", c.node) }
            do { return .content(try GeneratedContent(json: json)) } catch { throw ThrownValue(value: parsingError(json, error)) }
        },
        "GeneratedContent.id": on(content) { _, g, _ in g.id.map { Value.generationID($0.rawValue) } ?? .null },
        "GeneratedContent.debugDescription": on(content) { _, g, _ in .string(g.debugDescription) },
        "GenerationID.init()": { i, _ in Value.generationID(i.randomUUID()) },
        "GeneratedContent.ParsingError.rawContent": field("rawContent"),
        "GeneratedContent.ParsingError.underlyingError": field("underlyingError"),
        "GeneratedContent.ParsingError.debugDescription": field("debugDescription"),
        "GeneratedContent.jsonString": on(content) { _, g, _ in .string(g.jsonString) },
        "GeneratedContent.isComplete": on(content) { _, g, _ in .bool(g.isComplete) },
        "GeneratedContent.count": on(content) { i, g, c in
            guard let items = g.arrayValue else { throw i.error("count needs array content; this content is \(g.jsonString.prefix(40))", c.node) }
            return .int(items.count)
        },
        "GeneratedContent.description": describe,
        // The requested type is the metatype argument, else the declaration's annotation
        // (`let city: String = try content.value(forProperty: "city")`, converted when it is bound).
        "GeneratedContent.value(_:)": on(content) { i, g, c in try i.contentValue(g, as: requestedType(try await c.arguments(i))) },
        "GeneratedContent.value(_:forProperty:)": on(content) { i, g, c in
            let args = try await c.arguments(i)
            guard let property = args.value("forProperty")?.stringValue else { return try i.contentValue(g, as: requestedType(args)) }
            guard let found = g[property] else {
                if let type = requestedType(args), type.hasSuffix("?") { return .null }
                throw ThrownValue(value: .string("no property '\(property)' in \(g.jsonString)"))
            }
            return try i.contentValue(found, as: requestedType(args))
        },
        "GenerationSchema.init(root:dependencies:)": { i, c in try i.makeGenerationSchema(try await c.arguments(i), c.callNode) },
        "DynamicGenerationSchema.init(name:description:properties:)": dynamicSchema,
        "DynamicGenerationSchema.init(name:description:representNilExplicitlyInGeneratedContent:properties:)": dynamicSchema,
        "GenerationSchema.debugDescription": on({ if case .schema(let s) = $0 { s } else { nil } }) { _, s, _ in .string(s.jsonSchema().serialized()) },
        "GenerationSchema.SchemaError.Context.init(debugDescription:)": { i, c in
            .structure(type: "GenerationSchema.SchemaError.Context", fields: [("debugDescription", try await c.arguments(i).value("debugDescription") ?? .string(""))])
        },
        "GenerationSchema.SchemaError.Context.debugDescription": field("debugDescription"),
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
        // A transcript is a collection of entries: the shared sequence algorithms (Sequence.swift) over its entries.
        "Transcript.map(_:)": map,
        "Transcript.compactMap(_:)": compactMap,
        "Transcript.filter(_:)": filter,
        "Transcript.contains(where:)": containsWhere,
        "Transcript.first(where:)": firstWhere,
        "Transcript.last(where:)": lastWhere,
        "Transcript.reversed()": transcriptAsArray,
        "Transcript.prefix(_:)": transcriptAsArray,
        "Transcript.suffix(_:)": transcriptAsArray,
        "Transcript.dropFirst(_:)": transcriptAsArray,
        "Transcript.dropLast(_:)": transcriptAsArray,
        "Transcript.forEach(_:)": forEach,
        "Transcript.allSatisfy(_:)": allSatisfy,
        "Transcript.count(where:)": countWhere,
        "Transcript.firstIndex(where:)": firstIndexWhere,
        "Transcript.description": on(transcript) { _, t, _ in .string(t.description) },
        "Transcript.enumerated()": enumerated,
        "Transcript.Entry.description": describe,
        // An entry case's payload is the entry itself: these answer the payload's members.
        "Transcript.ToolCall.toolName": toolCallField("toolName"),
        "Transcript.ToolCall.arguments": toolCallField("arguments"),
        "Transcript.ToolCall.id": toolCallField("id"),
        "Transcript.Entry.id": on(entry) { _, e, _ in .string(e.id) },
        "Transcript.Entry.toolName": on(entry) { i, e, c in
            guard case .toolOutput(let output) = e else { throw i.error("toolName belongs to a .toolOutput entry; this is \(e.kindName)", c.node) }
            return .string(output.toolName)
        },
        "Transcript.Entry.first": on(entry) { i, e, c in
            guard case .toolCalls(let calls) = e else { throw i.error("first (the first tool call) belongs to a .toolCalls entry; this is \(e.kindName)", c.node) }
            return calls.calls.first.map(Interpreter.toolCallValue) ?? .null
        },
        "Transcript.Entry.count": on(entry) { _, e, _ in
            switch e {
            case .toolCalls(let calls): .int(calls.calls.count)
            case .instructions(let x): .int(x.segments.count)
            case .prompt(let x): .int(x.segments.count)
            case .toolOutput(let x): .int(x.segments.count)
            case .response(let x): .int(x.segments.count)
            case .reasoning(let x): .int(x.segments.count)
            }
        },
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
        "LanguageModelFeedback.Sentiment.allCases": allCases("LanguageModelFeedback.Sentiment"),
        "LanguageModelFeedback.Issue.Category.allCases": allCases("LanguageModelFeedback.Issue.Category"),
    ]

    /// A field of a tool call value (`Interpreter.toolCallValue`).
    static func toolCallField(_ name: String) -> Builtin {
        on({ if case .structure("Transcript.ToolCall", let fields) = $0 { fields } else { nil } }) { _, fields, _ in
            fields.first { $0.name == name }?.value ?? .null
        }
    }

    /// The Array implementation of the same member, over the entries (a transcript is a collection of entries).
    static let transcriptAsArray: Builtin = { i, c in
        guard case .transcript(let t) = c.base, let entry = Surface.table.entry(id: "Array." + c.entry.selector) else {
            throw i.error("'\(c.entry.selector)' is not available on \(c.base.description.prefix(40))", c.node)
        }
        return try await i.runBuiltin(entry, base: .array(t.map(Value.transcriptEntry)), baseExpr: c.baseExpr, call: c.call, node: c.node)
    }

    static let dynamicSchema: Builtin = { i, c in try i.makeDynamicSchema(try await c.arguments(i), c.callNode) }


    /// The content with the `id:` argument, when one was given (a GenerationID() value).
    static func identified(_ content: GeneratedContent, _ args: Arguments, _ i: Interpreter, _ c: BuiltinCall) throws -> Value {
        guard let given = args.value("id"), !given.isNull else { return .content(content) }
        guard let raw = given.generationIDRawValue else {
            throw i.error("id: takes a GenerationID (for example GenerationID()), not \(given.description.prefix(30))", c.node)
        }
        var identified = content
        identified.id = GenerationID(raw)
        return .content(identified)
    }

    /// What `GeneratedContent(json:)` throws for text that is not JSON: a `GeneratedContent.ParsingError`.
    static func parsingError(_ text: String, _ error: any Error) -> Value {
        .structure(type: "GeneratedContent.ParsingError", fields: [
            ("rawContent", .string(text)),
            ("underlyingError", .error(ErrorValue(error: error))),
            ("debugDescription", .string("the text is not JSON: \(error)")),
        ])
    }

    /// `allCases` of a table enum without payloads: its cases in declaration order.
    static func allCases(_ type: String) -> Builtin {
        let cases = (Surface.table.type(named: type)?.members ?? []).filter { $0.kind == .enumCase }
        return constant(.array(cases.map { Value.enumCase(type: type, name: $0.name, payload: []) }))
    }

    /// The cases of a table enum whose payload is given in full (`GenerationSchema.SchemaError.undefinedReferences(...)`).
    static func tableCases(of type: String) -> [String: Builtin] {
        var all: [String: Builtin] = [:]
        for entry in Surface.table.type(named: type)?.members ?? [] where entry.kind == .enumCase {
            all[entry.id] = { i, c in
                .enumCase(type: type, name: entry.name, payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
            }
        }
        return all
    }

    static func feedback(_ type: String, _ name: String) -> Builtin {
        constant(.enumCase(type: "LanguageModelFeedback." + type, name: name, payload: []))
    }
}
