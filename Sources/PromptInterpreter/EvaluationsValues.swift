import Evaluations
import FoundationModelsRuntime
import JSON
import PlaygroundResults
import PromptLanguage
import Surface
import SwiftSyntax

/// Values of Apple's Evaluations framework as the interpreter holds them.
/// The framework's semantics (statistics, trajectories, judges, reports) live
/// in the `Evaluations` target; this file maps prompt-file syntax onto it.
package indirect enum EvaluationsObject: @unchecked Sendable {
    case metric(Metric)
    case sample(SampleValue)
    case subject(value: Value, transcript: StructuredTranscriptValue?)
    case transcript(StructuredTranscriptValue)
    case loader([Value])
    case evaluator(EvaluatorValue)
    case aggregator(MetricsAggregator, group: String?)
    case result(EvaluationRunValue)
    case frame(EvaluationRunValue, detailed: Bool)
    /// `inputColumn`, `responseColumn`, `expectedColumn`.
    case column(String)
    case scale(ScoringScale)
    case dimension(ScoreDimension)
    case judgePrompt(JudgePromptValue)
    case trajectory(TrajectoryExpectation)
    case toolExpectation(ToolExpectation)
    case operation(AggregationOperation)
    case runErrors(EvaluationRunErrors)
    case testContext(EvaluationRunValue)

    var description: String {
        switch self {
        case .metric(let m): return m.description
        case .sample(let s): return "ModelSample(prompt: \(Value.quoted(s.promptText)), expected: \(s.expected.debugDescription))"
        case .subject(let value, _): return "ModelSubject(value: \(value.debugDescription))"
        case .transcript(let t): return "StructuredTranscript(\(t.toolCalls.count) tool calls)"
        case .loader(let samples): return "ArrayLoader(\(samples.count) samples)"
        case .evaluator(let e): return e.typeName
        case .aggregator: return "MetricsAggregator"
        case .result(let r): return r.report.groupedSummary
        case .frame(let r, let detailed): return detailed ? "DataFrame(\(r.report.samples.count) rows)" : r.report.groupedSummary
        case .column(let name): return "ResultColumn(\(name))"
        case .scale: return "ScoringScale"
        case .dimension(let d): return "ScoreDimension(\(d.name))"
        case .judgePrompt: return "ModelJudgePrompt"
        case .trajectory: return "TrajectoryExpectation"
        case .toolExpectation(let t): return "ToolExpectation(\(t.description))"
        case .operation(let o): return o.label
        case .runErrors(let e): return "EvaluationRunErrors(hasFailures: \(e.hasFailures))"
        case .testContext: return "EvaluationContext"
        }
    }

    /// The table type whose entries answer this value's members (Builtins/Evaluations.swift).
    var surfaceTypeName: String {
        switch self {
        case .aggregator: "MetricsAggregator"
        case .evaluator(.custom): "EvaluatorProtocol"
        default: typeName
        }
    }

    var typeName: String {
        switch self {
        case .metric: "Metric"
        case .sample: "ModelSample"
        case .subject: "ModelSubject"
        case .transcript: "StructuredTranscript"
        case .loader: "ArrayLoader"
        case .evaluator(let e): e.typeName
        case .aggregator(_, let group): group == nil ? "MetricsAggregator" : "MetricsAggregator.Group"
        case .result: "EvaluationResult"
        case .frame: "DataFrame"
        case .column: "ResultColumn"
        case .scale: "ScoringScale"
        case .dimension: "ScoreDimension"
        case .judgePrompt: "ModelJudgePrompt"
        case .trajectory: "TrajectoryExpectation"
        case .toolExpectation: "ToolExpectation"
        case .operation: "AggregationOperation"
        case .runErrors: "EvaluationRunErrors"
        case .testContext: "EvaluationContext"
        }
    }
}

package struct SampleValue: @unchecked Sendable {
    /// `.string` or `.prompt`, as written.
    package var prompt: Value
    package var expected: Value
    package var instructions: Value
    package var generationSchema: Value
    package var expectations: TrajectoryExpectation?

    package init(prompt: Value, expected: Value, instructions: Value, generationSchema: Value, expectations: TrajectoryExpectation?) {
        self.prompt = prompt
        self.expected = expected
        self.instructions = instructions
        self.generationSchema = generationSchema
        self.expectations = expectations
    }

    package var promptText: String {
        switch prompt {
        case .prompt(let p): p.text
        default: prompt.description
        }
    }
}

