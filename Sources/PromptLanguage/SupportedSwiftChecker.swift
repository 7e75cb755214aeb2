import Surface
import SwiftSyntax

/// FM306/FM307: the Swift subset prompt files support, so that anything the
/// evaluator would not interpret is an error at its exact range instead of
/// being silently ignored.
///
/// Supported (what the evaluator interprets):
/// - Top level: `import`, struct/enum/class/actor/protocol declarations
///   (stored properties, enum cases, nested types, computed properties, and
///   a tool's `call(arguments:)`), `let`/`var` constants, `#Playground` blocks.
/// - Statements: `let`/`var` with a plain name, assignment (`=`, `+=`,
///   `-=`, `*=`, `/=`), `for`-`in` (names, `_` and tuple patterns such as
///   `(index, word)`, with `where`; `for try await` over a stream, without
///   `where`), `while`, `guard ... else` (the body must leave with `return`,
///   `throw`, `break` or `continue`), `if`/`else` (with `if let` and
///   `if case`), `switch` statements (enum case patterns with `let`
///   bindings, literals, ranges, `default`, `where`), `do`/`catch` (`catch`,
///   `catch let e`, `catch let e as T`, `catch T.someCase`,
///   `catch T.someCase(let context)`; no `where`), `return`, `break`,
///   `continue` (without labels), `throw`, expression statements.
/// - Expressions: literals (strings with interpolation, multi-line and raw
///   strings, numbers, booleans, nil, arrays, dictionaries, tuples), names,
///   member access (also `?.` and `!`), calls with labelled arguments (struct
///   values by memberwise init, `print`, sessions, `respond`/`streamResponse`,
///   `GenerationOptions`...; no other free functions such as `max` or
///   `stride`), subscripts, `try`/`try?`/`try!`, `await`, the
///   operators `+ - * / % == != < > <= >= && || ?? ... ..<`, prefix `-` and
///   `!`, casts (`as`, `as?`, `as!`, `is`), the ternary operator, `if`
///   expressions, parentheses, trailing closures of `map`, `filter`,
///   `compactMap` and `forEach` (`$0` or named parameters), and
///   trailing-closure builders `Instructions { }`, `Prompt { }`,
///   `LanguageModelSession { }` and `respond { }`/`streamResponse { }`.
/// - Inside builders: expressions (each a line of the text), `if`/`else`,
///   `for`-`in` over an array or a range (without `where`), `let`/`var`.
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
    /// parameters): a call to a lowercase name outside these and
    /// `standardFunctions` cannot run.
    var declaredNames: Set<String> = []
    /// The types the file declares.
    var declaredTypes: Set<String> = []
    /// Inside an extension of a built-in type (`extension String`), a bare call may be one of
    /// that type's members in the surface table (the innermost such type, nil elsewhere).
    private var extendedBuiltin: String?

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

    private mutating func unsupported(_ node: some SyntaxProtocol, _ what: String, _ fix: String) {
        diagnostics.append(Diagnostic(.unsupportedSwift, at: source.range(of: node), "\(what) is not supported in prompt files; \(fix)"))
    }

    // MARK: Top level and declarations

    private mutating func checkTopLevel(_ items: CodeBlockItemListSyntax) {
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

    private mutating func outsidePlayground(_ node: some SyntaxProtocol) {
        guard !node.hasError else { return }
        diagnostics.append(Diagnostic(
            .statementOutsidePlayground, at: source.range(of: node),
            "code outside #Playground blocks is not run; move it into a '#Playground { ... }' block"))
    }

    private mutating func checkTopLevelMacro(name: String, node: some SyntaxProtocol, arguments: LabeledExprListSyntax, closure: ClosureExprSyntax?) {
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
    private mutating func checkConstant(_ variable: VariableDeclSyntax) {
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

    private mutating func checkModifiers(_ variable: VariableDeclSyntax) {
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

    private mutating func checkDeclaration(_ decl: DeclSyntax, inType: Bool, inTool: Bool = false) {
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

    private static func conformsToTool(_ clause: InheritanceClauseSyntax?) -> Bool {
        clause?.inheritedTypes.contains { ["Tool", "FoundationModels.Tool"].contains($0.type.trimmedText) } ?? false
    }

    /// A function or method: its parameters' default values and its body.
    private mutating func checkFunction(_ function: FunctionDeclSyntax) {
        checkParameters(function.signature.parameterClause)
        if let body = function.body { checkStatements(body.statements) }
    }

    private mutating func checkParameters(_ clause: FunctionParameterClauseSyntax) {
        for parameter in clause.parameters.fastElements {
            if let value = parameter.defaultValue?.value { checkExpression(value) }
        }
    }

    private mutating func checkMemberVariable(_ variable: VariableDeclSyntax) {
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

    // MARK: Statements

    mutating func checkStatements(_ items: CodeBlockItemListSyntax) {
        for item in items.fastElements {
            switch item.item {
            case .decl(let decl): checkLocalDeclaration(decl)
            case .stmt(let statement): checkStatement(statement)
            case .expr(let expression): checkExpressionStatement(expression)
            }
        }
    }

    private mutating func checkLocalDeclaration(_ decl: DeclSyntax) {
        if let variable = decl.as(VariableDeclSyntax.self) {
            if let attribute = variable.attributes.first {
                unsupported(attribute, "the attribute '\(attribute.trimmedText)'", "remove it")
            }
            for modifier in variable.modifiers.fastElements { unsupported(modifier, "the modifier '\(modifier.trimmedText)'", "remove it") }
            for binding in variable.bindings.fastElements {
                checkPattern(binding.pattern, allowBindings: false)
                if let accessors = binding.accessorBlock {
                    unsupported(accessors, "a computed local variable", "assign the value with 'let'")
                }
                if let initializer = binding.initializer { checkExpression(initializer.value) }
            }
        } else if let macro = decl.as(MacroExpansionDeclSyntax.self) {
            unsupported(macro, "the macro '#\(macro.macroName.text)' inside a block", macro.macroName.text == "Playground" ? "#Playground blocks cannot nest; move it to top level" : "remove it")
        } else if let function = decl.as(FunctionDeclSyntax.self) {
            checkFunction(function)
        } else if decl.hasError {
            return
        } else {
            unsupported(decl, "a declaration inside a block", "declare types at top level")
        }
    }

    private mutating func checkStatement(_ statement: StmtSyntax) {
        if let expression = statement.as(ExpressionStmtSyntax.self) {
            checkExpressionStatement(expression.expression)
        } else if let forIn = statement.as(ForStmtSyntax.self) {
            if forIn.caseKeyword != nil { checkPattern(forIn.pattern, allowBindings: true) } else { checkLoopPattern(forIn.pattern) }
            checkExpression(forIn.sequence)
            if let whereClause = forIn.whereClause {
                if forIn.awaitKeyword != nil {
                    unsupported(whereClause, "'where' on a 'for try await' loop", "test the condition with 'if' inside the loop")
                } else {
                    checkExpression(whereClause.condition)
                }
            }
            checkStatements(forIn.body.statements)
        } else if let whileStatement = statement.as(WhileStmtSyntax.self) {
            checkConditions(whileStatement.conditions)
            checkStatements(whileStatement.body.statements)
        } else if let guardStatement = statement.as(GuardStmtSyntax.self) {
            checkConditions(guardStatement.conditions)
            checkStatements(guardStatement.body.statements)
            if !Self.leavesScope(guardStatement.body.statements), !guardStatement.body.hasError {
                unsupported(guardStatement.body, "a 'guard' body that falls through", "end it with return, throw, break or continue")
            }
        } else if let doStatement = statement.as(DoStmtSyntax.self) {
            checkStatements(doStatement.body.statements)
            for clause in doStatement.catchClauses.fastElements {
                for item in clause.catchItems.fastElements {
                    if let pattern = item.pattern { checkPattern(pattern, allowBindings: true) }
                    if let whereClause = item.whereClause { checkExpression(whereClause.condition) }
                }
                checkStatements(clause.body.statements)
            }
        } else if let returnStatement = statement.as(ReturnStmtSyntax.self) {
            if let value = returnStatement.expression { checkExpression(value) }
        } else if let throwStatement = statement.as(ThrowStmtSyntax.self) {
            checkExpression(throwStatement.expression)
        } else if statement.is(BreakStmtSyntax.self) || statement.is(ContinueStmtSyntax.self) || statement.is(FallThroughStmtSyntax.self) {
            return
        } else if let labeled = statement.as(LabeledStmtSyntax.self) {
            checkStatement(labeled.statement)
        } else if let repeatStatement = statement.as(RepeatStmtSyntax.self) {
            checkStatements(repeatStatement.body.statements)
            checkExpression(repeatStatement.condition)
        } else if let deferStatement = statement.as(DeferStmtSyntax.self) {
            checkStatements(deferStatement.body.statements)
        } else if statement.hasError || statement.is(MissingStmtSyntax.self) {
            return
        } else {
            unsupported(statement, "this statement", "use let/var, for-in, if, switch or do/catch")
        }
    }

    /// An expression in statement position: `switch` is a statement here (as a value it is not supported).
    private mutating func checkExpressionStatement(_ expression: ExprSyntax) {
        if let switchExpression = expression.as(SwitchExprSyntax.self) {
            checkSwitch(switchExpression)
        } else {
            checkExpression(expression)
        }
    }

    // MARK: Expressions

    mutating func checkExpression(_ expression: ExprSyntax) {
        if expression.is(MissingExprSyntax.self) { return }
        if let string = expression.as(StringLiteralExprSyntax.self) {
            for segment in string.segments.fastElements {
                if case .expressionSegment(let interpolation) = segment {
                    // (Counted by hand: `filter` on a syntax collection builds a new tree.)
                    var unlabelled = 0
                    for argument in interpolation.expressions where argument.label == nil { unlabelled += 1 }
                    if unlabelled > 1 {
                        unsupported(interpolation.expressions, "several values in one interpolation", "interpolate one value per \\( )")
                    }
                    for argument in interpolation.expressions {
                        if argument.label != nil {
                            unsupported(argument, "a labelled interpolation", "interpolate a plain value: \\(value)")
                        }
                        checkExpression(argument.expression)
                    }
                }
            }
            return
        }
        if let reference = expression.as(DeclReferenceExprSyntax.self), Self.unavailableTypes.contains(reference.baseName.text),
           !declaredNames.contains(reference.baseName.text), !declaredTypes.contains(reference.baseName.text)
        {
            unsupported(reference, "'\(reference.baseName.text)' (UI frameworks, file, network and process I/O, unstructured tasks)",
                        "prompt files run FoundationModels code, Foundation basics and the standard library; keep UI and I/O in the app, do I/O inside a tool, and await calls directly instead of starting a Task")
            return
        }
        if expression.is(IntegerLiteralExprSyntax.self) || expression.is(FloatLiteralExprSyntax.self)
            || expression.is(BooleanLiteralExprSyntax.self) || expression.is(NilLiteralExprSyntax.self)
            || expression.is(DeclReferenceExprSyntax.self) || expression.is(DiscardAssignmentExprSyntax.self)
            || expression.is(SuperExprSyntax.self)
        {
            return
        }
        if let array = expression.as(ArrayExprSyntax.self) {
            for element in array.elements.fastElements { checkExpression(element.expression) }
            return
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self) {
            if case .elements(let elements) = dictionary.content {
                for element in elements.fastElements {
                    checkExpression(element.key)
                    checkExpression(element.value)
                }
            }
            return
        }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            if let base = member.base { checkExpression(base) }
            return
        }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            checkCall(call)
            return
        }
        if let subscriptCall = expression.as(SubscriptCallExprSyntax.self) {
            checkExpression(subscriptCall.calledExpression)
            for argument in subscriptCall.arguments.fastElements { checkExpression(argument.expression) }
            if let closure = subscriptCall.trailingClosure { unsupported(closure, "a closure", "compute the value first") }
            return
        }
        if let tryExpression = expression.as(TryExprSyntax.self) {
            checkExpression(tryExpression.expression)
            return
        }
        if let awaitExpression = expression.as(AwaitExprSyntax.self) {
            checkExpression(awaitExpression.expression)
            return
        }
        if let sequence = expression.as(SequenceExprSyntax.self) {
            for element in sequence.elements.fastElements { checkSequenceElement(element) }
            return
        }
        if let infix = expression.as(InfixOperatorExprSyntax.self) {
            checkExpression(infix.leftOperand)
            checkSequenceElement(infix.operator)
            checkExpression(infix.rightOperand)
            return
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self) {
            if !["-", "!", "~", "..<", "..."].contains(prefix.operator.text) {
                unsupported(prefix.operator, "the operator '\(prefix.operator.text)'", "use -, ! or the arithmetic and comparison operators")
            }
            checkExpression(prefix.expression)
            return
        }
        if let tuple = expression.as(TupleExprSyntax.self) {
            for element in tuple.elements.fastElements { checkExpression(element.expression) }
            return
        }
        if let postfix = expression.as(PostfixOperatorExprSyntax.self) {
            if postfix.operator.text != "..." {
                unsupported(postfix.operator, "the postfix operator '\(postfix.operator.text)'", "use a range such as 1... or 0..<n")
            }
            checkExpression(postfix.expression)
            return
        }
        if let ternary = expression.as(TernaryExprSyntax.self) {
            checkExpression(ternary.condition)
            checkExpression(ternary.thenExpression)
            checkExpression(ternary.elseExpression)
            return
        }
        if let unwrap = expression.as(ForceUnwrapExprSyntax.self) {
            checkExpression(unwrap.expression)
            return
        }
        if let chain = expression.as(OptionalChainingExprSyntax.self) {
            checkExpression(chain.expression)
            return
        }
        if let ifExpression = expression.as(IfExprSyntax.self) {
            checkIf(ifExpression)
            return
        }
        if let switchExpression = expression.as(SwitchExprSyntax.self) {
            checkSwitch(switchExpression)
            return
        }
        if let closure = expression.as(ClosureExprSyntax.self) {
            checkClosure(closure)
            return
        }
        if let inOut = expression.as(InOutExprSyntax.self) {
            checkExpression(inOut.expression)
            return
        }
        if let generic = expression.as(GenericSpecializationExprSyntax.self) {
            checkExpression(generic.expression)
            return
        }
        if let macro = expression.as(MacroExpansionExprSyntax.self), ["expect", "require"].contains(macro.macroName.text) {
            // Swift Testing's #expect / #require: the condition, then an optional comment.
            for argument in macro.arguments.fastElements { checkExpression(argument.expression) }
            return
        }
        if let macro = expression.as(MacroExpansionExprSyntax.self) {
            unsupported(macro, "the macro '#\(macro.macroName.text)' here", macro.macroName.text == "Playground" ? "#Playground blocks cannot nest; move it to top level" : "remove it")
            return
        }
        if let keyPath = expression.as(KeyPathExprSyntax.self) {
            for component in keyPath.components.fastElements {
                guard case .property = component.component else {
                    unsupported(component, "this key path component", "key paths name properties: \\.name or \\.address.city")
                    continue
                }
            }
            return
        }
        if expression.is(RegexLiteralExprSyntax.self) {
            unsupported(expression, "a regex literal in code", "regexes are supported in @Guide(.pattern(...)) only")
            return
        }
        if let cast = expression.as(AsExprSyntax.self) {
            checkExpression(cast.expression)
            return
        }
        if let check = expression.as(IsExprSyntax.self) {
            checkExpression(check.expression)
            return
        }
        if expression.hasError { return }
        unsupported(expression, "the expression '\(Self.shortText(expression))'", "see the supported subset in ARCHITECTURE.md")
    }

    private mutating func checkSequenceElement(_ element: ExprSyntax) {
        if let op = element.as(BinaryOperatorExprSyntax.self) {
            if !Self.binaryOperators.contains(op.operator.text) {
                unsupported(op, "the operator '\(op.operator.text)'", "use + - * / % == != < > <= >= && || ?? ... ..<")
            }
        } else if element.is(AssignmentExprSyntax.self) {
            return
        } else if let ternary = element.as(UnresolvedTernaryExprSyntax.self) {
            checkExpression(ternary.thenExpression)
        } else if element.is(UnresolvedAsExprSyntax.self) || element.is(UnresolvedIsExprSyntax.self) || element.is(TypeExprSyntax.self) {
            return
        } else {
            checkExpression(element)
        }
    }

    private mutating func checkCall(_ call: FunctionCallExprSyntax) {
        let callee = call.calledExpression
        checkExpression(callee)
        if let reference = callee.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil,
           let first = reference.baseName.text.unicodeScalars.first, first.properties.isLowercase,
           !Self.canCall(reference.baseName.text, declared: declaredNames, extending: extendedBuiltin)
        {
            unsupported(reference, "the function '\(reference.baseName.text)(...)'",
                        "prompt files call functions and methods they declare, the standard functions (print, debugPrint, dump, max, min, abs, zip, stride, type(of:), round, sqrt, pow and the other math functions), initializers, and methods of values")
        }
        if let reference = callee.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil,
           let first = reference.baseName.text.unicodeScalars.first, first.properties.isUppercase,
           !declaredNames.contains(reference.baseName.text), !declaredTypes.contains(reference.baseName.text) {
            let name = reference.baseName.text
            if let advice = Self.unsupportedFrameworkTypes[name] {
                unsupported(reference, name, advice)
            } else if !Self.canConstruct(name), !Self.isToolListElement(call) {
                // (An undeclared tool in `tools:` is FM301's.)
                unsupported(reference, "the type '\(name)'",
                            "declare it in this file (a prompt file sees only its own declarations, the FoundationModels API and the standard types)")
            }
        }
        for argument in call.arguments.fastElements { checkExpression(argument.expression) }
        var builderAllowed = false
        var builderName = ""
        if let reference = callee.as(DeclReferenceExprSyntax.self) {
            builderName = reference.baseName.text
            builderAllowed = Self.builderCallees.contains(builderName)
        } else if let member = callee.as(MemberAccessExprSyntax.self) {
            builderName = member.declName.baseName.text
            builderAllowed = Self.builderMethods.contains(member.declName.baseName.text)
                || (member.declName.baseName.text == "init" && Self.builderCallees.contains(member.base?.trimmedText ?? ""))
                || (builderName == "ForEach" && member.base?.trimmedText == "DynamicInstructions")
        }
        if let closure = call.trailingClosure {
            if builderAllowed {
                // `ForEach(items) { item in ... }` names its element; other builders take no parameters.
                if let signature = closure.signature, builderName != "ForEach" { unsupported(signature, "a builder closure signature", "remove it") }
                checkBuilder(closure.statements)
            } else {
                checkClosure(closure)
            }
        }
        for extra in call.additionalTrailingClosures.fastElements { checkClosure(extra.closure) }
    }

    /// Types of frameworks prompt files do not have: UI (SwiftUI, UIKit, AppKit) and
    /// file, network and process I/O outside tools. A file that declares the name itself may use it.
    public static let unavailableTypes: Set<String> = [
        "View", "Text", "Button", "VStack", "HStack", "ZStack", "List", "ForEach", "NavigationStack", "NavigationView",
        "Image", "Color", "Label", "TextField", "TextEditor", "Form", "Section", "ScrollView", "ProgressView", "Toggle",
        "Picker", "Spacer", "Divider", "Group", "Sheet", "Alert", "UIImage", "UIColor", "UIView", "UIViewController",
        "UIApplication", "NSImage", "NSColor", "NSView", "NSApplication", "URLSession", "URLRequest", "FileManager",
        "FileHandle", "Bundle", "ProcessInfo", "Process", "UserDefaults", "NotificationCenter", "DispatchQueue",
        "Timer", "CLLocationManager", "HKHealthStore", "EKEventStore", "CNContactStore", "MKMapView", "Task",
    ]

    /// The type an extension of a standard-library protocol extends in prompt files
    /// (`extension Collection` adds to arrays, `extension StringProtocol` to strings).
    public static func extendedTypeName(_ written: String) -> String {
        let name = written.split(separator: "<").first.map(String.init) ?? written
        switch name {
        case "Collection", "Sequence", "RandomAccessCollection", "BidirectionalCollection", "MutableCollection", "RangeReplaceableCollection":
            return "Array"
        case "StringProtocol", "Substring": return "String"
        case "BinaryInteger", "FixedWidthInteger", "SignedInteger", "Numeric", "SignedNumeric": return "Int"
        case "BinaryFloatingPoint", "FloatingPoint", "Float", "CGFloat": return "Double"
        default: return name
        }
    }

    /// Whether `Name(...)` can run: a type (or type alias, generic parameter) the file declares,
    /// a surface table type, a standard type, or a UI/I-O type (reported as unavailable elsewhere).
    static func canConstruct(_ name: String) -> Bool {
        standardTypes.contains(name) || unavailableTypes.contains(name) || name == "Self"
            || Surface.table.type(named: name) != nil || Surface.table.functions.contains { $0.name == name }
    }

    /// `tools: [X()]`: an element of the array given as `tools:`.
    static func isToolListElement(_ call: FunctionCallExprSyntax) -> Bool {
        guard let array = call.parent?.parent?.parent?.as(ArrayExprSyntax.self) else { return false }
        return array.parent?.as(LabeledExprSyntax.self)?.label?.text == "tools"
    }

    /// Whether a bare call `name(...)` can run: a function or method the file declares, a
    /// standard function, a global function of the surface table, or (inside an extension of a
    /// built-in type) one of that type's members.
    static func canCall(_ name: String, declared: Set<String>, extending builtin: String?) -> Bool {
        if declared.contains(name) || standardFunctions.contains(name) { return true }
        if Surface.table.functions.contains(where: { $0.name == name }) { return true }
        if let builtin, let type = Surface.table.type(named: builtin) { return type.members.contains { $0.name == name } }
        return false
    }

    /// Types the evaluator knows besides the surface table's (standard library and Foundation
    /// types it constructs and converts to); a call to another capitalized name the file does
    /// not declare cannot run.
    public static let standardTypes: Set<String> = [
        "SystemLanguageModel", "LanguageModelSession", "GenerationOptions", "Instructions", "Prompt", "GeneratedContent",
        "String", "Int", "Double", "Float", "Bool", "Array", "Dictionary", "PrivateCloudComputeLanguageModel", "ToolOutput",
        "Set", "Character", "Date", "UUID", "JSONEncoder", "JSONDecoder", "Calendar", "Substring", "Optional", "CGFloat",
        "DateFormatter", "ISO8601DateFormatter", "TimeInterval", "Data", "Locale", "NumberFormatter", "UTF8", "TimeZone",
        "Transcript", "GenerationError", "LanguageModelError", "DynamicGenerationSchema", "GenerationSchema",
        "LanguageModelFeedback", "Profile",
    ]

    /// Framework types fmplay does not implement, with what to use instead.
    public static let unsupportedFrameworkTypes: [String: String] = [
        "JSONLoader": "fmplay has no bundle resources; list the samples in an ArrayLoader",
        "StreamLoader": "list the samples in an ArrayLoader",
        "SampleGenerator": "write the samples in an ArrayLoader",
        "ModelSampleInput": "use ModelSample(prompt:expected:instructions:)",
    ]

    /// The free functions the evaluator provides besides the surface table's global functions.
    public static let standardFunctions: Set<String> = [
        "print", "debugPrint", "dump", "max", "min", "abs", "zip", "stride", "type", "precondition", "assert", "fatalError",
        "preconditionFailure",
    ]

    /// A closure as a value: its body is ordinary statements. Capture lists may
    /// only name `self` (`[weak self]`), since values are captured by reference.
    private mutating func checkClosure(_ closure: ClosureExprSyntax) {
        if let captures = closure.signature?.capture {
            for item in captures.items.fastElements where item.name.text != "self" && item.expression.trimmedText != "self" {
                unsupported(item, "capturing '\(item.trimmedText)' by value", "remove it from the capture list; closures see variables by reference")
            }
        }
        checkStatements(closure.statements)
    }

    /// An `if` and its `else` chain; inside a builder, the branches are builder statements.
    private mutating func checkIf(_ ifExpression: IfExprSyntax, inBuilder: Bool = false) {
        checkConditions(ifExpression.conditions)
        checkBranch(ifExpression.body.statements, inBuilder: inBuilder)
        switch ifExpression.elseBody {
        case .ifExpr(let elseIf)?: checkIf(elseIf, inBuilder: inBuilder)
        case .codeBlock(let block)?: checkBranch(block.statements, inBuilder: inBuilder)
        case nil: break
        }
    }

    private mutating func checkBranch(_ items: CodeBlockItemListSyntax, inBuilder: Bool) {
        if inBuilder { checkBuilder(items) } else { checkStatements(items) }
    }

    /// The conditions of `if`, `while` and `guard`.
    private mutating func checkConditions(_ conditions: ConditionElementListSyntax) {
        for condition in conditions.fastElements {
            switch condition.condition {
            case .expression(let expression):
                checkExpression(expression)
            case .optionalBinding(let binding):
                checkPattern(binding.pattern, allowBindings: false)
                if let initializer = binding.initializer { checkExpression(initializer.value) }
            case .matchingPattern(let matching):
                checkPattern(matching.pattern, allowBindings: true)
                checkExpression(matching.initializer.value)
            case .availability:
                unsupported(condition, "an availability condition", "remove the check; prompt files always run on fmplay's runtime")
            @unknown default:
                unsupported(condition, "this condition", "use a Boolean expression or 'if let'")
            }
        }
    }

    private mutating func checkSwitch(_ switchExpression: SwitchExprSyntax) {
        checkExpression(switchExpression.subject)
        for element in switchExpression.cases.fastElements {
            switch element {
            case .switchCase(let switchCase):
                if case .case(let label) = switchCase.label {
                    for item in label.caseItems.fastElements {
                        checkPattern(item.pattern, allowBindings: true)
                        if let whereClause = item.whereClause { checkExpression(whereClause.condition) }
                    }
                }
                checkStatements(switchCase.statements)
            case .ifConfigDecl(let config):
                unsupported(config, "#if", "remove the conditional compilation")
            }
        }
    }

    // MARK: Builders

    /// The statements of a result builder (`Prompt { }`, `Instructions { }`,
    /// `respond { }`): each expression is a line of the text.
    private mutating func checkBuilder(_ items: CodeBlockItemListSyntax) {
        for item in items.fastElements {
            var element = item.item
            if case .stmt(let statement) = element, let expressionStatement = statement.as(ExpressionStmtSyntax.self) {
                element = .expr(expressionStatement.expression)
            }
            switch element {
            case .decl(let decl):
                checkLocalDeclaration(decl)
            case .expr(let expression):
                if let ifExpression = expression.as(IfExprSyntax.self) {
                    checkIf(ifExpression, inBuilder: true)
                } else if expression.is(SwitchExprSyntax.self) {
                    unsupported(expression.firstToken(viewMode: .sourceAccurate)!, "'switch' inside a builder", "use 'if'/'else', or compute the text before the builder")
                } else {
                    checkExpression(expression)
                }
            case .stmt(let statement):
                if let forIn = statement.as(ForStmtSyntax.self) {
                    if let keyword = forIn.awaitKeyword ?? forIn.tryKeyword ?? forIn.caseKeyword {
                        unsupported(keyword, "'for \(keyword.text)' inside a builder", "loop over an array or a range")
                    }
                    checkLoopPattern(forIn.pattern)
                    checkExpression(forIn.sequence)
                    if let whereClause = forIn.whereClause {
                        unsupported(whereClause, "'where' on a loop inside a builder", "use 'if' inside the loop")
                    }
                    checkBuilder(forIn.body.statements)
                } else if statement.hasError || statement.is(MissingStmtSyntax.self) {
                    continue
                } else {
                    unsupported(statement.firstToken(viewMode: .sourceAccurate) ?? TokenSyntax.identifier(""), "'\(statement.firstToken(viewMode: .sourceAccurate)?.text ?? "this statement")' inside a builder",
                                "builders take expressions, if/else, for-in and let; compute other things before the builder")
                }
            }
        }
    }

    // MARK: Patterns

    /// `for` patterns: a name, `_`, or a tuple of those (`(index, word)`).
    private mutating func checkLoopPattern(_ pattern: PatternSyntax) {
        if let tuple = pattern.as(TuplePatternSyntax.self) {
            for element in tuple.elements.fastElements {
                if let label = element.label { unsupported(label, "a labelled tuple pattern", "bind by position: (index, word)") }
                checkLoopPattern(element.pattern)
            }
            return
        }
        if let binding = pattern.as(ValueBindingPatternSyntax.self) {
            checkLoopPattern(binding.pattern)
            return
        }
        checkPattern(pattern, allowBindings: false)
    }

    private mutating func checkPattern(_ pattern: PatternSyntax, allowBindings: Bool) {
        if pattern.is(IdentifierPatternSyntax.self) || pattern.is(WildcardPatternSyntax.self) || pattern.is(MissingPatternSyntax.self) {
            return
        }
        if let binding = pattern.as(ValueBindingPatternSyntax.self), allowBindings {
            checkPattern(binding.pattern, allowBindings: true)
            return
        }
        if let expressionPattern = pattern.as(ExpressionPatternSyntax.self), allowBindings {
            checkCasePattern(expressionPattern.expression)
            return
        }
        if let tuple = pattern.as(TuplePatternSyntax.self) {
            for element in tuple.elements.fastElements { checkPattern(element.pattern, allowBindings: allowBindings) }
            return
        }
        if pattern.is(IsTypePatternSyntax.self) { return }
        unsupported(pattern, "the pattern '\(pattern.trimmedText)'", "use a name, '_', or an enum case such as .unavailable(let reason)")
    }

    /// `case .available`, `case .unavailable(let reason)`, literals and
    /// qualified cases such as `LanguageModelSession.GenerationError.exceededContextWindowSize`.
    private mutating func checkCasePattern(_ expression: ExprSyntax) {
        if let call = expression.as(FunctionCallExprSyntax.self), call.calledExpression.is(MemberAccessExprSyntax.self) {
            for argument in call.arguments.fastElements {
                if let inner = argument.expression.as(PatternExprSyntax.self) {
                    checkPattern(inner.pattern, allowBindings: true)
                } else {
                    checkCasePattern(argument.expression)
                }
            }
            return
        }
        if let inner = expression.as(PatternExprSyntax.self) {
            checkPattern(inner.pattern, allowBindings: true)
            return
        }
        if let sequence = expression.as(SequenceExprSyntax.self), SyntaxReading.rangeOperands(expression) != nil {
            for element in sequence.elements.fastElements { checkSequenceElement(element) }
            return
        }
        if let tuple = expression.as(TupleExprSyntax.self) {
            for element in tuple.elements.fastElements { checkCasePattern(element.expression) }
            return
        }
        if let optional = expression.as(OptionalChainingExprSyntax.self) {
            checkCasePattern(optional.expression)
            return
        }
        if let sequence = expression.as(SequenceExprSyntax.self) {
            // `let x as T` before folding.
            for element in sequence.elements.fastElements {
                if let inner = element.as(PatternExprSyntax.self) { checkPattern(inner.pattern, allowBindings: true) } else { checkSequenceElement(element) }
            }
            return
        }
        checkExpression(expression)
    }

    /// Whether a block always leaves its scope (ends in return, throw, break or continue).
    static func leavesScope(_ items: CodeBlockItemListSyntax) -> Bool {
        guard let last = items.last else { return false }
        switch last.item {
        case .stmt(let statement):
            if let expression = statement.as(ExpressionStmtSyntax.self)?.expression.as(IfExprSyntax.self) {
                return leavesScope(expression)
            }
            return statement.is(ReturnStmtSyntax.self) || statement.is(ThrowStmtSyntax.self)
                || statement.is(BreakStmtSyntax.self) || statement.is(ContinueStmtSyntax.self)
        case .expr(let expression):
            return expression.as(IfExprSyntax.self).map(leavesScope) ?? false
        case .decl:
            return false
        }
    }

    /// Whether every branch of an `if` leaves the scope (it needs an `else`).
    static func leavesScope(_ ifExpression: IfExprSyntax) -> Bool {
        guard leavesScope(ifExpression.body.statements) else { return false }
        switch ifExpression.elseBody {
        case .codeBlock(let block)?: return leavesScope(block.statements)
        case .ifExpr(let next)?: return leavesScope(next)
        case nil: return false
        }
    }

    private static func shortText(_ node: some SyntaxProtocol) -> String {
        let text = node.trimmedText
        let firstLine = text.prefix { $0 != "\n" }
        return firstLine.count > 40 ? firstLine.prefix(40) + "..." : String(firstLine)
    }
}

/// Whether a subtree awaits, tries or calls a model: such code belongs in a
/// `#Playground` block.
private final class EffectFinder: SyntaxVisitor {
    var found = false

    override func visit(_ node: AwaitExprSyntax) -> SyntaxVisitorContinueKind {
        found = true
        return .skipChildren
    }

    override func visit(_ node: TryExprSyntax) -> SyntaxVisitorContinueKind {
        found = true
        return .skipChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let callee = node.calledExpression.trimmedText
        if callee == "LanguageModelSession" || callee == "print" || callee.hasSuffix(".respond") || callee.hasSuffix(".streamResponse") {
            found = true
            return .skipChildren
        }
        return .visitChildren
    }
}

/// The names a file declares anywhere (functions, variables, parameters,
/// closure parameters, pattern bindings).
final class DeclaredNames: SyntaxVisitor {
    var names: Set<String> = []

    static func collect(in node: Syntax) -> Set<String> {
        let visitor = DeclaredNames(viewMode: .sourceAccurate)
        visitor.walk(node)
        return visitor.names
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: IdentifierPatternSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.identifier.text)
        return .visitChildren
    }

    override func visit(_ node: FunctionParameterSyntax) -> SyntaxVisitorContinueKind {
        names.insert((node.secondName ?? node.firstName).text)
        return .visitChildren
    }

    override func visit(_ node: ClosureShorthandParameterSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: ClosureParameterSyntax) -> SyntaxVisitorContinueKind {
        names.insert((node.secondName ?? node.firstName).text)
        return .visitChildren
    }

    override func visit(_ node: EnumCaseElementSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: AssociatedTypeDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: GenericParameterSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
}
