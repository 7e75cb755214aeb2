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

    /// Errors prompt code builds and throws itself (a test of its own fallback code) match their cases and bind their payloads.
    func testErrorsBuiltByHandMatchTheirCases() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let e = LanguageModelError.contextSizeExceeded(.init(contextSize: 4096, tokenCount: 5000, debugDescription: "too big"))
                do {
                    throw e
                } catch LanguageModelError.contextSizeExceeded(let info) {
                    print("caught", info.tokenCount, info.contextSize, info.debugDescription, info.metadata.isEmpty)
                }
                let err: Error = LanguageModelError.unsupportedCapability(.init(capability: .reasoning, debugDescription: "no"))
                switch err {
                case LanguageModelError.contextSizeExceeded:
                    print("wrong case")
                case LanguageModelError.unsupportedCapability(let info):
                    print("capability", info.capability == .reasoning)
                default:
                    print("default")
                }
                do {
                    throw LanguageModelSession.GenerationError.guardrailViolation(.init(debugDescription: "flagged"))
                } catch let error as LanguageModelSession.GenerationError {
                    if case .guardrailViolation(let context) = error { print("guardrail", context.debugDescription) }
                }
                do {
                    throw LanguageModelError.rateLimited(.init(resetDate: nil, debugDescription: "slow down"))
                } catch is LanguageModelSession.GenerationError {
                    print("wrong type")
                } catch let error as LanguageModelError {
                    print("rate limited", error is LanguageModelError)
                }
            }
            """)
        XCTAssertEqual(prints(result), ["caught 5000 4096 too big true", "capability true", "guardrail flagged", "rate limited true"])
    }

    /// `==` on the framework's Equatable values, `+` on Data, and nil left out of a @Generable value's content by default.
    func testEquatableValuesDataAndNilInGeneratedContent() async {
        let result = await evaluate("""
            import FoundationModels
            import Evaluations
            @Generable
            struct Implicit {
                var city: String
                var country: String?
            }
            @Generable(description: "A guess", representNilExplicitlyInGeneratedContent: true)
            struct Explicit {
                var city: String
                var country: String?
            }
            #Playground {
                print(GenerationOptions(temperature: 0.5) == GenerationOptions(temperature: 0.5), GenerationOptions() == GenerationOptions(temperature: 0.5))
                print(ContextOptions(reasoningLevel: .deep) == ContextOptions(reasoningLevel: .deep), Metric("A") == Metric("A"), Metric("A") == Metric("B"))
                let entry = Transcript.Entry.prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: "x"))]))
                print(entry == entry)
                print(Implicit(city: "Paris", country: nil).generatedContent.jsonString)
                print(Explicit(city: "Paris", country: nil).generatedContent.jsonString)
            }
            """)
        XCTAssertEqual(prints(result), ["true false", "true true false", "true", #"{"city":"Paris"}"#, #"{"city":"Paris","country":null}"#])
    }
}
