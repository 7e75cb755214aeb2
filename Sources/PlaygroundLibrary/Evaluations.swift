import Evaluations
import FoundationModelsRuntime
import PromptInterpreter
import Surface
import SwiftSyntax

/// The Evaluations entries of `Surface.table` (Table/Evaluations.swift), one implementation each.
/// The framework's semantics (metrics, judges, tool-call checks, aggregation) are in the
/// `Evaluations` target; running an evaluation is `EvaluationsRun.swift`.
extension Builtins {
    static let evaluationsBuiltins: [String: Builtin] = {
        var all = evaluationBuiltins.merging(metricBuiltins) { a, _ in a }
            .merging(sampleBuiltins) { a, _ in a }
            .merging(evaluatorBuiltins) { a, _ in a }
            .merging(expectationBuiltins) { a, _ in a }
            .merging(resultBuiltins) { a, _ in a }
            .merging(bundledSampleBuiltins) { a, _ in a }
        // Enum cases construct their value (matchers and scoring modes are read by the initializers that take them);
        // an AggregationOperation is a value with a label.
        for type in Surface.table.types where type.module == "Evaluations" {
            for entry in type.members where entry.kind == .enumCase {
                all[entry.id] = entry.owner == "AggregationOperation" ? operationConstructor(entry) : caseConstructor(entry)
            }
        }
        all["Transcript.structuredTranscript"] = on(transcriptValue) { _, t, _ in .evaluations(.transcript(StructuredTranscriptValue(t))) }
        return all
    }()

    // MARK: Receivers

    static let transcriptValue: @Sendable (Value) -> Transcript? = { if case .transcript(let t) = $0 { t } else { nil } }
    static let metric: @Sendable (Value) -> Metric? = { if case .evaluations(.metric(let m)) = $0 { m } else { nil } }
    static let sample: @Sendable (Value) -> SampleValue? = { if case .evaluations(.sample(let s)) = $0 { s } else { nil } }
    static let subject: @Sendable (Value) -> (value: Value, transcript: StructuredTranscriptValue?)? = {
        if case .evaluations(.subject(let value, let transcript)) = $0 { (value, transcript) } else { nil }
    }
    /// `StructuredTranscript(toolCalls:toolOutputs:instructionText:prompts:responses:)`: each list holds the
    /// documented element type (a tool output or a response is read as its text; a string is taken as it is).
    static func handWrittenTranscript(_ i: Interpreter, _ c: BuiltinCall) async throws -> StructuredTranscriptValue {
        let args = try await c.arguments(i)
        func list(_ label: String) throws -> [Value] { try args.value(label).map { try i.sequenceElements($0, c.node) } ?? [] }
        func text(_ value: Value, _ label: String) throws -> String {
            switch value {
            case .string(let s): return s
            case .transcriptPart(.toolOutput(let o)): return o.segments.map(\.text).joined()
            case .transcriptPart(.response(let r)): return r.segments.map(\.text).joined()
            default: throw i.error("\(label): lists Transcript.\(label == "toolOutputs" ? "ToolOutput" : "Response") values, not \(value.description.prefix(40))", c.node)
            }
        }
        var transcript = StructuredTranscriptValue()
        for call in try list("toolCalls") {
            guard case .structure("Transcript.ToolCall", let fields) = call, let name = fields.first(where: { $0.name == "toolName" })?.value.stringValue else {
                throw i.error("toolCalls: lists Transcript.ToolCall(id:toolName:arguments:) values, not \(call.description.prefix(40))", c.node)
            }
            let arguments = fields.first { $0.name == "arguments" }?.value.generatedContent.jsonValue ?? .null
            transcript.toolCalls.append(ObservedToolCall(name: name, arguments: arguments))
        }
        transcript.toolOutputs = try list("toolOutputs").map { try text($0, "toolOutputs") }
        transcript.instructionText = args.value("instructionText")?.stringValue ?? ""
        transcript.prompts = try list("prompts").map { $0.stringValue ?? $0.description }
        transcript.responses = try list("responses").map { try text($0, "responses") }
        return transcript
    }

