import Evaluations
import Foundation
import FoundationModelsRuntime
import JSON
import PromptLanguage
import SwiftSyntax

extension Interpreter {
    // MARK: Members

    /// Properties of framework values; nil when `base` is not one.
    func evaluationsMember(_ name: String, of base: Value, _ node: some SyntaxProtocol) async throws -> Value? {
        switch base {
        case .transcript(let t) where name == "structuredTranscript":
            return .evaluations(.transcript(StructuredTranscriptValue(t)))
        case .structure(let type, _) where conforms(type, to: "Evaluation"):
            switch name {
            case "inputColumn": return .evaluations(.column("Input"))
            case "responseColumn": return .evaluations(.column("Response"))
            case "expectedColumn": return .evaluations(.column("Expected"))
            case "name" where findComputed("name", in: type) == nil: return .string(type.split(separator: ".").last.map(String.init) ?? type)
            default: return nil
            }
        case .evaluations(let object):
            return try evaluationsProperty(name, of: object, node)
        default:
            return nil
        }
    }

    private func evaluationsProperty(_ name: String, of object: EvaluationsObject, _ node: some SyntaxProtocol) throws -> Value {
        switch (object, name) {
        case (.metric(let m), "name"): return .string(m.name)
        case (.metric(let m), "rationale"): return m.rationale.map(Value.string) ?? .null
        case (.metric(let m), "doubleValue"): return m.doubleValue.map(Value.double) ?? .null
        case (.metric(let m), "value"):
            switch m.value {
            case .passing: return .enumCase(type: "Metric.Value", name: "passing", payload: [])
            case .failing: return .enumCase(type: "Metric.Value", name: "failing", payload: [])
            case .scoring(let x): return .enumCase(type: "Metric.Value", name: "scoring", payload: [(label: nil, value: .double(x))])
            case .ignore: return .enumCase(type: "Metric.Value", name: "ignore", payload: [])
            case nil: return .null
            }
        case (.sample(let s), "prompt"): return s.prompt
        case (.sample(let s), "promptDescription"): return .string(s.promptText)
        case (.sample(let s), "expected"): return s.expected
        case (.sample(let s), "instructions"): return s.instructions
        case (.sample(let s), "instructionsDescription"): return s.instructions.isNull ? .null : .string(s.instructions.description)
        case (.sample(let s), "generationSchema"): return s.generationSchema
        case (.sample(let s), "expectations"): return s.expectations.map { .evaluations(.trajectory($0)) } ?? .null
        case (.subject(let value, _), "value"): return value
        case (.subject(_, let t), "transcript"): return t.map { .evaluations(.transcript($0)) } ?? .null
        case (.transcript(let t), "toolCalls"):
            return .array(t.toolCalls.map { .structure(type: "Transcript.ToolCall", fields: [
                ("toolName", .string($0.name)), ("arguments", .content(GeneratedContent($0.arguments)))]) })
        case (.transcript(let t), "toolOutputs"): return .array(t.toolOutputs.map(Value.string))
        case (.transcript(let t), "instructionText"): return .string(t.instructionText)
        case (.transcript(let t), "prompts"): return .array(t.prompts.map(Value.string))
        case (.transcript(let t), "responses"): return .array(t.responses.map(Value.string))
        case (.loader(let samples), "samples"): return .array(samples)
        case (.dimension(let d), "metric"): return .evaluations(.metric(d.metric))
        case (.dimension(let d), "name"): return .string(d.name)
        case (.dimension(let d), "description"): return d.description.map(Value.string) ?? .null
        case (.evaluator(.toolCall(let allPass, _, _)), "allPass"): return .evaluations(.metric(allPass))
        case (.evaluator(.toolCall(_, let percentagePass, _)), "percentagePass"): return .evaluations(.metric(percentagePass))
        case (.evaluator(.judge(let j)), "dimensions"): return .array(j.judge.dimensions.map { .evaluations(.dimension($0)) })
        case (.operation(let o), "label"): return .string(o.label)
        case (.aggregator(_, let group), "name") where group != nil: return .string(group!)
        case (.result(let r), "summary"): return .evaluations(.frame(r, detailed: false))
        case (.result(let r), "detailed"): return .evaluations(.frame(r, detailed: true))
        case (.result(let r), "groupedSummary"): return .string(r.report.groupedSummary)
        case (.result(let r), "evaluationInfo"): return .dictionary(r.report.info.map { (key: .string($0.0), value: .string($0.1)) })
        case (.result(let r), "errors"): return .evaluations(.runErrors(r.report.errors))
        case (.result(let r), "duration"): return .double(r.duration)
        case (.result(let r), "evaluationID"): return .string(r.report.name)
        case (.frame(let r, let detailed), "count"), (.frame(let r, let detailed), "rows"):
            let count = detailed ? r.report.samples.count : r.report.aggregates.count
            return name == "count" ? .int(count) : .array(Array(repeating: .null, count: count))
        case (.runErrors(let e), "hasFailures"): return .bool(e.hasFailures)
        case (.runErrors(let e), "inferenceFailureCount"): return .int(e.inferenceFailureCount)
        case (.runErrors(let e), "evaluatorFailureCount"): return .int(e.evaluatorFailureCount)
        case (.runErrors(let e), "metricsNotFound"): return .array(e.metricsNotFound.map(Value.string))
        case (.runErrors(let e), "anyInferenceProduced"): return .bool(e.anyInferenceProduced)
        case (.runErrors(let e), "failingEvaluatorTypes"): return .array(e.failingEvaluatorTypes.map(Value.string))
        case (.testContext(let r), "result"): return .evaluations(.result(r))
        default:
            throw error("'\(name)' is not available on \(object.typeName) in prompt files", node)
        }
    }

