import Schema
import SwiftSyntax

/// The semantic model of one prompt file: what it declares and where. Built
/// from the syntax tree by `PromptAnalyzer`; independent of any editor
/// protocol. Every element keeps its exact source range.
///
/// Invariant: building the model never fails. Half-typed code yields a
/// partial model plus diagnostics.
public struct PromptFile: Sendable {
    public var source: SourceText
    /// The parsed tree, for consumers that interpret code (the evaluator).
    public var syntax: SourceFileSyntax
    public var imports: [ImportDeclaration]
    /// Every struct, enum, class, actor and protocol, nested ones included,
    /// in source order (outer before inner).
    public var types: [TypeDeclaration] {
        didSet { typeIndex = Self.index(types) }
    }
    /// Qualified name -> position in `types` (the first declaration wins, as with a linear search).
    private var typeIndex: [String: Int]
    /// Top-level `let`/`var` declarations.
    public var constants: [ConstantDeclaration]
    /// `#Playground` blocks in source order.
    public var playgrounds: [PlaygroundBlock]
    /// The JSON-Schema-ready schema of each Generable type, by qualified name.
    /// Types whose declarations have errors still get a best-effort schema.
    public var schemas: [String: GenerationSchema]

    public init(
        source: SourceText, syntax: SourceFileSyntax, imports: [ImportDeclaration], types: [TypeDeclaration],
        constants: [ConstantDeclaration], playgrounds: [PlaygroundBlock], schemas: [String: GenerationSchema]
    ) {
        self.source = source
        self.syntax = syntax
        self.imports = imports
        self.types = types
        self.typeIndex = Self.index(types)
        self.constants = constants
        self.playgrounds = playgrounds
        self.schemas = schemas
    }

    private static func index(_ types: [TypeDeclaration]) -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(types.count)
        for (position, type) in types.enumerated() where index[type.qualifiedName] == nil {
            index[type.qualifiedName] = position
        }
        return index
    }

    /// The type with this qualified name (`Outer.Inner`).
    public func type(named qualifiedName: String) -> TypeDeclaration? {
        typeIndex[qualifiedName].map { types[$0] }
    }

    /// Resolves a type name as written inside `scope` (a qualified type name,
    /// or nil at top level): innermost enclosing scope first, like Swift.
    public func resolveType(_ name: String, in scope: String?) -> TypeDeclaration? {
        var scope = scope
        while let current = scope {
            if let found = type(named: current + "." + name) { return found }
            scope = current.lastIndex(of: ".").map { String(current[..<$0]) }
        }
        return type(named: name)
    }

    public var generableTypes: [TypeDeclaration] { types.filter(\.isGenerable) }
    public var tools: [TypeDeclaration] { types.filter { $0.tool != nil } }
}

public struct ImportDeclaration: Sendable, Hashable {
    public var module: String
    public var range: SourceRange
}

public enum TypeDeclarationKind: String, Sendable, Hashable {
    case `struct`, `enum`, `class`, `actor`, `protocol`
}

/// A nominal type declaration.
public struct TypeDeclaration: Sendable, Hashable {
    public var name: String
    /// `Outer.Inner` for nested types.
    public var qualifiedName: String
    /// The qualified name of the enclosing type, if nested.
    public var parent: String?
    public var kind: TypeDeclarationKind
    public var range: SourceRange
    public var nameRange: SourceRange
    /// Names in the inheritance clause, as written (`Tool`, `String`, `CaseIterable`).
    public var inheritedTypes: [String]
    /// `@Generable` (any form).
    public var isGenerable: Bool
    public var generableAttribute: GenerableAttribute?
    /// Stored properties in declaration order (computed and static ones excluded; in a
    /// @Generable type, the generated ones: those with a starting value are in `otherProperties`).
    public var properties: [PropertyDeclaration]
    /// Computed and static properties, e.g. a tool's `var name: String { ... }`, and a @Generable
    /// type's stored properties with a starting value.
    public var otherProperties: [PropertyDeclaration]
    /// Enum cases in declaration order (one per element of `case a, b`).
    public var cases: [EnumCaseDeclaration]
    public var methods: [FunctionDeclaration]
    /// Qualified names of directly nested types.
    public var nestedTypes: [String]
    /// Set when the type conforms to `Tool`.
    public var tool: ToolDeclaration?
}

public struct GenerableAttribute: Sendable, Hashable {
    public var range: SourceRange
    public var description: String?
    /// `@Generable(name:)` (27): the schema name used in place of the type name.
    public var schemaName: String?
    /// `@Generable(representNilExplicitlyInGeneratedContent: true)` (26.4): a nil optional property is written
    /// into `generatedContent` as null; by default it is left out.
    public var representsNilExplicitly = false
}

