import FoundationModelsRuntime
import PlaygroundEvaluator
import PromptLanguage
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

    /// Every FoundationModels error type lists LocalizedError's members, so a value lint knows to be one (a parameter
    /// written `LanguageModelError`) reads them; a member these types do not have is still FM310.
    func testLocalizedErrorMembersOnTypedErrors() async {
        let source = """
            import FoundationModels
            func describe(_ error: LanguageModelSession.GenerationError) -> String {
                (error.errorDescription ?? "?") + " | " + (error.failureReason ?? "none") + " | " + (error.recoverySuggestion ?? "none")
            }
            func describe27(_ error: LanguageModelError) -> String { error.localizedDescription }
            #Playground {
                let session = LanguageModelSession(instructions: String(repeating: "word ", count: 5000))
                do {
                    _ = try await session.respond(to: "Hi")
                } catch let error as LanguageModelSession.GenerationError {
                    print(describe(error).hasPrefix("GenerationError.exceededContextWindowSize"), describe(error).hasSuffix("| none"))
                }
                do {
                    _ = try GenerationSchema(root: DynamicGenerationSchema(referenceTo: "Missing"), dependencies: [])
                } catch let error as GenerationSchema.SchemaError {
                    print(error.failureReason ?? "nil", error.recoverySuggestion ?? "nil")
                }
            }
            """
        XCTAssertEqual(PromptAnalyzer.analyze(source).diagnostics.map(\.message), [])
        let result = await evaluate(source, model: ScriptedLanguageModel(contextSize: 4096))
        XCTAssertEqual(prints(result).first, "true true")
        XCTAssertEqual(prints(result).count, 2)
        XCTAssertFalse(prints(result).last?.hasPrefix("nil") ?? true, "a SchemaError's failureReason is its context's debug description")
        let wrong = PromptAnalyzer.analyze("""
            import FoundationModels
            func describe(_ error: LanguageModelError) -> String { error.errorDescriptions ?? "" }
            """).diagnostics
        XCTAssertEqual(wrong.map(\.code), [.unknownMember])
        XCTAssertTrue(wrong.first?.message.contains("errorDescription") ?? false, wrong.first?.message ?? "")
    }

    /// `LanguageModelSession.ToolCallError(tool:underlyingError:)` by hand (to rethrow from a tool, or in a test): its tool is
    /// the file's value, its underlying error the value thrown, and it is caught like one the framework throws.
    func testToolCallErrorBuiltByHand() async {
        let source = """
            import FoundationModels
            enum LookupError: Error { case notFound(String) }
            struct Finder: Tool {
                let description = "Finds things"
                @Generable struct Arguments { var query: String }
                func call(arguments: Arguments) async throws -> String { throw LookupError.notFound(arguments.query) }
            }
            #Playground {
                let made = LanguageModelSession.ToolCallError(tool: Finder(), underlyingError: LookupError.notFound("cats"))
                print(made.tool.name, made.errorDescription ?? "nil", made.failureReason ?? "nil", made.recoverySuggestion ?? "nil")
                do {
                    throw made
                } catch let error as LanguageModelSession.ToolCallError {
                    if case LookupError.notFound(let what) = error.underlyingError { print("not found:", what) }
                }
                do {
                    _ = try await LanguageModelSession(tools: [Finder()]).respond(to: "find dogs")
                } catch let error as LanguageModelSession.ToolCallError {
                    print(error.tool.description, error.underlyingError)
                }
            }
            """
        XCTAssertEqual(PromptAnalyzer.analyze(source).diagnostics.map(\.message), [])
        let model = ScriptedLanguageModel(script: [
            .toolCall(name: "Finder", arguments: GeneratedContent(properties: [("query", GeneratedContent("dogs"))])), .text("Done"),
        ])
        let result = await evaluate(source, model: model)
        XCTAssertEqual(prints(result), [
            #"Finder ToolCallError: tool 'Finder' failed: notFound("cats") nil nil"#, "not found: cats", #"Finds things notFound("dogs")"#,
        ])
        let wrong = PromptAnalyzer.analyze("""
            import FoundationModels
            struct Finder: Tool {
                let description = "Finds things"
                @Generable struct Arguments { var query: String }
                func call(arguments: Arguments) async throws -> String { arguments.query }
            }
            #Playground {
                let made = LanguageModelSession.ToolCallError(tool: Finder(), error: CancellationError())
                print(made)
            }
            """).diagnostics
        XCTAssertEqual(wrong.map(\.code), [.unknownMember])
    }
}
