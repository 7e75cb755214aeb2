import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// 27.0's `LanguageModelError` as Apple documents it: its own case names and payloads over the errors fmplay's
/// models raise, beside the 26.x `GenerationError` spelling of the same failure.
final class LanguageModelErrorTests: XCTestCase {
    func testContextOverflowIsCaughtByEitherTaxonomy() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession(instructions: String(repeating: "word ", count: 5000))
                do {
                    _ = try await session.respond(to: "Hi")
                } catch LanguageModelError.contextSizeExceeded(let info) {
                    print("27", info.contextSize, info.tokenCount > info.contextSize, info.debugDescription.isEmpty)
                }
                do {
                    _ = try await session.respond(to: "Hi")
                } catch let error as LanguageModelError {
                    switch error {
                    case .contextSizeExceeded(let info): print("switch", info.contextSize)
                    default: print("default")
                    }
                }
                do {
                    _ = try await session.respond(to: "Hi")
                } catch LanguageModelSession.GenerationError.exceededContextWindowSize(let context) {
                    print("26", context.debugDescription.isEmpty)
                }
                do {
                    _ = try await session.respond(to: "Hi")
                } catch LanguageModelError.refusal(let refusal) {
                    print("not a refusal", refusal.debugDescription)
                } catch {
                    print("other case falls through")
                }
            }
            """, model: ScriptedLanguageModel(contextSize: 4096))
        XCTAssertEqual(prints(result), ["27 4096 true false", "switch 4096", "26 false", "other case falls through"])
    }
}
