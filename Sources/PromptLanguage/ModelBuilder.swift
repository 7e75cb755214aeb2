import SwiftSyntax

/// Builds the semantic model from a syntax tree. Never fails: what it cannot
/// read is left out of the model (and reported by the checks that need it).
struct ModelBuilder {
    let source: SourceText
    private(set) var types: [TypeDeclaration] = []
    private(set) var imports: [ImportDeclaration] = []
    private(set) var constants: [ConstantDeclaration] = []
    private(set) var playgrounds: [PlaygroundBlock] = []
    /// Diagnostics found while reading (unreadable guides).
    private(set) var diagnostics: [Diagnostic] = []

    init(source: SourceText) {
        self.source = source
    }

    mutating func build(_ tree: SourceFileSyntax) {
        for item in tree.statements.fastElements {
            switch item.item {
            case .decl(let decl):
                readTopLevel(decl)
            case .expr(let expr):
                if let macro = expr.as(MacroExpansionExprSyntax.self), macro.macroName.text == "Playground" {
                    readPlayground(macro.arguments, trailingClosure: macro.trailingClosure, node: Syntax(macro))
                }
            case .stmt:
                break
            }
        }
    }

    private mutating func readTopLevel(_ decl: DeclSyntax) {
        if let importDecl = decl.as(ImportDeclSyntax.self) {
            imports.append(ImportDeclaration(module: importDecl.path.trimmedText, range: source.range(of: importDecl)))
        } else if let macro = decl.as(MacroExpansionDeclSyntax.self), macro.macroName.text == "Playground" {
            readPlayground(macro.arguments, trailingClosure: macro.trailingClosure, node: Syntax(macro))
        } else if let function = decl.as(FunctionDeclSyntax.self), let test = SyntaxReading.testAttribute(function.attributes) {
            readTest(function, attribute: test, suite: nil)
        } else if let variable = decl.as(VariableDeclSyntax.self) {
            for property in readProperties(variable) {
                constants.append(ConstantDeclaration(
                    name: property.name, nameRange: property.nameRange, range: property.range, isLet: property.isLet,
                    type: property.type, literalValue: property.literalValue, initializerRange: property.initializerRange))
            }
        } else {
            readType(decl, parent: nil)
        }
    }

    // MARK: Types

    @discardableResult
    private mutating func readType(_ decl: DeclSyntax, parent: String?) -> String? {
        let kind: TypeDeclarationKind
        let name: TokenSyntax
        let attributes: AttributeListSyntax
        let inheritance: InheritanceClauseSyntax?
        let members: MemberBlockSyntax
        if let node = decl.as(StructDeclSyntax.self) {
            (kind, name, attributes, inheritance, members) = (.struct, node.name, node.attributes, node.inheritanceClause, node.memberBlock)
        } else if let node = decl.as(EnumDeclSyntax.self) {
            (kind, name, attributes, inheritance, members) = (.enum, node.name, node.attributes, node.inheritanceClause, node.memberBlock)
        } else if let node = decl.as(ClassDeclSyntax.self) {
            (kind, name, attributes, inheritance, members) = (.class, node.name, node.attributes, node.inheritanceClause, node.memberBlock)
        } else if let node = decl.as(ActorDeclSyntax.self) {
            (kind, name, attributes, inheritance, members) = (.actor, node.name, node.attributes, node.inheritanceClause, node.memberBlock)
        } else if let node = decl.as(ProtocolDeclSyntax.self) {
            (kind, name, attributes, inheritance, members) = (.protocol, node.name, node.attributes, node.inheritanceClause, node.memberBlock)
        } else {
            return nil
        }
        guard !name.text.isEmpty, name.presence == .present else { return nil }
        let qualifiedName = parent.map { $0 + "." + name.text } ?? name.text
        let inherited = inheritance?.inheritedTypes.map { $0.type.trimmedText } ?? []
        var generable: GenerableAttribute?
        for attribute in SyntaxReading.attributes(attributes) where SyntaxReading.attributeName(attribute) == "Generable" {
            let arguments = SyntaxReading.arguments(attribute)
            generable = GenerableAttribute(
                range: source.range(of: attribute),
                description: arguments.flatMap { SyntaxReading.argument("description", in: $0) }
                    .flatMap { SyntaxReading.literal($0.expression)?.stringValue },
                schemaName: arguments.flatMap { SyntaxReading.argument("name", in: $0) }
                    .flatMap { SyntaxReading.literal($0.expression)?.stringValue },
                representsNilExplicitly: arguments.flatMap { SyntaxReading.argument("representNilExplicitlyInGeneratedContent", in: $0) }?
                    .expression.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true))
        }
        let index = types.count
        types.append(TypeDeclaration(
            name: name.text, qualifiedName: qualifiedName, parent: parent, kind: kind, range: source.range(of: decl),
            nameRange: source.range(of: name), inheritedTypes: inherited, isGenerable: generable != nil,
            generableAttribute: generable, properties: [], otherProperties: [], cases: [], methods: [], nestedTypes: [],
            tool: nil))

