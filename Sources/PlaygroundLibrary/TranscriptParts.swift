import FoundationModelsRuntime
import PromptInterpreter
import Surface

/// The transcript's inner types (Surface/Table/Content.swift): `Transcript(entries:)`, the entry cases,
/// their payloads (`Transcript.Prompt`, `.Response`, ...), segments and tool definitions. Values are
/// `TranscriptPart`s over the runtime's own structures, so a transcript written by hand is the
/// transcript a session would keep.
extension Builtins {
    static func part<T>(_ extract: @escaping @Sendable (TranscriptPart) -> T?) -> @Sendable (Value) -> T? {
        { if case .transcriptPart(let part) = $0 { extract(part) } else { nil } }
    }

    static let instructionsPart = part { if case .instructions(let p) = $0 { p } else { nil } }
    static let promptPart = part { if case .prompt(let p) = $0 { p } else { nil } }
    static let responsePart = part { if case .response(let p) = $0 { p } else { nil } }
    static let toolOutputPart = part { if case .toolOutput(let p) = $0 { p } else { nil } }
    static let reasoningPart = part { if case .reasoning(let p) = $0 { p } else { nil } }
    static let textSegmentPart = part { if case .textSegment(let p) = $0 { p } else { nil } }
    static let structuredSegmentPart = part { if case .structuredSegment(let p) = $0 { p } else { nil } }
    static let toolDefinitionPart = part { if case .toolDefinition(let p) = $0 { p } else { nil } }
    static let responseFormatPart = part { if case .responseFormat(let p) = $0 { p } else { nil } }

