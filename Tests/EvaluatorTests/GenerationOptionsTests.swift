import FoundationModelsRuntime
import PlaygroundEvaluator
import Surface
import XCTest

/// `GenerationOptions` as Apple documents it: the 27.0 `samplingMode:` spelling beside the 26.0 `sampling:`, settable
/// properties, and `SamplingMode.kind`.
final class GenerationOptionsTests: XCTestCase {
    func testSamplingModeInitializersPropertiesAndKind() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                var options = GenerationOptions(samplingMode: .greedy, temperature: 0.5)
                print(options.samplingMode == .greedy, options.sampling == .greedy)
                options.temperature = 0.25
                options.maximumResponseTokens = 12
                options.samplingMode = .random(top: 3, seed: 9)
                print(options.temperature ?? -1, options.maximumResponseTokens ?? -1)
                switch options.samplingMode?.kind {
                case .randomTopK(let k, let seed)?: print("top", k, seed ?? 0)
                default: print("other")
                }
                options.sampling = .random(probabilityThreshold: 0.9)
                if case .randomProbabilityThreshold(let p, seed: let s)? = options.samplingMode?.kind { print("p", p, s == nil) }
                options.temperature = nil
                print(options.temperature == nil)
                let legacy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 4)
                print(legacy.samplingMode?.kind == .greedy, legacy.maximumResponseTokens ?? 0)
                let agentic = GenerationOptions(samplingMode: nil, temperature: nil, maximumResponseTokens: nil, toolCallingMode: .disallowed)
                print(agentic.toolCallingMode?.kind == .disallowed, agentic.samplingMode == nil)
            }
            """)
        XCTAssertEqual(prints(result), ["true true", "0.25 12", "top 3 9", "p 0.9 true", "true", "true 4", "true true"])
    }

    /// Options changed by assignment are the options the model receives.
    func testAssignedOptionsReachTheModel() async throws {
        let model = ScriptedLanguageModel()
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                var options = GenerationOptions()
                options.samplingMode = .random(top: 7, seed: 42)
                options.maximumResponseTokens = 21
                _ = try await session.respond(to: "Hi", options: options)
            }
            """, model: model)
        XCTAssertEqual(result.blocks.first?.status, .ok, result.blocks.first?.error ?? "")
        let options = try XCTUnwrap(model.receivedRequests.last?.options)
        XCTAssertEqual(options.samplingMode, .random(top: 7, seed: 42))
        XCTAssertEqual(options.maximumResponseTokens, 21)
    }

    /// A bad value is an error at its line; a read-only table property cannot be assigned.
    func testInvalidAssignmentsAreErrorsAtTheirLine() async {
        for (statement, message) in [
            ("options.maximumResponseTokens = 0", "maximumResponseTokens must be at least 1, not 0"),
            ("options.temperature = -1", "temperature must be a finite number of at least 0"),
            ("options.samplingMode = [GenerationOptions.ToolCallingMode.required][0]", "samplingMode needs a GenerationOptions.SamplingMode"),
            ("session.isResponding = true", "LanguageModelSession.isResponding is read-only in prompt files"),
        ] {
            let result = await evaluate("""
                import FoundationModels
                #Playground {
                    var options = GenerationOptions()
                    let session = LanguageModelSession()
                    \(statement)
                    print(options, session)
                }
                """)
            let block = result.blocks.first
            XCTAssertEqual(block?.status, .error, statement)
            XCTAssertTrue(block?.error?.contains(message) == true, "\(statement): \(block?.error ?? "no error")")
            XCTAssertEqual(block?.results.last?.line, 5, statement)
        }
    }

    /// Every setter is a settable `var` of the table.
    func testEverySetterBelongsToATableProperty() {
        let settable = PlaygroundEvaluator.settableSurfaceIDs
        XCTAssertTrue(settable.isSuperset(of: ["GenerationOptions.samplingMode", "GenerationOptions.temperature"]))
        for id in settable {
            XCTAssertEqual(Surface.table.entry(id: id)?.kind, .property, "\(id) has a setter but is not a table property")
        }
    }
}