/// `StructuredTranscript`: what an evaluator (and `ToolCallEvaluator`) reads of a session.
package struct StructuredTranscriptValue: @unchecked Sendable {
    package var toolCalls: [ObservedToolCall]
    package var toolOutputs: [String]
    package var instructionText: String
    package var prompts: [String]
    package var responses: [String]

    package init(toolCalls: [ObservedToolCall] = [], toolOutputs: [String] = [], instructionText: String = "", prompts: [String] = [],
         responses: [String] = []) {
        self.toolCalls = toolCalls
        self.toolOutputs = toolOutputs
        self.instructionText = instructionText
        self.prompts = prompts
        self.responses = responses
    }

    package init(_ transcript: Transcript) {
        self.init()
        for entry in transcript {
            switch entry {
            case .instructions(let i): instructionText = i.segments.map(\.text).joined()
            case .prompt(let p): prompts.append(p.segments.map(\.text).joined())
            case .toolCalls(let calls): toolCalls += calls.calls.map { ObservedToolCall(name: $0.toolName, arguments: $0.arguments.jsonValue) }
            case .toolOutput(let o): toolOutputs.append(o.segments.map(\.text).joined())
            case .response(let r): responses.append(r.segments.map(\.text).joined())
            case .reasoning: break
            }
        }
    }
}

package enum EvaluatorValue: @unchecked Sendable {
    /// `Evaluator { sample, subject in ... }`.
    case closure(FunctionValue)
    /// An instance of a file struct conforming to `EvaluatorProtocol`.
    case custom(Value)
    case judge(JudgeValue)
    case toolCall(allPass: Metric, percentagePass: Metric, argumentMatchModel: (any LanguageModel)?)

    var typeName: String {
        switch self {
        case .closure: "Evaluator"
        case .custom(let v): if case .structure(let type, _) = v { type } else { "EvaluatorProtocol" }
        case .judge: "ModelJudgeEvaluator"
        case .toolCall: "ToolCallEvaluator"
        }
    }
}

package struct JudgeValue: @unchecked Sendable {
    package var judge: ModelJudge
    var prompt: JudgePromptValue?
}

package struct JudgePromptValue: @unchecked Sendable {
    var instructions: String?
    package var evaluationTarget: FunctionValue?
    package var reference: FunctionValue?
    package init(instructions: String?, evaluationTarget: FunctionValue? = nil, reference: FunctionValue? = nil) {
        self.instructions = instructions
        self.evaluationTarget = evaluationTarget
        self.reference = reference
    }
}

/// What `run()` returned: the report plus the interpreter values of each row.
package final class EvaluationRunValue: @unchecked Sendable {
    package let report: EvaluationReport
    let samples: [Value]
    let subjects: [Value]
    package let duration: Double
    init(report: EvaluationReport, samples: [Value], subjects: [Value], duration: Double) {
        self.report = report
        self.samples = samples
        self.subjects = subjects
        self.duration = duration
    }

    /// A result read back from its JSON form (`EvaluationResult(jsonData:)`): each row's sample and subject rebuilt from
    /// what the report keeps (prompt, instructions, expected and response values; no subject where `subject(from:)` threw).
    /// The report does not keep the run's duration, so it is 0.
    package convenience init(decoded report: EvaluationReport) {
        let samples = report.samples.map { row in
            Value.evaluations(.sample(SampleValue(prompt: .string(row.prompt), expected: row.expected.map(Value.init(reportJSON:)) ?? .null,
                                                  instructions: row.instructions.map(Value.string) ?? .null, generationSchema: .null,
                                                  expectations: nil)))
        }
        let subjects = report.samples.map { row -> Value in
            guard row.subjectError == nil else { return .null }
            let transcript = row.toolCalls.isEmpty ? nil : StructuredTranscriptValue(toolCalls: row.toolCalls)
            return .evaluations(.subject(value: row.response.map(Value.init(reportJSON:)) ?? .null, transcript: transcript))
        }
        self.init(report: report, samples: samples, subjects: subjects, duration: 0)
    }
}

extension Value {
    /// A JSON value of a report (an expected value or a response) as a prompt-file value: strings, numbers, Booleans,
    /// arrays and objects (as dictionaries in their written order).
    init(reportJSON json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let items): self = .array(items.map(Value.init(reportJSON:)))
        case .object(let object): self = .dictionary(object.map { (key: Value.string($0.key), value: Value(reportJSON: $0.value)) })
        }
    }
}

