import SwiftSyntax

/// What the checker knows of streamed values: a `for try await` variable over a response stream is a Snapshot,
/// and every property of its `content` (`T.PartiallyGenerated`) is optional.
extension SurfaceInference {
    /// Whether an expression is a stream snapshot's `content` (`T.PartiallyGenerated`), or a @Generable-typed
    /// property of one (nested values are partially generated too).
    func isPartiallyGenerated(_ expression: ExprSyntax) -> Bool {
        var expression = expression
        while true {
            if let inner = expression.as(OptionalChainingExprSyntax.self) { expression = inner.expression }
            else if let inner = expression.as(ForceUnwrapExprSyntax.self) { expression = inner.expression }
            else { break }
        }
        guard let member = expression.as(MemberAccessExprSyntax.self), let base = member.base else { return false }
        let name = member.declName.baseName.text
        if name == "content", type(of: base) == .instance("LanguageModelSession.ResponseStream.Snapshot") { return true }
        guard isPartiallyGenerated(base), let owner = fileType(of: base),
              let written = storedProperty(name, of: owner)?.type?.unwrappedOptional,
              case .named(let typeName, _) = written.shape else { return false }
        return file.resolveType(typeName, in: owner.qualifiedName)?.isGenerable == true
    }

    /// The element type of a sequence the checker knows: a response stream's snapshots.
    func elementType(of sequence: ExprSyntax) -> InferredType? {
        type(of: sequence) == .instance("LanguageModelSession.ResponseStream") ? .instance("LanguageModelSession.ResponseStream.Snapshot") : nil
    }
}
