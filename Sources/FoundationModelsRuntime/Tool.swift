import Schema

/// A tool the model may call. In prompt files a `Tool` struct's body is
/// interpreted by the evaluator, which wraps it as a `Tool` value here.
public protocol Tool: Sendable {
    var name: String { get }
    var description: String { get }
    /// The schema of `Arguments`.
    var parameters: GenerationSchema { get }
    /// Whether the definition is written into the instructions (default true).
    var includesSchemaInInstructions: Bool { get }
    /// Runs the tool. A string result becomes a text segment, anything else a
    /// structured segment of the tool output.
    func call(arguments: GeneratedContent) async throws -> GeneratedContent
}

extension Tool {
    public var includesSchemaInInstructions: Bool { true }
    public var definition: Transcript.ToolDefinition {
        Transcript.ToolDefinition(name: name, description: description, parameters: parameters)
    }
}

/// A tool made from a closure (how the evaluator supplies prompt-file tools).
public struct ClosureTool: Tool {
    public let name: String
    public let description: String
    public let parameters: GenerationSchema
    public let includesSchemaInInstructions: Bool
    /// What the tool was made from (the prompt file's tool value), for `ToolCallError.tool`.
    public let source: (any Sendable)?
    private let body: @Sendable (GeneratedContent) async throws -> GeneratedContent

    public init(name: String, description: String, parameters: GenerationSchema, includesSchemaInInstructions: Bool = true,
                source: (any Sendable)? = nil,
                call body: @escaping @Sendable (GeneratedContent) async throws -> GeneratedContent) {
        self.source = source
        self.name = name
        self.description = description
        self.parameters = parameters
        self.includesSchemaInInstructions = includesSchemaInInstructions
        self.body = body
    }

    public func call(arguments: GeneratedContent) async throws -> GeneratedContent {
        try await body(arguments)
    }
}
