import SwiftSyntax

/// FM204 and FM3xx: sessions, model calls and their options. Works on the
/// whole file (playgrounds, tool bodies and top-level code alike).
struct SessionChecks {
    let file: PromptFile

    static let useCases: Set<String> = ["general", "contentTagging"]
    static let builtInGenerable: Set<String> = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Decimal", "Bool", "GeneratedContent",
    ]

    func run() -> [Diagnostic] {
        let visitor = SessionVisitor(file: file)
        visitor.walk(file.syntax)
        return visitor.diagnostics + visitor.dynamicSchemas.diagnostics
    }
}

private final class SessionVisitor: SyntaxVisitor {
    let file: PromptFile
    var diagnostics: [Diagnostic] = []
    /// FM309, checked in the same walk.
    var dynamicSchemas: DynamicSchemaChecks
    /// Session variables seen so far, by name, with their model.
    var sessionModels: [String: ModelReference?] = [:]

    init(file: PromptFile) {
        self.file = file
        self.dynamicSchemas = DynamicSchemaChecks(source: file.source)
        super.init(viewMode: .sourceAccurate)
    }

    private var source: SourceText { file.source }

    /// Attributes (`@Guide(.range(1...5))`) hold no sessions or model calls.
    override func visit(_ node: AttributeListSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    /// `Name` or `Base.name` as written, without building the text of other callees.
    private static func calleeName(_ expression: ExprSyntax) -> String {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base?.as(DeclReferenceExprSyntax.self) {
            return base.baseName.text + "." + member.declName.baseName.text
        }
        return ""
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let callee = Self.calleeName(node.calledExpression)
        dynamicSchemas.check(node, callee: callee)
        switch callee {
        case "LanguageModelSession", "LanguageModelSession.init":
            checkSession(node)
        case "SystemLanguageModel", "SystemLanguageModel.init":
            checkUseCase(node)
        case "GenerationOptions":
            checkOptions(node)
        default:
            if let member = node.calledExpression.as(MemberAccessExprSyntax.self), member.base != nil,
                let method = ModelCall.Method(rawValue: member.declName.baseName.text)
            {
                checkModelCall(node, member: member, method: method)
            }
        }
        checkTryAwait(node)
        return .visitChildren
    }

    /// FM310: `respond`, `collect`, `run` and `tokenCount` are `async throws`; Swift rejects them without `try await`.
    static let asyncThrowingMethods: Set<String> = ["respond", "collect", "run", "tokenCount"]

    private func checkTryAwait(_ node: FunctionCallExprSyntax) {
        guard let member = node.calledExpression.as(MemberAccessExprSyntax.self), member.base != nil,
              Self.asyncThrowingMethods.contains(member.declName.baseName.text) else { return }
        var hasTry = false
        var hasAwait = false
        var current = Syntax(node).parent
        // Up through the expression (`try await session.respond(...).content`), to the statement.
        while let parent = current, parent.is(ExprSyntax.self) || parent.is(LabeledExprSyntax.self) || parent.is(LabeledExprListSyntax.self)
            || parent.is(InitializerClauseSyntax.self) || parent.is(ExprListSyntax.self) {
            if parent.is(TryExprSyntax.self) { hasTry = true }
            if parent.is(AwaitExprSyntax.self) { hasAwait = true }
            if parent.is(ClosureExprSyntax.self) { break }
            current = parent.parent
        }
        guard !(hasTry && hasAwait) else { return }
        let missing = [hasTry ? nil : "try", hasAwait ? nil : "await"].compactMap { $0 }.joined(separator: " ")
        let name = member.declName.baseName.text
        let start = node.positionAfterSkippingLeadingTrivia.utf8Offset
        diagnostics.append(Diagnostic(
            .missingTryAwait, at: source.range(of: node),
            "'\(name)' is async and throws: write '\(missing)' before the call (Swift requires 'try await')",
            fixIts: [FixIt(title: "insert '\(missing)'", edits: [TextEdit(range: source.range(start..<start), newText: missing + " ")])]))
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        dynamicSchemas.check(node)
        return .visitChildren
    }

    // MARK: Sessions

    private func checkSession(_ call: FunctionCallExprSyntax) {
        let model = SyntaxReading.argument("model", in: call.arguments).map { SessionCollector.model($0.expression, source: source) }
        if let name = SyntaxReading.boundVariableName(of: call) { sessionModels[name] = model }
        if let tools = SyntaxReading.argument("tools", in: call.arguments)?.expression.as(ArrayExprSyntax.self) {
            checkTools(tools)
        }
        if let instructions = SyntaxReading.argument("instructions", in: call.arguments) {
            checkInstructions(Syntax(instructions.expression))
        } else if let closure = call.trailingClosure {
            checkInstructions(Syntax(closure))
        }
    }

    private func checkTools(_ array: ArrayExprSyntax) {
        var names: [String: SourceRange] = [:]
        for element in array.elements {
            let expression = element.expression
            let range = source.range(of: expression)
            var typeName: String?
            var isMetatype = false
            if let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self", let base = member.base {
                typeName = base.trimmedText
                isMetatype = true
            } else if let call = expression.as(FunctionCallExprSyntax.self),
                call.calledExpression.is(DeclReferenceExprSyntax.self) || call.calledExpression.is(MemberAccessExprSyntax.self)
            {
                typeName = call.calledExpression.trimmedText
            }
            guard let typeName else { continue }  // a variable: checked when it is interpreted
            guard let type = file.resolveType(typeName, in: nil) else {
                guard typeName.first?.isUppercase == true else { continue }
                diagnostics.append(Diagnostic(
                    .notATool, at: range,
                    "'\(typeName)' is not declared in this file; tools: takes instances of types conforming to Tool, declared as 'struct \(typeName): Tool { ... }'"))
                continue
            }
            guard let tool = type.tool else {
                diagnostics.append(Diagnostic(
                    .notATool, at: range,
                    "'\(typeName)' is not a Tool; tools: takes Tool instances. Add ': Tool' to its declaration with name, description, Arguments and call(arguments:)",
                    notes: [DiagnosticNote(range: type.nameRange, message: "'\(typeName)' declared here")]))
                continue
            }
            if isMetatype {
                let member = expression.as(MemberAccessExprSyntax.self)!
                let dotSelf = source.range(member.period.positionAfterSkippingLeadingTrivia.utf8Offset..<member.endPositionBeforeTrailingTrivia.utf8Offset)
                diagnostics.append(Diagnostic(
                    .notATool, at: range,
                    "'\(typeName).self' is the tool's type, but tools: takes tool instances; write '\(typeName)()'",
                    fixIts: [FixIt(title: "use an instance", edits: [TextEdit(range: dotSelf, newText: "()")])]))
            }
            let name = tool.effectiveName(typeName: type.name)
            if let first = names[name] {
                diagnostics.append(Diagnostic(
                    .duplicateToolName, at: range,
                    "two tools in this session are named \"\(name)\"; the model could not tell them apart. Give each tool a distinct name",
                    notes: [DiagnosticNote(range: first, message: "first tool named \"\(name)\"")]))
            } else {
                names[name] = range
            }
        }
    }

