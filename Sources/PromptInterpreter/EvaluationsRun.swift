import Evaluations
import Foundation
import FoundationModelsRuntime
import JSON
import PromptLanguage
import Surface
import SwiftSyntax

extension Interpreter {
    // MARK: Evaluation structs

    /// What the `Evaluation` protocol gives a struct of the file (`name` unless it declares its own, the
    /// columns): their table entries (Builtins/Evaluations.swift); nil for every other member and value.
    /// Framework values (metrics, samples, results...) dispatch through the table by their runtime type.
    func evaluationsMember(_ name: String, of base: Value, _ node: some SyntaxProtocol) async throws -> Value? {
        guard case .structure(let type, _) = base, conforms(type, to: "Evaluation"),
              !(name == "name" && findComputed("name", in: type) != nil),
              case .found(let entry) = Surface.table.resolveValue(type: "Evaluation", name: name, isStatic: false), !entry.isCallable
        else { return nil }
        return try await runBuiltin(entry, base: base, baseExpr: nil, call: nil, node: node)
    }

    /// `evaluation.run()` / `run(info:)` on a struct of the file conforming to `Evaluation`; nil otherwise.
    func evaluationsMethod(_ name: String, of base: Value, _ e: FunctionCallExprSyntax) async throws -> Value? {
        guard name == "run", case .structure(let type, _) = base, conforms(type, to: "Evaluation"), findMethod(name, in: type) == nil,
              let entry = Surface.table.entry(id: "Evaluation.run(info:)") else { return nil }
        return try await runBuiltin(entry, base: base, baseExpr: nil, call: e, node: e)
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

    package func runEvaluation(_ evaluation: Value, info: [(String, String)], site: CallSite) async throws -> EvaluationRunValue {
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