    /// `Metric.toolsAllPass`, `EvaluationContext.current`, `ModelJudgeEvaluator.defaultInstructions`.
    func evaluationsStaticMember(_ name: String, of typeName: String, _ node: some SyntaxProtocol) throws -> Value? {
        switch (typeName, name) {
        case ("Metric", "toolsAllPass"): return .evaluations(.metric(Metric.toolsAllPass))
        case ("Metric", "toolsPercentagePass"): return .evaluations(.metric(Metric.toolsPercentagePass))
        case ("ModelJudgeEvaluator", "defaultInstructions"), ("ModelJudgePrompt", "defaultInstructions"):
            return .string(ModelJudge.defaultInstructions)
        case ("EvaluationContext", "current"):
            guard let current = currentEvaluation else {
                throw error("EvaluationContext.current is only available inside a @Test(.evaluates(...)) function", node)
            }
            return .evaluations(.testContext(current))
        default: return nil
        }
    }

    // MARK: Methods

    /// Methods of framework values and of Evaluation structs; nil when `base` is neither.
    func evaluationsMethod(_ name: String, of base: Value, _ e: FunctionCallExprSyntax) async throws -> Value? {
        if let set = try await characterSetMethod(name, of: base, e) { return set }
        switch base {
        case .structure(let type, _) where conforms(type, to: "Evaluation") && name == "run":
            let args = try await arguments(e.arguments)
            var info: [(String, String)] = []
            if case .dictionary(let pairs)? = args.value("info") { info = pairs.map { ($0.key.description, $0.value.description) } }
            if args.value("on") != nil { throw error("run(on:) is not part of Evaluations 27; call run() or run(info:)", e) }
            return .evaluations(.result(try await runEvaluation(base, info: info, site: site(e))))
        case .type(let typeName):
            switch (typeName, name) {
            case ("ToolExpectation", "anyOrder"):
                let args = try await arguments(e.arguments)
                return .evaluations(.toolExpectation(.anyOrder(try toolExpectations(args.unlabelled.first, e))))
            case ("ModelJudgeEvaluator", "pairwise"), (_, "pairwise") where typeName.hasPrefix("ModelJudgeEvaluator<"):
                return try await makeJudge(try await argumentsKeepingClosures(e.arguments), pairwise: true, e)
            case ("AggregationOperation", _):
                let args = try await arguments(e.arguments)
                return .evaluations(.operation(try operation(.enumCase(type: "", name: name, payload: args.items.map { ($0.label, $0.value) }), e)))
            case ("ScoringScale", _):
                let args = try await arguments(e.arguments)
                return .evaluations(.scale(try scale(.enumCase(type: "", name: name, payload: args.items.map { ($0.label, $0.value) }), e)))
            default: return nil
            }
        case .evaluations(let object):
            return try await evaluationsCall(name, on: object, e)
        default:
            return nil
        }
    }

