import PromptLanguage
import SwiftSyntax

/// Finds Swift that prompt files do not support inside a block, before it runs.
/// (The front end's checker reports the file-wide subset; this catches what
/// the interpreter itself cannot execute.)
package enum UnsupportedSyntax {
    package static func find(in body: CodeBlockItemListSyntax, source: SourceText) -> [(range: PromptLanguage.SourceRange, message: String)] {
        let visitor = Visitor(viewMode: .sourceAccurate)
        visitor.walk(body)
        return visitor.found.map { node, what in
            (source.range(node.positionAfterSkippingLeadingTrivia.utf8Offset..<node.endPositionBeforeTrailingTrivia.utf8Offset),
             "\(what) is not supported in prompt files")
        }
    }

    final class Visitor: SyntaxVisitor {
        var found: [(Syntax, String)] = []

        private func flag(_ node: some SyntaxProtocol, _ what: String) -> SyntaxVisitorContinueKind {
            found.append((Syntax(node), what))
            return .skipChildren
        }

        override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { flag(node, "a type declaration inside #Playground (declare it at the top level)") }
        override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { flag(node, "a type declaration inside #Playground (declare it at the top level)") }
        override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { flag(node, "a class declaration inside #Playground (declare it at the top level)") }
        override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { flag(node, "an actor declaration inside #Playground (declare it at the top level)") }
        override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { flag(node, "a protocol declaration inside #Playground (declare it at the top level)") }
        override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind { flag(node, "an extension inside #Playground (declare it at the top level)") }
        override func visit(_ node: RegexLiteralExprSyntax) -> SyntaxVisitorContinueKind { flag(node, "a regex literal") }
        override func visit(_ node: MacroExpansionExprSyntax) -> SyntaxVisitorContinueKind {
            // Swift Testing's #expect and #require are interpreted (Interpreter.expectation).
            ["expect", "require"].contains(node.macroName.text) ? .visitChildren : flag(node, "the macro '#\(node.macroName.text)'")
        }
        override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind { flag(node, "typealias") }
    }
}
