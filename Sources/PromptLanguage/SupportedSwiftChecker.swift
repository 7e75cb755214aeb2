import Surface
import SwiftSyntax

/// FM306/FM307: the Swift prompt files run, so that anything the evaluator would not
/// interpret is an error at its exact range naming the construct and what to do, instead of
/// being silently ignored or failing at run time. The README's "The Swift prompt files run"
/// lists what is supported and what stays out.
///
/// One checker in four files, by concern: this one (entry points, top level, declarations),
/// `+Statements` (statements, conditions, `switch`, builders, patterns), `+Expressions`
/// (expressions, calls, closures) and `+Names` (the names a file may call or construct: standard
/// types and functions, unavailable frameworks, the names the file declares).
public struct SupportedSwiftChecker {
    public static let binaryOperators: Set<String> = [
        "+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "??", "...", "..<",
        "=", "+=", "-=", "*=", "/=", "%=", "===", "!==", "&", "|", "^", "<<", ">>", "&+", "&-", "&*",
        "&=", "|=", "^=", "<<=", ">>=", "~=",
    ]
    /// Calls whose trailing closure is a result builder the evaluator runs.
    public static let builderCallees: Set<String> = ["Instructions", "Prompt", "LanguageModelSession", "Profile", "ForEach"]
    public static let builderMethods: Set<String> = ["respond", "streamResponse"]
    /// Property attributes of 27's session properties.
    static let sessionPropertyAttributes: Set<String> = ["SessionProperty", "SessionPropertyEntry"]

    let source: SourceText
    private(set) var diagnostics: [Diagnostic] = []
    /// Every name the file declares (functions, variables, parameters, closure
    /// parameters): a call to a lowercase name outside these and the
    /// surface table's global functions cannot run.
    var declaredNames: Set<String> = []
    /// The types the file declares.
    var declaredTypes: Set<String> = []
    /// Inside an extension of a built-in type (`extension String`), a bare call may be one of
    /// that type's members in the surface table (the innermost such type, nil elsewhere).
    var extendedBuiltin: String?

    public init(source: SourceText) {
        self.source = source
    }

    /// Checks a whole file.
    public static func check(file: PromptFile) -> [Diagnostic] {
        var checker = SupportedSwiftChecker(source: file.source)
        checker.declaredNames = DeclaredNames.collect(in: Syntax(file.syntax))
        checker.declaredTypes = Set(file.types.map(\.name))
        checker.checkTopLevel(file.syntax.statements)
        return checker.diagnostics
    }

    /// Checks the statements of one block (a `#Playground` body, a tool's
    /// `call` body) and returns what is not supported.
    public static func check(statements: CodeBlockItemListSyntax, source: SourceText) -> [Diagnostic] {
        var checker = SupportedSwiftChecker(source: source)
        checker.declaredNames = DeclaredNames.collect(in: Syntax(statements.root))
        checker.checkStatements(statements)
        return checker.diagnostics
    }

    mutating func unsupported(_ node: some SyntaxProtocol, _ what: String, _ fix: String) {
        diagnostics.append(Diagnostic(.unsupportedSwift, at: source.range(of: node), "\(what) is not supported in prompt files; \(fix)"))
    }

    // MARK: Top level and declarations

    mutating func checkTopLevel(_ items: CodeBlockItemListSyntax) {
        for item in items.fastElements {
            switch item.item {
            case .decl(let decl):
                if let macro = decl.as(MacroExpansionDeclSyntax.self) {
                    checkTopLevelMacro(name: macro.macroName.text, node: macro, arguments: macro.arguments, closure: macro.trailingClosure)
                } else if let variable = decl.as(VariableDeclSyntax.self) {
                    checkConstant(variable)
                } else {
                    checkDeclaration(decl, inType: false)
                }
            case .expr(let expression):
                if let macro = expression.as(MacroExpansionExprSyntax.self) {
                    checkTopLevelMacro(name: macro.macroName.text, node: macro, arguments: macro.arguments, closure: macro.trailingClosure)
                } else {
                    outsidePlayground(expression)
                }
            case .stmt(let statement):
                outsidePlayground(statement)
            }
        }
    }