    private func evaluationsCall(_ name: String, on object: EvaluationsObject, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await argumentsKeepingClosures(e.arguments)
        switch (object, name) {
        case (.metric(let m), "passing"): return .evaluations(.metric(m.passing(rationale: args.value("rationale")?.stringValue)))
        case (.metric(let m), "failing"): return .evaluations(.metric(m.failing(rationale: args.value("rationale")?.stringValue)))
        case (.metric(let m), "ignore"): return .evaluations(.metric(m.ignore(rationale: args.value("rationale")?.stringValue)))
        case (.metric(let m), "scoring"):
            guard let score = args.unlabelled.first?.number else { throw error("scoring(_:) needs a number", e) }
            return .evaluations(.metric(m.scoring(score, rationale: args.value("rationale")?.stringValue)))
        case (.aggregator(let aggregator, let group), "group") where group == nil:
            guard let groupName = args.unlabelled.first?.stringValue,
                  let closure = e.trailingClosure ?? args.items.last?.syntax.as(ClosureExprSyntax.self) else {
                throw error("group needs a name and a closure: aggregator.group(\"Accuracy\") { $0.computeMean(of: metric) }", e)
            }
            _ = try await apply(closure, [.evaluations(.aggregator(aggregator, group: groupName))])
            return .null
        case (.aggregator(let aggregator, let group), "custom"):
            guard case .evaluations(.metric(let metric))? = args.value("of"), let label = args.value("label")?.stringValue,
                  let closure = e.trailingClosure ?? args.items.last?.syntax.as(ClosureExprSyntax.self) else {
                throw error("custom needs of: metric, label: and a closure over the values", e)
            }
            let captured = makeClosure(closure)
            aggregator.addCustom(of: metric, label: label, group: group) { [self] values in
                let result = try await call(captured, [.array(values.map(Value.double))])
                guard let number = result.number else { throw ThrownValue(value: .string("custom aggregate \(label) did not return a number")) }
                return number
            }
            return .null
        case (.aggregator(let aggregator, let group), _):
            guard case .evaluations(.metric(let metric))? = args.value("of"),
                  let operation = MetricsAggregator.operation(method: name, metric: metric) else {
                throw error("'\(name)(...)' is not available on MetricsAggregator (computeMean, computeMedian, computeMode, "
                            + "computeMinimum, computeMaximum, computeStandardDeviation, computeVariance, custom, group)", e)
            }
            aggregator.add(operation, group: group)
            return .null
        case (.result(let r), "aggregateValue"):
            return .double(r.report.aggregateValue(try operation(args.unlabelled.first, e)))
        case (.evaluator, "metrics"):
            guard let subject = args.value("subject"), let input = args.value("input") else {
                throw error("metrics needs subject: and input:", e)
            }
            guard case .evaluations(.evaluator(let evaluator)) = Value.evaluations(object) else { return .null }
            return .array(try await apply(evaluator, sample: input, subject: subject).map { .evaluations(.metric($0)) })
        default:
            throw error("'\(name)(...)' is not available on \(object.typeName) in prompt files", e)
        }
    }

