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
    /// A tool without a `name`, or with an empty one.
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

    public var defaultSeverity: Severity {
        switch self {
        case .summaryPropertyNotLast: .info
        case .toolNameMissing, .legacyToolOutput, .interpolatedInstructions, .generationOptionOutOfRange: .warning
        default: .error
        }
    }

    /// A short kebab-case name, used as the SARIF rule name.
    public var name: String {
        switch self {
        case .syntaxError: "syntax-error"
        case .unreadableFile: "unreadable-file"
        case .nestingTooDeep: "nesting-too-deep"
        case .unsupportedPropertyType: "unsupported-property-type"
        case .referencedTypeNotGenerable: "referenced-type-not-generable"
        case .generableOnUnsupportedDeclaration: "generable-on-unsupported-declaration"
        case .enumWithoutCases: "enum-without-cases"
        case .guideOnWrongType: "guide-on-wrong-type"
        case .contradictoryBounds: "contradictory-bounds"
        case .contradictoryCounts: "contradictory-counts"
        case .negativeCount: "negative-count"
        case .emptyAnyOf: "empty-any-of"
        case .duplicateAnyOfValue: "duplicate-any-of-value"
        case .invalidPattern: "invalid-pattern"
        case .constantBreaksPattern: "constant-breaks-pattern"
        case .infiniteRecursiveType: "infinite-recursive-type"
        case .duplicateMember: "duplicate-member"
        case .summaryPropertyNotLast: "summary-property-not-last"
        case .unrecognizedGuide: "unrecognized-guide"
        case .missingTypeAnnotation: "missing-type-annotation"
        case .toolNameMissing: "tool-name-missing"
        case .toolDescriptionMissing: "tool-description-missing"
        case .invalidToolName: "invalid-tool-name"
        case .duplicateToolName: "duplicate-tool-name"
        case .toolArgumentsNotGenerable: "tool-arguments-not-generable"
        case .toolCallSignature: "tool-call-signature"
        case .legacyToolOutput: "legacy-tool-output"
        case .notATool: "not-a-tool"
        case .generatingNotGenerable: "generating-not-generable"
        case .interpolatedInstructions: "interpolated-instructions"
        case .unknownUseCase: "unknown-use-case"
        case .reasoningOnDeviceModel: "reasoning-on-device-model"
        case .unsupportedSwift: "unsupported-swift"
        case .statementOutsidePlayground: "statement-outside-playground"
        case .generationOptionOutOfRange: "generation-option-out-of-range"
        case .unsupportedDynamicSchema: "unsupported-dynamic-schema"
        case .unknownMember: "unknown-member"
        case .unknownImport: "unknown-import"
        }
    }

    /// One line describing the rule, for SARIF and documentation.
    public var summary: String {
        switch self {
        case .syntaxError: "The file must parse as Swift."
        case .unreadableFile: "The file must be a readable UTF-8 text file of reasonable size."
        case .nestingTooDeep: "Brackets and blocks may not nest deeper than the parser's limit."
        case .unsupportedPropertyType: "Generable properties must have generable types."
        case .referencedTypeNotGenerable: "Types used by Generable types must be @Generable."
        case .generableOnUnsupportedDeclaration: "@Generable applies to structs and enums only."
        case .enumWithoutCases: "A @Generable enum needs at least one case."
        case .guideOnWrongType: "Each guide constrains one kind of property type."
        case .contradictoryBounds: "A minimum may not exceed its maximum."
        case .contradictoryCounts: "Array count guides must admit some length."
        case .negativeCount: "Counts may not be negative."
        case .emptyAnyOf: ".anyOf needs at least one value."
        case .duplicateAnyOfValue: ".anyOf values must be distinct."
        case .invalidPattern: "Patterns must be valid regular expressions."
        case .constantBreaksPattern: "A constant or choice must match the property's pattern."
        case .infiniteRecursiveType: "Recursive types need a base case."
        case .duplicateMember: "Property and case names must be unique within a type."
        case .summaryPropertyNotLast: "Summaries generate best after what they summarise."
        case .unrecognizedGuide: "Guides must be known guides with literal arguments."
        case .missingTypeAnnotation: "Generable properties need an explicit type."
        case .toolNameMissing: "Tools need a non-empty name."
        case .toolDescriptionMissing: "Tools need a non-empty description."
        case .invalidToolName: "Tool names must match ^[A-Za-z0-9_-]{1,64}$."
        case .duplicateToolName: "Tool names must be unique within a session."
        case .toolArgumentsNotGenerable: "Tool Arguments must be a @Generable type."
        case .toolCallSignature: "Tools need func call(arguments: Arguments) async throws -> Output."
        case .legacyToolOutput: "ToolOutput is the beta form; return a PromptRepresentable value."
        case .notATool: "tools: takes Tool values."
        case .generatingNotGenerable: "generating: takes a @Generable type."
        case .interpolatedInstructions: "Instructions should be static text."
        case .unknownUseCase: "SystemLanguageModel.UseCase is .general or .contentTagging."
        case .reasoningOnDeviceModel: "The on-device model does not support reasoning."
        case .unsupportedSwift: "Prompt files support a subset of Swift."
        case .statementOutsidePlayground: "Statements run only inside #Playground blocks."
        case .generationOptionOutOfRange: "GenerationOptions values must be in their documented ranges."
        case .unsupportedDynamicSchema: "This DynamicGenerationSchema form cannot be generated by fmplay."
        case .unknownMember: "Members, argument labels and cases must exist in the supported API."
        case .unknownImport: "Prompt files import only the modules fmplay knows."
        }
    }
}
