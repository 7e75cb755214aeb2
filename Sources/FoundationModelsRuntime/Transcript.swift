import Schema

/// `Transcript`: the entries of a session, in order. Entry ids are assigned
/// by the session in sequence ("1", "2", ...) so transcripts are reproducible.
public struct Transcript: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    public var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Entry { entries[position] }

    public enum Entry: Sendable, Hashable, Identifiable, CustomStringConvertible {
        case instructions(Instructions)
        case prompt(Prompt)
        case toolCalls(ToolCalls)
        case toolOutput(ToolOutput)
        case response(Response)
        /// 27: the model's reasoning before an answer (only models that reason).
        case reasoning(Reasoning)

        public var id: String {
            switch self {
            case .instructions(let e): e.id
            case .prompt(let e): e.id
            case .toolCalls(let e): e.id
            case .toolOutput(let e): e.id
            case .response(let e): e.id
            case .reasoning(let e): e.id
            }
        }

        /// The kind as a lowercase word: instructions, prompt, toolCalls, toolOutput, response.
        public var kindName: String {
            switch self {
            case .instructions: "instructions"
            case .prompt: "prompt"
            case .toolCalls: "toolCalls"
            case .toolOutput: "toolOutput"
            case .response: "response"
            case .reasoning: "reasoning"
            }
        }

        public var description: String {
            switch self {
            case .instructions(let e):
                var text = "(Instructions) " + Segment.text(of: e.segments)
                for tool in e.toolDefinitions { text += "\n  (Tool) \(tool.name): \(tool.description)" }
                return text
            case .prompt(let e):
                var text = "(Prompt) " + Segment.text(of: e.segments)
                if let format = e.responseFormat { text += "\n  (Response format) \(format.name)" }
                return text
            case .toolCalls(let e):
                return "(Tool calls)" + e.calls.map { "\n  \($0.toolName)(\($0.arguments.jsonString))" }.joined()
            case .toolOutput(let e):
                return "(Tool output) \(e.toolName): " + Segment.text(of: e.segments)
            case .response(let e):
                return "(Response) " + Segment.text(of: e.segments)
            case .reasoning(let e):
                return "(Reasoning) " + Segment.text(of: e.segments)
            }
        }
    }

    public enum Segment: Sendable, Hashable, Identifiable {
        case text(TextSegment)
        case structure(StructuredSegment)

        public var id: String {
            switch self {
            case .text(let s): s.id
            case .structure(let s): s.id
            }
        }

        /// Text as is; structures as compact JSON.
        public var text: String {
            switch self {
            case .text(let s): s.content
            case .structure(let s): s.content.jsonString
            }
        }

        public static func text(of segments: [Segment]) -> String {
            segments.map(\.text).joined(separator: "\n")
        }
    }

    public struct TextSegment: Sendable, Hashable {
        public var id: String
        public var content: String
        public init(id: String = "", content: String) { self.id = id; self.content = content }
    }

    public struct StructuredSegment: Sendable, Hashable {
        public var id: String
        /// The name of the Generable type that produced the content.
        public var source: String
        public var content: GeneratedContent
        public init(id: String = "", source: String, content: GeneratedContent) {
            self.id = id; self.source = source; self.content = content
        }
    }

    public struct ToolDefinition: Sendable, Hashable {
        public var name: String
        public var description: String
        /// The schema of the tool's arguments.
        public var parameters: GenerationSchema
        public init(name: String, description: String, parameters: GenerationSchema) {
            self.name = name; self.description = description; self.parameters = parameters
        }
    }

    public struct Instructions: Sendable, Hashable {
        public var id: String
        public var segments: [Segment]
        public var toolDefinitions: [ToolDefinition]
        public init(id: String = "", segments: [Segment], toolDefinitions: [ToolDefinition] = []) {
            self.id = id; self.segments = segments; self.toolDefinitions = toolDefinitions
        }
    }

    public struct ResponseFormat: Sendable, Hashable {
        /// The Generable type's name (the schema root's definition name, or a JSON type name).
        public var name: String
        public var schema: GenerationSchema
        public init(name: String, schema: GenerationSchema) { self.name = name; self.schema = schema }
    }

    public struct Prompt: Sendable, Hashable {
        public var id: String
        public var segments: [Segment]
        public var options: GenerationOptions
        public var responseFormat: ResponseFormat?
        /// 27: the context options the prompt was sent with.
        public var contextOptions: ContextOptions
        /// 27: what the caller passed as `metadata:` (for the model's executor).
        public var metadata: [String: GeneratedContent]
        public init(id: String = "", segments: [Segment], options: GenerationOptions = GenerationOptions(),
                    responseFormat: ResponseFormat? = nil, contextOptions: ContextOptions = ContextOptions(),
                    metadata: [String: GeneratedContent] = [:]) {
            self.id = id; self.segments = segments; self.options = options; self.responseFormat = responseFormat
            self.contextOptions = contextOptions; self.metadata = metadata
        }
    }

    public struct ToolCall: Sendable, Hashable, Identifiable {
        public var id: String
        public var toolName: String
        public var arguments: GeneratedContent
        /// 27: metadata the model produced with the call (fmplay's models produce none).
        public var metadata: [String: GeneratedContent]
        public init(id: String = "", toolName: String, arguments: GeneratedContent, metadata: [String: GeneratedContent] = [:]) {
            self.id = id; self.toolName = toolName; self.arguments = arguments; self.metadata = metadata
        }
    }

    public struct ToolCalls: Sendable, Hashable, RandomAccessCollection {
        public var id: String
        public var calls: [ToolCall]
        public init(id: String = "", _ calls: [ToolCall]) { self.id = id; self.calls = calls }
        public var startIndex: Int { calls.startIndex }
        public var endIndex: Int { calls.endIndex }
        public subscript(position: Int) -> ToolCall { calls[position] }
    }

    public struct ToolOutput: Sendable, Hashable {
        /// Matches the id of the `ToolCall` it answers.
        public var id: String
        public var toolName: String
        public var segments: [Segment]
        public init(id: String = "", toolName: String, segments: [Segment]) {
            self.id = id; self.toolName = toolName; self.segments = segments
        }
    }

    public struct Response: Sendable, Hashable {
        public var id: String
        public var assetIDs: [String]
        public var segments: [Segment]
        /// 27: metadata the model produced with the response (fmplay's models produce none).
        public var metadata: [String: GeneratedContent]
        public init(id: String = "", assetIDs: [String] = [], segments: [Segment], metadata: [String: GeneratedContent] = [:]) {
            self.id = id; self.assetIDs = assetIDs; self.segments = segments; self.metadata = metadata
        }
    }

    /// `Transcript.Reasoning` (27): reasoning text the model produced before answering.
    public struct Reasoning: Sendable, Hashable {
        public var id: String
        public var segments: [Segment]
        public var metadata: [String: GeneratedContent]
        /// An opaque signature from the producer (fmplay's models produce none).
        public var signature: [UInt8]?
        public init(id: String = "", segments: [Segment], metadata: [String: GeneratedContent] = [:], signature: [UInt8]? = nil) {
            self.id = id; self.segments = segments; self.metadata = metadata; self.signature = signature
        }
    }

    /// 27's `transcript.history`: the entries after a leading instructions
    /// entry (later instructions entries stay).
    public var history: [Entry] {
        get {
            if case .instructions? = entries.first { return Array(entries.dropFirst()) }
            return entries
        }
        set {
            if case .instructions(let first)? = entries.first { entries = [.instructions(first)] + newValue } else { entries = newValue }
        }
    }

    /// The next free sequential id after the numeric ids in use.
    var nextSequentialID: Int {
        (entries.compactMap { Int($0.id) }.max() ?? 0) + 1
    }

    /// One entry per line block, as `print(session.transcript)` shows it.
    public var description: String {
        entries.map(\.description).joined(separator: "\n")
    }
}
