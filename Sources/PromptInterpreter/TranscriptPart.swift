import FoundationModelsRuntime
import SwiftSyntax

/// The values inside transcript entries as prompt code sees them: an entry's payload (what
/// `case .prompt(let prompt)` binds), a segment's value and a tool definition. A segment itself is a
/// `Transcript.Segment` enum case (`.text(TextSegment)`, `.structure(StructuredSegment)`), so patterns
/// match it like any enum; a tool-calls payload is an array of `Transcript.ToolCall` values.
package enum TranscriptPart: Sendable, Hashable {
    case instructions(Transcript.Instructions)
    case prompt(Transcript.Prompt)
    case response(Transcript.Response)
    case toolOutput(Transcript.ToolOutput)
    case reasoning(Transcript.Reasoning)
    case textSegment(Transcript.TextSegment)
    case structuredSegment(Transcript.StructuredSegment)
    case toolDefinition(Transcript.ToolDefinition)
    case responseFormat(Transcript.ResponseFormat)

    /// The surface table type of the part.
    package var typeName: String {
        switch self {
        case .instructions: "Transcript.Instructions"
        case .prompt: "Transcript.Prompt"
        case .response: "Transcript.Response"
        case .toolOutput: "Transcript.ToolOutput"
        case .reasoning: "Transcript.Reasoning"
        case .textSegment: "Transcript.TextSegment"
        case .structuredSegment: "Transcript.StructuredSegment"
        case .toolDefinition: "Transcript.ToolDefinition"
        case .responseFormat: "Transcript.ResponseFormat"
        }
    }

    /// A payload prints as its entry does; a segment value as its text.
    package var description: String {
        switch self {
        case .instructions(let payload): Transcript.Entry.instructions(payload).description
        case .prompt(let payload): Transcript.Entry.prompt(payload).description
        case .response(let payload): Transcript.Entry.response(payload).description
        case .toolOutput(let payload): Transcript.Entry.toolOutput(payload).description
        case .reasoning(let payload): Transcript.Entry.reasoning(payload).description
        case .textSegment(let segment): segment.content
        case .structuredSegment(let segment): segment.content.jsonString
        case .toolDefinition(let definition): "\(definition.name): \(definition.description)"
        case .responseFormat(let format): "ResponseFormat(\(format.name))"
        }
    }

    /// What `case .response(let response)` binds for an entry.
    package static func payload(of entry: Transcript.Entry) -> Value {
        switch entry {
        case .instructions(let payload): .transcriptPart(.instructions(payload))
        case .prompt(let payload): .transcriptPart(.prompt(payload))
        case .toolCalls(let calls): .array(calls.map(Interpreter.toolCallValue))
        case .toolOutput(let payload): .transcriptPart(.toolOutput(payload))
        case .response(let payload): .transcriptPart(.response(payload))
        case .reasoning(let payload): .transcriptPart(.reasoning(payload))
        }
    }

    package static func segmentValue(_ segment: Transcript.Segment) -> Value {
        switch segment {
        case .text(let text): .enumCase(type: "Transcript.Segment", name: "text", payload: [(nil, .transcriptPart(.textSegment(text)))])
        case .structure(let structure):
            .enumCase(type: "Transcript.Segment", name: "structure", payload: [(nil, .transcriptPart(.structuredSegment(structure)))])
        }
    }

    package static func segmentsValue(_ segments: [Transcript.Segment]) -> Value { .array(segments.map(segmentValue)) }

    /// A `Transcript.Segment` value (`.text(...)`, `Transcript.Segment.structure(...)`), or nil.
    package static func segment(from value: Value) -> Transcript.Segment? {
        guard case .enumCase(_, let name, let payload) = value, payload.count == 1 else { return nil }
        switch (name, payload[0].value) {
        case ("text", .transcriptPart(.textSegment(let text))): return .text(text)
        case ("structure", .transcriptPart(.structuredSegment(let structure))): return .structure(structure)
        default: return nil
        }
    }

    /// A `Transcript.ToolCall` value (`Interpreter.toolCallValue`), or nil.
    package static func toolCall(from value: Value) -> Transcript.ToolCall? {
        guard case .structure("Transcript.ToolCall", let fields) = value,
              let name = fields.first(where: { $0.name == "toolName" })?.value.stringValue,
              case .content(let arguments)? = fields.first(where: { $0.name == "arguments" })?.value else { return nil }
        var metadata: [String: GeneratedContent] = [:]
        if case .dictionary(let pairs)? = fields.first(where: { $0.name == "metadata" })?.value {
            for pair in pairs { if let key = pair.key.stringValue { metadata[key] = pair.value.generatedContent } }
        }
        return Transcript.ToolCall(id: fields.first { $0.name == "id" }?.value.stringValue ?? "", toolName: name, arguments: arguments,
                                   metadata: metadata)
    }

    /// An entry value: a transcript's element, or a case written in prompt code (`.prompt(Transcript.Prompt(...))`,
    /// `Transcript.Entry.toolCalls(Transcript.ToolCalls([...]))`); nil for anything else.
    package static func entry(from value: Value) -> Transcript.Entry? {
        if case .transcriptEntry(let entry) = value { return entry }
        guard case .enumCase(_, let name, let payload) = value, payload.count == 1 else { return nil }
        switch (name, payload[0].value) {
        case ("instructions", .transcriptPart(.instructions(let part))): return .instructions(part)
        case ("prompt", .transcriptPart(.prompt(let part))): return .prompt(part)
        case ("response", .transcriptPart(.response(let part))): return .response(part)
        case ("toolOutput", .transcriptPart(.toolOutput(let part))): return .toolOutput(part)
        case ("reasoning", .transcriptPart(.reasoning(let part))): return .reasoning(part)
        case ("toolCalls", .array(let items)):
            let calls = items.compactMap(toolCall(from:))
            return calls.count == items.count ? .toolCalls(Transcript.ToolCalls(calls)) : nil
        default: return nil
        }
    }
}

