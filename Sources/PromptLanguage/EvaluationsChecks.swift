import SwiftSyntax

/// FM313: forms of Apple's Evaluations framework (and the Swift Testing traits
/// around `@Test(.evaluates(...))`) that Apple documents but fmplay does not
/// implement. Each is an error naming the form and what to write instead, so
/// nothing documented is silently accepted or left to fail at run time.
///
/// Names are matched as written (types in expressions and type positions, and
/// distinctive member names), except where the file declares the name itself.
/// Forms on values whose type is inferred are also FM310; this check runs first
/// and its more specific message wins.
public struct EvaluationsChecks {
    let file: PromptFile

    /// Documented Evaluations types fmplay does not implement, with what to write instead.
    public static let unsupportedTypes: [String: String] = [
        "JSONLoader": "prompt files read no dataset files; list the samples in ArrayLoader(samples: [...])",
        "StreamLoader": "list the samples in ArrayLoader(samples: [...])",
        "Loader": "declare the dataset as `let dataset = ArrayLoader(samples: [...])`",
        "SampleGenerator": "write the samples in ArrayLoader(samples: [...])",
        "SampleProtocol": "use ModelSample(prompt:expected:...) for samples",
        "EvaluationSubject": "return ModelSubject(value:transcript:) from subject(from:)",
        "ModelSampleProtocol": "use ModelSample(prompt:expected:...) for samples",
        "ScoreLevel": "use ScoringScale.numeric([4: \"...\", 1: \"...\"]) or .passFail(passDescription:failDescription:)",
        "AggregateMetric": "read an aggregate with result.aggregateValue(.mean(of: metric))",
        "EvaluationTrait": "write @Test(.evaluates(MyEvaluation()))",
        "EvaluatorError": "read result.errors; each sample's evaluator failures are in its report row",
        "SubjectInferenceError": "read result.errors; each sample's subject failure is in its report row",
        "ModelJudgeError": "a judge failure is recorded in the sample's evaluatorErrors; read result.errors",
    ]

    /// Documented members fmplay does not implement, by name: the documented form and what to write instead.
    static let unsupportedMembers: [String: (form: String, advice: String)] = [
        "saveJSON": ("EvaluationResult.saveJSON(to:includeReportMetadata:includeTranscripts:)",
                     "prompt files write no files; `fmplay run --format json` (or jsonl, junit) carries every sample's result"),
        "jsonData": ("EvaluationResult.jsonData(includeReportMetadata:includeTranscripts:jsonOptions:)",
                     "`fmplay run --format json` carries every sample's result"),
        "jsonRepresentableDataFrame": ("EvaluationResult.jsonRepresentableDataFrame(of:)",
                                       "`fmplay run --format json` carries every sample's result"),
        "loadJSON": ("EvaluationResult.loadJSON(from:)", "compare runs with `fmplay run --baseline DIR`"),
        "loadJSONLines": ("EvaluationResult.loadJSONLines(from:)", "compare runs with `fmplay run --baseline DIR`"),
        "reportMetadata": ("EvaluationResult.reportMetadata", "pass what you need in run(info:) and read result.evaluationInfo"),
        "resultID": ("EvaluationResult.resultID", "use result.evaluationID"),
        "startTime": ("EvaluationResult.startTime", "use result.duration"),
        "endTime": ("EvaluationResult.endTime", "use result.duration"),
        "judgePrompt": ("ModelJudgeEvaluator.judgePrompt(for:output:)",
                        "shape what the judge reads with ModelJudgePrompt(instructions:evaluationTarget:reference:)"),
    ]

    func run() -> [Diagnostic] {
        let importsEvaluations = file.imports.contains { $0.module == "Evaluations" }
        var declaredTypes = Set<String>()
        var declaredMembers = Set<String>()
        for type in file.types {
            declaredTypes.insert(type.name)
            declaredMembers.formUnion(type.methods.map(\.name))
            declaredMembers.formUnion(type.properties.map(\.name))
            declaredMembers.formUnion(type.otherProperties.map(\.name))
        }
        let visitor = EvaluationsVisitor(source: file.source, importsEvaluations: importsEvaluations,
                                         declaredTypes: declaredTypes, declaredMembers: declaredMembers)
        visitor.walk(file.syntax)
        return visitor.diagnostics
    }
}

private final class EvaluationsVisitor: SyntaxVisitor {
    let source: SourceText
    let importsEvaluations: Bool
    let declaredTypes: Set<String>
    let declaredMembers: Set<String>
    var diagnostics: [Diagnostic] = []

    init(source: SourceText, importsEvaluations: Bool, declaredTypes: Set<String>, declaredMembers: Set<String>) {
        self.source = source
        self.importsEvaluations = importsEvaluations
        self.declaredTypes = declaredTypes
        self.declaredMembers = declaredMembers
        super.init(viewMode: .sourceAccurate)
    }

    private func report(_ node: some SyntaxProtocol, _ message: String) {
        diagnostics.append(Diagnostic(.unsupportedEvaluations, at: source.range(of: node), message))
    }

    private func checkTypeName(_ name: String, at node: some SyntaxProtocol) {
        guard !declaredTypes.contains(name), let advice = EvaluationsChecks.unsupportedTypes[name] else { return }
        report(node, "the Evaluations type '\(name)' is not supported in prompt files; \(advice)")
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        checkTypeName(node.baseName.text, at: node.baseName)
        return .visitChildren
    }

