import SwiftSyntax

/// FM314: a FoundationModels 27.0 (or FoundationModelsUtilities) form that
/// fmplay knows by name but does not implement. Such code would otherwise
/// fail only when run ("cannot find ... in scope") or, worse, be mistaken for
/// a type of the file; the error names the API and says what to write instead.
///
/// What is checked: references to the names in `unimplemented` (as a type, a
/// call or a member of `LanguageModelSession`), builder attributes of those
/// names on the file's declarations, and conformances to the protocols in
/// `unimplementedProtocols`. A name the file declares itself is its own and
/// never reported.
struct UnimplementedAPIChecks {
    let file: PromptFile

    /// Name as written (possibly nested in `LanguageModelSession.`) -> why and what to use instead.
    static let unimplemented: [String: String] = [
        "ConditionalDynamicProfile": "write if/else or switch in the body; the builder makes the conditional",
        "ModifiedDynamicProfile": "apply the modifier with .modifier(_:) or a modifier method",
        "DynamicProfileModifierContent": "use Content inside body(content:)",
        "DynamicProfileBuilder": "var body: some DynamicProfile { ... } is already a builder",
        "TupleDynamicInstructions": "list the parts one after the other in a builder",
        "ConditionalDynamicInstructions": "write if/else or switch in the body; the builder makes the conditional",
        "DynamicInstructionsForEach": "write DynamicInstructions.ForEach(items) { item in ... }",
        "DynamicInstructionsBuilder": "var body: some DynamicInstructions { ... } is already a builder",
        "SkillsBuilder": "pass the skills to Skills(activations:) { ... } directly",
        "SkillActivationPolicy": "skills are activated by the model through the Skills tool",
        "Attachment": "describe the image in the prompt text (prompt files have no images)",
        "LanguageModelExecutor": "use the embedded model (SystemLanguageModel.default) or --model",
        "LanguageModelExecutorGenerationRequest": "use the embedded model (SystemLanguageModel.default) or --model",
        "LanguageModelExecutorGenerationChannel": "use the embedded model (SystemLanguageModel.default) or --model",
        "ChatCompletionsLanguageModel": "run another GGUF model with --model (or the server model of fmplay's configuration)",
        "SessionPropertyKey": "declare the property in extension SessionPropertyValues { @SessionPropertyEntry var name: T = ... }",
        "AttachmentSegment": "describe the image in the prompt text (prompt files have no images)",
        "ImageReference": "describe the image in the prompt text (prompt files have no images)",
        "Adapter": "fmplay runs GGUF models, not adapters: pass another model with --model or FMPLAY_MODEL",
    ]

    /// The era of a name that is not 27.0's (for the message).
    static let eras: [String: String] = [
        "Adapter": "FoundationModels 26, deprecated in 26.4 and obsoleted in 27.0",
    ]

    /// Argument labels of API forms fmplay does not implement: the type called, the label, why and what instead.
    static let unimplementedLabels: [(type: String, label: String, era: String, advice: String)] = [
        ("SystemLanguageModel", "adapter", "FoundationModels 26, obsoleted in 27.0",
         "fmplay runs GGUF models, not adapters: pass another model with --model or FMPLAY_MODEL"),
        ("LanguageModelSession", "guardrails", "the FoundationModels 26.0 betas",
         "guardrails moved to the model: LanguageModelSession(model: SystemLanguageModel(guardrails: .permissiveContentTransformations), ...)"),
    ]

    static let labels = Set(unimplementedLabels.map(\.label))

    /// Protocols a file type may not adopt (fmplay cannot run such a conformance).
    static let unimplementedProtocols: [String: String] = [
        "LanguageModel": "a custom LanguageModel conformance (executors, capabilities) is not run by fmplay; use SystemLanguageModel.default or --model",
        "LanguageModelExecutor": "a custom executor is not run by fmplay; use SystemLanguageModel.default or --model",
        "SessionPropertyKey": "declare the property in extension SessionPropertyValues { @SessionPropertyEntry var name: T = ... }",
    ]

    func run() -> [Diagnostic] {
        let declared = Set(file.types.map(\.name))
        let visitor = Visitor(source: file.source, declared: declared)
        visitor.walk(file.syntax)
        return visitor.diagnostics
    }

    private final class Visitor: SyntaxVisitor {
        let source: SourceText
        let declared: Set<String>
        var diagnostics: [Diagnostic] = []
        var reported = Set<Int>()

        init(source: SourceText, declared: Set<String>) {
            self.source = source
            self.declared = declared
            super.init(viewMode: .sourceAccurate)
        }

        func report(_ name: String, _ node: some SyntaxProtocol, _ advice: String, era: String? = nil) {
            let start = node.positionAfterSkippingLeadingTrivia.utf8Offset
            guard reported.insert(start).inserted else { return }
            let end = node.endPositionBeforeTrailingTrivia.utf8Offset
            let era = era ?? UnimplementedAPIChecks.eras[name] ?? "FoundationModels 27.0"
            diagnostics.append(Diagnostic(.unimplementedAPI, at: source.range(start..<end),
                                          "\(name) (\(era)) is not implemented by fmplay; \(advice)"))
        }

        override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
            // Only calls written with one of the labels are looked at further (most calls have none of them).
            for argument in node.arguments {
                guard let label = argument.label?.text, UnimplementedAPIChecks.labels.contains(label) else { continue }
                let callee = node.calledExpression.trimmedText
                guard let form = UnimplementedAPIChecks.unimplementedLabels.first(where: { $0.type == callee && $0.label == label }),
                      !declared.contains(callee) else { continue }
                report("\(callee)(\(label):)", argument.label!, form.advice, era: form.era)
            }
            return .visitChildren
        }

        func check(name: String, _ node: some SyntaxProtocol) {
            guard !declared.contains(name), let advice = UnimplementedAPIChecks.unimplemented[name] else { return }
            report(name, node, advice)
        }

        override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
            check(name: node.baseName.text, node)
            return .visitChildren
        }

        override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
            // LanguageModelSession.AnyDynamicProfile(...), DynamicInstructions.Builder...
            if let base = node.base?.as(DeclReferenceExprSyntax.self),
               ["LanguageModelSession", "DynamicInstructions", "Transcript", "FoundationModels", "SystemLanguageModel"].contains(base.baseName.text) {
                check(name: node.declName.baseName.text, node.declName)
            }
            return .visitChildren
        }

        override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
            check(name: node.name.text, node)
            return .visitChildren
        }

        override func visit(_ node: MemberTypeSyntax) -> SyntaxVisitorContinueKind {
            check(name: node.name.text, node)
            return .visitChildren
        }

        override func visit(_ node: InheritedTypeSyntax) -> SyntaxVisitorContinueKind {
            let written = node.type.trimmedText
            let name = written.split(separator: ".").last.map(String.init) ?? written
            if let advice = UnimplementedAPIChecks.unimplementedProtocols[name], !declared.contains(name) {
                report(written, node.type, advice)
                return .skipChildren
            }
            return .visitChildren
        }
    }
}