    /// FM303: interpolations in instructions, unless they read a top-level
    /// `let` constant holding a literal (static data in the file).
    private func checkInstructions(_ node: Syntax) {
        let finder = InterpolationFinder(viewMode: .sourceAccurate)
        finder.walk(node)
        for segment in finder.segments {
            if let only = segment.expressions.first, segment.expressions.count == 1, only.label == nil,
                let reference = only.expression.as(DeclReferenceExprSyntax.self),
                file.constants.contains(where: { $0.name == reference.baseName.text && $0.isLet && $0.literalValue != nil })
            {
                continue
            }
            diagnostics.append(Diagnostic(
                .interpolatedInstructions, at: source.range(of: segment),
                "instructions interpolate '\(segment.expressions.trimmedText)'; instructions should be static, because the model follows instructions over prompts and interpolated input weakens protection against prompt injection. Put runtime values in the prompt instead"))
        }
    }

    private func checkUseCase(_ call: FunctionCallExprSyntax) {
        guard let argument = SyntaxReading.argument("useCase", in: call.arguments),
            let member = SyntaxReading.memberAccess(argument.expression),
            member.base == nil || member.base == "SystemLanguageModel.UseCase" || member.base == "UseCase"
        else { return }
        if !SessionChecks.useCases.contains(member.name) {
            let suggestion = member.name.lowercased().contains("tag") ? "contentTagging" : "general"
            let nameToken = argument.expression.as(MemberAccessExprSyntax.self)!.declName
            diagnostics.append(Diagnostic(
                .unknownUseCase, at: source.range(of: argument.expression),
                "unknown use case '.\(member.name)'; SystemLanguageModel.UseCase has .general and .contentTagging",
                fixIts: [FixIt(title: "use .\(suggestion)", edits: [TextEdit(range: source.range(of: nameToken), newText: suggestion)])]))
        }
    }