    /// `result.detailed[evaluation.inputColumn]`, `result.detailed[metric: m]`.
    func evaluationsSubscript(_ base: Value, _ e: SubscriptCallExprSyntax) async throws -> Value? {
        guard case .evaluations(.frame(let run, let detailed)) = base else { return nil }
        guard detailed else { throw error("subscript the detailed DataFrame (result.detailed[...]) for per-sample values", e) }
        guard let argument = e.arguments.first else { throw error("a subscript needs a column", e) }
        let key = try await evaluate(argument.expression)
        switch (argument.label?.text, key) {
        case ("metric", .evaluations(.metric(let metric))):
            return .array(run.report.samples.map { $0.metric(named: metric.name).map { .evaluations(.metric($0)) } ?? .null })
        case (nil, .evaluations(.column("Input"))): return .array(run.samples)
        case (nil, .evaluations(.column("Response"))): return .array(run.subjects)
        case (nil, .evaluations(.column("Expected"))):
            return .array(run.samples.map { if case .evaluations(.sample(let s)) = $0 { s.expected } else { .null } })
        default: throw error("index the detailed DataFrame with evaluation.inputColumn, .responseColumn, .expectedColumn or metric: m", e)
        }
    }

    // MARK: Running an evaluation

    /// Calls a method declared on a file type (`metrics`, `subject`, `aggregateMetrics`) with positional arguments.
    func callMethod(_ name: String, on value: Value, arguments values: [Value], _ node: some SyntaxProtocol) async throws -> Value {
        guard let type = typeName(of: value), let method = findMethod(name, in: type) else {
            throw error("\(value.description.prefix(40)) has no method \(name)", node)
        }
        let parameters = TypeTable.parameters(of: method.decls[0])
        let args = zip(parameters, values).map { CallArgument(label: $0.label, value: $1) }
        return try await invokeDeclared(method.decls, selfCell: Cell(value), typeName: method.owner, args, at: node)
    }

    /// A property of an Evaluation struct: stored, or computed (a result builder for `evaluators`).
    func property(_ name: String, of value: Value, builder: Bool, _ node: some SyntaxProtocol) async throws -> Value? {
        guard case .structure(let type, let fields) = value else { return nil }
        if let field = fields.first(where: { $0.name == name }) { return field.value }
        guard let getter = findComputed(name, in: type)?.getter else { return nil }
        return try await asMember(value, name: name, at: node) {
            builder ? .array(try await evaluationBuilderValues(getter)) : try await runBody(getter)
        }
    }

    /// The values a result-builder body lists (`Instructions { }`, `@EvaluatorsBuilder`): one per expression,
    /// `if` branches and `for` bodies included.
    func evaluationBuilderValues(_ items: CodeBlockItemListSyntax) async throws -> [Value] {
        var values: [Value] = []
        for item in items {
            switch item.item {
            case .expr(let expr):
                if let ifExpr = expr.as(IfExprSyntax.self) {
                    values += try await withScope { () -> [Value] in
                        if try await conditionsHold(ifExpr.conditions) { return try await evaluationBuilderValues(ifExpr.body.statements) }
                        if case .codeBlock(let block) = ifExpr.elseBody { return try await evaluationBuilderValues(block.statements) }
                        if case .ifExpr(let next) = ifExpr.elseBody {
                            return try await evaluationBuilderValues(CodeBlockItemListSyntax([CodeBlockItemSyntax(item: .expr(ExprSyntax(next)))]))
                        }
                        return []
                    }
                } else {
                    values.append(try await evaluate(expr))
                }
            case .decl(let decl):
                guard let variable = decl.as(VariableDeclSyntax.self) else { throw error("declarations are not supported in a builder", decl) }
                try await declare(variable)
            case .stmt(let stmt):
                if let loop = stmt.as(ForStmtSyntax.self) {
                    let elements: [Value]
                    switch try await evaluate(loop.sequence) {
                    case .array(let items): elements = items
                    case .range(let lower, let upper, let closed):
                        let count = try checked(loop.sequence) { () throws(Arithmetic.Failure) in
                            try Arithmetic.rangeCount(lower, upper, closed: closed)
                        }
                        guard count <= 10_000 else {
                            throw error("a builder loop needs an array or a range of at most 10000 numbers", loop.sequence)
                        }
                        elements = (0..<count).map { .int(lower + $0) }
                    default: throw error("a builder loop needs an array or a range of at most 10000 numbers", loop.sequence)
                    }
                    for element in elements {
                        values += try await withScope { () -> [Value] in
                            try bind(loop.pattern, to: element)
                            return try await evaluationBuilderValues(loop.body.statements)
                        }
                    }
                } else if let s = stmt.as(ExpressionStmtSyntax.self) {
                    values += try await evaluationBuilderValues(CodeBlockItemListSyntax([CodeBlockItemSyntax(item: .expr(s.expression))]))
                } else {
                    throw error("this statement is not supported in a builder", stmt)
                }
            }
        }
        return values
    }

