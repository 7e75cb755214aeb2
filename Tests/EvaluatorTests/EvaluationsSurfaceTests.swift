import FoundationModelsRuntime
import PlaygroundEvaluator
import PlaygroundResults
import PromptLanguage
import XCTest

/// Evaluations members from the surface audits (rows 34-35 and N), checked against Apple's documentation: optional
/// properties are `T?` as Apple declares them, a sample's bundled input and output, a judge's scoring mode, a
/// dimension's scale, scale options, `EvaluationRunErrors.clean`, and `EvaluationResult(jsonData:)` reading back what
/// `fmplay run --format json` writes.
final class EvaluationsSurfaceTests: XCTestCase {
    private func lint(_ source: String) -> [Diagnostic] { PromptAnalyzer.analyze(source).diagnostics }

    /// `doubleValue`, `rationale`, `expected`, `instructions`, `expectations`, `generationSchema`, `transcript` and a
    /// dimension's `description` are optionals: `?.`, `??`, `if let` and `map` work as in Swift, in lint and at run time.
    func testOptionalPropertiesBehaveAsOptionals() async {
        let source = """
            import FoundationModels
            import Evaluations
            #Playground {
                let metric = Metric("Accuracy")
                let passed = metric.passing(rationale: "matches")
                let ignored = metric.ignore()
                print(passed.rationale ?? "none", passed.rationale?.count ?? 0, passed.rationale.map { $0.uppercased() } ?? "-")
                print(passed.doubleValue.map { $0 * 2 } ?? -1.0, ignored.doubleValue == nil, ignored.doubleValue ?? -1.0, ignored.rationale ?? "none")
                if let value = passed.doubleValue { print("value", value) }
                let sample = ModelSample(prompt: "Capital of France?", expected: "Paris")
                let open = ModelSample<String>(prompt: "Any city?")
                print(sample.expected.map { "\\($0)!" } ?? "none", open.expected.map { "\\($0)!" } ?? "none")
                print(sample.instructions?.count ?? -1, sample.expectations == nil, sample.generationSchema == nil, sample.instructionsDescription ?? "none")
                let subject = ModelSubject(value: "Paris")
                print(subject.transcript?.toolCalls.count ?? -1, subject.transcript.map { $0.prompts.count } ?? -2)
                let tone = ScoreDimension("Tone", scale: .passFail(passDescription: "polite", failDescription: "rude"))
                print(tone.description ?? "no description")
            }
            """
        XCTAssertEqual(lint(source).map(\.message), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["matches 7 MATCHES", "2.0 true -1.0 none", "value 1.0", "Paris! none", "-1 true true none", "-1 -2",
                                        "no description"])
        // A `T?` is not a `T`: its members need unwrapping, as in Swift.
        let unwrapped = lint("""
            import Evaluations
            #Playground {
                let passed = Metric("Accuracy").passing(rationale: "matches")
                print(passed.rationale.count)
                print(ModelSubject(value: "x").transcript.prompts)
            }
            """)
        XCTAssertEqual(unwrapped.map(\.code), [.unknownMember, .unknownMember], unwrapped.map(\.message).joined(separator: "\n"))
    }