/// A stored property (or, in `TypeDeclaration.otherProperties`, a computed or static one, or a
/// stored one with a starting value in a @Generable type: left out of the schema).
public struct PropertyDeclaration: Sendable, Hashable {
    public var name: String
    public var nameRange: SourceRange
    /// The whole declaration including attributes.
    public var range: SourceRange
    public var isLet: Bool
    public var isStatic: Bool
    public var isComputed: Bool
    /// The type annotation, if written.
    public var type: TypeReference?
    /// The initial value or computed body's single returned expression, when it is a literal.
    public var literalValue: LiteralValue?
    public var initializerRange: SourceRange?
    /// `@Guide` attributes in order (stacked attributes are all kept).
    public var guideAttributes: [GuideAttribute]

    /// The description from the first `@Guide(description:)`.
    public var guideDescription: String? { guideAttributes.lazy.compactMap(\.description).first }
    /// Every guide of every `@Guide` attribute, in order.
    public var guides: [Guide] { guideAttributes.flatMap(\.guides) }
}

/// A type as written in source.
public struct TypeReference: Sendable, Hashable, CustomStringConvertible {
    public indirect enum Shape: Sendable, Hashable {
        /// `Name` or `Outer.Inner`, with generic arguments kept in `genericArguments`.
        case named(String, genericArguments: [TypeReference])
        case optional(TypeReference)
        case array(TypeReference)
        case dictionary(key: TypeReference, value: TypeReference)
        case tuple([TypeReference])
        case function
        /// Anything else (`some P`, `any P`, compositions, metatypes, missing types).
        case other
    }

    public var shape: Shape
    public var text: String
    public var range: SourceRange

    public var description: String { text }

    /// `T?` or `Optional<T>` unwrapped once; otherwise self.
    public var unwrappedOptional: TypeReference {
        if case .optional(let wrapped) = shape { return wrapped }
        return self
    }

    public var isOptional: Bool {
        if case .optional = shape { return true }
        return false
    }
}

/// A literal value the analyser could read statically.
public indirect enum LiteralValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case double(Double)
    case boolean(Bool)
    case null
    case array([LiteralValue])

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}

/// One `@Guide(...)` attribute.
public struct GuideAttribute: Sendable, Hashable {
    public var range: SourceRange
    public var description: String?
    public var descriptionRange: SourceRange?
    public var guides: [Guide]
}

/// One guide inside `@Guide`, such as `.range(1...10)` or a regex.
public struct Guide: Sendable, Hashable {
    public indirect enum Kind: Sendable, Hashable {
        case anyOf([String])
        case constant(String)
        /// A regex: literal `/.../`, `Regex { ... }` builder (converted) or a string pattern.
        case pattern(String)
        case minimum(Double)
        case maximum(Double)
        case range(Double, Double)
        case count(Int)
        case countRange(Int, Int)
        case minimumCount(Int)
        case maximumCount(Int)
        case element(Guide)
        /// A guide the analyser could not read (reported as FM116).
        case unrecognized(String)
    }

    public var kind: Kind
    public var range: SourceRange

    /// The guide's name as written (`range`, `count`, `pattern`...).
    public var name: String {
        switch kind {
        case .anyOf: "anyOf"
        case .constant: "constant"
        case .pattern: "pattern"
        case .minimum: "minimum"
        case .maximum: "maximum"
        case .range: "range"
        case .count, .countRange: "count"
        case .minimumCount: "minimumCount"
        case .maximumCount: "maximumCount"
        case .element: "element"
        case .unrecognized(let text): text
        }
    }
}

public struct EnumCaseDeclaration: Sendable, Hashable {
    public var name: String
    public var nameRange: SourceRange
    public var range: SourceRange
    /// Associated values; unlabelled ones get the label nil.
    public var associatedValues: [AssociatedValue]
    /// From a `@Guide(description:)` on the case declaration, if any.
    public var guideAttributes: [GuideAttribute]
    public var rawValue: LiteralValue?

    public struct AssociatedValue: Sendable, Hashable {
        public var label: String?
        public var type: TypeReference
    }
}

public struct FunctionDeclaration: Sendable, Hashable {
    public var name: String
    /// Argument labels as Swift spells the function: `call(arguments:)`.
    public var signatureName: String
    public var range: SourceRange
    public var nameRange: SourceRange
    public var parameters: [Parameter]
    public var returnType: TypeReference?
    public var isAsync: Bool
    public var isThrowing: Bool
    public var bodyRange: SourceRange?

