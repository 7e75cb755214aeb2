import SwiftSyntax

/// Types the file's own declarations make certain: a function's or initializer's parameter with a
/// written type (a tool's `call(arguments: Arguments)`), and a stored property of one of the file's
/// types whose type is written (`arguments.city` is a String). Only what is certain: a parameter a
/// closure or a local binding shadows, a variadic or `inout` one, or a property without a written
/// type gives nothing, so the checker says nothing about it.
extension SurfaceInference {
    /// What a name refers to when it may be a parameter of an enclosing function or initializer.
    enum ParameterLookup {
        /// No enclosing function or closure declares the name: the file's other bindings decide.
        case notAParameter
        /// A parameter (or a closure's, or one rebound in the body) whose type is not certain.
        case unknown
        /// A parameter with this written type, declared inside this type (for nested names such as `Arguments`).
        case typed(TypeSyntax, scope: String?)
    }

    func parameterLookup(_ reference: DeclReferenceExprSyntax) -> ParameterLookup {
        let name = reference.baseName.text
        var node = Syntax(reference).parent
        while let current = node {
            if let closure = current.as(ClosureExprSyntax.self), Self.closure(closure, binds: name) { return .unknown }
            let parameters: FunctionParameterClauseSyntax?
            let body: Syntax?
            if let function = current.as(FunctionDeclSyntax.self) {
                parameters = function.signature.parameterClause
                body = function.body.map(Syntax.init)
            } else if let initializer = current.as(InitializerDeclSyntax.self) {
                parameters = initializer.signature.parameterClause
                body = initializer.body.map(Syntax.init)
            } else {
                parameters = nil
                body = nil
            }
            if let parameters, let parameter = parameters.parameters.first(where: { ($0.secondName ?? $0.firstName).text == name }) {
                guard parameter.ellipsis == nil, !parameter.type.is(AttributedTypeSyntax.self), let body, !Self.binds(name, in: body) else {
                    return .unknown
                }
                return .typed(parameter.type, scope: DeclarationScope.ownerName(of: current, throughBodies: true))
            }
            node = current.parent
        }
        return .notAParameter
    }

    /// The written type of the parameter a name refers to, when certain.
    func parameterType(of reference: DeclReferenceExprSyntax) -> (type: TypeSyntax, scope: String?)? {
        if case .typed(let type, let scope) = parameterLookup(reference) { return (type, scope) }
        return nil
    }

