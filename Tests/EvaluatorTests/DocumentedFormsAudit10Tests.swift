import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// Forms of Apple's documentation that the tenth surface audit found wrong at run time.
final class DocumentedFormsAudit10Tests: XCTestCase {
    /// Apple's letter-count sample writes `value: .string("r")`: an `ArgumentValue` case, equal to the literal.
    func testArgumentValueCasesMatchLikeLiterals() async {
        let result = await evaluate("""
            import FoundationModels
            import Evaluations
            struct Letters: Evaluation {
                let allPass = Metric("AllPass")
                let share = Metric("Share")
                let dataset = ArrayLoader(samples: [
                    ModelSample<String>(prompt: "case", expectations: TrajectoryExpectation(expected: "count_letters",
                        arguments: [.exact(argumentName: "letter", value: .string("r")), .exact(argumentName: "n", value: .int(2))])),
                    ModelSample<String>(prompt: "spelled", expectations: TrajectoryExpectation(expected: "count_letters",
                        arguments: [.exact(argumentName: "letter", value: ArgumentValue.string("r"))])),
                    ModelSample<String>(prompt: "literal", expectations: TrajectoryExpectation(expected: "count_letters",
                        arguments: [.exact(argumentName: "letter", value: "r"), .oneOf(argumentName: "n", allowedValues: [.int(1), .int(2)])])),
                    ModelSample<String>(prompt: "other", expectations: TrajectoryExpectation(expected: "count_letters",
                        arguments: [.exact(argumentName: "letter", value: .string("s"))])),
                ])
                func subject(from sample: ModelSample<String>) async throws -> ModelSubject<String> {
                    let call = Transcript.ToolCall(id: "1", toolName: "count_letters", arguments: GeneratedContent(properties: ["letter": "r", "n": 2]))
                    return ModelSubject(value: "3", transcript: StructuredTranscript(toolCalls: [call]))
                }
                var evaluators: Evaluators { ToolCallEvaluator(allPass: .toolsAllPass, percentagePass: .toolsPercentagePass) }
                func aggregateMetrics(using aggregator: inout MetricsAggregator) { aggregator.computeMean(of: .toolsAllPass) }
            }
            #Playground {
                let result = try await Letters().run()
                print(result.aggregateValue(.mean(of: .toolsAllPass)))
            }
            """)
        XCTAssertEqual(prints(result).last, "0.75")
    }

    /// A snapshot's properties are optional (`T.PartiallyGenerated`): `map` maps the value, not its characters.
    func testPartiallyGeneratedPropertiesAreOptionals() async {
        let result = await evaluate("""
            import FoundationModels
            @Generable
            struct Review {
                var title: String
                var tags: [String]
            }
            #Playground {
                var title = ""
                var counts: [Int] = []
                for try await partial in LanguageModelSession().streamResponse(to: "Review a cafe", generating: Review.self) {
                    title = partial.content.title.map { $0.uppercased() } ?? "-"
                    counts.append(partial.content.tags.map { $0.count } ?? -1)
                }
                print(title == title.uppercased(), title.count > 1, counts.last! >= 0)
            }
            """)
        XCTAssertEqual(prints(result).last, "true true true")
    }
}