    override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
        // Apple's generic evaluator (`struct MyEvaluator<Input: SampleProtocol>: EvaluatorProtocol`): as a generic
        // constraint it runs (its samples are ModelSamples); written elsewhere (a conformance, `any`) it is not supported.
        if node.name.text == "SampleProtocol", Self.isGenericConstraint(node) { return .visitChildren }
        checkTypeName(node.name.text, at: node.name)
        return .visitChildren
    }

    /// The constraint of a generic parameter (`<Input: SampleProtocol>`) or of a `where` requirement.
    static func isGenericConstraint(_ node: IdentifierTypeSyntax) -> Bool {
        if let parameter = node.parent?.as(GenericParameterSyntax.self) { return parameter.inheritedType?.id == node.id }
        if let requirement = node.parent?.as(ConformanceRequirementSyntax.self) { return requirement.rightType.id == node.id }
        return false
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        guard importsEvaluations else { return .visitChildren }
        let name = node.declName.baseName.text
        if node.base != nil, !declaredMembers.contains(name), let member = EvaluationsChecks.unsupportedMembers[name] {
            report(node.declName.baseName, "\(member.form) is not supported in prompt files; \(member.advice)")
        }
        // `scale: .custom(Level.self)`, `ScoringScale.custom(...)`.
        if name == "custom", isScoringScale(node) {
            report(node.declName.baseName, "ScoringScale.custom(_:) (a ScoreLevel type as the scale) is not supported in prompt files; "
                   + "use .numeric([4: \"...\", 1: \"...\"]) or .passFail(passDescription:failDescription:)")
        }
        return .visitChildren
    }

    /// `ScoringScale.custom` or `.custom` passed as a `scale:` argument.
    private func isScoringScale(_ node: MemberAccessExprSyntax) -> Bool {
        if let base = node.base { return base.as(DeclReferenceExprSyntax.self)?.baseName.text == "ScoringScale" }
        var current = Syntax(node).parent
        while let parent = current, !parent.is(LabeledExprSyntax.self) {
            guard parent.is(FunctionCallExprSyntax.self) else { return false }
            current = parent.parent
        }
        return current?.as(LabeledExprSyntax.self)?.label?.text == "scale"
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard importsEvaluations else { return .visitChildren }
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), member.base != nil,
           member.declName.baseName.text == "run", node.arguments.contains(where: { $0.label?.text == "on" }) {
            report(member.declName.baseName, "run(on:) is not part of Evaluations 27 (one documentation page shows it; the protocol has run(info:)); "
                   + "call run() or run(info:), which run the evaluation's own dataset")
        }
        return .visitChildren
    }

    /// `@Test(...)`: fmplay runs a test function like a block, with its display name and `.evaluates(...)`;
    /// every other trait would be ignored, so it is an error.
    /// `@Suite("name")` is accepted (its @Test methods run); a trait (`.disabled`, `.serialized`...) would be ignored.
    private func checkSuite(_ node: AttributeSyntax) {
        guard case .argumentList(let list)? = node.arguments else { return }
        for (index, argument) in list.enumerated() where !(index == 0 && argument.label == nil && argument.expression.is(StringLiteralExprSyntax.self)) {
            report(argument, "the suite trait '\(argument.expression.trimmedDescription)' is not supported in prompt files; "
                   + "fmplay runs every @Test method of a suite once and supports @Suite with a display name only")
        }
    }

    /// A `@Test` function fmplay does not run (a local function, in an enum or extension, static, with parameters)
    /// is an error naming it: a test is never skipped silently.
    override func visit(_ node: AttributeSyntax) -> SyntaxVisitorContinueKind {
        // The name token, not the attribute's text: most attributes of a file are @Guide, read many times over.
        let name = node.attributeName.as(IdentifierTypeSyntax.self)?.name.text ?? node.attributeName.trimmedDescription
        if name == "Suite" {
            checkSuite(node)
            return .skipChildren
        }
        guard name == "Test" else { return .visitChildren }
        if let function = node.parent?.parent?.as(FunctionDeclSyntax.self),
           case .unsupported(let reason) = SyntaxReading.testPlacement(function) {
            report(node, reason)
        } else if node.parent?.parent?.is(FunctionDeclSyntax.self) != true {
            report(node, "@Test applies to functions; fmplay runs a @Test function like a #Playground block")
        }
        guard case .argumentList(let list)? = node.arguments else { return .visitChildren }
        for (index, argument) in list.enumerated() {
            if index == 0, argument.label == nil, argument.expression.is(StringLiteralExprSyntax.self) { continue }
            if let label = argument.label {
                report(argument, "@Test(\(label.text): ...) is not supported in prompt files; fmplay runs a @Test function once, like a #Playground block")
                continue
            }
            let call = argument.expression.as(FunctionCallExprSyntax.self)
            let trait = (call?.calledExpression ?? argument.expression).as(MemberAccessExprSyntax.self)?.declName.baseName.text
            guard trait == "evaluates", let call else {
                report(argument, "the test trait '\(argument.expression.trimmedDescription)' is not supported in prompt files; "
                       + "fmplay runs a @Test function like a #Playground block and supports a display name and .evaluates(...)")
                continue
            }
            for traitArgument in call.arguments {
                switch traitArgument.label?.text {
                case nil, "info": break
                case "recordTranscripts":
                    if traitArgument.expression.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.false) { break }
                    report(traitArgument, ".evaluates(_:info:recordTranscripts:) with recordTranscripts is not supported in prompt files; "
                           + "every sample's response and tool calls are in the report (`fmplay run --format json`) already")
                case let label?:
                    report(traitArgument, ".evaluates has no argument '\(label):'; write .evaluates(MyEvaluation()) or .evaluates(MyEvaluation(), info: [...])")
                }
            }
        }
        return .skipChildren
    }
}
