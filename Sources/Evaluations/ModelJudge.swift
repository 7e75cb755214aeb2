import FoundationModelsRuntime
import JSON
import Schema

/// One point of a scoring scale: its value, and what the judge reads for it.
public struct ScaleOption: Sendable, Hashable {
    public var value: Double
    public var label: String
    public var description: String
    public init(value: Double, label: String, description: String) {
        self.value = value
        self.label = label
        self.description = description
    }
}

/// A judge's scale (Apple's `ScoringScale`): options ordered highest value first.
public struct ScoringScale: Sendable, Hashable {
    public var options: [ScaleOption]
    /// `.passFail`: results are `.passing` / `.failing` rather than scores.
    public var isPassFail: Bool

    public init(options: [ScaleOption], isPassFail: Bool = false) {
        self.options = options.sorted { $0.value > $1.value }
        self.isPassFail = isPassFail
    }

    /// `.numeric([4: "All tags describe the dish", 1: "None do"])`.
    public static func numeric(_ levels: [(Double, String)]) -> ScoringScale {
        ScoringScale(options: levels.map { ScaleOption(value: $0.0, label: formatLevel($0.0), description: $0.1) })
    }

    public static func passFail(passDescription: String, failDescription: String) -> ScoringScale {
        ScoringScale(options: [ScaleOption(value: 1, label: "pass", description: passDescription),
                               ScaleOption(value: 0, label: "fail", description: failDescription)], isPassFail: true)
    }

    static func formatLevel(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}

/// A named criterion with its own scale (Apple's `ScoreDimension`).
public struct ScoreDimension: Sendable, Hashable {
    public var name: String
    public var description: String?
    public var scale: ScoringScale
    public init(_ name: String, description: String? = nil, scale: ScoringScale) {
        self.name = name
        self.description = description
        self.scale = scale
    }
    /// The metric (column) this dimension's results are stored under.
    public var metric: Metric { Metric(name) }
}

public enum ScoringMode: String, Sendable, Hashable {
    /// The judge must answer one of the scale's values (guided generation).
    case discrete
    /// Any number between the scale's lowest and highest value.
    case continuous
}

/// A model-as-judge evaluator (Apple's `ModelJudgeEvaluator`): one judge call per
/// sample scores every dimension and writes a rationale.
public struct ModelJudge: Sendable {
    public var dimensions: [ScoreDimension]
    public var scoringMode: ScoringMode
    public var instructions: String
    /// Compares the response with the sample's expected value used as the baseline.
    public var pairwise: Bool
    public var judge: any LanguageModel

    public static let defaultInstructions = """
        You are an impartial reviewer. Read the request and the response, judge the response \
        against each criterion using its scale, explain your reasoning briefly, then give the scores.
        """
    public static let pairwiseInstructions = """
        You compare two answers to the same request: a baseline and a response. For each criterion, \
        the highest score means the response is much better than the baseline and the lowest that the \
        baseline is much better. Explain briefly, then give the scores.
        """

    public init(dimensions: [ScoreDimension], scoringMode: ScoringMode = .discrete, instructions: String? = nil,
                pairwise: Bool = false, judge: any LanguageModel) {
        self.dimensions = dimensions
        self.scoringMode = scoringMode
        self.pairwise = pairwise
        self.instructions = instructions ?? (pairwise ? Self.pairwiseInstructions : Self.defaultInstructions)
        self.judge = judge
    }

    /// The text the judge reads for one sample.
    public func judgePrompt(request: String, response: String, baseline: String?, reference: [(String, String)]) -> String {
        var parts = ["Request:\n" + request]
        if let baseline { parts.append("Baseline:\n" + baseline) }
        parts.append("Response:\n" + response)
        for (label, text) in reference { parts.append(label + ":\n" + text) }
        var criteria = "Criteria:"
        for dimension in dimensions {
            criteria += "\n- \(dimension.name)" + (dimension.description.map { ": \($0)" } ?? "")
            for option in dimension.scale.options { criteria += "\n  \(option.label) = \(option.description)" }
        }
        parts.append(criteria)
        return parts.joined(separator: "\n\n")
    }

    /// The verdict's shape: a rationale first (reasoning before scores), then one value per dimension.
    public var verdictSchema: GenerationSchema {
        var properties = [Property(name: "rationale", description: "Why, in one or two sentences", type: .string(.none))]
        for dimension in dimensions {
            let type: SchemaType
            if scoringMode == .discrete || dimension.scale.isPassFail {
                type = .string(StringGuides(anyOf: dimension.scale.options.map(\.label)))
            } else {
                let values = dimension.scale.options.map(\.value)
                type = .number(NumberGuides(minimum: values.min(), maximum: values.max()))
            }
            properties.append(Property(name: dimension.name, description: dimension.description, type: type))
        }
        return GenerationSchema(root: .reference("JudgeVerdict"),
                                definitions: [Definition(name: "JudgeVerdict", kind: .object(properties))])
    }

    /// Asks the judge and returns one metric per dimension (with the rationale).
    public func score(request: String, response: String, baseline: String?, reference: [(String, String)]) async throws -> [Metric] {
        let session = LanguageModelSession(model: judge, instructions: Instructions(instructions))
        var options = GenerationOptions()
        options.samplingMode = .greedy
        options.maximumResponseTokens = 256
        let answer = try await session.respond(
            to: Prompt(judgePrompt(request: request, response: response, baseline: baseline, reference: reference)),
            schema: verdictSchema, options: options)
        let verdict = answer.content
        let rationale = verdict["rationale"]?.stringValue
        return dimensions.map { dimension in
            let metric = dimension.metric
            let raw = verdict[dimension.name]
            let value: Double? = raw?.stringValue.flatMap { label in dimension.scale.options.first { $0.label == label }?.value }
                ?? raw?.jsonValue.doubleValue
            guard let value else { return metric.ignore(rationale: "the judge gave no \(dimension.name) score") }
            if dimension.scale.isPassFail {
                return value >= 1 ? metric.passing(rationale: rationale) : metric.failing(rationale: rationale)
            }
            return metric.scoring(value, rationale: rationale)
        }
    }

    /// Whether an argument value meets a criterion (`ArgumentMatcher.naturalLanguage`).
    public static func naturalLanguageMatcher(_ model: any LanguageModel) -> NaturalLanguageMatcher {
        { criteria, value in
            let session = LanguageModelSession(model: model, instructions: Instructions(
                "You check whether a value meets a criterion. Answer yes or no."))
            var options = GenerationOptions()
            options.samplingMode = .greedy
            let schema = GenerationSchema(root: .string(StringGuides(anyOf: ["yes", "no"])))
            let answer = try await session.respond(
                to: Prompt("Criterion: \(criteria)\nValue: \(value.serialized())\nDoes the value meet the criterion?"),
                schema: schema, options: options)
            return answer.content.stringValue == "yes"
        }
    }
}