    static let transcriptPartBuiltins: [String: Builtin] = [
        "Transcript.init(entries:)": makeTranscript,
        "Transcript.Entry.instructions(_:)": entryCase("instructions"),
        "Transcript.Entry.prompt(_:)": entryCase("prompt"),
        "Transcript.Entry.toolCalls(_:)": entryCase("toolCalls"),
        "Transcript.Entry.toolOutput(_:)": entryCase("toolOutput"),
        "Transcript.Entry.response(_:)": entryCase("response"),
        "Transcript.Entry.reasoning(_:)": entryCase("reasoning"),
        "Transcript.ToolCall.init(id:toolName:arguments:)": makeToolCall,
        "Transcript.ToolCall.init(id:metadata:toolName:arguments:)": makeToolCall,
        "Transcript.Instructions.init(id:segments:toolDefinitions:)": { i, c in
            let args = try await c.arguments(i)
            let definitions = try (try args.value("toolDefinitions").map { try i.sequenceElements($0, c.node) } ?? []).map { value in
                guard case .transcriptPart(.toolDefinition(let definition)) = value else {
                    throw i.error("toolDefinitions: takes the Transcript.ToolDefinition values of another transcript", c.node)
                }
                return definition
            }
            return .transcriptPart(.instructions(Transcript.Instructions(
                id: try idArgument(i, args, c), segments: try segmentsArgument(i, args, c), toolDefinitions: definitions)))
        },
        "Transcript.Instructions.id": on(instructionsPart) { _, p, _ in .string(p.id) },
        "Transcript.Instructions.segments": on(instructionsPart) { _, p, _ in TranscriptPart.segmentsValue(p.segments) },
        "Transcript.Instructions.toolDefinitions": on(instructionsPart) { _, p, _ in .array(p.toolDefinitions.map { .transcriptPart(.toolDefinition($0)) }) },
        "Transcript.Instructions.description": describePart,
        "Transcript.Prompt.init(id:segments:options:responseFormat:)": makePrompt,
        "Transcript.Prompt.init(id:metadata:segments:options:responseFormat:contextOptions:)": makePrompt,
        "Transcript.Prompt.id": on(promptPart) { _, p, _ in .string(p.id) },
        "Transcript.Prompt.segments": on(promptPart) { _, p, _ in TranscriptPart.segmentsValue(p.segments) },
        "Transcript.Prompt.options": on(promptPart) { _, p, _ in .options(p.options) },
        "Transcript.Prompt.responseFormat": on(promptPart) { _, p, _ in p.responseFormat.map { .transcriptPart(.responseFormat($0)) } ?? .null },
        "Transcript.Prompt.description": describePart,
        "Transcript.Response.init(id:assetIDs:segments:)": { i, c in
            let args = try await c.arguments(i)
            let assetIDs = try (try args.value("assetIDs").map { try i.sequenceElements($0, c.node) } ?? []).map { value in
                guard let id = value.stringValue else { throw i.error("assetIDs: takes strings", c.node) }
                return id
            }
            return .transcriptPart(.response(Transcript.Response(id: try idArgument(i, args, c), assetIDs: assetIDs, segments: try segmentsArgument(i, args, c))))
        },
        "Transcript.Response.init(id:metadata:segments:)": { i, c in
            let args = try await c.arguments(i)
            return .transcriptPart(.response(Transcript.Response(id: try idArgument(i, args, c), assetIDs: [], segments: try segmentsArgument(i, args, c),
                                                                 metadata: try i.metadata(args.value("metadata"), c.node))))
        },
        "Transcript.Response.id": on(responsePart) { _, p, _ in .string(p.id) },
        "Transcript.Response.assetIDs": on(responsePart) { _, p, _ in .array(p.assetIDs.map(Value.string)) },
        "Transcript.Response.segments": on(responsePart) { _, p, _ in TranscriptPart.segmentsValue(p.segments) },
        "Transcript.Response.description": describePart,
        "Transcript.ToolOutput.init(id:toolName:segments:)": { i, c in
            let args = try await c.arguments(i)
            guard let name = args.value("toolName")?.stringValue else { throw i.error("Transcript.ToolOutput needs toolName:", c.node) }
            return .transcriptPart(.toolOutput(Transcript.ToolOutput(id: try idArgument(i, args, c), toolName: name, segments: try segmentsArgument(i, args, c))))
        },
        "Transcript.ToolOutput.id": on(toolOutputPart) { _, p, _ in .string(p.id) },
        "Transcript.ToolOutput.toolName": on(toolOutputPart) { _, p, _ in .string(p.toolName) },
        "Transcript.ToolOutput.segments": on(toolOutputPart) { _, p, _ in TranscriptPart.segmentsValue(p.segments) },
        "Transcript.ToolOutput.description": describePart,
        "Transcript.Reasoning.id": on(reasoningPart) { _, p, _ in .string(p.id) },
        "Transcript.Reasoning.segments": on(reasoningPart) { _, p, _ in TranscriptPart.segmentsValue(p.segments) },
        "Transcript.Reasoning.description": describePart,
        "Transcript.Segment.text(_:)": segmentCase("text"),
        "Transcript.Segment.structure(_:)": segmentCase("structure"),
        "Transcript.Segment.id": { i, c in
            guard let segment = TranscriptPart.segment(from: c.base) else { throw i.error("'id' needs a Transcript.Segment", c.node) }
            return .string(segment.id)
        },
        "Transcript.TextSegment.init(id:content:)": { i, c in
            let args = try await c.arguments(i)
            guard let content = args.value("content")?.stringValue else { throw i.error("Transcript.TextSegment needs content: text", c.node) }
            return .transcriptPart(.textSegment(Transcript.TextSegment(id: try idArgument(i, args, c), content: content)))
        },
        "Transcript.TextSegment.id": on(textSegmentPart) { _, p, _ in .string(p.id) },
        "Transcript.TextSegment.content": on(textSegmentPart) { _, p, _ in .string(p.content) },
        "Transcript.StructuredSegment.init(id:source:content:)": structuredSegment(label: "source"),
        "Transcript.StructuredSegment.init(id:schemaName:content:)": structuredSegment(label: "schemaName"),
        "Transcript.StructuredSegment.schemaName": on(structuredSegmentPart) { _, p, _ in .string(p.source) },
        "Transcript.StructuredSegment.id": on(structuredSegmentPart) { _, p, _ in .string(p.id) },
        "Transcript.StructuredSegment.source": on(structuredSegmentPart) { _, p, _ in .string(p.source) },
        "Transcript.StructuredSegment.content": on(structuredSegmentPart) { _, p, _ in .content(p.content) },
        "Transcript.ToolDefinition.name": on(toolDefinitionPart) { _, p, _ in .string(p.name) },
        "Transcript.ToolDefinition.description": on(toolDefinitionPart) { _, p, _ in .string(p.description) },
        "Transcript.ResponseFormat.init(schema:)": { i, c in
            guard case .schema(let schema)? = try await c.arguments(i).value("schema") else {
                throw i.error("Transcript.ResponseFormat(schema:) needs a GenerationSchema", c.node)
            }
            return .transcriptPart(.responseFormat(Transcript.ResponseFormat(name: schema.typeName, schema: schema)))
        },
        "Transcript.ResponseFormat.name": on(responseFormatPart) { _, p, _ in .string(p.name) },
    ]

