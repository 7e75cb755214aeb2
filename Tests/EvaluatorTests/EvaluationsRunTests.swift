import Foundation
import FoundationModelsRuntime
import Schema
import JSON
import PlaygroundEvaluator
import Surface
import XCTest

/// The Evaluations framework in prompt files, written from Apple's documentation
/// (the worked examples of shared/reference/evaluations-27.md), on the scripted model.
final class EvaluationsRunTests: XCTestCase {
    static let capitals = """
        import FoundationModels
        import Evaluations
        import Testing

        struct CapitalEvaluation: Evaluation {
            let exactMatch = Metric("ExactMatch")
            let answerLength = Metric("AnswerLength")

            let dataset = ArrayLoader(samples: [
                ModelSample(prompt: "Capital of France? One word.", expected: "Paris"),
                ModelSample(prompt: "Capital of Japan? One word.", expected: "Tokyo"),
                ModelSample(prompt: "Capital of Kenya? One word.", expected: "Nairobi"),
                ModelSample<String>(prompt: "Name any capital city. One word.", expected: nil),
            ])

            func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                let session = LanguageModelSession(instructions: "Answer with a single word.")
                let response = try await session.respond(to: sample.prompt,
                                                         options: GenerationOptions(maximumResponseTokens: 16))
                return ModelSubject(value: response.content, transcript: session.transcript.structuredTranscript)
            }

            var evaluators: Evaluators {
                Evaluator { sample, subject in
                    guard let expected = sample.expected else { return exactMatch.ignore(rationale: "open question") }
                    let answer = subject.value.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
                    return answer.lowercased() == expected.lowercased()
                        ? exactMatch.passing()
                        : exactMatch.failing(rationale: "expected \\(expected), got \\(answer)")
                }
                Evaluator { _, subject in answerLength.scoring(Double(subject.value.count)) }
            }

            func aggregateMetrics(using aggregator: inout MetricsAggregator) {
                aggregator.group("Accuracy") { $0.computeMean(of: exactMatch) }
                aggregator.group("Length") { group in
                    group.computeMedian(of: answerLength)
                    group.computeMaximum(of: answerLength)
                }
            }
        }

        #Playground("Capitals") {
            let evaluation = CapitalEvaluation()
            let result = try await evaluation.run(info: ["instructions": "v1"])
            print(result.groupedSummary)
            let inputs = result.detailed[evaluation.inputColumn]
            let scores = result.detailed[metric: evaluation.exactMatch]
            for row in 0..<scores.count where scores[row]?.value == .failing {
                print("missed: \\(inputs[row]?.promptDescription ?? "?") — \\(scores[row]?.rationale ?? "")")
            }
            print(result.aggregateValue(.mean(of: evaluation.exactMatch)))
        }

        @Test(.evaluates(CapitalEvaluation()))
        func capitals() async throws {
            let result = EvaluationContext.current.result
            #expect(result.aggregateValue(.mean(of: Metric("ExactMatch"))) >= 0.9)
        }
        """

    func scriptedCapitals() -> ScriptedLanguageModel {
        ScriptedLanguageModel(script: [.text("Paris"), .text("Kyoto."), .text("Nairobi!"), .text("Rome"),
                                       .text("Paris"), .text("Kyoto."), .text("Nairobi!"), .text("Rome")])
    }

    func testRunFromABlockAndFromATestTrait() async throws {
        let result = await evaluate(Self.capitals, model: scriptedCapitals())
        XCTAssertEqual(result.blocks.map(\.displayName), ["Capitals", "capitals"])
        XCTAssertEqual(prints(result), [
            "Accuracy\n  Mean of ExactMatch: 0.6666666666666666\nLength\n  Median of AnswerLength: 5.5\n  Maximum of AnswerLength: 8.0",
            "missed: Capital of Japan? One word. — expected Tokyo, got Kyoto",
            "0.6666666666666666",
        ])
        let report = try XCTUnwrap(result.blocks[0].results.first { $0.kind == .evaluation }?.evaluation)
        XCTAssertEqual(report.name, "CapitalEvaluation")
        XCTAssertEqual(report.samples.map { $0.metric(named: "ExactMatch")?.kindName }, ["passing", "failing", "passing", "ignore"])
        XCTAssertEqual(report.samples.map(\.responseText), ["Paris", "Kyoto.", "Nairobi!", "Rome"])
        XCTAssertEqual(report.info.map { "\($0.0)=\($0.1)" }, ["instructions=v1"])
        XCTAssertEqual(report.headline, "CapitalEvaluation: 2/3 passed (66.7%) · 4 samples")

        // The @Test block runs the same evaluation, then fails on its #expect, as Swift Testing would.
        let test = result.blocks[1]
        XCTAssertEqual(test.status, .error)
        XCTAssertTrue(test.error?.contains("Expectation failed: result.aggregateValue(.mean(of: Metric(\"ExactMatch\"))) >= 0.9") ?? false,
                      test.error ?? "")
        let traitReport = try XCTUnwrap(test.results.first { $0.kind == .evaluation }?.evaluation)
        XCTAssertEqual(traitReport.samples, report.samples, "the same rows in both forms")
        XCTAssertEqual(traitReport.aggregates, report.aggregates, "the same numbers in both forms")
    }