extension Interpreter {
    /// `Metric(...)`, `ModelSample<String>(...)` and the other framework initializers: the table's
    /// initializer for the labels given (generic arguments dropped); nil for other names.
    func evaluationsInitializer(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value? {
        // Lint reports these first (FM313); this guards code run without the diagnostics gate.
        if let advice = EvaluationsChecks.unsupportedTypes[name] {
            throw error("the Evaluations type '\(name)' is not supported in prompt files; \(advice)", e)
        }
        let base = String(name.prefix { $0 != "<" })
        guard let type = Surface.table.type(named: base), type.module == "Evaluations" else { return nil }
        let resolution = Surface.table.resolveCall(type: base, name: "init", labels: e.arguments.map { $0.label?.text },
                                                   trailingClosure: e.trailingClosure != nil, isStatic: false)
        guard case .found(let entry) = resolution else {
            let forms = Surface.table.initializers(of: base).map { "\(base).\($0.selector)" }
            throw error(forms.isEmpty ? "\(base)(...) cannot be created in prompt files"
                                      : "\(base)(...) with these labels is not supported; use \(forms.joined(separator: " or "))", e)
        }
        return try await runBuiltin(entry, base: .null, baseExpr: nil, call: e, node: e)
    }

    package func makeJudge(_ args: Arguments, pairwise: Bool, _ e: FunctionCallExprSyntax) async throws -> Value {
        var model: any LanguageModel = context.systemModel(useCase: .general)
        if let judge = args.value("judge") {
            guard let m = languageModel(from: judge) else {
                throw error("judge: must be a language model (SystemLanguageModel.default or PrivateCloudComputeLanguageModel())", e)
            }
            model = m
        }
        var dimensions: [ScoreDimension] = []
        if let given = args.value("dimensions") {
            guard case .array(let items) = given else { throw error("dimensions: must be an array of ScoreDimension", e) }
            for item in items {
                guard case .evaluations(.dimension(let d)) = item else { throw error("dimensions: must be an array of ScoreDimension", e) }
                dimensions.append(d)
            }
        } else if let name = args.unlabelled.first?.stringValue {
            dimensions = [ScoreDimension(name, scale: try scale(args.value("scale"), e))]
        } else {
            throw error("ModelJudgeEvaluator needs a metric name and scale:, or dimensions:", e)
        }
        var mode = ScoringMode.discrete
        if case .enumCase(_, let name, _)? = args.value("scoringMode") {
            guard let m = ScoringMode(rawValue: name) else { throw error("scoringMode: is .discrete or .continuous", e) }
            mode = m
        }
        var prompt: JudgePromptValue?
        if case .evaluations(.judgePrompt(let p))? = args.value("prompt") { prompt = p }
        if pairwise, let closure = args.items.first(where: { $0.label == "evaluationTarget" })?.syntax.as(ClosureExprSyntax.self) {
            prompt = JudgePromptValue(instructions: nil, evaluationTarget: makeClosure(closure), reference: nil)
        }
        let judge = ModelJudge(dimensions: dimensions, scoringMode: mode, instructions: prompt?.instructions, pairwise: pairwise, judge: model)
        return .evaluations(.evaluator(.judge(JudgeValue(judge: judge, prompt: prompt))))
    }

    /// `.numeric([4: "...", 1: "..."])`, `.passFail(passDescription:failDescription:)`.
    package func scale(_ value: Value?, _ node: some SyntaxProtocol) throws -> ScoringScale {
        switch value {
        case .evaluations(.scale(let s))?: return s
        case .enumCase(_, "numeric", let payload)?:
            guard case .dictionary(let pairs)? = payload.first?.value else { throw error(".numeric needs a dictionary [4: \"...\", 1: \"...\"]", node) }
            var levels: [(Double, String)] = []
            for pair in pairs {
                guard let level = pair.key.number else { throw error(".numeric levels must be numbers", node) }
                levels.append((level, pair.value.description))
            }
            return .numeric(levels)
        case .enumCase(_, "passFail", let payload)?:
            let pass = payload.first { $0.label == "passDescription" }?.value.description ?? "The response meets the criterion"
            let fail = payload.first { $0.label == "failDescription" }?.value.description ?? "The response does not meet the criterion"
            return .passFail(passDescription: pass, failDescription: fail)
        case .enumCase(_, let name, _)?:
            throw error("ScoringScale.\(name) is not supported in prompt files (use .numeric([...]) or .passFail(...))", node)
        default:
            throw error("scale: must be a ScoringScale such as .numeric([4: \"Excellent\", 1: \"Poor\"])", node)
        }
    }

    package func toolExpectations(_ value: Value?, _ node: some SyntaxProtocol) throws -> [ToolExpectation] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let items) = value else { throw error("expected an array of ToolExpectation", node) }
        return try items.map { item in
            switch item {
            case .evaluations(.toolExpectation(let t)): return t
            // `.anyOrder([...])` written in the array: the implicit member of the element type ToolExpectation.
            case .enumCase(_, "anyOrder", let payload) where payload.count == 1 && payload[0].label == nil:
                return .anyOrder(try toolExpectations(payload[0].value, node))
            default:
                throw error("expected ToolExpectation values (ToolExpectation(\"tool\") or .anyOrder([...])), not \(item.description.prefix(40))", node)
            }
        }
    }

    /// `[.exact(argumentName: "city", value: "Paris"), .keyOnly(argumentName: "units"), ...]`.
    package func matchers(_ value: Value?, _ node: some SyntaxProtocol) throws -> [ArgumentMatcher] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let items) = value else { throw error("arguments: must be an array of ArgumentMatcher", node) }
        return try items.map { item in
            guard case .enumCase(_, let name, let payload) = item else { throw error("arguments: must list ArgumentMatcher cases", node) }
            func field(_ label: String) throws -> Value {
                guard let v = payload.first(where: { $0.label == label })?.value else {
                    throw error("ArgumentMatcher.\(name) needs \(label):", node)
                }
                return v
            }
            let argument = try field("argumentName").description
            switch name {
            case "exact": return .exact(argumentName: argument, value: argumentValue(try field("value")))
            case "keyOnly": return .keyOnly(argumentName: argument)
            case "oneOf":
                guard case .array(let allowed) = try field("allowedValues") else { throw error("allowedValues: must be an array", node) }
                return .oneOf(argumentName: argument, allowedValues: allowed.map(argumentValue))
            case "range":
                return .range(argumentName: argument, minimum: payload.first { $0.label == "minimum" }?.value.number,
                              maximum: payload.first { $0.label == "maximum" }?.value.number)
            case "pattern": return .pattern(argumentName: argument, regex: try field("regex").description)
            case "contains": return .contains(argumentName: argument, substring: try field("substring").description)
            case "hasPrefix": return .hasPrefix(argumentName: argument, prefix: try field("prefix").description)
            case "hasSuffix": return .hasSuffix(argumentName: argument, suffix: try field("suffix").description)
            case "naturalLanguage": return .naturalLanguage(argumentName: argument, criteria: try field("criteria").description)
            default: throw error("ArgumentMatcher.\(name) does not exist (exact, keyOnly, oneOf, range, pattern, contains, hasPrefix, hasSuffix, naturalLanguage)", node)
            }
        }
    }

    /// An `ArgumentValue` as JSON: a literal (`"r"`, `5`) or one of its cases (`.string("r")`, `.int(5)`,
    /// `.double(0.5)`, `.bool(true)`, also written `ArgumentValue.string("r")`).
    private func argumentValue(_ value: Value) -> JSONValue {
        guard case .enumCase(let type, let name, let payload) = value, type.isEmpty || type == "ArgumentValue",
              payload.count == 1, payload[0].label == nil else { return value.jsonValue }
        switch (name, payload[0].value) {
        case ("string", .string), ("int", .int), ("bool", .bool), ("double", .double): return payload[0].value.jsonValue
        case ("double", .int(let i)): return .double(Double(i))
        default: return value.jsonValue
        }
    }

    /// `.mean(of: metric)` and the other statistics as a value.
    package func operation(_ value: Value?, _ node: some SyntaxProtocol) throws -> AggregationOperation {
        switch value {
        case .evaluations(.operation(let o))?: return o
        case .enumCase(_, let name, let payload)?:
            if name == "custom", let label = payload.first?.value.stringValue { return .custom(label: label) }
            guard case .evaluations(.metric(let metric))? = payload.first?.value,
                  let o = MetricsAggregator.operation(method: "compute" + name.prefix(1).uppercased() + name.dropFirst(), metric: metric) else {
                throw error("expected an AggregationOperation such as .mean(of: metric)", node)
            }
            return o
        default:
            throw error("expected an AggregationOperation such as .mean(of: metric)", node)
        }
    }
}
