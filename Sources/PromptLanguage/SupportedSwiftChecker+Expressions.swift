import Surface
import SwiftSyntax

/// Expressions, calls and closures.
extension SupportedSwiftChecker {
    // MARK: Expressions

    mutating func checkExpression(_ expression: ExprSyntax) {
        if expression.is(MissingExprSyntax.self) { return }
        if let string = expression.as(StringLiteralExprSyntax.self) {
            checkInterpolations(string)
            return
        }
        if let inner = Self.wrappedExpression(expression) {
            checkExpression(inner)
            return
        }
        if expression.is(MemberAccessExprSyntax.self) { return }  // `.member`: no base to check
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
        if checkOperators(expression) || checkMacroOrKeyPath(expression) { return }
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
        if let tuple = expression.as(TupleExprSyntax.self) {
            for element in tuple.elements.fastElements { checkExpression(element.expression) }
            return
        }
        if let ternary = expression.as(TernaryExprSyntax.self) {
            checkExpression(ternary.condition)
            checkExpression(ternary.thenExpression)
            checkExpression(ternary.elseExpression)
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
        if expression.is(RegexLiteralExprSyntax.self) {
            unsupported(expression, "a regex literal in code", "regexes are supported in @Guide(.pattern(...)) only")
            return
        }
        if expression.hasError { return }
        unsupported(expression, "the expression '\(Self.shortText(expression))'", "see the supported subset in ARCHITECTURE.md")
    }

    /// Operator expressions: sequences, folded infix, prefix (`-`, `!`, `~`, ranges) and postfix `...`.
    /// True when `expression` is one (checked).
    mutating func checkOperators(_ expression: ExprSyntax) -> Bool {
        if let sequence = expression.as(SequenceExprSyntax.self) {
            for element in sequence.elements.fastElements { checkSequenceElement(element) }
            return true
        }
        if let infix = expression.as(InfixOperatorExprSyntax.self) {
            checkExpression(infix.leftOperand)
            checkSequenceElement(infix.operator)
            checkExpression(infix.rightOperand)
            return true
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self) {
            if !["-", "!", "~", "..<", "..."].contains(prefix.operator.text) {
                unsupported(prefix.operator, "the operator '\(prefix.operator.text)'", "use -, ! or the arithmetic and comparison operators")
            }
            checkExpression(prefix.expression)
            return true
        }
        if let postfix = expression.as(PostfixOperatorExprSyntax.self) {
            if postfix.operator.text != "..." {
                unsupported(postfix.operator, "the postfix operator '\(postfix.operator.text)'", "use a range such as 1... or 0..<n")
            }
            checkExpression(postfix.expression)
            return true
        }
        return false
    }

    /// `#expect`/`#require` (their arguments), any other macro (unsupported here) and key paths (properties only).
    /// True when `expression` is one (checked).
    mutating func checkMacroOrKeyPath(_ expression: ExprSyntax) -> Bool {
        if let macro = expression.as(MacroExpansionExprSyntax.self), ["expect", "require"].contains(macro.macroName.text) {
            // Swift Testing's #expect / #require: the condition, then an optional comment.
            for argument in macro.arguments.fastElements { checkExpression(argument.expression) }
            return true
        }
        if let macro = expression.as(MacroExpansionExprSyntax.self) {
            unsupported(macro, "the macro '#\(macro.macroName.text)' here", macro.macroName.text == "Playground" ? "#Playground blocks cannot nest; move it to top level" : "remove it")
            return true
        }
        if let keyPath = expression.as(KeyPathExprSyntax.self) {
            for component in keyPath.components.fastElements {
                guard case .property = component.component else {
                    unsupported(component, "this key path component", "key paths name properties: \\.name or \\.address.city")
                    continue
                }
            }
            return true
        }
        return false
    }

    /// The expression a wrapper expression checks as it is: `try x`, `await x`, `x!`, `x?`, `&x`,
    /// `X<T>`, `x as T`, `x is T`, and the base of `x.member`.
    static func wrappedExpression(_ expression: ExprSyntax) -> ExprSyntax? {
        if let e = expression.as(TryExprSyntax.self) { return e.expression }
        if let e = expression.as(AwaitExprSyntax.self) { return e.expression }
        if let e = expression.as(ForceUnwrapExprSyntax.self) { return e.expression }
        if let e = expression.as(OptionalChainingExprSyntax.self) { return e.expression }
        if let e = expression.as(InOutExprSyntax.self) { return e.expression }
        if let e = expression.as(GenericSpecializationExprSyntax.self) { return e.expression }
        if let e = expression.as(AsExprSyntax.self) { return e.expression }
        if let e = expression.as(IsExprSyntax.self) { return e.expression }
        if let e = expression.as(MemberAccessExprSyntax.self) { return e.base }
        return nil
    }

    /// A string literal's interpolations: one unlabelled value each.
    mutating func checkInterpolations(_ string: StringLiteralExprSyntax) {
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
    }

    mutating func checkSequenceElement(_ element: ExprSyntax) {
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

    mutating func checkCall(_ call: FunctionCallExprSyntax) {
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
            // (An undeclared tool in `tools:` is FM301's, an Evaluations type fmplay does not implement FM313's,
            // a FoundationModels 27 type fmplay does not implement FM314's.)
            if !Self.canConstruct(name), !Self.isToolListElement(call), EvaluationsChecks.unsupportedTypes[name] == nil,
               UnimplementedAPIChecks.unimplemented[name] == nil {
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


    /// A closure as a value: its body is ordinary statements. Capture lists may
    /// only name `self` (`[weak self]`), since values are captured by reference.
    mutating func checkClosure(_ closure: ClosureExprSyntax) {
        if let captures = closure.signature?.capture {
            for item in captures.items.fastElements where item.name.text != "self" && item.expression.trimmedText != "self" {
                unsupported(item, "capturing '\(item.trimmedText)' by value", "remove it from the capture list; closures see variables by reference")
            }
        }
        checkStatements(closure.statements)
    }

    static func shortText(_ node: some SyntaxProtocol) -> String {
        let text = node.trimmedText
        let firstLine = text.prefix { $0 != "\n" }
        return firstLine.count > 40 ? firstLine.prefix(40) + "..." : String(firstLine)
    }
}
