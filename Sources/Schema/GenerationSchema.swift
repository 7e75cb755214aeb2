/// The typed schema of a Generable type: the contract between the prompt-file
/// front end (which builds it from `@Generable` declarations), guided
/// generation (which compiles it to a grammar) and the runtime (which parses
/// and renders generated content). Its JSON Schema rendering is what
/// `fmplay schema` prints.
///
/// Invariants:
/// - Object properties are kept in declaration order; generation follows it.
/// - Named types live in `definitions` and are referenced by name, so
///   recursive types are finite values.
/// - Every guide is kept, even one a consumer cannot enforce; consumers
///   report what they cannot enforce instead of dropping it.
public struct GenerationSchema: Sendable, Hashable {
    /// The root type.
    public var root: SchemaType
    /// Named Generable types reachable from the root, in first-use order.
    public var definitions: [Definition]

    public init(root: SchemaType, definitions: [Definition] = []) {
        self.root = root
        self.definitions = definitions
    }

    /// The definition with this name, if any.
    public func definition(named name: String) -> Definition? {
        definitions.first { $0.name == name }
    }
}

/// A named Generable type: a struct (object) or an enum.
public struct Definition: Sendable, Hashable {
    public var name: String
    public var description: String?
    public var kind: Kind
    /// DynamicGenerationSchema's `representNilExplicitlyInGeneratedContent`: an absent optional property of
    /// this object appears in the generated content as null.
    public var representsNilExplicitly = false

    public enum Kind: Sendable, Hashable {
        /// A struct: properties in declaration order.
        case object([Property])
        /// An enum. A case without associated values generates as its name,
        /// a JSON string. A case with associated values generates as an object
        /// with one key, the case name, whose value is an object of the
        /// associated values: `{"flight": {"number": "UA1", "seats": 2}}`.
        case enumeration([EnumCase])
    }

    public init(name: String, description: String? = nil, kind: Kind) {
        self.name = name
        self.description = description
        self.kind = kind
    }
}

public struct Property: Sendable, Hashable {
    public var name: String
    public var description: String?
    public var type: SchemaType
    /// Declared as `T?`: the property may be omitted (or null).
    public var isOptional: Bool

    public init(name: String, description: String? = nil, type: SchemaType, isOptional: Bool = false) {
        self.name = name
        self.description = description
        self.type = type
        self.isOptional = isOptional
    }
}

public struct EnumCase: Sendable, Hashable {
    public var name: String
    public var description: String?
    /// Associated values, as properties (unlabelled ones are named `_0`, `_1`, ...).
    public var associatedValues: [Property]

    public init(name: String, description: String? = nil, associatedValues: [Property] = []) {
        self.name = name
        self.description = description
        self.associatedValues = associatedValues
    }
}

/// A type in a schema, with the guides that constrain it.
public indirect enum SchemaType: Sendable, Hashable {
    case string(StringGuides)
    /// Int and the sized integers.
    case integer(NumberGuides)
    /// Double, Float, Decimal.
    case number(NumberGuides)
    case boolean
    case array(element: SchemaType, guides: ArrayGuides)
    /// A reference to a named definition in `GenerationSchema.definitions`.
    case reference(String)
    /// `GeneratedContent`: any JSON value.
    case any
}

public struct StringGuides: Sendable, Hashable {
    /// `.anyOf([...])`: the value is one of these.
    public var anyOf: [String]?
    /// `.constant(...)`: the value is exactly this.
    public var constant: String?
    /// `.pattern(...)`: the regex source, in the documented subset.
    public var pattern: String?

    public init(anyOf: [String]? = nil, constant: String? = nil, pattern: String? = nil) {
        self.anyOf = anyOf
        self.constant = constant
        self.pattern = pattern
    }

    public static let none = StringGuides()
}

public struct NumberGuides: Sendable, Hashable {
    /// Inclusive bounds from `.minimum`, `.maximum` or `.range`.
    public var minimum: Double?
    public var maximum: Double?

    public init(minimum: Double? = nil, maximum: Double? = nil) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public static let none = NumberGuides()
}

public struct ArrayGuides: Sendable, Hashable {
    /// Inclusive bounds from `.count`, `.minimumCount`, `.maximumCount`.
    public var minimumCount: Int?
    public var maximumCount: Int?

    public init(minimumCount: Int? = nil, maximumCount: Int? = nil) {
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
    }

    public static let none = ArrayGuides()
}