    /// `Transcript.StructuredSegment(id:source:content:)` and 27.0's `(id:schemaName:content:)`: the name is the
    /// segment's source either way. Content may be any value that converts to GeneratedContent.
    static func structuredSegment(label: String) -> Builtin {
        { i, c in
            let args = try await c.arguments(i)
            guard let source = args.value(label)?.stringValue, let given = args.value("content"), !given.isNull else {
                throw i.error("Transcript.StructuredSegment needs \(label): text and content: GeneratedContent", c.node)
            }
            return .transcriptPart(.structuredSegment(Transcript.StructuredSegment(id: try idArgument(i, args, c), source: source,
                                                                                  content: given.generatedContent)))
        }
    }

    /// 27.0's mutations of a transcript (`session.transcript.removeLast()`, `transcript.append(entry)`): Array's, over its
    /// entries; the changed transcript is written back where it was read (a session's is set as `transcript = ...`).
    static let transcriptMutations = collectionMutations("Transcript", MutableCollection(
        elements: { value in transcript(value).map { $0.entries.map(Value.transcriptEntry) } },
        element: { i, value, c in .transcriptEntry(try entryArgument(i, value, c)) },
        rebuild: { .transcript(Transcript(entries: $0.compactMap(TranscriptPart.entry(from:)))) }))

    static func entryArgument(_ i: Interpreter, _ value: Value?, _ c: BuiltinCall) throws -> Transcript.Entry {
        guard let value, let entry = TranscriptPart.entry(from: value) else {
            throw i.error("\(c.entry.selector) takes Transcript.Entry values, not \((value ?? .null).description.prefix(40))", c.node)
        }
        return entry
    }

    /// `Transcript(entries:)`: every element must be an entry (a transcript's element or a case written here).
    static let makeTranscript: Builtin = { i, c in
        let items = try await c.arguments(i).value("entries").map { try i.sequenceElements($0, c.node) } ?? []
        let entries = try items.map { item in
            guard let entry = TranscriptPart.entry(from: item) else {
                throw i.error("Transcript(entries:) takes Transcript.Entry values (.prompt(Transcript.Prompt(segments: ...)), an element of "
                              + "another transcript...), not \(item.description.prefix(40))", c.node)
            }
            return entry
        }
        return .transcript(Transcript(entries: entries))
    }

    /// `Transcript.Entry.prompt(payload)` and its siblings: the entry, checked against its payload's type.
    static func entryCase(_ name: String) -> Builtin {
        { i, c in
            let payload = try await c.arguments(i).items.first?.value ?? .null
            guard let entry = TranscriptPart.entry(from: .enumCase(type: "Transcript.Entry", name: name, payload: [(nil, payload)])) else {
                throw i.error("Transcript.Entry.\(name)(_:) needs a \(c.entry.parameters?.first?.type ?? "payload"), not \(payload.description.prefix(40))", c.node)
            }
            return .transcriptEntry(entry)
        }
    }

    /// `Transcript.Segment.text(...)`, `.structure(...)`.
    static func segmentCase(_ name: String) -> Builtin {
        { i, c in
            let payload = try await c.arguments(i).items.first?.value ?? .null
            let value = Value.enumCase(type: "Transcript.Segment", name: name, payload: [(nil, payload)])
            guard TranscriptPart.segment(from: value) != nil else {
                throw i.error("Transcript.Segment.\(name)(_:) needs a \(c.entry.parameters?.first?.type ?? "segment"), not \(payload.description.prefix(40))", c.node)
            }
            return value
        }
    }

    static let describePart: Builtin = { i, c in
        guard case .transcriptPart(let part) = c.base else { throw i.error("'description' needs a transcript entry's payload", c.node) }
        return .string(part.description)
    }

    /// `id:` when given, else a fresh UUID (Apple's default is `UUID().uuidString`).
    static func idArgument(_ i: Interpreter, _ args: Arguments, _ c: BuiltinCall) throws -> String {
        guard let given = args.value("id"), !given.isNull else { return i.randomUUID() }
        guard let id = given.stringValue else { throw i.error("id: needs a string", c.node) }
        return id
    }

    /// `segments:` as runtime segments (`.text(Transcript.TextSegment(content: "..."))`, ...).
    static func segmentsArgument(_ i: Interpreter, _ args: Arguments, _ c: BuiltinCall) throws -> [Transcript.Segment] {
        try args.value("segments").map { try segments(i, $0, c.node) } ?? []
    }
}
