import PromptLanguage
import Surface
import Synchronization
import SwiftSyntax

/// The file's own callables as signature forms: free functions, methods,
/// initializers, and the memberwise initializer of a struct without one.
struct FileSignatures {
    struct Entry {
        /// The enclosing type's qualified name (`Trip.Day`), nil for a free function.
        var owner: String?
        /// `init` for initializers.
        var name: String
        var isStatic: Bool
        var form: SignatureForm
    }

    var entries: [Entry] = []

    init(file: PromptFile) {
        let collector = Collector(viewMode: .sourceAccurate)
        collector.walk(file.syntax)
        entries = collector.entries
    }

    /// The signatures of the last file asked about: signature help asks again at every `(` and `,`
    /// typed into one version of a document, and walking a 2,000-line file each time cost 140 ms
    /// (debug build). Keyed by the text itself (a syntax tree's identifier can repeat across parses):
    /// comparing 100 KB is microseconds, and a new version never sees stale entries.
    static func of(_ file: PromptFile) -> FileSignatures {
        let key = file.source.text
        if let hit = last.withLock({ $0?.key == key ? $0?.signatures : nil }) { return hit }
        let signatures = FileSignatures(file: file)
        last.withLock { $0 = (key, signatures) }
        return signatures
    }

    private static let last = Mutex<(key: String, signatures: FileSignatures)?>(nil)

    /// The forms a call may mean. `name(`: the initializers of a type the file declares,
    /// else free functions and the enclosing type's methods; `Type.name(`: that type's
    /// static methods (or initializers); `value.name(`: every method of that name.
    func forms(of call: FunctionCallExprSyntax) -> [SignatureForm] {
        func owned(by owner: String?, _ name: String) -> Bool {
            guard let owner else { return false }
            return owner == name || owner.hasSuffix("." + name)
        }
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            let initializers = entries.filter { $0.name == "init" && owned(by: $0.owner, name) }
            if !initializers.isEmpty { return initializers.map(\.form) }
            let enclosing = Collector.ownerName(of: Syntax(call), throughBodies: true)
            return entries.filter { $0.name == name && ($0.owner == nil || ($0.owner == enclosing && enclosing != nil)) }.map(\.form)
        }
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base else { return [] }
        let name = member.declName.baseName.text
        if let typeName = base.as(DeclReferenceExprSyntax.self)?.baseName.text ?? base.as(MemberAccessExprSyntax.self)?.trimmedDescription,
           entries.contains(where: { owned(by: $0.owner, typeName) }) {
            return entries.filter { owned(by: $0.owner, typeName) && $0.name == name && ($0.isStatic || name == "init") }.map(\.form)
        }
        return entries.filter { $0.owner != nil && $0.name == name && !$0.isStatic }.map(\.form)
    }

    private final class Collector: SyntaxVisitor {
        var entries: [Entry] = []

        override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
            let parameters = node.signature.parameterClause.parameters
            let tail = [node.signature.effectSpecifiers?.trimmedDescription, node.signature.returnClause?.trimmedDescription]
                .compactMap { $0 }.map { " " + $0 }.joined()
            entries.append(Entry(owner: Self.ownerName(of: Syntax(node)), name: node.name.text, isStatic: Self.isStatic(node.modifiers),
                                 form: Self.form(head: node.name.text + "(", parameters, tail: tail, documentation: Self.documentation(node.leadingTrivia))))
            return .visitChildren
        }

        override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
            guard let owner = Self.ownerName(of: Syntax(node)) else { return .visitChildren }
            let typeName = owner.split(separator: ".").last.map(String.init) ?? owner
            // A failable initializer reads `Budget(text: String) -> Budget?`.
            let tail = (node.signature.effectSpecifiers.map { " " + $0.trimmedDescription } ?? "")
                + (node.optionalMark.map { " -> \(typeName)\($0.text)" } ?? "")
            let head = typeName + "("
            entries.append(Entry(owner: owner, name: "init", isStatic: true,
                                 form: Self.form(head: head, node.signature.parameterClause.parameters, tail: tail,
                                                 documentation: Self.documentation(node.leadingTrivia))))
            return .visitChildren
        }

        override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
            let members = node.memberBlock.members.map(\.decl)
            guard !members.contains(where: { $0.is(InitializerDeclSyntax.self) }) else { return .visitChildren }
            // The memberwise initializer: stored instance properties in order; `let` with a value is left out.
            var texts: [String] = []
            var parameters: [SurfaceParameter] = []
            for variable in members.compactMap({ $0.as(VariableDeclSyntax.self) }) where !Self.isStatic(variable.modifiers) {
                let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
                for binding in variable.bindings {
                    guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, Self.isStored(binding),
                          !(isLet && binding.initializer != nil) else { continue }
                    let type = binding.typeAnnotation?.type.trimmedDescription
                    let value = binding.initializer?.value.trimmedDescription
                    texts.append(name + (type.map { ": " + $0 } ?? "") + (value.map { " = " + $0 } ?? ""))
                    parameters.append(SurfaceParameter(label: name, type: type ?? "_", hasDefault: value != nil))
                }
            }
            let owner = Self.ownerName(of: Syntax(node.memberBlock)) ?? node.name.text
            entries.append(Entry(owner: owner, name: "init", isStatic: true,
                                 form: SignatureForm(head: node.name.text + "(", texts: texts, parameters: parameters, tail: "",
                                                     documentation: "The memberwise initializer of \(owner).")))
            return .visitChildren
        }

        static func form(head: String, _ parameters: FunctionParameterListSyntax, tail: String, documentation: String?) -> SignatureForm {
            var texts: [String] = []
            var surface: [SurfaceParameter] = []
            for parameter in parameters {
                let type = parameter.type.trimmedDescription + (parameter.ellipsis != nil ? "..." : "")
                let names = [parameter.firstName.text, parameter.secondName?.text].compactMap { $0 }.joined(separator: " ")
                let value = parameter.defaultValue?.value.trimmedDescription
                texts.append(names + ": " + type + (value.map { " = " + $0 } ?? ""))
                let label = parameter.firstName.text
                surface.append(SurfaceParameter(label: label == "_" ? nil : label, type: type, hasDefault: value != nil))
            }
            return SignatureForm(head: head, texts: texts, parameters: surface, tail: tail, documentation: documentation)
        }

        static func ownerName(of node: Syntax, throughBodies: Bool = false) -> String? {
            DeclarationScope.ownerName(of: node, throughBodies: throughBodies)
        }

        static func isStatic(_ modifiers: DeclModifierListSyntax) -> Bool {
            modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
        }

        /// No accessors, or only observers.
        static func isStored(_ binding: PatternBindingSyntax) -> Bool {
            guard let block = binding.accessorBlock else { return true }
            guard case .accessors(let accessors) = block.accessors else { return false }
            return accessors.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
        }

        /// `///` lines before a declaration, joined.
        static func documentation(_ trivia: Trivia) -> String? {
            let lines = trivia.compactMap { piece -> String? in
                guard case .docLineComment(let text) = piece else { return nil }
                return String(text.dropFirst(3).drop { $0 == " " })
            }
            return lines.isEmpty ? nil : lines.joined(separator: " ")
        }
    }
}