    public struct Parameter: Sendable, Hashable {
        /// The argument label (`_` as nil).
        public var label: String?
        public var name: String
        public var type: TypeReference?
    }
}

/// What makes a type a tool.
public struct ToolDeclaration: Sendable, Hashable {
    /// The `name` value when it is a literal, and where it is declared.
    public var name: String?
    public var nameDeclarationRange: SourceRange?
    public var description: String?
    public var descriptionDeclarationRange: SourceRange?
    /// The qualified name of the `Arguments` type, when declared in the file.
    public var argumentsType: String?
    /// `call(arguments:)`, when declared.
    public var call: FunctionDeclaration?
    /// The `call` return type uses the beta `ToolOutput`.
    public var returnsLegacyToolOutput: Bool

    /// The name the model sees: the declared name or, by the framework's
    /// default, the type name.
    public func effectiveName(typeName: String) -> String { name ?? typeName }
}

/// A top-level `let` or `var`.
public struct ConstantDeclaration: Sendable, Hashable {
    public var name: String
    public var nameRange: SourceRange
    public var range: SourceRange
    public var isLet: Bool
    public var type: TypeReference?
    public var literalValue: LiteralValue?
    public var initializerRange: SourceRange?
}

/// A `#Playground { ... }` or `#Playground("name") { ... }` block.
public struct PlaygroundBlock: Sendable, Hashable {
    /// 0-based position among the file's blocks.
    public var index: Int
    public var name: String?
    public var range: SourceRange
    /// The braces' contents.
    public var bodyRange: SourceRange
    /// The statements of the body, for the evaluator.
    public var body: CodeBlockItemListSyntax
    public var sessions: [SessionCreation]
    public var calls: [ModelCall]
    /// For a `@Test` function: the evaluation its `.evaluates(...)` trait runs before the body
    /// (the trait's first argument), nil for `#Playground` blocks and plain tests.
    public var evaluatesArgument: ExprSyntax? = nil
    /// Whether the block is a `@Test` function (run like a `#Playground` block).
    public var isTest: Bool = false
    /// For a `@Test` instance method of a struct, class or actor: that type's qualified name; the block runs
    /// as the method of a new `Suite()` (Swift Testing makes one instance per test), so `self` and `Self.x` work.
    public var testSuite: String? = nil

    /// A stable label: the name, or `#Playground N` (1-based).
    public var displayName: String { name ?? "#Playground \(index + 1)" }
}

/// A `LanguageModelSession(...)` expression.
public struct SessionCreation: Sendable, Hashable {
    public var range: SourceRange
    /// The variable it is bound to (`let session = LanguageModelSession()`).
    public var variableName: String?
    public var tools: [ToolReference]
    public var instructions: InstructionsArgument?
    public var model: ModelReference?
}

/// An element of a session's `tools:` array.
public struct ToolReference: Sendable, Hashable {
    public var range: SourceRange
    /// The type name when written `TypeName()` or `TypeName(...)` (or `TypeName.self`).
    public var typeName: String?
    public var text: String
}

public struct InstructionsArgument: Sendable, Hashable {
    public enum Form: Sendable, Hashable {
        /// A string literal (possibly multi-line).
        case literal
        /// An `Instructions { ... }` builder or trailing `instructions:` closure.
        case builder
        /// Any other expression (a variable, a call).
        case expression
    }
    public var range: SourceRange
    public var form: Form
    /// The text when it is a literal without interpolation.
    public var staticText: String?
}

/// The `model:` argument of a session.
public struct ModelReference: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `SystemLanguageModel.default`, `.default`, `SystemLanguageModel()`, `SystemLanguageModel(useCase:)`.
        case system(useCase: String?)
        /// `PrivateCloudComputeLanguageModel()`: the configured server model.
        case privateCloudCompute
        /// A variable or other expression.
        case expression
    }
    public var kind: Kind
    public var range: SourceRange
    public var text: String
}

/// A `respond(...)` or `streamResponse(...)` call.
public struct ModelCall: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable {
        case respond, streamResponse
    }
    public var method: Method
    /// The whole call expression.
    public var range: SourceRange
    /// The callee's method-name token range.
    public var nameRange: SourceRange
    /// The receiver as written (`session`).
    public var receiver: String?
    /// `generating: T.self`: the type name, and where it is written.
    public var generatingType: String?
    public var generatingRange: SourceRange?
    /// `schema:` was passed (dynamic schema).
    public var usesSchemaArgument: Bool
    public var hasOptions: Bool
    /// The trailing prompt builder closure form.
    public var usesPromptBuilder: Bool
}