    /// `ModelSample.input`/`output` and `ModelSample(input:expected:expectations:)` with Apple's `ModelSampleInput`,
    /// run through an evaluation (its `subject(from:)` sends the input's Prompt).
    func testSampleInputAndOutput() async {
        let source = """
            import FoundationModels
            import Evaluations
            let input = ModelSampleInput(prompt: Prompt("What's the weather like in Cupertino?"), instructions: Instructions("Respond with the condition only."))
            struct Weather: Evaluation {
                let matches = Metric("Matches")
                var dataset: ArrayLoader<ModelSample<String>> {
                    ArrayLoader(samples: [ModelSample(input: input, expected: "Sunny")])
                }
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    let session = LanguageModelSession(instructions: sample.instructionsDescription ?? "")
                    return ModelSubject(value: try await session.respond(to: sample.prompt).content)
                }
                var evaluators: Evaluators {
                    Evaluator { sample, subject in subject.value.contains("Cupertino") ? matches.passing() : matches.failing() }
                }
            }
            #Playground {
                let sample = ModelSample(input: input, expected: "Sunny", expectations: TrajectoryExpectation(expected: "getWeather"))
                print(sample.input.description, "|", sample.promptDescription, "|", sample.instructionsDescription ?? "none")
                print(sample.output.value ?? "none", sample.output.expectations == nil, sample.input.generationSchema == nil)
                let plain = ModelSample(prompt: "Capital of France?", expected: "Paris")
                print(plain.input.description, plain.input.instructions == nil, plain.output.value ?? "none")
                let output = ModelSampleOutput(value: "Paris")
                print(output.value ?? "none", output.expectations == nil)
                let result = try await Weather().run()
                print(result.aggregateValue(.mean(of: Metric("Matches"))), result.errors.hasFailures)
            }
            """
        XCTAssertEqual(lint(source).map(\.message), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), [
            "What's the weather like in Cupertino? | What's the weather like in Cupertino? | Respond with the condition only.",
            "Sunny false true", "Capital of France? true Paris", "Paris true", "-1.0 false",
        ])
        let evaluation = result.blocks.first?.results.first { $0.kind == .evaluation }?.evaluation
        XCTAssertEqual(evaluation?.samples.first?.metrics.first?.value, .passing, "the subject was asked the input's prompt")
        XCTAssertEqual(evaluation?.samples.first?.instructions, "Respond with the condition only.")
    }

    /// A judge's `scoringMode`, a dimension's `scale`, `ScoringScale(options:)`/`options` with `ScaleOption`, and
    /// `EvaluationRunErrors.clean`; a scale of options judges like a numeric one.
    func testJudgeScalesAndCleanErrors() async {
        let source = """
            import FoundationModels
            import Evaluations
            let levels = ScoringScale(options: [
                ScaleOption(label: "poor", guideDescription: "Misses the point", value: 1),
                ScaleOption(label: "great", guideDescription: "Answers fully", value: 4),
            ])
            struct Quality: Evaluation {
                let dataset = ArrayLoader(samples: [ModelSample(prompt: "Capital of France?", expected: "Paris")])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    ModelSubject(value: try await LanguageModelSession().respond(to: sample.prompt).content)
                }
                var evaluators: Evaluators {
                    ModelJudgeEvaluator("Quality", scale: levels)
                }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) {
                    aggregator.computeMean(of: Metric("Quality"))
                }
            }
            #Playground {
                let judge = ModelJudgeEvaluator("Politeness", scale: .passFail(passDescription: "polite", failDescription: "rude"), scoringMode: .continuous)
                print(judge.scoringMode == .continuous, ModelJudgeEvaluator("Tone", scale: levels).scoringMode == .discrete)
                print(judge.dimensions.first?.scale.options.map { "\\($0.label)=\\($0.value)" } ?? [])
                print(levels.options.map { "\\($0.label): \\($0.guideDescription)" })
                print(ScoreDimension("Quality", scale: levels).scale.options.count)
                print(EvaluationRunErrors.clean.hasFailures, EvaluationRunErrors.clean.anyInferenceProduced, EvaluationRunErrors.clean.metricsNotFound)
                let result = try await Quality().run()
                print([1.0, 4.0].contains(result.aggregateValue(.mean(of: Metric("Quality")))), result.errors.hasFailures)
            }
            """
        XCTAssertEqual(lint(source).map(\.message), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), [
            "true true", #"["pass=1.0", "fail=0.0"]"#, #"["great: Answers fully", "poor: Misses the point"]"#, "2", "false true []", "true false",
        ])
        let wrong = lint("""
            import Evaluations
            #Playground {
                print(ScaleOption(label: "a", guideDescription: "b", score: 1), ScoringScale(options: []).option)
            }
            """)
        XCTAssertEqual(wrong.map(\.code), [.unknownMember, .unknownMember], wrong.map(\.message).joined(separator: "\n"))
    }

    /// `EvaluationResult(jsonData:)` decodes the evaluation object `fmplay run --format json` writes (here: the one this
    /// evaluator recorded) into a result whose members answer as the original's; bad data throws
    /// `EvaluationResultsError` naming the field, and an uncaught one fails the block with that message.
    func testEvaluationResultFromJSONData() async throws {
        let original = await evaluate(EvaluationsRunTests.capitals)
        let report = try XCTUnwrap(original.blocks.first?.results.first { $0.kind == .evaluation }?.evaluation)
        let json = report.json.serialized()
        XCTAssertFalse(json.contains("\"#"))
        let source = """
            #Playground {
                let result = try EvaluationResult(jsonData: Data(#"\(json)"#.utf8))
                print(result.evaluationID, result.detailed.count, result.errors.hasFailures)
                print(result.groupedSummary)
                let expected = result.detailed[CapitalEvaluation().expectedColumn]
                print(expected[0].map { "\\($0)" } ?? "?")
                do {
                    _ = try EvaluationResult(jsonData: Data(#"{"evaluation": "X", "samples": [{"index": 0, "prompt": "p", "metrics": [{"name": "Exact", "value": "passed"}]}]}"#.utf8))
                } catch let error as EvaluationResultsError {
                    print(error.failureReason ?? "no reason")
                }
                do {
                    _ = try EvaluationResult(jsonData: Data("  ".utf8))
                } catch EvaluationResultsError.emptyJSONFile {
                    print("empty")
                }
            }
            #Playground {
                _ = try EvaluationResult(jsonData: Data("[1, 2]".utf8))
            }
            """
        let declarations = String(EvaluationsRunTests.capitals.prefix { $0 != "#" })
        XCTAssertEqual(lint(declarations + source).filter { $0.severity == .error }.map(\.message), [])
        let result = await evaluate(declarations + source)
        let printed = prints(result)
        XCTAssertEqual(printed.first, "\(report.name) \(report.samples.count) \(report.errors.hasFailures)")
        XCTAssertEqual(printed.dropFirst().first, report.groupedSummary, "the decoded result summarises as the original")
        XCTAssertEqual(printed.dropFirst(2).first, report.samples.first?.expected?.stringValue)
        XCTAssertEqual(Array(printed.dropFirst(3)), [#"samples[0].metrics[0].value is "passed"; expected passing, failing, scoring, ignore or none"#, "empty"])
        XCTAssertEqual(result.blocks.last?.status, .error)
        XCTAssertTrue(result.blocks.last?.error?.contains("EvaluationResultsError.invalidJSONFormat: the document is not an object") ?? false,
                      result.blocks.last?.error ?? "")
    }
}