    func testSubjectAndEvaluatorErrorsAreRecordedPerSample() async throws {
        let source = """
            struct E: Evaluation {
                let ok = Metric("OK")
                let dataset = ArrayLoader(samples: [ModelSample(prompt: "a", expected: "x"), ModelSample(prompt: "b", expected: "y")])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    if sample.promptDescription == "b" { throw "no model today" }
                    return ModelSubject(value: "fine")
                }
                var evaluators: Evaluators {
                    Evaluator { _, subject in ok.passing() }
                    Evaluator { _, _ in throw "broken evaluator" }
                }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) {
                    aggregator.computeMean(of: ok)
                    aggregator.computeMean(of: Metric("Nobody"))
                }
            }
            #Playground {
                let result = try await E().run()
                print(result.errors.inferenceFailureCount, result.errors.evaluatorFailureCount, result.errors.metricsNotFound)
            }
            """
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["1 1 [\"Nobody\"]"])
        let report = try XCTUnwrap(result.blocks[0].results.first { $0.kind == .evaluation }?.evaluation)
        XCTAssertEqual(report.samples[1].subjectError, "no model today")
        XCTAssertEqual(report.samples[0].evaluatorErrors, ["Evaluator: broken evaluator"])
        XCTAssertTrue(report.text.contains("no response: no model today"), report.text)
    }

    func testToolCallEvaluatorChecksTheTrajectory() async throws {
        let source = """
            struct GetWeather: Tool {
                let name = "getWeather"
                let description = "Weather for a city"
                @Generable
                struct Arguments {
                    var city: String
                }
                func call(arguments: Arguments) async throws -> String { "71 degrees" }
            }
            struct W: Evaluation {
                let tools = ToolCallEvaluator<ModelSample<String>>(allPass: Metric.toolsAllPass, percentagePass: Metric.toolsPercentagePass)
                let dataset = ArrayLoader(samples: [
                    ModelSample(prompt: "Weather in Cupertino?", expected: "71",
                                expectations: TrajectoryExpectation(expected: "getWeather", arguments: [.exact(argumentName: "city", value: "Cupertino")])),
                    ModelSample(prompt: "Weather in Paris?", expected: "58",
                                expectations: TrajectoryExpectation(ordered: [ToolExpectation("getWeather", arguments: [.hasPrefix(argumentName: "city", prefix: "Par")])],
                                                                    unordered: [ToolExpectation("search")], allowsAdditionalToolCalls: false)),
                    ModelSample(prompt: "Hello", expected: "hi"),
                ])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    let session = LanguageModelSession(tools: [GetWeather()])
                    let response = try await session.respond(to: sample.prompt)
                    return ModelSubject(value: response.content, transcript: session.transcript.structuredTranscript)
                }
                var evaluators: Evaluators { tools }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) {
                    aggregator.computeMean(of: Metric.toolsAllPass)
                    aggregator.computeMean(of: Metric.toolsPercentagePass)
                }
            }
            #Playground {
                let result = try await W().run()
                print(result.groupedSummary)
            }
            """
        let model = ScriptedLanguageModel(script: [
            .toolCall(name: "getWeather", arguments: GeneratedContent(properties: [("city", GeneratedContent("Cupertino"))])), .text("71"),
            .toolCall(name: "getWeather", arguments: GeneratedContent(properties: [("city", GeneratedContent("Paris"))])), .text("58"),
            .text("hi"),
        ])
        let result = await evaluate(source, model: model)
        XCTAssertEqual(prints(result), ["Mean of ToolsAllPass: 0.5\nMean of ToolsPercentagePass: 0.8333333333333333"])
        let report = try XCTUnwrap(result.blocks[0].results.first { $0.kind == .evaluation }?.evaluation)
        XCTAssertEqual(report.samples[2].metrics.map(\.kindName), ["ignore", "ignore"], "no expectations: ignored")
        XCTAssertEqual(report.samples[1].toolCalls.map(\.name), ["getWeather"])
        XCTAssertTrue(report.samples[1].metrics[0].rationale?.contains("expected a call search") ?? false)
    }

    /// Apple's `TrajectoryExpectation(ordered: [ToolExpectation("a"), .anyOrder([...]), ...])`: the group's calls may
    /// come in any order at their step.
    func testAnyOrderGroupsInsideAnOrderedTrajectory() async throws {
        let source = """
            struct FetchData: Tool {
                let name = "fetchData"
                let description = "Data"
                @Generable
                struct Arguments { var q: String }
                func call(arguments: Arguments) async throws -> String { "data" }
            }
            struct FetchMetadata: Tool {
                let name = "fetchMetadata", description = "Metadata"
                @Generable struct Arguments { var q: String }
                func call(arguments: Arguments) async throws -> String { "metadata" }
            }
            struct T: Evaluation {
                let tools = ToolCallEvaluator<ModelSample<String>>(allPass: Metric.toolsAllPass, percentagePass: Metric.toolsPercentagePass)
                static let both = TrajectoryExpectation(ordered: [
                    .anyOrder([ToolExpectation("fetchData"), ToolExpectation("fetchMetadata")]),
                ], allowsAdditionalToolCalls: false)
                let dataset = ArrayLoader(samples: [
                    ModelSample(prompt: "swapped", expected: "done", expectations: T.both),
                    ModelSample(prompt: "one missing", expected: "done", expectations: T.both),
                ])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    let session = LanguageModelSession(tools: [FetchData(), FetchMetadata()])
                    let response = try await session.respond(to: sample.prompt)
                    return ModelSubject(value: response.content, transcript: session.transcript.structuredTranscript)
                }
                var evaluators: Evaluators { tools }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) { aggregator.computeMean(of: Metric.toolsAllPass) }
            }
            #Playground {
                let result = try await T().run()
                print(result.groupedSummary)
            }
            """
        let q = GeneratedContent(properties: [("q", GeneratedContent("x"))])
        let model = ScriptedLanguageModel(script: [
            .toolCall(name: "fetchMetadata", arguments: q), .toolCall(name: "fetchData", arguments: q), .text("done"),
            .toolCall(name: "fetchData", arguments: q), .text("done"),
        ])
        let result = await evaluate(source, model: model)
        XCTAssertEqual(prints(result), ["Mean of ToolsAllPass: 0.5"])
        let report = try XCTUnwrap(result.blocks[0].results.first { $0.kind == .evaluation }?.evaluation)
        XCTAssertEqual(report.samples.map { $0.metric(named: "ToolsAllPass")?.kindName }, ["passing", "failing"])
    }

    /// Apple's EvaluationResult page: the detailed DataFrame's cells are optional (`expected[row].map(String.init) ?? "?"`).
    func testDetailedColumnCellsAreOptional() async throws {
        let source = """
            struct Count: Evaluation {
                let exactMatch = Metric("ExactMatch")
                let dataset = ArrayLoader(samples: [ModelSample(prompt: "one", expected: 1), ModelSample<Int>(prompt: "none", expected: nil)])
                func subject(from sample: ModelSample<Int>) async throws -> ModelSubject<Int> { ModelSubject(value: 2) }
                var evaluators: Evaluators {
                    Evaluator { input, subject in
                        guard let expected = input.expected else { return exactMatch.ignore() }
                        return subject.value == expected ? exactMatch.passing() : exactMatch.failing()
                    }
                }
            }
            #Playground {
                let evaluation = Count()
                let result = try await evaluation.run()
                let expected = result.detailed[evaluation.expectedColumn]
                for row in 0..<expected.count {
                    print(expected[row].map(String.init) ?? "?", result.detailed[evaluation.expectedColumn][row].map { $0 * 10 } ?? -1)
                }
            }
            """
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["1 10", "? -1"])
    }

    /// Apple's EvaluatorProtocol page: an evaluator generic over `Input: SampleProtocol` gets each ModelSample as `input`.
    func testGenericEvaluatorOverSampleProtocol() async throws {
        let source = """
            import Evaluations
            struct MatchEvaluator<Input: SampleProtocol>: EvaluatorProtocol
            where Input.ExpectedValue: Sendable & Codable {
                let metric = Metric("Match")
                func metrics(subject: ModelSubject<Input.ExpectedValue>, input: Input) async throws -> [Metric] {
                    [input.expected == subject.value ? metric.passing() : metric.failing(rationale: "wanted \\(input.expected ?? "-")")]
                }
            }
            struct E: Evaluation {
                let dataset = ArrayLoader(samples: [ModelSample(prompt: "a", expected: "A"), ModelSample(prompt: "b", expected: "X")])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    ModelSubject(value: sample.promptDescription.uppercased())
                }
                var evaluators: Evaluators { MatchEvaluator() }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) { aggregator.computeMean(of: Metric("Match")) }
            }
            #Playground {
                print(try await E().run().aggregateValue(.mean(of: Metric("Match"))))
            }
            """
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["0.5"])
        let report = try XCTUnwrap(result.blocks[0].results.first { $0.kind == .evaluation }?.evaluation)
        XCTAssertEqual(report.samples[1].metrics.first?.rationale, "wanted X")
    }

    func testModelJudgeWithASelectableJudgeModel() async throws {
        let source = """
            struct J: Evaluation {
                let relevance = ScoreDimension("Relevance", description: "Does it answer?", scale: .numeric([4: "Fully", 1: "Not at all"]))
                let dataset = ArrayLoader(samples: [ModelSample(prompt: "Name a fruit", expected: "apple")])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    ModelSubject(value: "banana")
                }
                var evaluators: Evaluators {
                    ModelJudgeEvaluator(judge: PrivateCloudComputeLanguageModel(), dimensions: [relevance],
                                        prompt: ModelJudgePrompt(instructions: "Judge fruit answers.", evaluationTarget: { $0.uppercased() }))
                }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) {
                    aggregator.group("Judge") { $0.computeMean(of: relevance.metric) }
                }
            }
            #Playground {
                let result = try await J().run()
                print(result.groupedSummary)
            }
            """
        let judge = ScriptedLanguageModel(name: "judge", script: [.text(#"{"rationale":"A fruit","Relevance":"4"}"#)])
        let evaluator = PlaygroundEvaluator(configuration: EvaluationConfiguration(
            model: ScriptedLanguageModel(), serverModel: PrivateCloudComputeLanguageModel(backend: ScriptedServer(model: judge))))
        let result = await evaluator.evaluate(source: source, path: "j.fmplay")
        XCTAssertEqual(prints(result), ["Judge\n  Mean of Relevance: 4.0"])
        let prompt = judge.receivedRequests.first?.transcript.description ?? ""
        XCTAssertTrue(prompt.contains("Judge fruit answers."), prompt)
        XCTAssertTrue(prompt.contains("Response:\nBANANA"), prompt)
    }

    /// `EvaluationError` is the framework's error enum (Apple's documented example catches
    /// `EvaluationError.missingTranscript(let evaluatorType)`): a table type like every other Evaluations type,
    /// so the interpreter resolves a bare Evaluations type name through the table alone. (The pattern binds with the
    /// label: the unlabelled `missingTranscript(let t)` is FM310 today, a SurfaceChecker limitation with catch patterns.)
    func testEvaluationErrorIsATableTypePromptCodeThrowsAndCatches() async throws {
        for name in ["Metric", "ModelSample", "ModelSubject", "ArrayLoader", "Evaluator", "ModelJudgeEvaluator", "ModelJudgePrompt",
                     "ToolCallEvaluator", "ScoreDimension", "ScoringScale", "ScoringMode", "TrajectoryExpectation", "ToolExpectation",
                     "ArgumentMatcher", "AggregationOperation", "MetricsAggregator", "EvaluationContext", "StructuredTranscript",
                     "EvaluationResult", "EvaluationError"] {
            XCTAssertEqual(Surface.table.type(named: name)?.module, "Evaluations", name)
        }
        let source = """
            import Evaluations
            #Playground {
                do {
                    throw EvaluationError.missingTranscript(evaluatorType: "ToolCallEvaluator")
                } catch EvaluationError.missingTranscript(evaluatorType: let evaluatorType) {
                    print("needs a transcript:", evaluatorType)
                }
            }
            """
        let caught = await evaluate(source)
        XCTAssertEqual(prints(caught), ["needs a transcript: ToolCallEvaluator"])
        let misspelt = await evaluate(source.replacingOccurrences(of: "throw EvaluationError.missingTranscript(",
                                                                  with: "throw EvaluationError.missingTranscrip("))
        let error = misspelt.blocks[0].error ?? ""
        XCTAssertTrue(error.contains("FM310") && error.contains("did you mean 'missingTranscript'"), error)
    }

    /// Apple's form ("Evaluating language model responses"): the @Test is an instance method of a suite struct
    /// and reads the suite's statics as `Self.x`; it runs (once per test, on a new instance) like a top-level @Test.
    func testTestMethodsOfASuiteStructRun() async throws {
        let source = """
            import Evaluations
            import Testing
            struct Echo: Evaluation {
                let exactMatch = Metric("ExactMatch")
                let dataset = ArrayLoader(samples: [ModelSample(prompt: "Say two", expected: "Two.")])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> { ModelSubject(value: "Two.") }
                var evaluators: Evaluators {
                    Evaluator { input, subject in subject.value == input.expected ? exactMatch.passing() : exactMatch.failing() }
                }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) { aggregator.computeMean(of: exactMatch) }
            }
            struct EchoTests {
                static let evaluation = Echo()
                var label = "instance"
                @Test(.evaluates(Self.evaluation))
                func echo() async throws {
                    let score = EvaluationContext.current.result.aggregateValue(.mean(of: Self.evaluation.exactMatch))
                    print(label, score)
                    #expect(score < 0.5)
                }
                struct Inner {
                    @Test("inner") func inner() { print("inner ran") }
                }
            }
            struct NeedsValue {
                let value: Int
                @Test func cannotBeMade() { print(value) }
            }
            """
        let result = await evaluate(source)
        XCTAssertEqual(result.blocks.map(\.displayName), ["echo", "inner", "cannotBeMade"])
        let echo = result.blocks[0]
        XCTAssertEqual(echo.results.filter { $0.kind == .print }.map(\.text), ["instance 1.0"])
        XCTAssertEqual(prints(result, block: 1), ["inner ran"])
        XCTAssertEqual(try XCTUnwrap(echo.results.first { $0.kind == .evaluation }?.evaluation).headline,
                       "Echo: 1/1 passed (100%) · 1 sample")
        XCTAssertEqual(echo.status, .error, "its failing #expect ran")
        XCTAssertTrue(echo.error?.contains("Expectation failed: score < 0.5") ?? false, echo.error ?? "")
        XCTAssertEqual(result.blocks[1].status, .ok)
        XCTAssertTrue(result.blocks[2].error?.contains("NeedsValue has no init() without arguments: give 'value' a starting value") ?? false,
                      result.blocks[2].error ?? "")
    }

    func testUnsupportedFormsAreErrorsThatNameThem() async throws {
        let source = """
            struct E: Evaluation {
                let dataset = JSONLoader(url: "samples.json")
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> { ModelSubject(value: "x") }
                var evaluators: Evaluators { Evaluator { _, _ in Metric("M").passing() } }
            }
            #Playground { let r = try await E().run() }
            """
        let result = await evaluate(source)
        XCTAssertEqual(result.blocks[0].status, .error)
        // Lint stops it before it runs (FM313), naming the type and what to write instead.
        let error = result.blocks[0].error ?? ""
        XCTAssertTrue(error.contains("FM313") && error.contains("'JSONLoader' is not supported in prompt files") && error.contains("ArrayLoader"), error)
    }
}

/// A scripted model behind `PrivateCloudComputeLanguageModel`: always reachable, below its quota.
struct ScriptedServer: ServerLanguageModelBackend {
    let model: ScriptedLanguageModel
    var name: String { model.name }
    var identity: String { "scripted-server:" + model.identity }
    var contextSize: Int { model.contextSize }
    var availability: SystemLanguageModel.Availability { .available }
    var endpointDescription: String { "scripted" }
    var quotaUsage: PrivateCloudComputeLanguageModel.QuotaUsage { .init(status: .belowLimit(.init(isApproachingLimit: false))) }
    func probe() async -> ServerProbe { .reachable(contextSize: nil) }
    func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error> { model.generate(request) }
    func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int {
        try await model.tokenCount(for: entries, schema: schema)
    }
}