    static let structuredTranscript: @Sendable (Value) -> StructuredTranscriptValue? = {
        if case .evaluations(.transcript(let t)) = $0 { t } else { nil }
    }
    static let loader: @Sendable (Value) -> [Value]? = { if case .evaluations(.loader(let samples)) = $0 { samples } else { nil } }
    static let dimension: @Sendable (Value) -> ScoreDimension? = { if case .evaluations(.dimension(let d)) = $0 { d } else { nil } }
    static let evaluator: @Sendable (Value) -> EvaluatorValue? = { if case .evaluations(.evaluator(let e)) = $0 { e } else { nil } }
    static let operationValue: @Sendable (Value) -> AggregationOperation? = { if case .evaluations(.operation(let o)) = $0 { o } else { nil } }
    static let aggregator: @Sendable (Value) -> (aggregator: MetricsAggregator, group: String?)? = {
        if case .evaluations(.aggregator(let a, let group)) = $0 { (a, group) } else { nil }
    }
    static let runResult: @Sendable (Value) -> EvaluationRunValue? = { if case .evaluations(.result(let r)) = $0 { r } else { nil } }
    static let frame: @Sendable (Value) -> (run: EvaluationRunValue, detailed: Bool)? = {
        if case .evaluations(.frame(let r, let detailed)) = $0 { (r, detailed) } else { nil }
    }
    static let runErrors: @Sendable (Value) -> EvaluationRunErrors? = { if case .evaluations(.runErrors(let e)) = $0 { e } else { nil } }
    static let testContext: @Sendable (Value) -> EvaluationRunValue? = { if case .evaluations(.testContext(let r)) = $0 { r } else { nil } }
    /// An instance of a struct of the file conforming to `Evaluation`.
    static let evaluationStruct: @Sendable (Value) -> String? = { if case .structure(let type, _) = $0 { type } else { nil } }

    /// The arguments of an Evaluations call, closure literals kept as syntax (they are captured, not called).
    static func closureArguments(_ i: Interpreter, _ c: BuiltinCall) async throws -> Arguments {
        try await i.arguments(c.callNode.arguments, parameters: c.entry.parameters ?? [], keepingClosures: true)
    }

