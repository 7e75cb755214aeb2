import SwiftSyntax

/// Statements, conditions, `switch`, builders and patterns.
extension SupportedSwiftChecker {
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

    mutating func checkLocalDeclaration(_ decl: DeclSyntax) {
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

    mutating func checkStatement(_ statement: StmtSyntax) {
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
    mutating func checkExpressionStatement(_ expression: ExprSyntax) {
        if let switchExpression = expression.as(SwitchExprSyntax.self) {
            checkSwitch(switchExpression)
        } else {
            checkExpression(expression)
        }
    }

    /// An `if` and its `else` chain; inside a builder, the branches are builder statements.
    mutating func checkIf(_ ifExpression: IfExprSyntax, inBuilder: Bool = false) {
        checkConditions(ifExpression.conditions)
        checkBranch(ifExpression.body.statements, inBuilder: inBuilder)
        switch ifExpression.elseBody {
        case .ifExpr(let elseIf)?: checkIf(elseIf, inBuilder: inBuilder)
        case .codeBlock(let block)?: checkBranch(block.statements, inBuilder: inBuilder)
        case nil: break
        }
    }

    mutating func checkBranch(_ items: CodeBlockItemListSyntax, inBuilder: Bool) {
        if inBuilder { checkBuilder(items) } else { checkStatements(items) }
    }

    /// The conditions of `if`, `while` and `guard`.
    mutating func checkConditions(_ conditions: ConditionElementListSyntax) {
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
                break  // `#available(iOS 27.0, *)` holds: prompt files run as on the newest OS (27.0)
            @unknown default:
                unsupported(condition, "this condition", "use a Boolean expression or 'if let'")
            }
        }
    }

    mutating func checkSwitch(_ switchExpression: SwitchExprSyntax) {
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
    mutating func checkBuilder(_ items: CodeBlockItemListSyntax) {
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
    mutating func checkLoopPattern(_ pattern: PatternSyntax) {
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

    mutating func checkPattern(_ pattern: PatternSyntax, allowBindings: Bool) {
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
    mutating func checkCasePattern(_ expression: ExprSyntax) {
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

}
