import FoundationModelsRuntime
import PlaygroundResults
import PromptLanguage
import Schema
import SwiftOperators
import SwiftSyntax

/// How blocks are evaluated: the model behind `SystemLanguageModel.default`,
/// the default seed and the option overrides the CLI or editor gives.
public struct EvaluationConfiguration: Sendable {
    /// The backend of `SystemLanguageModel.default`; nil reads as `.unavailable(.modelNotReady)`.
    public var model: (any LanguageModel)?
    /// `PrivateCloudComputeLanguageModel()` (its backend nil when no server is configured).
    public var serverModel: PrivateCloudComputeLanguageModel
    /// The seed used unless the file's `GenerationOptions` give one.
    public var seed: UInt64
    /// Defaults for options the file does not set.
    public var temperature: Double?
    public var maximumResponseTokens: Int?
    /// Seconds a block may run before it is cancelled (nil: no limit).
    public var timeout: Double?
    /// Where results are cached (nil: no caching).
    public var cache: ResultCache?
    /// Memory, output and nesting limits per block (see `EvaluationLimits`).
    public var limits: EvaluationLimits = .default

    public init(model: (any LanguageModel)?, serverModel: PrivateCloudComputeLanguageModel = .init(backend: nil), seed: UInt64 = GenerationOptions.defaultSeed,
                temperature: Double? = nil, maximumResponseTokens: Int? = nil, timeout: Double? = nil, cache: ResultCache? = nil) {
        self.model = model
        self.serverModel = serverModel
        self.seed = seed
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
        self.timeout = timeout
        self.cache = cache
    }

    /// The file's options with the configured defaults filled in.
    func effectiveOptions(_ options: GenerationOptions) -> GenerationOptions {
        var options = options
        if options.temperature == nil { options.temperature = temperature }
        if options.maximumResponseTokens == nil { options.maximumResponseTokens = maximumResponseTokens }
        return options
    }

    /// What besides the source decides a block's results (for cache keys).
    package var identity: String {
        "model=\(model?.identity ?? "none");server=\(serverModel.identity);seed=\(seed);"
            + "temperature=\(temperature.map { "\($0)" } ?? "-");maxTokens=\(maximumResponseTokens.map(String.init) ?? "-")"
    }
}

