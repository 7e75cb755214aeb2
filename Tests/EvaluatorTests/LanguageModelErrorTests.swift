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

    /// 27.0 moved `assetsUnavailable` to `SystemLanguageModel.Error`; the 26.x case still catches it.
    func testAssetsUnavailableIsASystemLanguageModelError() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                do {
                    _ = try await LanguageModelSession().respond(to: "Hi")
                } catch SystemLanguageModel.Error.assetsUnavailable(let info) {
                    print("27", info.debugDescription.isEmpty)
                }
                do {
                    _ = try await LanguageModelSession().respond(to: "Hi")
                } catch is LanguageModelError {
                    print("not a LanguageModelError")
                } catch let error as SystemLanguageModel.Error {
                    print("typed", error is SystemLanguageModel.Error)
                }
                do {
                    _ = try await LanguageModelSession().respond(to: "Hi")
                } catch LanguageModelSession.GenerationError.assetsUnavailable {
                    print("26")
                }
            }
            """, model: nil)
        XCTAssertEqual(prints(result), ["27 false", "typed true", "26"])
    }

    /// The FoundationModels errors are LocalizedErrors: errorDescription and failureReason.
    func testLocalizedErrorMembers() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession(instructions: String(repeating: "word ", count: 5000))
                do {
                    _ = try await session.respond(to: "Hi")
                } catch let error as LanguageModelSession.GenerationError {
                    print(error.errorDescription?.contains("exceededContextWindowSize") ?? false, error.failureReason?.contains("4096") ?? false)
                }
            }
            """, model: ScriptedLanguageModel(contextSize: 4096))
        XCTAssertEqual(prints(result), ["true true"])
    }
}