        var properties: [PropertyDeclaration] = []
        var otherProperties: [PropertyDeclaration] = []
        var cases: [EnumCaseDeclaration] = []
        var methods: [FunctionDeclaration] = []
        var nested: [String] = []
        var typeAliases: [String: String] = [:]
        for member in members.members.fastElements {
            let decl = member.decl
            if let variable = decl.as(VariableDeclSyntax.self) {
                for property in readProperties(variable) {
                    // Apple's @Generable macro leaves properties with a starting value (`let id = UUID()`) out of the schema.
                    let startsWithValue = generable != nil && property.initializerRange != nil
                    if property.isStatic || property.isComputed || startsWithValue { otherProperties.append(property) } else { properties.append(property) }
                }
            } else if let caseDecl = decl.as(EnumCaseDeclSyntax.self) {
                cases.append(contentsOf: readCases(caseDecl))
            } else if let function = decl.as(FunctionDeclSyntax.self) {
                methods.append(readFunction(function))
                if let test = SyntaxReading.testAttribute(function.attributes), SyntaxReading.testPlacement(function) == .suiteMember {
                    readTest(function, attribute: test, suite: qualifiedName)
                }
            } else if let alias = decl.as(TypeAliasDeclSyntax.self) {
                typeAliases[alias.name.text] = alias.initializer.value.trimmedText
            } else if let nestedName = readType(decl, parent: qualifiedName) {
                nested.append(nestedName)
            }
        }
        types[index].properties = properties
        types[index].otherProperties = otherProperties
        types[index].cases = cases
        types[index].methods = methods
        types[index].nestedTypes = nested
        if inherited.contains(where: { $0 == "Tool" || $0 == "FoundationModels.Tool" || $0.hasPrefix("Tool<") }) {
            types[index].tool = readTool(types[index], typeAliases: typeAliases)
        }
        return qualifiedName
    }

    private func readTool(_ type: TypeDeclaration, typeAliases: [String: String]) -> ToolDeclaration {
        let all = type.properties + type.otherProperties
        let nameProperty = all.first { $0.name == "name" && !$0.isStatic }
        let descriptionProperty = all.first { $0.name == "description" && !$0.isStatic }
        let call = type.methods.first { $0.signatureName == "call(arguments:)" } ?? type.methods.first { $0.name == "call" }
        var argumentsType: String?
        if type.nestedTypes.contains(type.qualifiedName + ".Arguments") {
            argumentsType = type.qualifiedName + ".Arguments"
        } else if let alias = typeAliases["Arguments"] {
            argumentsType = alias
        } else if let parameterType = call?.parameters.first?.type?.text, parameterType != "Arguments" {
            argumentsType = parameterType
        }
        let returnText = call?.returnType?.text ?? ""
        return ToolDeclaration(
            name: nameProperty?.literalValue?.stringValue, nameDeclarationRange: nameProperty?.range,
            description: descriptionProperty?.literalValue?.stringValue,
            descriptionDeclarationRange: descriptionProperty?.range, argumentsType: argumentsType, call: call,
            returnsLegacyToolOutput: returnText == "ToolOutput" || returnText == "FoundationModels.ToolOutput")
    }

    private mutating func readProperties(_ variable: VariableDeclSyntax) -> [PropertyDeclaration] {
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        let isStatic = variable.modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
        let guides = SyntaxReading.attributes(variable.attributes)
            .filter { SyntaxReading.attributeName($0) == "Guide" }
            .map { readGuideAttribute($0) }
        var result: [PropertyDeclaration] = []
        for binding in variable.bindings.fastElements {
            guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
            var isComputed = false
            var literal = binding.initializer.flatMap { SyntaxReading.literal($0.value) }
            if let accessors = binding.accessorBlock {
                switch accessors.accessors {
                case .getter(let body):
                    isComputed = true
                    literal = Self.singleExpression(body).flatMap(SyntaxReading.literal)
                case .accessors(let list):
                    // Observers (willSet/didSet) keep a property stored.
                    isComputed = list.contains { $0.accessorSpecifier.tokenKind == .keyword(.get) || $0.accessorSpecifier.tokenKind == .keyword(.set) }
                    if let getter = list.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) }), let body = getter.body {
                        literal = Self.singleExpression(body.statements).flatMap(SyntaxReading.literal)
                    }
                }
            }
            result.append(PropertyDeclaration(
                name: identifier.identifier.text, nameRange: source.range(of: identifier.identifier),
                range: source.range(of: variable), isLet: isLet, isStatic: isStatic, isComputed: isComputed,
                type: binding.typeAnnotation.map { readTypeReference($0.type) }, literalValue: literal,
                initializerRange: binding.initializer.map { source.range(of: $0.value) }, guideAttributes: guides))
        }
        return result
    }

    /// The expression of a body that is one expression or one `return expr`.
    private static func singleExpression(_ statements: CodeBlockItemListSyntax) -> ExprSyntax? {
        guard statements.count == 1, let item = statements.first else { return nil }
        switch item.item {
        case .expr(let expression): return expression
        case .stmt(let statement): return statement.as(ReturnStmtSyntax.self)?.expression
        case .decl: return nil
        }
    }

    private mutating func readCases(_ caseDecl: EnumCaseDeclSyntax) -> [EnumCaseDeclaration] {
        let guides = SyntaxReading.attributes(caseDecl.attributes)
            .filter { SyntaxReading.attributeName($0) == "Guide" }
            .map { readGuideAttribute($0) }
        return caseDecl.elements.map { element in
            let values = element.parameterClause?.parameters.map { parameter in
                EnumCaseDeclaration.AssociatedValue(
                    label: parameter.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0.text },
                    type: readTypeReference(parameter.type))
            } ?? []
            return EnumCaseDeclaration(
                name: element.name.text, nameRange: source.range(of: element.name), range: source.range(of: element),
                associatedValues: values, guideAttributes: guides,
                rawValue: element.rawValue.flatMap { SyntaxReading.literal($0.value) })
        }
    }

    private func readFunction(_ function: FunctionDeclSyntax) -> FunctionDeclaration {
        let parameters = function.signature.parameterClause.parameters.map { parameter in
            FunctionDeclaration.Parameter(
                label: parameter.firstName.tokenKind == .wildcard ? nil : parameter.firstName.text,
                name: (parameter.secondName ?? parameter.firstName).text,
                type: readTypeReference(parameter.type))
        }
        let labels = parameters.map { ($0.label ?? "_") + ":" }.joined()
        let effects = function.signature.effectSpecifiers
        return FunctionDeclaration(
            name: function.name.text, signatureName: "\(function.name.text)(\(labels))", range: source.range(of: function),
            nameRange: source.range(of: function.name), parameters: parameters,
            returnType: function.signature.returnClause.map { readTypeReference($0.type) },
            isAsync: effects?.asyncSpecifier != nil, isThrowing: effects?.throwsClause != nil,
            bodyRange: function.body.map { source.range(of: $0) })
    }

    func readTypeReference(_ type: TypeSyntax) -> TypeReference {
        TypeReference(shape: shape(of: type), text: type.trimmedText, range: source.range(of: type))
    }

    private func shape(of type: TypeSyntax) -> TypeReference.Shape {
        if type.hasError && type.trimmedText.isEmpty { return .other }
        if let optional = type.as(OptionalTypeSyntax.self) { return .optional(readTypeReference(optional.wrappedType)) }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return .optional(readTypeReference(optional.wrappedType)) }
        if let array = type.as(ArrayTypeSyntax.self) { return .array(readTypeReference(array.element)) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return .dictionary(key: readTypeReference(dictionary.key), value: readTypeReference(dictionary.value))
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                return shape(of: only.type)
            }
            return .tuple(tuple.elements.map { readTypeReference($0.type) })
        }
        if type.is(FunctionTypeSyntax.self) { return .function }
        if let attributed = type.as(AttributedTypeSyntax.self) { return shape(of: attributed.baseType) }
        let generics: GenericArgumentClauseSyntax?
        let name: String
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            name = identifier.name.text
            generics = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self) {
            name = member.baseType.trimmedText + "." + member.name.text
            generics = member.genericArgumentClause
        } else {
            return .other
        }
        guard !name.isEmpty else { return .other }
        let arguments: [TypeReference] = generics?.arguments.compactMap { argument in
            if case .type(let type) = argument.argument { return readTypeReference(type) }
            return nil
        } ?? []
        switch (name, arguments.count) {
        case ("Optional", 1), ("Swift.Optional", 1): return .optional(arguments[0])
        case ("Array", 1), ("Swift.Array", 1): return .array(arguments[0])
        case ("Dictionary", 2), ("Swift.Dictionary", 2): return .dictionary(key: arguments[0], value: arguments[1])
        default: return .named(name, genericArguments: arguments)
        }
    }

    // MARK: Guides

    private mutating func readGuideAttribute(_ attribute: AttributeSyntax) -> GuideAttribute {
        var description: String?
        var descriptionRange: SourceRange?
        var guides: [Guide] = []
        for argument in (SyntaxReading.arguments(attribute) ?? []).fastElements {
            if argument.label?.text == "description" {
                descriptionRange = source.range(of: argument.expression)
                if let text = SyntaxReading.literal(argument.expression)?.stringValue {
                    description = text
                } else {
                    guides.append(Guide(
                        kind: .unrecognized("description must be a string literal without interpolation"),
                        range: source.range(of: argument.expression)))
                }
            } else {
                guides.append(GuideReader(source: source).read(argument.expression))
            }
        }
        return GuideAttribute(
            range: source.range(of: attribute), description: description, descriptionRange: descriptionRange, guides: guides)
    }

    // MARK: Playgrounds

    private mutating func readPlayground(_ arguments: LabeledExprListSyntax, trailingClosure: ClosureExprSyntax?, node: Syntax) {
        let closure = trailingClosure
            ?? arguments.first { $0.label?.text == "body" }?.expression.as(ClosureExprSyntax.self)
            ?? arguments.last?.expression.as(ClosureExprSyntax.self)
        let name = arguments.first { $0.label == nil }.flatMap { SyntaxReading.literal($0.expression)?.stringValue }
        let body = closure?.statements ?? CodeBlockItemListSyntax([])
        let bodyRange: SourceRange
        if let closure {
            bodyRange = source.range(closure.leftBrace.endPositionBeforeTrailingTrivia.utf8Offset..<closure.rightBrace.positionAfterSkippingLeadingTrivia.utf8Offset)
        } else {
            let end = node.endPositionBeforeTrailingTrivia.utf8Offset
            bodyRange = source.range(end..<end)
        }
        var collector = SessionCollector(source: source)
        if let closure { collector.walk(closure) }
        playgrounds.append(PlaygroundBlock(
            index: playgrounds.count, name: name, range: source.range(of: node), bodyRange: bodyRange, body: body,
            sessions: collector.sessions, calls: collector.calls))
    }
}