/// One file prepared for evaluation: the semantic model plus the
/// operator-folded syntax the interpreter walks.
package final class EvaluationContext: @unchecked Sendable {
    let file: PromptFile
    let configuration: EvaluationConfiguration
    /// Folded playground bodies by the byte offset of their first statement.
    private(set) var bodies: [Int: CodeBlockItemListSyntax] = [:]
    /// Folded initializers by the offset of the declared name (properties and top-level constants).
    private(set) var initializers: [Int: ExprSyntax] = [:]
    /// Top-level `let`/`var` declarations in order.
    package private(set) var topLevelVariables: [VariableDeclSyntax] = []
    /// `@SessionProperty(\.key) var name` in types: the key by `Type.name`.
    private(set) var sessionPropertyKeys: [String: String] = [:]
    /// `extension SessionPropertyValues { @SessionPropertyEntry var name: T = default }`: the default (nil: none written).
    private(set) var sessionPropertyDefaults: [String: ExprSyntax?] = [:]
    /// `@Test(.evaluates(E()))`: the evaluation expression and the trait call, by body offset.
    private(set) var testEvaluations: [Int: (ExprSyntax, FunctionCallExprSyntax)] = [:]
    /// Functions and types with their methods, initializers and extensions.
    let types: TypeTable
    /// The front end's types of names and expressions (which values are optionals).
    let surface: SurfaceInference

    package init(analysis: PromptAnalysis, configuration: EvaluationConfiguration) {
        self.file = analysis.file
        self.surface = analysis.surface
        self.configuration = configuration
        let folded = OperatorTable.standardOperators.foldAll(file.syntax) { _ in }
        types = TypeTable(folded.as(SourceFileSyntax.self) ?? file.syntax)
        testBodies = Set(file.playgrounds.filter(\.isTest).map { $0.body.position.utf8Offset })
        index(Syntax(folded), scope: nil)
    }

    /// The body offsets of the `@Test` functions the front end made blocks (top level and suite members).
    private var testBodies: Set<Int> = []

    private func index(_ node: Syntax, scope: String?) {
        if let decl = node.as(VariableDeclSyntax.self), let scope {
            for attribute in decl.attributes {
                guard case .attribute(let attr) = attribute else { continue }
                let attributeName = attr.attributeName.trimmedDescription
                for binding in decl.bindings {
                    guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                    if attributeName == "SessionProperty" || attributeName.hasSuffix(".SessionProperty"),
                       case .argumentList(let arguments)? = attr.arguments, let keyPath = arguments.first?.expression.as(KeyPathExprSyntax.self) {
                        sessionPropertyKeys[scope + "." + name] = keyPath.components.trimmedDescription.trimmingPrefix(".").description
                    }
                    if attributeName == "SessionPropertyEntry", scope == Self.sessionPropertyValuesScope {
                        sessionPropertyDefaults[name] = .some(binding.initializer?.value)
                    }
                }
            }
        }
        if let decl = node.as(VariableDeclSyntax.self) {
            if scope == nil, decl.parent?.parent?.parent?.is(SourceFileSyntax.self) == true { topLevelVariables.append(decl) }
            for binding in decl.bindings {
                if let value = binding.initializer?.value {
                    initializers[binding.pattern.positionAfterSkippingLeadingTrivia.utf8Offset] = value
                }
            }
        }
        var innerScope = scope
        if let decl = node.as(StructDeclSyntax.self) { innerScope = scope.map { $0 + "." } ?? "" ; innerScope! += decl.name.text }
        if let decl = node.as(EnumDeclSyntax.self) { innerScope = (scope.map { $0 + "." } ?? "") + decl.name.text }
        if let decl = node.as(ClassDeclSyntax.self) { innerScope = (scope.map { $0 + "." } ?? "") + decl.name.text }
        if let decl = node.as(ExtensionDeclSyntax.self) {
            let extended = decl.extendedType.trimmedDescription
            if extended == "SessionPropertyValues" { innerScope = Self.sessionPropertyValuesScope }
            if scope == nil, innerScope == nil { innerScope = extended }
        }
        if let closure = node.as(ClosureExprSyntax.self) {
            bodies[closure.statements.position.utf8Offset] = closure.statements
        }
        // A @Test function the front end made a block (top level or in a suite type); its `.evaluates(...)` argument runs first.
        if let function = node.as(FunctionDeclSyntax.self), let body = function.body, testBodies.contains(body.statements.position.utf8Offset),
           let test = function.attributes.compactMap({ $0.as(AttributeSyntax.self) }).first(where: { $0.attributeName.trimmedDescription == "Test" }) {
            bodies[body.statements.position.utf8Offset] = body.statements
            if case .argumentList(let list)? = test.arguments {
                for argument in list {
                    if let call = argument.expression.as(FunctionCallExprSyntax.self),
                       call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "evaluates",
                       let evaluation = call.arguments.first?.expression {
                        testEvaluations[body.statements.position.utf8Offset] = (evaluation, call)
                    }
                }
            }
        }
        for child in node.children(viewMode: .sourceAccurate) { index(child, scope: innerScope) }
    }

    static let sessionPropertyValuesScope = "SessionPropertyValues"

    package func body(of block: PlaygroundBlock) -> CodeBlockItemListSyntax? { bodies[block.body.position.utf8Offset] }

    func sessionPropertyKey(_ property: String, of typeName: String) -> String? { sessionPropertyKeys[typeName + "." + property] }

    /// Whether the file imports Apple's `FoundationModelsUtilities` package.
    package var importsUtilities: Bool {
        file.syntax.statements.contains { item in
            item.item.as(ImportDeclSyntax.self)?.path.trimmedDescription == "FoundationModelsUtilities"
        }
    }

    package func testEvaluation(of block: PlaygroundBlock) -> (ExprSyntax, FunctionCallExprSyntax)? { testEvaluations[block.body.position.utf8Offset] }

    func initializer(of property: PropertyDeclaration) -> ExprSyntax? { initializers[property.nameRange.start.offset] }



    package func systemModel(useCase: SystemLanguageModel.UseCase) -> SystemLanguageModel {
        SystemLanguageModel(base: configuration.model, useCase: useCase)
    }

    package func serverModel() -> PrivateCloudComputeLanguageModel { configuration.serverModel }

    func schema(forType name: String) -> GenerationSchema? {
        guard let type = file.resolveType(name, in: nil) else { return nil }
        return file.schemas[type.qualifiedName]
    }
}