    mutating func outsidePlayground(_ node: some SyntaxProtocol) {
        guard !node.hasError else { return }
        diagnostics.append(Diagnostic(
            .statementOutsidePlayground, at: source.range(of: node),
            "code outside #Playground blocks is not run; move it into a '#Playground { ... }' block"))
    }

    mutating func checkTopLevelMacro(name: String, node: some SyntaxProtocol, arguments: LabeledExprListSyntax, closure: ClosureExprSyntax?) {
        guard name == "Playground" else {
            unsupported(node, "the macro '#\(name)'", "only #Playground blocks are supported at top level")
            return
        }
        for argument in arguments.fastElements {
            if let body = argument.expression.as(ClosureExprSyntax.self) {
                checkStatements(body.statements)
            } else if argument.label != nil || SyntaxReading.literal(argument.expression)?.stringValue == nil {
                unsupported(argument, "this #Playground argument", "write #Playground { ... } or #Playground(\"name\") { ... }")
            }
        }
        if let closure {
            if let signature = closure.signature { unsupported(signature, "a closure signature on #Playground", "remove it") }
            checkStatements(closure.statements)
        }
    }

    /// A top-level constant: static data only. Model calls belong in blocks.
    mutating func checkConstant(_ variable: VariableDeclSyntax) {
        checkModifiers(variable)
        for binding in variable.bindings.fastElements {
            guard let initializer = binding.initializer else { continue }
            let finder = EffectFinder(viewMode: .sourceAccurate)
            finder.walk(initializer.value)
            if finder.found {
                outsidePlayground(variable)
                return
            }
            checkPattern(binding.pattern, allowBindings: false)
            checkExpression(initializer.value)
        }
    }