extension ModelBuilder {
    /// A top-level `@Test` function (Swift Testing) is a block: `@Test("Name", .evaluates(E()))`
    /// runs the evaluation, then the body with `EvaluationContext.current` set.
    /// A `@Test` function as a block; `suite` is the qualified name of the type it is an instance method of.
    fileprivate mutating func readTest(_ function: FunctionDeclSyntax, attribute: AttributeSyntax, suite: String?) {
        let arguments: LabeledExprListSyntax = if case .argumentList(let list)? = attribute.arguments { list } else { [] }
        let displayName = arguments.first { $0.label == nil }.flatMap { SyntaxReading.literal($0.expression)?.stringValue }
        var evaluates: ExprSyntax?
        for argument in arguments {
            if let call = argument.expression.as(FunctionCallExprSyntax.self),
               call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "evaluates" {
                evaluates = call.arguments.first?.expression
            }
        }
        let node = Syntax(function)
        let body = function.body?.statements ?? CodeBlockItemListSyntax([])
        let bodyRange: SourceRange
        if let block = function.body {
            bodyRange = source.range(block.leftBrace.endPositionBeforeTrailingTrivia.utf8Offset..<block.rightBrace.positionAfterSkippingLeadingTrivia.utf8Offset)
        } else {
            let end = node.endPositionBeforeTrailingTrivia.utf8Offset
            bodyRange = source.range(end..<end)
        }
        var collector = SessionCollector(source: source)
        if let block = function.body { collector.walk(block) }
        var block = PlaygroundBlock(index: playgrounds.count, name: displayName ?? function.name.text, range: source.range(of: node),
                                    bodyRange: bodyRange, body: body, sessions: collector.sessions, calls: collector.calls)
        block.evaluatesArgument = evaluates
        block.isTest = true
        block.testSuite = suite
        playgrounds.append(block)
    }
}

