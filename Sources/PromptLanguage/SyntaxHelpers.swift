import SwiftSyntax

/// Small, shared readings of syntax nodes.
extension SourceText {
    /// The range of a node without its surrounding trivia.
    func range(of node: some SyntaxProtocol) -> SourceRange {
        let start = node.positionAfterSkippingLeadingTrivia.utf8Offset
        let end = node.endPositionBeforeTrailingTrivia.utf8Offset
        return range(start..<max(start, end))
    }

    func range(ofToken token: TokenSyntax) -> SourceRange { range(of: token) }
}

extension SyntaxProtocol {
    /// The node's text without its leading and trailing trivia; the same as
    /// swift-syntax's `trimmedDescription`, which builds a trimmed copy of the
    /// tree first (that copy was a fifth of the lint time of a large file).
    public var trimmedText: String {
        let bytes = syntaxTextBytes
        let leading = leadingTriviaLength.utf8Length
        let trailing = trailingTriviaLength.utf8Length
        guard leading + trailing < bytes.count else { return "" }
        return String(decoding: bytes[leading..<(bytes.count - trailing)], as: UTF8.self)
    }
}

enum SyntaxReading {
    /// The text of a node without trivia.
    static func text(_ node: some SyntaxProtocol) -> String { node.trimmedText }