    /// The file type a value has, when certain: a parameter typed with one of the file's types, a
    /// name every binding of which is such an annotation or a `Type(...)` call, or a stored property
    /// of such a value whose written type is one.
    func fileType(of expression: ExprSyntax) -> TypeDeclaration? {
        if let inner = expression.as(TryExprSyntax.self) { return fileType(of: inner.expression) }
        if let inner = expression.as(AwaitExprSyntax.self) { return fileType(of: inner.expression) }
        if let inner = expression.as(ForceUnwrapExprSyntax.self) { return fileType(of: inner.expression) }
        if let inner = expression.as(OptionalChainingExprSyntax.self) { return fileType(of: inner.expression) }
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            if let (type, scope) = parameterType(of: reference) { return fileType(written: type, scope: scope) }
            return nil
        }
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base,
           let owner = fileType(of: base), let property = storedProperty(member.declName.baseName.text, of: owner),
           let written = property.type {
            return fileType(named: written.unwrappedOptional, scope: owner.qualifiedName)
        }
        return nil
    }

    /// A stored or computed instance property of a file type, with its written type.
    func storedProperty(_ name: String, of type: TypeDeclaration) -> PropertyDeclaration? {
        (type.properties + type.otherProperties).first { $0.name == name && !$0.isStatic }
    }

    /// The table type of `base.name` when `base` is a value of one of the file's types.
    func fileMemberType(_ member: MemberAccessExprSyntax) -> (type: InferredType?, isOptional: Bool)? {
        guard let base = member.base, let owner = fileType(of: base),
              let property = storedProperty(member.declName.baseName.text, of: owner), let written = property.type else { return nil }
        let unwrapped = written.unwrappedOptional
        let type: InferredType?
        switch unwrapped.shape {
        case .array: type = .instance("Array")
        case .dictionary: type = .instance("Dictionary")
        case .named(let name, _):
            type = file.resolveType(name, in: owner.qualifiedName) == nil ? table.canonicalName(name).map(InferredType.instance) : nil
        default: type = nil
        }
        return (type, written.isOptional)
    }

    private func fileType(written type: TypeSyntax, scope: String?) -> TypeDeclaration? {
        guard let identifier = type.as(IdentifierTypeSyntax.self) ?? type.as(MemberTypeSyntax.self).flatMap({ _ in nil }) else {
            if let member = type.as(MemberTypeSyntax.self) { return file.resolveType(member.trimmedDescription, in: scope) }
            return nil
        }
        return file.resolveType(identifier.name.text, in: scope)
    }

    private func fileType(named reference: TypeReference, scope: String) -> TypeDeclaration? {
        guard case .named(let name, _) = reference.shape else { return nil }
        return file.resolveType(name, in: scope)
    }

    /// Whether a closure's signature names `name` as a parameter (or the closure uses `$0`-style names).
    static func closure(_ closure: ClosureExprSyntax, binds name: String) -> Bool {
        guard let signature = closure.signature else { return false }
        switch signature.parameterClause {
        case .simpleInput(let names)?: return names.contains { $0.name.text == name }
        case .parameterClause(let clause)?: return clause.parameters.contains { ($0.secondName ?? $0.firstName).text == name }
        case nil: return false
        }
    }

    /// Whether `name` is bound anywhere inside `node` (a local `let`, a pattern, a closure parameter).
    static func binds(_ name: String, in node: Syntax) -> Bool {
        final class Finder: SyntaxVisitor {
            let name: String
            var found = false
            init(_ name: String) {
                self.name = name
                super.init(viewMode: .sourceAccurate)
            }
            override func visit(_ node: IdentifierPatternSyntax) -> SyntaxVisitorContinueKind {
                if node.identifier.text == name { found = true }
                return .skipChildren
            }
            override func visit(_ node: ClosureShorthandParameterSyntax) -> SyntaxVisitorContinueKind {
                if node.name.text == name { found = true }
                return .skipChildren
            }
            override func visit(_ node: ClosureParameterSyntax) -> SyntaxVisitorContinueKind {
                if (node.secondName ?? node.firstName).text == name { found = true }
                return .skipChildren
            }
        }
        let finder = Finder(name)
        finder.walk(node)
        return finder.found
    }

}

/// Where a declaration sits among the file's types.
public enum DeclarationScope {
    /// The qualified name of the type (or extension) a declaration is a member of.
    /// A function inside a body is local (no owner) unless `throughBodies` (the type a call is written in).
    public static func ownerName(of node: Syntax, throughBodies: Bool = false) -> String? {
        var names: [String] = []
        var current = node.parent
        while let parent = current {
            if let decl = parent.as(StructDeclSyntax.self) { names.append(decl.name.text) }
            else if let decl = parent.as(ClassDeclSyntax.self) { names.append(decl.name.text) }
            else if let decl = parent.as(EnumDeclSyntax.self) { names.append(decl.name.text) }
            else if let decl = parent.as(ActorDeclSyntax.self) { names.append(decl.name.text) }
            else if let decl = parent.as(ProtocolDeclSyntax.self) { names.append(decl.name.text) }
            else if let decl = parent.as(ExtensionDeclSyntax.self) { names.append(decl.extendedType.trimmedDescription) }
            else if !throughBodies, parent.is(CodeBlockSyntax.self) || parent.is(ClosureExprSyntax.self) { break }
            current = parent.parent
        }
        return names.isEmpty ? nil : names.reversed().joined(separator: ".")
    }
}