/// Finds session creations and model calls in a block of code.
struct SessionCollector {
    let source: SourceText
    var sessions: [SessionCreation] = []
    var calls: [ModelCall] = []

    mutating func walk(_ node: some SyntaxProtocol) {
        let visitor = CallVisitor(viewMode: .sourceAccurate)
        visitor.walk(node)
        for call in visitor.calls { read(call) }
    }

    private mutating func read(_ call: FunctionCallExprSyntax) {
        let callee = call.calledExpression
        if let reference = callee.as(DeclReferenceExprSyntax.self), reference.baseName.text == "LanguageModelSession" {
            sessions.append(readSession(call))
        } else if let member = callee.as(MemberAccessExprSyntax.self), member.base != nil {
            let name = member.declName.baseName.text
            if member.base?.trimmedText == "LanguageModelSession", name == "init" {
                sessions.append(readSession(call))
            } else if let method = ModelCall.Method(rawValue: name) {
                calls.append(readModelCall(call, member: member, method: method))
            }
        }
    }

    private func readSession(_ call: FunctionCallExprSyntax) -> SessionCreation {
        let arguments = call.arguments
        var tools: [ToolReference] = []
        if let toolsArgument = SyntaxReading.argument("tools", in: arguments) {
            if let array = toolsArgument.expression.as(ArrayExprSyntax.self) {
                for element in array.elements.fastElements {
                    tools.append(ToolReference(
                        range: source.range(of: element.expression),
                        typeName: SyntaxReading.typeName(of: element.expression),
                        text: element.expression.trimmedText))
                }
            } else {
                tools.append(ToolReference(
                    range: source.range(of: toolsArgument.expression), typeName: nil,
                    text: toolsArgument.expression.trimmedText))
            }
        }
        var instructions: InstructionsArgument?
        if let argument = SyntaxReading.argument("instructions", in: arguments) {
            instructions = Self.instructions(argument.expression, source: source)
        } else if let closure = call.trailingClosure {
            instructions = InstructionsArgument(range: source.range(of: closure), form: .builder, staticText: nil)
        }
        var model: ModelReference?
        if let argument = SyntaxReading.argument("model", in: arguments) {
            model = Self.model(argument.expression, source: source)
        }
        return SessionCreation(
            range: source.range(of: call), variableName: SyntaxReading.boundVariableName(of: call), tools: tools,
            instructions: instructions, model: model)
    }