    mutating func checkModifiers(_ variable: VariableDeclSyntax) {
        if let attribute = variable.attributes.first {
            if case .attribute(let attr) = attribute,
               ["Guide", "MainActor"].contains(SyntaxReading.attributeName(attr)) || Self.sessionPropertyAttributes.contains(SyntaxReading.attributeName(attr)) {
            } else {
                unsupported(attribute, "the attribute '\(attribute.trimmedText)'", "remove it")
            }
        }
        for modifier in variable.modifiers.fastElements {
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.private), .keyword(.fileprivate), .keyword(.public), .keyword(.internal),
                .keyword(.nonisolated), .keyword(.class), .keyword(.lazy), .keyword(.final), .keyword(.override), .keyword(.weak),
                .keyword(.unowned), .keyword(.open), .keyword(.package):
                continue
            default:
                unsupported(modifier, "the modifier '\(modifier.trimmedText)'", "remove it")
            }
        }
    }

    mutating func checkDeclaration(_ decl: DeclSyntax, inType: Bool, inTool: Bool = false) {
        if decl.is(ImportDeclSyntax.self) {
            if inType { unsupported(decl, "an import inside a type", "move it to the top of the file") }
            return
        }
        if decl.is(TypeAliasDeclSyntax.self) { return }
        let members: MemberBlockSyntax?
        var isTool = false
        if let node = decl.as(StructDeclSyntax.self) {
            members = node.memberBlock
            isTool = Self.conformsToTool(node.inheritanceClause)
        } else if let node = decl.as(EnumDeclSyntax.self) {
            members = node.memberBlock
        } else if let node = decl.as(ClassDeclSyntax.self) {
            members = node.memberBlock
            isTool = Self.conformsToTool(node.inheritanceClause)
        } else if let node = decl.as(ActorDeclSyntax.self) {
            members = node.memberBlock
        } else if let node = decl.as(ProtocolDeclSyntax.self) {
            members = node.memberBlock
        } else if let function = decl.as(FunctionDeclSyntax.self) {
            checkFunction(function)
            return
        } else if let variable = decl.as(VariableDeclSyntax.self) {
            checkMemberVariable(variable)
            return
        } else if decl.is(EnumCaseDeclSyntax.self) {
            return
        } else if let node = decl.as(ExtensionDeclSyntax.self) {
            if let generable = SyntaxReading.attributes(node.attributes).first(where: { SyntaxReading.attributeName($0) == "Generable" }) {
                let typeName = node.extendedType.trimmedText
                diagnostics.append(Diagnostic(
                    .generableOnUnsupportedDeclaration, at: source.range(of: generable),
                    "@Generable cannot be applied to an extension; put @Generable on the declaration 'struct \(typeName)' or 'enum \(typeName)' itself and declare the members there",
                    fixIts: [FixIt(title: "remove @Generable", edits: [FixItFactory(source: source).deleteLine(containing: source.range(of: generable))])]))
            }
            members = node.memberBlock
        } else if let initializer = decl.as(InitializerDeclSyntax.self) {
            checkParameters(initializer.signature.parameterClause)
            if let body = initializer.body { checkStatements(body.statements) }
            return
        } else if decl.is(AssociatedTypeDeclSyntax.self) {
            return
        } else if decl.is(SubscriptDeclSyntax.self) {
            unsupported(decl.firstToken(viewMode: .sourceAccurate)!, "a subscript declaration", "write a method such as item(at:) instead")
            return
        } else if decl.is(DeinitializerDeclSyntax.self) {
            unsupported(decl.firstToken(viewMode: .sourceAccurate)!, "'deinit'", "prompt files do not free instances at a known time; remove it")
            return
        } else if decl.hasError {
            return
        } else {
            unsupported(decl, "this declaration", "prompt files declare structs, enums, tools, constants and #Playground blocks")
            return
        }
        let outerBuiltin = extendedBuiltin
        if let node = decl.as(ExtensionDeclSyntax.self), !declaredTypes.contains(node.extendedType.trimmedText) {
            extendedBuiltin = Self.extendedTypeName(node.extendedType.trimmedText)
        }
        for member in (members?.members ?? []).fastElements {
            checkDeclaration(member.decl, inType: true, inTool: isTool)
        }
        extendedBuiltin = outerBuiltin
    }

    static func conformsToTool(_ clause: InheritanceClauseSyntax?) -> Bool {
        clause?.inheritedTypes.contains { ["Tool", "FoundationModels.Tool"].contains($0.type.trimmedText) } ?? false
    }

    /// A function or method: its parameters' default values and its body.
    mutating func checkFunction(_ function: FunctionDeclSyntax) {
        checkParameters(function.signature.parameterClause)
        if let body = function.body { checkStatements(body.statements) }
    }

    mutating func checkParameters(_ clause: FunctionParameterClauseSyntax) {
        for parameter in clause.parameters.fastElements {
            if let value = parameter.defaultValue?.value { checkExpression(value) }
        }
    }

    mutating func checkMemberVariable(_ variable: VariableDeclSyntax) {
        checkModifiers(variable)
        for binding in variable.bindings.fastElements {
            checkPattern(binding.pattern, allowBindings: false)
            if let initializer = binding.initializer { checkExpression(initializer.value) }
            if let accessors = binding.accessorBlock {
                switch accessors.accessors {
                case .getter(let statements):
                    checkStatements(statements)
                case .accessors(let list):
                    for accessor in list.fastElements {
                        switch accessor.accessorSpecifier.tokenKind {
                        case .keyword(.get), .keyword(.set), .keyword(.willSet), .keyword(.didSet):
                            if let body = accessor.body { checkStatements(body.statements) }
                        default:
                            unsupported(accessor, "the accessor '\(accessor.accessorSpecifier.text)'", "use get, set, willSet or didSet")
                        }
                    }
                }
            }
        }
    }

}