    func runEvaluation(_ evaluation: Value, info: [(String, String)], site: CallSite) async throws -> EvaluationRunValue {
        guard case .structure(let type, _) = evaluation else { throw InterpreterError(message: "not an evaluation", offsets: 0..<0) }
        let node = Syntax(fromProtocol: context.file.syntax)
        let start = ContinuousClock.now
        guard case .evaluations(.loader(let samples))? = try await property("dataset", of: evaluation, builder: false, node) else {
            throw ThrownValue(value: .string("\(type).dataset must be an ArrayLoader(samples: [...])"))
        }
        guard findMethod("subject", in: type) != nil else {
            throw ThrownValue(value: .string("\(type) needs func subject(from sample:) async throws -> ModelSubject<...>"))
        }
        var evaluators: [EvaluatorValue] = []
        if case .array(let items)? = try await property("evaluators", of: evaluation, builder: true, node) {
            for item in items {
                switch item {
                case .evaluations(.evaluator(let e)): evaluators.append(e)
                case .structure(let t, _) where conforms(t, to: "EvaluatorProtocol"): evaluators.append(.custom(item))
                default: throw ThrownValue(value: .string("\(type).evaluators lists \(item.description.prefix(40)), which is not an evaluator"))
                }
            }
        }
        var outcomes: [SampleOutcome] = []
        var subjects: [Value] = []
        for (index, sample) in samples.enumerated() {
            try Task.checkCancellation()
            guard case .evaluations(.sample(let data)) = sample else { continue }
            var outcome = SampleOutcome(index: index, prompt: data.promptText,
                                        instructions: data.instructions.isNull ? nil : data.instructions.description,
                                        expected: data.expected.isNull ? nil : data.expected.jsonValue, response: nil, responseText: nil)
            let subject: Value
            do {
                subject = try await callMethod("subject", on: evaluation, arguments: [sample], node)
            } catch let failure where !(failure is InterpreterError || failure is CancellationError) {
                outcome.subjectError = describeThrown(failure)
                outcomes.append(outcome)
                subjects.append(.null)
                continue
            }
            guard case .evaluations(.subject(let value, let transcript)) = subject else {
                throw ThrownValue(value: .string("\(type).subject(from:) must return a ModelSubject (got \(subject.description.prefix(40)))"))
            }
            subjects.append(subject)
            outcome.response = value.jsonValue
            outcome.responseText = value.description
            outcome.toolCalls = transcript?.toolCalls ?? []
            for evaluator in evaluators {
                do {
                    outcome.metrics += try await apply(evaluator, sample: sample, subject: subject)
                } catch let failure where !(failure is InterpreterError || failure is CancellationError) {
                    outcome.evaluatorErrors.append("\(evaluator.typeName): \(describeThrown(failure))")
                }
            }
            outcomes.append(outcome)
        }
        let aggregator = MetricsAggregator()
        if findMethod("aggregateMetrics", in: type) != nil {
            _ = try await callMethod("aggregateMetrics", on: evaluation, arguments: [.evaluations(.aggregator(aggregator, group: nil))], node)
        }
        let report = try await EvaluationReport.summarize(name: type.split(separator: ".").last.map(String.init) ?? type, info: info,
                                                          samples: outcomes, aggregator: aggregator)
        let elapsed = ContinuousClock.now - start
        let run = EvaluationRunValue(report: report, samples: samples, subjects: subjects,
                                     duration: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        recorder.recordEvaluation(site, report: report)
        return run
    }

    func describeThrown(_ error: any Error) -> String {
        switch error {
        case let thrown as ThrownValue: return thrown.value.description
        default: return "\(error)"
        }
    }

    /// One evaluator on one (sample, subject) pair.
    func apply(_ evaluator: EvaluatorValue, sample: Value, subject: Value) async throws -> [Metric] {
        switch evaluator {
        case .closure(let closure):
            let result = try await call(closure, [sample, subject])
            return try metrics(from: result, evaluator.typeName)
        case .custom(let value):
            let result = try await callMethod("metrics", on: value, arguments: [subject, sample], closureNode(value))
            return try metrics(from: result, evaluator.typeName)
        case .toolCall(let allPass, let percentagePass, let model):
            guard case .evaluations(.subject(_, let transcript)) = subject, let transcript else {
                throw ThrownValue(value: .string("missingTranscript(evaluatorType: \"ToolCallEvaluator\"): pass "
                                                 + "session.transcript.structuredTranscript to ModelSubject(value:transcript:)"))
            }
            guard case .evaluations(.sample(let data)) = sample, let expectation = data.expectations else {
                return [allPass.ignore(rationale: "no expectations"), percentagePass.ignore(rationale: "no expectations")]
            }
            let matcher = ModelJudge.naturalLanguageMatcher(model ?? context.systemModel(useCase: .general))
            let check = try await TrajectoryMatching.check(expectation, calls: transcript.toolCalls, naturalLanguage: matcher)
            let rationale = check.failures.isEmpty ? nil : check.failures.joined(separator: "; ")
            return [check.allPass ? allPass.passing(rationale: rationale) : allPass.failing(rationale: rationale),
                    percentagePass.scoring(check.fraction, rationale: "\(check.passed)/\(check.total) expectations met")]
        case .judge(let judge):
            guard case .evaluations(.sample(let data)) = sample, case .evaluations(.subject(let value, _)) = subject else { return [] }
            func render(_ v: Value) async throws -> String {
                if let target = judge.prompt?.evaluationTarget { return try await call(target, [v]).description }
                if case .string(let s) = v { return s }
                return v.jsonValue.serialized()
            }
            let response = try await render(value)
            var baseline: String?
            if judge.judge.pairwise {
                guard !data.expected.isNull else { return judge.judge.dimensions.map { $0.metric.ignore(rationale: "no baseline (expected) value") } }
                baseline = try await render(data.expected)
            }
            var reference: [(String, String)] = []
            if let closure = judge.prompt?.reference, case .dictionary(let pairs) = try await call(closure, [sample, value]) {
                reference = pairs.map { ($0.key.description, $0.value.description) }
            }
            return try await judge.judge.score(request: data.promptText, response: response, baseline: baseline, reference: reference)
        }
    }

    private func closureNode(_ value: Value) -> Syntax { Syntax(fromProtocol: context.file.syntax) }

    func metrics(from value: Value, _ evaluatorType: String) throws -> [Metric] {
        switch value {
        case .evaluations(.metric(let m)): return [m]
        case .array(let items):
            return try items.flatMap { try metrics(from: $0, evaluatorType) }
        default:
            throw ThrownValue(value: .string("\(evaluatorType) returned \(value.description.prefix(40)), not a Metric"))
        }
    }
}

extension Interpreter {
    /// Swift Testing's `#expect(condition)` (a failure is recorded and the test goes on)
    /// and `#require(condition)` (a failure stops the test).
    func expectation(_ e: MacroExpansionExprSyntax) async throws -> Value {
        guard let condition = e.arguments.first?.expression else { throw error("#\(e.macroName.text) needs a condition", e) }
        let value = try await evaluate(condition)
        if e.macroName.text == "require", !(condition.is(InfixOperatorExprSyntax.self)) {
            // #require(optional) unwraps.
            if case .bool = value {} else {
                if value.isNull { throw ThrownValue(value: .string("#require: \(condition.trimmedDescription) is nil")) }
                return value
            }
        }
        guard case .bool(let holds) = value else { throw error("#\(e.macroName.text) needs a Bool condition", condition) }
        if holds { return .null }
        var message = "Expectation failed: \(condition.trimmedDescription)"
        if let infix = condition.as(InfixOperatorExprSyntax.self) {
            // Like Swift Testing: show the operands' values.
            let left = try await evaluate(infix.leftOperand)
            let right = try await evaluate(infix.rightOperand)
            message += " (\(infix.leftOperand.trimmedDescription) → \(left.debugDescription), \(infix.rightOperand.trimmedDescription) → \(right.debugDescription))"
        }
        if let comment = e.arguments.dropFirst().first?.expression, let text = try await evaluate(comment).stringValue { message += ": " + text }
        if e.macroName.text == "require" { throw InterpreterError(message: message, offsets: e.positionAfterSkippingLeadingTrivia.utf8Offset..<e.endPositionBeforeTrailingTrivia.utf8Offset) }
        recorder.recordError(site(e), message: message)
        return .null
    }
}

extension Interpreter {
    static let characterSets: [String: CharacterSet] = [
        "whitespaces": .whitespaces, "whitespacesAndNewlines": .whitespacesAndNewlines, "newlines": .newlines,
        "punctuationCharacters": .punctuationCharacters, "decimalDigits": .decimalDigits, "letters": .letters,
        "alphanumerics": .alphanumerics, "symbols": .symbols, "uppercaseLetters": .uppercaseLetters, "lowercaseLetters": .lowercaseLetters,
    ]

