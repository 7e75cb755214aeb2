import FoundationModelsRuntime

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
        return Transcript.ToolCall(id: fields.first { $0.name == "id" }?.value.stringValue ?? "", toolName: name, arguments: arguments)
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