    static func instructions(_ expression: ExprSyntax, source: SourceText) -> InstructionsArgument {
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return InstructionsArgument(range: source.range(of: expression), form: .literal, staticText: string.representedLiteralValue)
        }
        if let call = expression.as(FunctionCallExprSyntax.self), call.calledExpression.trimmedText == "Instructions" {
            if call.trailingClosure != nil {
                return InstructionsArgument(range: source.range(of: expression), form: .builder, staticText: nil)
            }
            if let only = call.arguments.first, call.arguments.count == 1, let string = only.expression.as(StringLiteralExprSyntax.self) {
                return InstructionsArgument(range: source.range(of: expression), form: .literal, staticText: string.representedLiteralValue)
            }
        }
        if expression.is(ClosureExprSyntax.self) {
            return InstructionsArgument(range: source.range(of: expression), form: .builder, staticText: nil)
        }
        return InstructionsArgument(range: source.range(of: expression), form: .expression, staticText: nil)
    }

    static func model(_ expression: ExprSyntax, source: SourceText) -> ModelReference {
        let range = source.range(of: expression)
        let text = expression.trimmedText
        if let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "default",
            member.base == nil || member.base?.trimmedText == "SystemLanguageModel"
        {
            return ModelReference(kind: .system(useCase: nil), range: range, text: text)
        }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            switch call.calledExpression.trimmedText {
            case "SystemLanguageModel", ".init":
                let useCase = SyntaxReading.argument("useCase", in: call.arguments)
                    .flatMap { SyntaxReading.memberAccess($0.expression)?.name }
                return ModelReference(kind: .system(useCase: useCase), range: range, text: text)
            case "PrivateCloudComputeLanguageModel":
                return ModelReference(kind: .privateCloudCompute, range: range, text: text)
            default:
                break
            }
        }
        return ModelReference(kind: .expression, range: range, text: text)
    }

    private func readModelCall(_ call: FunctionCallExprSyntax, member: MemberAccessExprSyntax, method: ModelCall.Method) -> ModelCall {
        let generating = SyntaxReading.argument("generating", in: call.arguments)
        return ModelCall(
            method: method, range: source.range(of: call), nameRange: source.range(of: member.declName.baseName),
            receiver: member.base?.trimmedText,
            generatingType: generating.flatMap { SyntaxReading.typeName(of: $0.expression) ?? $0.expression.trimmedText },
            generatingRange: generating.map { source.range(of: $0.expression) },
            usesSchemaArgument: SyntaxReading.argument("schema", in: call.arguments) != nil,
            hasOptions: SyntaxReading.argument("options", in: call.arguments) != nil,
            usesPromptBuilder: call.trailingClosure != nil)
    }
}

/// Collects every function call in a subtree, in source order.
private final class CallVisitor: SyntaxVisitor {
    var calls: [FunctionCallExprSyntax] = []

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        calls.append(node)
        return .visitChildren
    }
}