    static func caseConstructor(_ entry: SurfaceMember) -> Builtin {
        { i, c in
            .enumCase(type: entry.owner, name: entry.name, payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
        }
    }

    static func operationConstructor(_ entry: SurfaceMember) -> Builtin {
        { i, c in
            let written = Value.enumCase(type: entry.owner, name: entry.name, payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
            return .evaluations(.operation(try i.operation(written, c.node)))
        }
    }

    // MARK: Evaluation (a struct of the file)

    static let evaluationBuiltins: [String: Builtin] = [
        "Evaluation.run(info:)": { i, c in
            let args = try await i.arguments(c.callNode.arguments)
            var info: [(String, String)] = []
            if case .dictionary(let pairs)? = args.value("info") { info = pairs.map { ($0.key.description, $0.value.description) } }
            if args.value("on") != nil { throw i.error("run(on:) is not part of Evaluations 27; call run() or run(info:)", c.node) }
            return .evaluations(.result(try await i.runEvaluation(c.base, info: info, site: i.site(c.callNode))))
        },
        "Evaluation.name": on(evaluationStruct) { _, type, _ in .string(type.split(separator: ".").last.map(String.init) ?? type) },
        "Evaluation.inputColumn": constant(.evaluations(.column("Input"))),
        "Evaluation.responseColumn": constant(.evaluations(.column("Response"))),
        "Evaluation.expectedColumn": constant(.evaluations(.column("Expected"))),
        "EvaluationContext.current": { i, c in
            guard let current = i.currentEvaluation else {
                throw i.error("EvaluationContext.current is only available inside a @Test(.evaluates(...)) function", c.node)
            }
            return .evaluations(.testContext(current))
        },
        "EvaluationContext.result": on(testContext) { _, r, _ in .evaluations(.result(r)) },
    ]

    // MARK: Metric

    static func rationale(_ i: Interpreter, _ c: BuiltinCall) async throws -> String? {
        try await c.arguments(i).value("rationale")?.stringValue
    }

    static let metricBuiltins: [String: Builtin] = [
        "Metric.init(_:)": { i, c in
            guard let name = try await c.arguments(i).unlabelled.first?.stringValue else {
                throw i.error("Metric needs a name: Metric(\"Accuracy\")", c.node)
            }
            return .evaluations(.metric(Metric(name)))
        },
        "Metric.passing(rationale:)": on(metric) { i, m, c in .evaluations(.metric(m.passing(rationale: try await rationale(i, c)))) },
        "Metric.failing(rationale:)": on(metric) { i, m, c in .evaluations(.metric(m.failing(rationale: try await rationale(i, c)))) },
        "Metric.ignore(rationale:)": on(metric) { i, m, c in .evaluations(.metric(m.ignore(rationale: try await rationale(i, c)))) },
        "Metric.scoring(_:rationale:)": on(metric) { i, m, c in
            guard let score = try await c.arguments(i).unlabelled.first?.number else { throw i.error("scoring(_:) needs a number", c.node) }
            return .evaluations(.metric(m.scoring(score, rationale: try await rationale(i, c))))
        },
        "Metric.name": on(metric) { _, m, _ in .string(m.name) },
        "Metric.rationale": on(metric) { _, m, _ in m.rationale.map(Value.string) ?? .null },
        "Metric.doubleValue": on(metric) { _, m, _ in m.doubleValue.map(Value.double) ?? .null },
        "Metric.value": on(metric) { _, m, _ in
            switch m.value {
            case .passing: .enumCase(type: "Metric.Value", name: "passing", payload: [])
            case .failing: .enumCase(type: "Metric.Value", name: "failing", payload: [])
            case .scoring(let x): .enumCase(type: "Metric.Value", name: "scoring", payload: [(label: nil, value: .double(x))])
            case .ignore: .enumCase(type: "Metric.Value", name: "ignore", payload: [])
            case nil: .null
            }
        },
        "Metric.toolsAllPass": constant(.evaluations(.metric(Metric.toolsAllPass))),
        "Metric.toolsPercentagePass": constant(.evaluations(.metric(Metric.toolsPercentagePass))),
    ]

    // MARK: Samples, subjects, transcripts, datasets

    static let sampleBuiltins: [String: Builtin] = [
        "ModelSample.init(prompt:expected:instructions:generationSchema:expectations:)": { i, c in
            let args = try await closureArguments(i, c)
            guard let prompt = args.value("prompt") else {
                throw i.error("ModelSample needs prompt: (ModelSample(prompt: \"...\", expected: ...))", c.node)
            }
            var expectations: TrajectoryExpectation?
            if let given = args.value("expectations"), !given.isNull {
                guard case .evaluations(.trajectory(let t)) = given else { throw i.error("expectations: must be a TrajectoryExpectation", c.node) }
                expectations = t
            }
            return .evaluations(.sample(SampleValue(prompt: prompt, expected: args.value("expected") ?? .null,
                                                    instructions: args.value("instructions") ?? .null,
                                                    generationSchema: args.value("generationSchema") ?? .null, expectations: expectations)))
        },
        "ModelSample.prompt": on(sample) { _, s, _ in s.prompt },
        "ModelSample.promptDescription": on(sample) { _, s, _ in .string(s.promptText) },
        "ModelSample.expected": on(sample) { _, s, _ in s.expected },
        "ModelSample.instructions": on(sample) { _, s, _ in s.instructions },
        "ModelSample.instructionsDescription": on(sample) { _, s, _ in s.instructions.isNull ? .null : .string(s.instructions.description) },
        "ModelSample.generationSchema": on(sample) { _, s, _ in s.generationSchema },
        "ModelSample.expectations": on(sample) { _, s, _ in s.expectations.map { .evaluations(.trajectory($0)) } ?? .null },
        "ModelSubject.init(value:transcript:)": { i, c in
            let args = try await closureArguments(i, c)
            guard let value = args.value("value") else { throw i.error("ModelSubject needs value: (ModelSubject(value: response.content))", c.node) }
            var transcript: StructuredTranscriptValue?
            switch args.value("transcript") {
            case .evaluations(.transcript(let t))?: transcript = t
            case .transcript(let t)?: transcript = StructuredTranscriptValue(t)
            case nil, .null?: break
            default: throw i.error("transcript: must be session.transcript.structuredTranscript", c.node)
            }
            return .evaluations(.subject(value: value, transcript: transcript))
        },
        "ModelSubject.value": on(subject) { _, s, _ in s.value },
        "ModelSubject.transcript": on(subject) { _, s, _ in s.transcript.map { .evaluations(.transcript($0)) } ?? .null },
        "StructuredTranscript.init(toolCalls:toolOutputs:instructionText:prompts:responses:)": { i, c in
            .evaluations(.transcript(try await handWrittenTranscript(i, c)))
        },
        "StructuredTranscript.toolCalls": on(structuredTranscript) { _, t, _ in
            .array(t.toolCalls.map { .structure(type: "Transcript.ToolCall", fields: [
                ("toolName", .string($0.name)), ("arguments", .content(GeneratedContent($0.arguments)))]) })
        },
        "StructuredTranscript.toolOutputs": on(structuredTranscript) { _, t, _ in .array(t.toolOutputs.map(Value.string)) },
        "StructuredTranscript.instructionText": on(structuredTranscript) { _, t, _ in .string(t.instructionText) },
        "StructuredTranscript.prompts": on(structuredTranscript) { _, t, _ in .array(t.prompts.map(Value.string)) },
        "StructuredTranscript.responses": on(structuredTranscript) { _, t, _ in .array(t.responses.map(Value.string)) },
        "ArrayLoader.init(samples:)": { i, c in
            guard case .array(let samples)? = try await closureArguments(i, c).value("samples") else {
                throw i.error("ArrayLoader needs samples: [ModelSample(...)]", c.node)
            }
            for sample in samples {
                guard case .evaluations(.sample) = sample else {
                    throw i.error("ArrayLoader samples must be ModelSample values (got \(sample.description.prefix(40)))", c.node)
                }
            }
            return .evaluations(.loader(samples))
        },
        "ArrayLoader.samples": on(loader) { _, samples, _ in .array(samples) },
    ]

    // MARK: Evaluators

    static let evaluatorBuiltins: [String: Builtin] = {
        let judge: Builtin = { i, c in try await i.makeJudge(try await closureArguments(i, c), pairwise: false, c.callNode) }
        let pairwise: Builtin = { i, c in try await i.makeJudge(try await closureArguments(i, c), pairwise: true, c.callNode) }
        let toolCall: Builtin = { i, c in
            let args = try await closureArguments(i, c)
            guard case .evaluations(.metric(let allPass))? = args.value("allPass"),
                  case .evaluations(.metric(let percentagePass))? = args.value("percentagePass") else {
                throw i.error("ToolCallEvaluator needs allPass: and percentagePass: metrics", c.node)
            }
            var matchModel: (any LanguageModel)?
            if let model = args.value("argumentMatchModel") {
                guard let m = i.languageModel(from: model) else { throw i.error("argumentMatchModel: must be a language model", c.node) }
                matchModel = m
            }
            return .evaluations(.evaluator(.toolCall(allPass: allPass, percentagePass: percentagePass, argumentMatchModel: matchModel)))
        }
        return [
            "Evaluator.init(_:)": { i, c in
                let args = try await closureArguments(i, c)
                guard let closure = c.callNode.trailingClosure ?? args.items.first?.syntax.as(ClosureExprSyntax.self) else {
                    throw i.error("Evaluator needs a closure: Evaluator { sample, subject in metric.passing() }", c.node)
                }
                return .evaluations(.evaluator(.closure(i.makeClosure(closure))))
            },
            "ModelJudgeEvaluator.init(_:scale:judge:scoringMode:prompt:)": judge,
            "ModelJudgeEvaluator.init(judge:dimensions:scoringMode:prompt:)": judge,
            "ModelJudgeEvaluator.pairwise(_:scale:judge:scoringMode:evaluationTarget:)": pairwise,
            "ModelJudgeEvaluator.pairwise(judge:dimensions:scoringMode:evaluationTarget:)": pairwise,
            "ModelJudgeEvaluator.defaultInstructions": constant(.string(ModelJudge.defaultInstructions)),
            "ModelJudgeEvaluator.dimensions": on(evaluator) { i, e, c in
                guard case .judge(let j) = e else { throw i.error("'dimensions' is a property of ModelJudgeEvaluator", c.node) }
                return .array(j.judge.dimensions.map { .evaluations(.dimension($0)) })
            },
            "ModelJudgePrompt.init(instructions:evaluationTarget:reference:)": { i, c in
                let args = try await closureArguments(i, c)
                var prompt = JudgePromptValue(instructions: args.value("instructions")?.stringValue)
                for item in args.items {
                    guard let closure = item.syntax.as(ClosureExprSyntax.self) else { continue }
                    if item.label == "evaluationTarget" { prompt.evaluationTarget = i.makeClosure(closure) }
                    if item.label == "reference" { prompt.reference = i.makeClosure(closure) }
                }
                if let closure = c.callNode.trailingClosure { prompt.reference = i.makeClosure(closure) }
                return .evaluations(.judgePrompt(prompt))
            },
            "ModelJudgePrompt.defaultInstructions": constant(.string(ModelJudge.defaultInstructions)),
            "ScoreDimension.init(_:description:scale:)": { i, c in
                let args = try await closureArguments(i, c)
                guard let name = args.unlabelled.first?.stringValue else { throw i.error("ScoreDimension needs a name", c.node) }
                return .evaluations(.dimension(ScoreDimension(name, description: args.value("description")?.stringValue,
                                                              scale: try i.scale(args.value("scale"), c.node))))
            },
            "ScoreDimension.metric": on(dimension) { _, d, _ in .evaluations(.metric(d.metric)) },
            "ScoreDimension.name": on(dimension) { _, d, _ in .string(d.name) },
            "ScoreDimension.description": on(dimension) { _, d, _ in d.description.map(Value.string) ?? .null },
            "ScoreDimension.scale": on(dimension) { _, d, _ in .evaluations(.scale(d.scale)) },
            "ScoringScale.init(options:)": { i, c in
                let given = try await c.arguments(i).value("options").map { try i.sequenceElements($0, c.node) } ?? []
                let options = try given.map { option -> ScaleOption in
                    guard case .structure("ScaleOption", let fields) = option,
                          let label = fields.first(where: { $0.name == "label" })?.value.stringValue,
                          let guide = fields.first(where: { $0.name == "guideDescription" })?.value.stringValue,
                          let value = fields.first(where: { $0.name == "value" })?.value.number else {
                        throw i.error("ScoringScale(options:) lists ScaleOption(label:guideDescription:value:) values", c.node)
                    }
                    return ScaleOption(value: value, label: label, description: guide)
                }
                guard !options.isEmpty else { throw i.error("ScoringScale(options:) needs at least one option for the judge to give", c.node) }
                return .evaluations(.scale(ScoringScale(options: options)))
            },
            "ScoringScale.options": on(scaleValue) { _, scale, _ in .array(scale.options.map(scaleOptionValue)) },
            "ScaleOption.init(label:guideDescription:value:)": { i, c in
                let args = try await c.arguments(i)
                guard let label = args.value("label")?.stringValue, let guide = args.value("guideDescription")?.stringValue,
                      let value = args.value("value")?.number else {
                    throw i.error("ScaleOption needs label: and guideDescription: text and a value: number", c.node)
                }
                return scaleOptionValue(ScaleOption(value: value, label: label, description: guide))
            },
            "ScaleOption.label": field("label"),
            "ScaleOption.guideDescription": field("guideDescription"),
            "ScaleOption.value": field("value"),
            "ModelJudgeEvaluator.scoringMode": on(evaluator) { i, e, c in
                guard case .judge(let j) = e else { throw i.error("'scoringMode' is a property of ModelJudgeEvaluator", c.node) }
                return .enumCase(type: "ScoringMode", name: j.judge.scoringMode.rawValue, payload: [])
            },
            "ScoringScale.numeric(_:)": { i, c in
                .evaluations(.scale(try i.scale(.enumCase(type: "", name: "numeric", payload: try await c.arguments(i).items.map { ($0.label, $0.value) }), c.node)))
            },
            "ScoringScale.passFail(passDescription:failDescription:)": { i, c in
                .evaluations(.scale(try i.scale(.enumCase(type: "", name: "passFail", payload: try await c.arguments(i).items.map { ($0.label, $0.value) }), c.node)))
            },
            "ToolCallEvaluator.init(allPass:percentagePass:)": toolCall,
            "ToolCallEvaluator.init(allPass:percentagePass:argumentMatchModel:)": toolCall,
            "ToolCallEvaluator.allPass": on(evaluator) { i, e, c in
                guard case .toolCall(let allPass, _, _) = e else { throw i.error("'allPass' is a property of ToolCallEvaluator", c.node) }
                return .evaluations(.metric(allPass))
            },
            "ToolCallEvaluator.percentagePass": on(evaluator) { i, e, c in
                guard case .toolCall(_, let percentagePass, _) = e else { throw i.error("'percentagePass' is a property of ToolCallEvaluator", c.node) }
                return .evaluations(.metric(percentagePass))
            },
        ]
    }()

    // MARK: Tool-call expectations

    static let expectationBuiltins: [String: Builtin] = {
        let trajectory: Builtin = { i, c in
            let args = try await closureArguments(i, c)
            if let tool = args.value("expected")?.stringValue {
                return .evaluations(.trajectory(TrajectoryExpectation(expected: tool, arguments: try i.matchers(args.value("arguments"), c.node))))
            }
            let ordered = try i.toolExpectations(args.value("ordered"), c.node)
            let unordered = try i.toolExpectations(args.value("unordered"), c.node)
            if let disallowed = args.value("disallowed") {
                return .evaluations(.trajectory(TrajectoryExpectation(ordered: ordered, unordered: unordered,
                                                                      disallowed: try i.toolExpectations(disallowed, c.node))))
            }
            let additional = args.value("allowsAdditionalToolCalls").map { if case .bool(let b) = $0 { b } else { true } } ?? true
            return .evaluations(.trajectory(TrajectoryExpectation(ordered: ordered, unordered: unordered, allowsAdditionalToolCalls: additional)))
        }
        return [
            "TrajectoryExpectation.init(expected:arguments:)": trajectory,
            "TrajectoryExpectation.init(ordered:unordered:allowsAdditionalToolCalls:)": trajectory,
            "TrajectoryExpectation.init(ordered:unordered:disallowed:)": trajectory,
            "TrajectoryExpectation.init(unordered:)": trajectory,
            "ToolExpectation.init(_:arguments:)": { i, c in
                let args = try await closureArguments(i, c)
                guard let tool = args.unlabelled.first?.stringValue else { throw i.error("ToolExpectation needs a tool name", c.node) }
                return .evaluations(.toolExpectation(ToolExpectation(tool, arguments: try i.matchers(args.value("arguments"), c.node))))
            },
            "ToolExpectation.anyOrder(_:)": { i, c in
                .evaluations(.toolExpectation(.anyOrder(try i.toolExpectations(try await c.arguments(i).unlabelled.first, c.node))))
            },
        ]
    }()

    // MARK: Aggregation and results

    static let resultBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "MetricsAggregator.custom(of:label:_:)": on(aggregator) { i, a, c in
                let args = try await closureArguments(i, c)
                guard case .evaluations(.metric(let metric))? = args.value("of"), let label = args.value("label")?.stringValue,
                      let closure = c.callNode.trailingClosure ?? args.items.last?.syntax.as(ClosureExprSyntax.self) else {
                    throw i.error("custom needs of: metric, label: and a closure over the values", c.node)
                }
                let captured = i.makeClosure(closure)
                a.aggregator.addCustom(of: metric, label: label, group: a.group) { [i] values in
                    let result = try await i.call(captured, [.array(values.map(Value.double))])
                    guard let number = result.number else { throw ThrownValue(value: .string("custom aggregate \(label) did not return a number")) }
                    return number
                }
                return .null
            },
            "MetricsAggregator.group(_:_:)": on(aggregator) { i, a, c in
                let args = try await closureArguments(i, c)
                guard a.group == nil else { throw i.error("groups do not nest: call group(_:_:) on the aggregator itself", c.node) }
                guard let name = args.unlabelled.first?.stringValue,
                      let closure = c.callNode.trailingClosure ?? args.items.last?.syntax.as(ClosureExprSyntax.self) else {
                    throw i.error("group needs a name and a closure: aggregator.group(\"Accuracy\") { $0.computeMean(of: metric) }", c.node)
                }
                _ = try await i.apply(closure, [.evaluations(.aggregator(a.aggregator, group: name))])
                return .null
            },
            "AggregationOperation.label": on(operationValue) { _, o, _ in .string(o.label) },
            "EvaluationResult.aggregateValue(_:)": on(runResult) { i, r, c in
                .double(r.report.aggregateValue(try i.operation(try await c.arguments(i).unlabelled.first, c.node)))
            },
            "EvaluationResult.groupedSummary": on(runResult) { _, r, _ in .string(r.report.groupedSummary) },
            "EvaluationResult.summary": on(runResult) { _, r, _ in .evaluations(.frame(r, detailed: false)) },
            "EvaluationResult.detailed": on(runResult) { _, r, _ in .evaluations(.frame(r, detailed: true)) },
            "EvaluationResult.evaluationInfo": on(runResult) { _, r, _ in
                .dictionary(r.report.info.map { (key: .string($0.0), value: .string($0.1)) })
            },
            "EvaluationResult.errors": on(runResult) { _, r, _ in .evaluations(.runErrors(r.report.errors)) },
            "EvaluationResult.duration": on(runResult) { _, r, _ in .double(r.duration) },
            "EvaluationResult.evaluationID": on(runResult) { _, r, _ in .string(r.report.name) },
            "DataFrame.count": on(frame) { _, f, _ in .int(f.detailed ? f.run.report.samples.count : f.run.report.aggregates.count) },
            "DataFrame.rows": on(frame) { _, f, _ in
                .array(Array(repeating: .null, count: f.detailed ? f.run.report.samples.count : f.run.report.aggregates.count))
            },
            "EvaluationRunErrors.hasFailures": on(runErrors) { _, e, _ in .bool(e.hasFailures) },
            "EvaluationRunErrors.inferenceFailureCount": on(runErrors) { _, e, _ in .int(e.inferenceFailureCount) },
            "EvaluationRunErrors.evaluatorFailureCount": on(runErrors) { _, e, _ in .int(e.evaluatorFailureCount) },
            "EvaluationRunErrors.metricsNotFound": on(runErrors) { _, e, _ in .array(e.metricsNotFound.map(Value.string)) },
            "EvaluationRunErrors.anyInferenceProduced": on(runErrors) { _, e, _ in .bool(e.anyInferenceProduced) },
            "EvaluationRunErrors.failingEvaluatorTypes": on(runErrors) { _, e, _ in .array(e.failingEvaluatorTypes.map(Value.string)) },
            "EvaluationRunErrors.clean": constant(.evaluations(.runErrors(.clean))),
            "EvaluationResult.init(jsonData:)": { i, c in
                guard case .data(let bytes)? = try await c.arguments(i).value("jsonData") else {
                    throw i.error("EvaluationResult(jsonData:) needs Data, such as Data(json.utf8)", c.node)
                }
                return .evaluations(.result(EvaluationRunValue(decoded: try EvaluationReport(decoding: bytes))))
            },
        ]
        // computeMean(of:) ... computeVariance(of:): one statistic each, named by its method.
        for method in ["computeMean", "computeMedian", "computeMode", "computeMinimum", "computeMaximum", "computeStandardDeviation", "computeVariance"] {
            all["MetricsAggregator.\(method)(of:)"] = on(aggregator) { i, a, c in
                guard case .evaluations(.metric(let metric))? = try await c.arguments(i).value("of"),
                      let operation = MetricsAggregator.operation(method: method, metric: metric) else {
                    throw i.error("\(method)(of:) needs a Metric", c.node)
                }
                a.aggregator.add(operation, group: a.group)
                return .null
            }
        }
        return all
    }()