    /// `.whitespacesAndNewlines`, `.punctuationCharacters`, `a.union(b)`, `CharacterSet(charactersIn:)`.
    func characterSet(_ value: Value, _ node: some SyntaxProtocol) throws -> CharacterSet {
        switch value {
        case .enumCase(_, "union", let payload):
            return try payload.reduce(CharacterSet()) { $0.union(try characterSet($1.value, node)) }
        case .enumCase(_, "charactersIn", let payload):
            return CharacterSet(charactersIn: payload.first?.value.description ?? "")
        case .enumCase(_, let name, _):
            guard let set = Interpreter.characterSets[name] else {
                throw error("CharacterSet.\(name) is not supported in prompt files (use " + Interpreter.characterSets.keys.sorted().joined(separator: ", ") + ")", node)
            }
            return set
        default:
            throw error("expected a CharacterSet such as .whitespacesAndNewlines", node)
        }
    }

    /// `.whitespaces.union(.punctuationCharacters)`: kept as a value until used.
    func characterSetMethod(_ name: String, of base: Value, _ e: FunctionCallExprSyntax) async throws -> Value? {
        guard name == "union", case .enumCase(_, let caseName, _) = base,
              Interpreter.characterSets[caseName] != nil || caseName == "union" || caseName == "charactersIn" else { return nil }
        let args = try await arguments(e.arguments)
        return .enumCase(type: "CharacterSet", name: "union", payload: [(label: nil, value: base), (label: nil, value: args.unlabelled.first ?? .null)])
    }
}