// MARK: 27's context options and metadata, as prompt code writes them and as entries record them

extension Interpreter {
    /// `ContextOptions(includeSchemaInPrompt:reasoningLevel:)` as the runtime's value (nil: unset).
    package func contextOptions(_ value: Value, _ node: some SyntaxProtocol) throws -> ContextOptions {
        if value.isNull { return ContextOptions() }
        guard case .structure("ContextOptions", let fields) = value else {
            throw error("contextOptions: needs ContextOptions, such as ContextOptions(includeSchemaInPrompt: false)", node)
        }
        var options = ContextOptions()
        if case .bool(let b)? = fields.first(where: { $0.name == "includeSchemaInPrompt" })?.value { options.includeSchemaInPrompt = b }
        if let level = fields.first(where: { $0.name == "reasoningLevel" })?.value, !level.isNull {
            options.reasoningLevel = try reasoningLevel(level, node)
        }
        return options
    }

    /// The prompt-file value of recorded context options (what `ContextOptions(...)` builds).
    package static func contextOptionsValue(_ options: ContextOptions) -> Value {
        .structure(type: "ContextOptions", fields: [
            ("includeSchemaInPrompt", options.includeSchemaInPrompt.map(Value.bool) ?? .null),
            ("reasoningLevel", options.reasoningLevel.map(reasoningLevelValue) ?? .null),
        ])
    }

    /// A reasoning level as `ContextOptions.ReasoningLevel.deep` (or `.custom("...")`) evaluates, so the two compare equal.
    package static func reasoningLevelValue(_ level: ReasoningLevel) -> Value {
        switch level {
        case .custom(let text): .enumCase(type: "ContextOptions.ReasoningLevel", name: "custom", payload: [(nil, .string(text))])
        default: .enumCase(type: "ContextOptions.ReasoningLevel", name: level.description, payload: [])
        }
    }

    /// `metadata: [String: any ConvertibleToGeneratedContent]`: string keys, values converted to GeneratedContent.
    package func metadata(_ value: Value?, _ node: some SyntaxProtocol) throws -> [String: GeneratedContent] {
        guard let value, !value.isNull else { return [:] }
        guard case .dictionary(let pairs) = value else {
            throw error("metadata: takes a dictionary [String: value], such as [\"requestID\": \"42\"]", node)
        }
        var metadata: [String: GeneratedContent] = [:]
        for pair in pairs {
            guard case .string(let key) = pair.key else { throw error("metadata keys are strings, not \(pair.key.description.prefix(30))", node) }
            if case .function = pair.value { throw error("metadata values must convert to GeneratedContent (strings, numbers, Booleans, arrays, Generable values)", node) }
            metadata[key] = pair.value.generatedContent
        }
        return metadata
    }

    /// Recorded metadata as `[String: GeneratedContent]`, keys sorted so printing repeats.
    package static func metadataValue(_ metadata: [String: GeneratedContent]) -> Value {
        .dictionary(metadata.sorted { $0.key < $1.key }.map { (key: .string($0.key), value: .content($0.value)) })
    }
}