    // MARK: ModelSampleInput and ModelSampleOutput (a sample's bundled halves)

    static let scaleValue: @Sendable (Value) -> ScoringScale? = { if case .evaluations(.scale(let s)) = $0 { s } else { nil } }

    static func scaleOptionValue(_ option: ScaleOption) -> Value {
        .structure(type: "ScaleOption", fields: [("label", .string(option.label)), ("guideDescription", .string(option.description)),
                                                 ("value", .double(option.value))])
    }

    /// `Prompt`/`Instructions` as Apple's ModelSampleInput holds them (a string written for either becomes one).
    static func inputValue(prompt: Value, instructions: Value, generationSchema: Value) -> Value {
        let prompt: Value = if case .string(let text) = prompt { .prompt(Prompt(text)) } else { prompt }
        let instructions: Value = if case .string(let text) = instructions { .instructions(Instructions(text)) } else { instructions }
        return .structure(type: "ModelSampleInput", fields: [("prompt", prompt), ("instructions", instructions), ("generationSchema", generationSchema)])
    }

    static let bundledSampleBuiltins: [String: Builtin] = [
        "ModelSample.init(input:expected:expectations:)": { i, c in
            let args = try await closureArguments(i, c)
            guard case .structure("ModelSampleInput", let fields)? = args.value("input") else {
                throw i.error("ModelSample(input:) needs a ModelSampleInput(prompt:instructions:generationSchema:)", c.node)
            }
            var expectations: TrajectoryExpectation?
            if let given = args.value("expectations"), !given.isNull {
                guard case .evaluations(.trajectory(let t)) = given else { throw i.error("expectations: must be a TrajectoryExpectation", c.node) }
                expectations = t
            }
            func part(_ name: String) -> Value { fields.first { $0.name == name }?.value ?? .null }
            return .evaluations(.sample(SampleValue(prompt: part("prompt"), expected: args.value("expected") ?? .null, instructions: part("instructions"),
                                                    generationSchema: part("generationSchema"), expectations: expectations)))
        },
        "ModelSample.input": on(sample) { _, s, _ in inputValue(prompt: s.prompt, instructions: s.instructions, generationSchema: s.generationSchema) },
        "ModelSample.output": on(sample) { _, s, _ in
            .structure(type: "ModelSampleOutput", fields: [("value", s.expected), ("expectations", s.expectations.map { .evaluations(.trajectory($0)) } ?? .null)])
        },
        "ModelSampleInput.init(prompt:instructions:generationSchema:)": { i, c in
            let args = try await c.arguments(i)
            guard let prompt = args.value("prompt"), !prompt.isNull else { throw i.error("ModelSampleInput needs prompt: (a Prompt)", c.node) }
            return inputValue(prompt: prompt, instructions: args.value("instructions") ?? .null, generationSchema: args.value("generationSchema") ?? .null)
        },
        "ModelSampleInput.prompt": field("prompt"),
        "ModelSampleInput.instructions": field("instructions"),
        "ModelSampleInput.generationSchema": field("generationSchema"),
        "ModelSampleInput.description": { i, c in
            guard case .structure(_, let fields) = c.base, let prompt = fields.first(where: { $0.name == "prompt" })?.value else {
                throw i.error("'description' is a property of ModelSampleInput", c.node)
            }
            return .string(i.promptText(prompt))
        },
        "ModelSampleOutput.init(value:expectations:)": { i, c in
            let args = try await closureArguments(i, c)
            let expectations = args.value("expectations") ?? .null
            if !expectations.isNull, case .evaluations(.trajectory) = expectations {} else if !expectations.isNull {
                throw i.error("expectations: must be a TrajectoryExpectation", c.node)
            }
            return .structure(type: "ModelSampleOutput", fields: [("value", args.value("value") ?? .null), ("expectations", expectations)])
        },
        "ModelSampleOutput.value": field("value"),
        "ModelSampleOutput.expectations": field("expectations"),
    ]
}
