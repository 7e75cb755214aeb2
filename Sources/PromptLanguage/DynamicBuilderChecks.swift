import SwiftSyntax

/// FM315: statements the FoundationModels 27.0 result builders cannot hold,
/// found before the block runs (the evaluator would stop at them).
///
/// - A `for` loop in a dynamic instructions body (the
///   `body` of a `DynamicInstructions` or `DynamicProfile` type, a
///   `Profile { }` or a `DynamicInstructions.ForEach { }`): the builder has no
///   `buildArray`, so the fix is `DynamicInstructions.ForEach`.
/// - A `DynamicProfile` body that lists two profiles side by side: a body must
///   resolve to exactly one `Profile` (if/else and switch branches are checked
///   one by one).
struct DynamicBuilderChecks {
    let file: PromptFile

    func run() -> [Diagnostic] {
        let visitor = Visitor(source: file.source)
        visitor.walk(file.syntax)
        return visitor.diagnostics
    }

    private enum Body { case instructions, profile }

    private final class Visitor: SyntaxVisitor {
        let source: SourceText
        var diagnostics: [Diagnostic] = []

        init(source: SourceText) {
            self.source = source
            super.init(viewMode: .sourceAccurate)
        }

        override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
            checkType(node.inheritanceClause, node.memberBlock)
            return .visitChildren
        }

        override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
            checkType(node.inheritanceClause, node.memberBlock)
            return .visitChildren
        }

        override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
            checkType(node.inheritanceClause, node.memberBlock)
            return .visitChildren
        }

        override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
            let callee = node.calledExpression.trimmedDescription
            if ["Profile", "LanguageModelSession.Profile", "ForEach", "DynamicInstructions.ForEach"].contains(callee),
               let closure = node.trailingClosure {
                check(closure.statements, as: .instructions)
            }
            return .visitChildren
        }

        /// The `body` of a type conforming to `DynamicInstructions` or `DynamicProfile`.
        func checkType(_ inheritance: InheritanceClauseSyntax?, _ members: MemberBlockSyntax) {
            let conformances = inheritance?.inheritedTypes.map { $0.type.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" } ?? []
            let kind: Body
            if conformances.contains("DynamicProfile") {
                kind = .profile
            } else if conformances.contains("DynamicInstructions") {
                kind = .instructions
            } else {
                return
            }
            for member in members.members {
                guard let variable = member.decl.as(VariableDeclSyntax.self),
                      let binding = variable.bindings.first,
                      binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "body",
                      let accessors = binding.accessorBlock?.accessors else { continue }
                switch accessors {
                case .getter(let statements): check(statements, as: kind)
                case .accessors(let list):
                    for accessor in list where accessor.accessorSpecifier.tokenKind == .keyword(.get) {
                        if let statements = accessor.body?.statements { check(statements, as: kind) }
                    }
                }
            }
        }

        func check(_ statements: CodeBlockItemListSyntax, as kind: Body) {
            var profiles = 0
            for item in statements {
                let node: Syntax
                switch item.item {
                case .stmt(let statement):
                    node = Syntax(statement.as(ExpressionStmtSyntax.self)?.expression ?? ExprSyntax(MissingExprSyntax()))
                    // (`while` and `repeat` are FM306 in every builder.)
                    if statement.is(ForStmtSyntax.self) {
                        report(statement, "a for loop is not allowed in a dynamic instructions or profile body (the builder has no buildArray); "
                               + "write DynamicInstructions.ForEach(items) { item in ... }")
                        continue
                    }
                    if statement.is(ExpressionStmtSyntax.self) == false { continue }
                case .expr(let expression): node = Syntax(expression)
                case .decl: continue
                }
                if let branch = node.as(IfExprSyntax.self) {
                    checkBranches(branch, as: kind)
                } else if let choice = node.as(SwitchExprSyntax.self) {
                    for element in choice.cases {
                        if case .switchCase(let switchCase) = element { check(switchCase.statements, as: kind) }
                    }
                } else if kind == .profile, !node.is(MissingExprSyntax.self) {
                    profiles += 1
                    if profiles == 2 {
                        report(node, "a dynamic profile's body must resolve to exactly one Profile, and this is a second one; "
                               + "choose one with if/else or an exhaustive switch")
                    }
                }
            }
        }

        func checkBranches(_ branch: IfExprSyntax, as kind: Body) {
            check(branch.body.statements, as: kind)
            switch branch.elseBody {
            case .codeBlock(let block)?: check(block.statements, as: kind)
            case .ifExpr(let next)?: checkBranches(next, as: kind)
            case nil: break
            }
        }

        /// Reported at the statement's first token (`for`, `Profile`), not across its whole body.
        func report(_ node: some SyntaxProtocol, _ message: String) {
            let start = node.positionAfterSkippingLeadingTrivia.utf8Offset
            let end = (node.firstToken(viewMode: .sourceAccurate)?.endPositionBeforeTrailingTrivia ?? node.endPositionBeforeTrailingTrivia).utf8Offset
            diagnostics.append(Diagnostic(.dynamicBuilder, at: source.range(start..<end), message))
        }
    }
}
