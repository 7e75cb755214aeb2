import Schema

/// A type the model can generate. Prompt files declare Generable types that
/// the evaluator handles dynamically as `GeneratedContent` with a schema;
/// Swift code (tests) may conform its own types.
public protocol Generable: Sendable {
    associatedtype PartiallyGenerated: Sendable = Self
    static var generationSchema: GenerationSchema { get }
    init(_ content: GeneratedContent) throws
    var generatedContent: GeneratedContent { get }
    /// The snapshot value for content still being generated.
    static func partiallyGenerated(from content: GeneratedContent) throws -> PartiallyGenerated
}

extension Generable where PartiallyGenerated == Self {
    public static func partiallyGenerated(from content: GeneratedContent) throws -> Self { try Self(content) }
}

extension String: Generable {
    public static var generationSchema: GenerationSchema { GenerationSchema(root: .string(.none)) }
    public init(_ content: GeneratedContent) throws {
        switch content.kind {
        case .string(let s): self = s
        default: self = content.jsonString
        }
    }
    public var generatedContent: GeneratedContent { GeneratedContent(self) }
}

extension GeneratedContent: Generable {
    /// Any JSON value.
    public static var generationSchema: GenerationSchema { GenerationSchema(root: .any) }
    public init(_ content: GeneratedContent) throws { self = content }
    public var generatedContent: GeneratedContent { self }
}

extension GenerationSchema {
    /// The name the transcript records for this schema: the root definition's
    /// name, or the JSON type of an unnamed root.
    public var typeName: String {
        switch root {
        case .reference(let name): name
        case .string: "String"
        case .integer: "Int"
        case .number: "Double"
        case .boolean: "Bool"
        case .array(let element, _): "[\(GenerationSchema(root: element, definitions: definitions).typeName)]"
        case .any: "GeneratedContent"
        }
    }
}
