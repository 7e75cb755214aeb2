/// The catalogue of diagnostic codes. Codes are stable: a code is never
/// reused for a different problem. FM0xx: the file itself; FM1xx: Generable
/// schemas and guides; FM2xx: tools; FM3xx: sessions, model calls and the
/// Swift subset prompt files support.
public enum DiagnosticCode: String, Sendable, Hashable, CaseIterable {
    // MARK: FM0xx, the file
    /// Swift that does not parse.
    case syntaxError = "FM001"
    /// The file cannot be read as a prompt file (I/O, encoding, size, binary).
    case unreadableFile = "FM002"
    /// Nesting deeper than the parser's limit.
    case nestingTooDeep = "FM003"

    // MARK: FM1xx, schemas and guides
    /// A property type that cannot be generated (Date, URL, dictionaries, tuples, unknown types...).
    case unsupportedPropertyType = "FM101"
    /// A Generable type refers to a type that is declared in the file but not `@Generable`.
    case referencedTypeNotGenerable = "FM102"
    /// `@Generable` on a class, actor, protocol or extension.
    case generableOnUnsupportedDeclaration = "FM103"
    /// A `@Generable` enum with no cases.
    case enumWithoutCases = "FM104"
    /// A guide applied to a property type it does not constrain.
    case guideOnWrongType = "FM105"
    /// A minimum above its maximum.
    case contradictoryBounds = "FM106"
    /// Array count guides that no array can satisfy together.
    case contradictoryCounts = "FM107"
    /// A negative count.
    case negativeCount = "FM108"
    /// `.anyOf([])`.
    case emptyAnyOf = "FM109"
    /// The same value twice in `.anyOf`.
    case duplicateAnyOfValue = "FM110"
    /// A pattern that is not a valid regular expression.
    case invalidPattern = "FM111"
    /// A `.constant` (or `.anyOf` value) that its own `.pattern` rejects.
    case constantBreaksPattern = "FM112"
    /// A recursive type with no base case: it could only be generated forever.
    case infiniteRecursiveType = "FM113"
    /// Two properties or two enum cases with the same name.
    case duplicateMember = "FM114"
    /// A summarising property declared before what it summarises.
    case summaryPropertyNotLast = "FM115"
    /// A `@Guide` the analyser cannot read: unknown guide or non-literal argument.
    case unrecognizedGuide = "FM116"
    /// A stored property of a Generable type without a type annotation.
    case missingTypeAnnotation = "FM117"

    // MARK: FM2xx, tools
    /// A tool whose `name` is empty (a tool without one is named after its type, as Apple documents).
    case toolNameMissing = "FM201"
    /// A tool without a `description`, or with an empty one.
    case toolDescriptionMissing = "FM202"
    /// A tool name model APIs reject (outside `^[A-Za-z0-9_-]{1,64}$`).
    case invalidToolName = "FM203"
    /// Two tools with the same name in one session.
    case duplicateToolName = "FM204"
    /// Tool `Arguments` missing or not `@Generable`.
    case toolArgumentsNotGenerable = "FM205"
    /// `call(arguments:)` missing or with the wrong shape.
    case toolCallSignature = "FM206"
    /// The beta `-> ToolOutput` form.
    case legacyToolOutput = "FM207"

    // MARK: FM3xx, sessions, calls and supported Swift
    /// `tools:` names something that is not a Tool.
    case notATool = "FM301"
    /// `generating:` names a type that is not Generable.
    case generatingNotGenerable = "FM302"
    /// Instructions built by interpolating a runtime value.
    case interpolatedInstructions = "FM303"
    /// An unknown `SystemLanguageModel.UseCase`.
    case unknownUseCase = "FM304"
    /// A reasoning level requested from the on-device model.
    case reasoningOnDeviceModel = "FM305"
    /// Swift that prompt files do not support.
    case unsupportedSwift = "FM306"
    /// A statement outside `#Playground` blocks that only runs inside one.
    case statementOutsidePlayground = "FM307"
    /// A `GenerationOptions` value out of its documented range.
    case generationOptionOutOfRange = "FM308"
    /// A `DynamicGenerationSchema` form fmplay cannot generate (`.null`, an
    /// `anyOf:` member that is not an object schema).
    case unsupportedDynamicSchema = "FM309"
    /// A member, argument label or case that the type does not have in the surface table.
    case unknownMember = "FM310"
    /// An `import` of a module prompt files do not know.
    case unknownImport = "FM311"
    /// An async or throwing call (`respond`, `collect`, `run`, `tokenCount`) without `try await`, which Swift requires.
    case missingTryAwait = "FM312"
    /// A form of Apple's Evaluations framework (or a `@Test` trait) that fmplay does not implement.
    case unsupportedEvaluations = "FM313"
    /// A FoundationModels 27.0 (or FoundationModelsUtilities) API fmplay knows but does not implement.
    case unimplementedAPI = "FM314"
    /// A statement a FoundationModels 27.0 result builder cannot hold (`for` in dynamic instructions, two profiles in one body).
    case dynamicBuilder = "FM315"
    /// A name fmplay accepts that Apple's FoundationModels does not have (code that would not compile with Apple's SDK).
    case notInAppleAPI = "FM316"

    public var defaultSeverity: Severity { DiagnosticCatalogue.entry(self).severity }

    /// A short kebab-case name, used as the SARIF rule name.
    public var name: String { DiagnosticCatalogue.entry(self).name }

    /// One line describing the rule, for SARIF and documentation.
    public var summary: String { DiagnosticCatalogue.entry(self).summary }

    /// What the rule protects against and how to fix it (`fmplay explain`, hover).
    public var explanation: String { DiagnosticCatalogue.entry(self).explanation }
}