    private func checkOptions(_ call: FunctionCallExprSyntax) {
        if let temperature = SyntaxReading.argument("temperature", in: call.arguments),
            let value = SyntaxReading.literal(temperature.expression)?.doubleValue, !(0...1).contains(value)
        {
            diagnostics.append(Diagnostic(
                .generationOptionOutOfRange, at: source.range(of: temperature.expression),
                "temperature \(temperature.expression.trimmedText) is outside the documented range 0...1; values above 1 make output increasingly random. Use a value between 0 and 1"))
        }
        if let tokens = SyntaxReading.argument("maximumResponseTokens", in: call.arguments),
            case .integer(let value)? = SyntaxReading.literal(tokens.expression), value <= 0
        {
            diagnostics.append(Diagnostic(
                .generationOptionOutOfRange, .error, at: source.range(of: tokens.expression),
                "maximumResponseTokens must be positive, but is \(value); use at least 1, or leave it out for no limit"))
        }
    }

    // MARK: Calls

    private func checkModelCall(_ call: FunctionCallExprSyntax, member: MemberAccessExprSyntax, method: ModelCall.Method) {
        if let generating = SyntaxReading.argument("generating", in: call.arguments) {
            checkGenerating(generating.expression)
        }
        if let contextOptions = SyntaxReading.argument("contextOptions", in: call.arguments),
            let optionsCall = contextOptions.expression.as(FunctionCallExprSyntax.self),
            let reasoning = SyntaxReading.argument("reasoningLevel", in: optionsCall.arguments),
            !reasoning.expression.is(NilLiteralExprSyntax.self)
        {
            let receiver = member.base?.trimmedText ?? ""
            // Only sessions created in this file are known; a session without
            // `model:` uses the on-device default.
            guard let known = sessionModels[receiver] else { return }
            let isOnDevice: Bool
            switch known?.kind {
            case nil, .system?: isOnDevice = true
            case .privateCloudCompute?, .expression?: isOnDevice = false
            }
            if isOnDevice {
                diagnostics.append(Diagnostic(
                    .reasoningOnDeviceModel, at: source.range(of: reasoning),
                    "'\(receiver)' uses the on-device model, which does not support reasoning; remove reasoningLevel:, or create the session with model: PrivateCloudComputeLanguageModel() (the configured server model)"))
            }
        }
    }

    private func checkGenerating(_ expression: ExprSyntax) {
        guard let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self", let base = member.base else {
            return
        }
        var typeText = base.trimmedText
        if let array = base.as(ArrayExprSyntax.self), array.elements.count == 1, let only = array.elements.first {
            typeText = only.expression.trimmedText
        }
        if SessionChecks.builtInGenerable.contains(typeText) || typeText == "FoundationModels.GeneratedContent" { return }
        let range = source.range(of: base)
        guard let type = file.resolveType(typeText, in: nil) else {
            diagnostics.append(Diagnostic(
                .generatingNotGenerable, at: range,
                "generating: names '\(typeText)', which is not declared in this file; declare it as a @Generable struct or enum"))
            return
        }
        guard type.isGenerable else {
            var fixIts: [FixIt] = []
            if type.kind == .struct || type.kind == .enum {
                fixIts.append(FixIt(title: "add @Generable to '\(type.name)'", edits: [FixItFactory(source: source).insertAttribute("@Generable", before: type)]))
            }
            diagnostics.append(Diagnostic(
                .generatingNotGenerable, at: range,
                "generating: needs a @Generable type, but '\(typeText)' is not @Generable; add @Generable to its declaration",
                fixIts: fixIts, notes: [DiagnosticNote(range: type.nameRange, message: "'\(type.name)' declared here")]))
            return
        }
    }
}

/// Every interpolation segment (`\(...)`) in a subtree.
private final class InterpolationFinder: SyntaxVisitor {
    var segments: [ExpressionSegmentSyntax] = []

    override func visit(_ node: ExpressionSegmentSyntax) -> SyntaxVisitorContinueKind {
        segments.append(node)
        return .skipChildren
    }
}
