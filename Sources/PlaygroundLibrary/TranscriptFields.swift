import FoundationModelsRuntime
import PromptInterpreter
import SwiftSyntax

/// The transcript payloads' 27.0 fields (metadata, context options, a reasoning signature), the constructors Apple
/// documents that build them (`Transcript.Prompt(id:metadata:segments:options:responseFormat:contextOptions:)`,
/// `ToolCall(id:metadata:toolName:arguments:)`, `Reasoning(id:metadata:segments:signature:)`, `ToolDefinition(tool:)`,
/// `ResponseFormat(type:)`), and the setters of their `var`s (`text.content = ...` on a copy, as Apple's
/// `clearDebugFromHistory` history transform writes it). Entries (Surface/Table/Content.swift).
extension Builtins {
    static let transcriptFieldBuiltins: [String: Builtin] = [
        "Transcript.Prompt.metadata": on(promptPart) { _, p, _ in Interpreter.metadataValue(p.metadata) },
        "Transcript.Prompt.contextOptions": on(promptPart) { _, p, _ in Interpreter.contextOptionsValue(p.contextOptions) },
        "Transcript.Response.metadata": on(responsePart) { _, p, _ in Interpreter.metadataValue(p.metadata) },
        "Transcript.ToolCall.metadata": toolCallField("metadata"),
        "Transcript.Reasoning.init(id:metadata:segments:signature:)": { i, c in
            let args = try await c.arguments(i)
            var signature: [UInt8]?
            switch args.value("signature") {
            case .data(let bytes)?: signature = bytes
            case nil, .null?: break
            case let other?: throw i.error("signature: takes Data or nil, not \(other.description.prefix(30))", c.node)
            }
            return .transcriptPart(.reasoning(Transcript.Reasoning(
                id: try idArgument(i, args, c), segments: try segmentsArgument(i, args, c),
                metadata: try i.metadata(args.value("metadata"), c.node), signature: signature)))
        },
        "Transcript.Reasoning.metadata": on(reasoningPart) { _, p, _ in Interpreter.metadataValue(p.metadata) },
        "Transcript.Reasoning.signature": on(reasoningPart) { _, p, _ in p.signature.map(Value.data) ?? .null },
        "Transcript.ToolDefinition.init(tool:)": { i, c in
            guard let tool = try await c.arguments(i).value("tool") else { throw i.error("Transcript.ToolDefinition(tool:) needs a tool", c.node) }
            return .transcriptPart(.toolDefinition(try await i.toolDefinition(from: tool, c.node)))
        },
        "Transcript.ToolDefinition.init(name:description:parameters:)": { i, c in
            let args = try await c.arguments(i)
            guard let name = args.value("name")?.stringValue, let description = args.value("description")?.stringValue,
                  case .schema(let parameters)? = args.value("parameters") else {
                throw i.error("Transcript.ToolDefinition(name:description:parameters:) needs a name, a description and a GenerationSchema", c.node)
            }
            return .transcriptPart(.toolDefinition(Transcript.ToolDefinition(name: name, description: description, parameters: parameters)))
        },
        "Transcript.ToolDefinition.parameters": on(toolDefinitionPart) { _, p, _ in .schema(p.parameters) },
        "Transcript.ResponseFormat.init(type:)": { i, c in
            guard case .type(let name)? = try await c.arguments(i).value("type"), let schema = i.generableSchema(forType: name) else {
                throw i.error("Transcript.ResponseFormat(type:) takes a @Generable type, such as Forecast.self", c.node)
            }
            return .transcriptPart(.responseFormat(Transcript.ResponseFormat(name: schema.typeName, schema: schema)))
        },
        // The payloads' `var`s: assigning one on a copy (`prompt.segments = ...`, `text.content = ...`) gives the changed copy.
        "Transcript.Prompt.id=": setPart(promptPart, TranscriptPart.prompt) { i, p, v, n in p.id = try string(i, v, "id", n) },
        "Transcript.Prompt.segments=": setPart(promptPart, TranscriptPart.prompt) { i, p, v, n in p.segments = try segments(i, v, n) },
        "Transcript.Prompt.options=": setPart(promptPart, TranscriptPart.prompt) { i, p, v, n in
            guard case .options(let options) = v else { throw i.error("options must be GenerationOptions", n) }
            p.options = options
        },
        "Transcript.Prompt.responseFormat=": setPart(promptPart, TranscriptPart.prompt) { i, p, v, n in
            if v.isNull { p.responseFormat = nil; return }
            guard case .transcriptPart(.responseFormat(let format)) = v else { throw i.error("responseFormat must be a Transcript.ResponseFormat or nil", n) }
            p.responseFormat = format
        },
        "Transcript.Prompt.contextOptions=": setPart(promptPart, TranscriptPart.prompt) { i, p, v, n in p.contextOptions = try i.contextOptions(v, n) },
        "Transcript.Prompt.metadata=": setPart(promptPart, TranscriptPart.prompt) { i, p, v, n in p.metadata = try i.metadata(v, n) },
        "Transcript.Response.id=": setPart(responsePart, TranscriptPart.response) { i, p, v, n in p.id = try string(i, v, "id", n) },
        "Transcript.Response.segments=": setPart(responsePart, TranscriptPart.response) { i, p, v, n in p.segments = try segments(i, v, n) },
        "Transcript.Response.metadata=": setPart(responsePart, TranscriptPart.response) { i, p, v, n in p.metadata = try i.metadata(v, n) },
        "Transcript.Instructions.id=": setPart(instructionsPart, TranscriptPart.instructions) { i, p, v, n in p.id = try string(i, v, "id", n) },
        "Transcript.Instructions.segments=": setPart(instructionsPart, TranscriptPart.instructions) { i, p, v, n in p.segments = try segments(i, v, n) },
        "Transcript.ToolOutput.segments=": setPart(toolOutputPart, TranscriptPart.toolOutput) { i, p, v, n in p.segments = try segments(i, v, n) },
        "Transcript.Reasoning.segments=": setPart(reasoningPart, TranscriptPart.reasoning) { i, p, v, n in p.segments = try segments(i, v, n) },
        "Transcript.TextSegment.id=": setPart(textSegmentPart, TranscriptPart.textSegment) { i, p, v, n in p.id = try string(i, v, "id", n) },
        "Transcript.TextSegment.content=": setPart(textSegmentPart, TranscriptPart.textSegment) { i, p, v, n in
            p.content = try string(i, v, "content", n)
        },
        "Transcript.StructuredSegment.content=": setPart(structuredSegmentPart, TranscriptPart.structuredSegment) { _, p, v, _ in
            p.content = v.generatedContent
        },
    ]