    /// The name of an attribute (`Generable`, `Guide`), without module qualification.
    static func attributeName(_ attribute: AttributeSyntax) -> String {
        if let identifier = attribute.attributeName.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return identifier.name.text  // the common case, without building the text
        }
        let text = attribute.attributeName.trimmedText
        return text.split(separator: ".").last.map(String.init) ?? text
    }

    /// The `@Test` attribute of a function (Swift Testing), if it has one.
    static func testAttribute(_ list: AttributeListSyntax) -> AttributeSyntax? {
        attributes(list).first { attributeName($0) == "Test" }
    }

    /// Where a `@Test` function is declared, which decides whether fmplay runs it.
    enum TestPlacement: Equatable {
        /// A top-level function: a block.
        case topLevel
        /// An instance method of a struct, class or actor (a suite, possibly nested): a block run on `Suite()`.
        case suiteMember
        /// A placement fmplay does not run, with the reason and the fix.
        case unsupported(String)
    }

    /// Where `function` (which has `@Test`) is declared; everything that is not a top-level function or an
    /// instance method without parameters of a struct, class or actor (nested in such types or at the top level)
    /// is `.unsupported`, so a test is never skipped silently.
    static func testPlacement(_ function: FunctionDeclSyntax) -> TestPlacement {
        let name = function.name.text
        if !function.signature.parameterClause.parameters.isEmpty || function.genericParameterClause != nil {
            return .unsupported("@Test function '\(name)' takes parameters; fmplay runs a @Test function once, without arguments")
        }
        if function.parent?.is(CodeBlockItemSyntax.self) == true, function.parent?.parent?.parent?.is(SourceFileSyntax.self) == true {
            return .topLevel
        }
        guard function.parent?.is(MemberBlockItemSyntax.self) == true else {
            return .unsupported("@Test function '\(name)' is a local function, which Swift Testing never runs; declare it at the top level or in a struct")
        }
        if function.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
            return .unsupported("static @Test function '\(name)' is not supported in prompt files; make it an instance method of its struct")
        }
        var member = Syntax(function)
        while let owner = member.parent?.parent?.parent?.parent {  // MemberBlockItem, MemberBlockItemList, MemberBlock, decl
            switch owner.kind {
            case .structDecl, .classDecl, .actorDecl: break
            case .extensionDecl:
                return .unsupported("@Test function '\(name)' in an extension is not supported in prompt files; declare it inside the struct itself")
            default:
                return .unsupported("@Test function '\(name)' in \(owner.kind == .enumDecl ? "an enum" : "this declaration") is not supported in prompt files; "
                                    + "declare it at the top level or in a struct")
            }
            if owner.parent?.is(CodeBlockItemSyntax.self) == true, owner.parent?.parent?.parent?.is(SourceFileSyntax.self) == true { return .suiteMember }
            guard owner.parent?.is(MemberBlockItemSyntax.self) == true else {
                return .unsupported("@Test function '\(name)' is in a local type, which Swift Testing never runs; declare the type at the top level")
            }
            member = owner
        }
        return .unsupported("@Test function '\(name)' is not in a type fmplay can run; declare it at the top level or in a struct")
    }

    static func attributes(_ list: AttributeListSyntax) -> [AttributeSyntax] {
        var result: [AttributeSyntax] = []
        for element in list.fastElements {
            if case .attribute(let attribute) = element { result.append(attribute) }
        }
        return result
    }

    static func arguments(_ attribute: AttributeSyntax) -> LabeledExprListSyntax? {
        if case .argumentList(let list) = attribute.arguments { return list }
        return nil
    }

    /// A statically known literal: strings without interpolation, numbers
    /// (with a leading minus), booleans, nil and arrays of those.
    static func literal(_ expression: ExprSyntax) -> LiteralValue? {
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return string.representedLiteralValue.map(LiteralValue.string)
        }
        if let integer = expression.as(IntegerLiteralExprSyntax.self) {
            return integer.representedLiteralValue.map(LiteralValue.integer)
        }
        if let float = expression.as(FloatLiteralExprSyntax.self) {
            return float.representedLiteralValue.map(LiteralValue.double)
        }
        if let boolean = expression.as(BooleanLiteralExprSyntax.self) {
            return .boolean(boolean.literal.tokenKind == .keyword(.true))
        }
        if expression.is(NilLiteralExprSyntax.self) { return .null }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            switch literal(prefix.expression) {
            case .integer(let value): return .integer(-value)
            case .double(let value): return .double(-value)
            default: return nil
            }
        }
        if let array = expression.as(ArrayExprSyntax.self) {
            var values: [LiteralValue] = []
            for element in array.elements.fastElements {
                guard let value = literal(element.expression) else { return nil }
                values.append(value)
            }
            return .array(values)
        }
        if let tuple = expression.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
            only.label == nil
        {
            return literal(only.expression)
        }
        return nil
    }

    /// `a...b` or `a..<b` as written (operands and the operator), from the
    /// unfolded sequence the parser produces.
    static func rangeOperands(_ expression: ExprSyntax) -> (lower: ExprSyntax, op: String, upper: ExprSyntax)? {
        if let sequence = expression.as(SequenceExprSyntax.self), sequence.elements.count == 3 {
            let elements = Array(sequence.elements)
            if let op = elements[1].as(BinaryOperatorExprSyntax.self), op.operator.text == "..." || op.operator.text == "..<" {
                return (elements[0], op.operator.text, elements[2])
            }
        }
        if let infix = expression.as(InfixOperatorExprSyntax.self), let op = infix.operator.as(BinaryOperatorExprSyntax.self),
            op.operator.text == "..." || op.operator.text == "..<"
        {
            return (infix.leftOperand, op.operator.text, infix.rightOperand)
        }
        return nil
    }

    /// The labelled argument of a call, if present.
    static func argument(_ label: String, in arguments: LabeledExprListSyntax) -> LabeledExprSyntax? {
        arguments.fastElements.first { $0.label?.text == label }
    }

    /// The member name of `.name` or `Base.name`, and the base text.
    static func memberAccess(_ expression: ExprSyntax) -> (base: String?, name: String)? {
        guard let member = expression.as(MemberAccessExprSyntax.self) else { return nil }
        return (member.base?.trimmedText, member.declName.baseName.text)
    }

    /// The type named by `T.self`, `T()` or `T(...)`, or a plain `T` reference.
    static func typeName(of expression: ExprSyntax) -> String? {
        if let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
            let base = member.base
        {
            return base.trimmedText
        }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            let callee = call.calledExpression
            if callee.is(DeclReferenceExprSyntax.self) || callee.is(MemberAccessExprSyntax.self) {
                return callee.trimmedText
            }
        }
        return nil
    }

    /// The variable a value is bound to: `let name = <expression>`, walking
    /// through `try` and `await`.
    static func boundVariableName(of node: some SyntaxProtocol) -> String? {
        var current = Syntax(node)
        while let parent = current.parent {
            if parent.is(TryExprSyntax.self) || parent.is(AwaitExprSyntax.self) {
                current = parent
                continue
            }
            if let initializer = parent.as(InitializerClauseSyntax.self),
                let binding = initializer.parent?.as(PatternBindingSyntax.self),
                let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
            {
                return identifier.identifier.text
            }
            return nil
        }
        return nil
    }
}

/// The elements of a syntax collection, iterated without swift-syntax's
/// `SyntaxCollectionIterator`: its `next()` is generic and not specialized
/// across modules, so every element cost a generic-metadata lookup under a
/// lock (about a tenth of the analysis of a large file). Here the element
/// type is known at the call site and the children are plain `Syntax`.
struct SyntaxElements<Element: SyntaxProtocol>: Sequence {
    let children: SyntaxChildren

    func makeIterator() -> Iterator { Iterator(base: children.makeIterator()) }

    struct Iterator: IteratorProtocol {
        var base: SyntaxChildren.Iterator

        mutating func next() -> Element? {
            while let child = base.next() {
                if let element = Element(child) { return element }
            }
            return nil
        }
    }
}

extension SyntaxCollection {
    /// The elements in order (the same as iterating the collection, faster).
    var fastElements: SyntaxElements<Element> { SyntaxElements(children: children(viewMode: .all)) }
}