    /// Both `Transcript.Prompt` initializers: the 27.0 one adds `metadata:` and `contextOptions:`.
    static let makePrompt: Builtin = { i, c in
        let args = try await c.arguments(i)
        var options = GenerationOptions()
        if let given = args.value("options"), !given.isNull {
            guard case .options(let o) = given else { throw i.error("options: needs GenerationOptions", c.node) }
            options = o
        }
        var format: Transcript.ResponseFormat?
        if let given = args.value("responseFormat"), !given.isNull {
            guard case .transcriptPart(.responseFormat(let f)) = given else { throw i.error("responseFormat: needs a Transcript.ResponseFormat", c.node) }
            format = f
        }
        return .transcriptPart(.prompt(Transcript.Prompt(
            id: try idArgument(i, args, c), segments: try segmentsArgument(i, args, c), options: options, responseFormat: format,
            contextOptions: try i.contextOptions(args.value("contextOptions") ?? .null, c.node),
            metadata: try i.metadata(args.value("metadata"), c.node))))
    }

    /// Both `Transcript.ToolCall` initializers: the 27.0 one adds `metadata:`.
    static let makeToolCall: Builtin = { i, c in
        let args = try await c.arguments(i)
        guard let name = args.value("toolName")?.stringValue, case .content(let arguments)? = args.value("arguments") else {
            throw i.error("Transcript.ToolCall(id:toolName:arguments:) needs a tool name and GeneratedContent arguments", c.node)
        }
        return Interpreter.toolCallValue(Transcript.ToolCall(id: try idArgument(i, args, c), toolName: name, arguments: arguments,
                                                             metadata: try i.metadata(args.value("metadata"), c.node)))
    }

    /// The setter of a payload's `var`: the receiver changed (the interpreter writes it back to its place).
    static func setPart<T>(_ extract: @escaping @Sendable (Value) -> T?, _ wrap: @escaping @Sendable (T) -> TranscriptPart,
                           _ change: @escaping @Sendable (Interpreter, inout T, Value, Syntax) throws -> Void) -> Builtin {
        { i, c in
            guard var part = extract(c.base) else { throw i.error("'\(c.entry.selector)' is not available on \(c.base.description.prefix(40))", c.node) }
            try change(i, &part, c.newValue, c.node)
            return .transcriptPart(wrap(part))
        }
    }

    static func string(_ i: Interpreter, _ value: Value, _ name: String, _ node: Syntax) throws -> String {
        guard let text = value.stringValue else { throw i.error("\(name) must be a String, not \(value.description.prefix(30))", node) }
        return text
    }

    /// Runtime segments from a `[Transcript.Segment]` value.
    static func segments(_ i: Interpreter, _ value: Value, _ node: Syntax) throws -> [Transcript.Segment] {
        try i.sequenceElements(value, node).map { element in
            guard let segment = TranscriptPart.segment(from: element) else {
                throw i.error("segments take Transcript.Segment values such as .text(Transcript.TextSegment(content: \"...\")), not \(element.description.prefix(40))", node)
            }
            return segment
        }
    }
}
