import FoundationModelsRuntime
import PlaygroundEvaluator
import PromptLanguage
import XCTest

/// What prompt files ask the model and the session besides generating:
/// `tokenCount(for:)` (26.4), 27's usage forms, languages and locales, and
/// Generable values made from `GeneratedContent`. On the scripted model (one
/// token per whitespace-separated word).
final class ModelQueryTests: XCTestCase {
    func testTokenCountForEveryKindOfInput() async {
        let result = await evaluate(travelTypes + """
            struct WeatherTool: Tool {
                let name = "getWeather"
                let description = "Weather for a city"

                @Generable
                struct Arguments {
                    var city: String
                }

                func call(arguments: Arguments) async throws -> String {
                    "sunny"
                }
            }

            #Playground("tokens") {
                let model = SystemLanguageModel.default
                print(try await model.tokenCount(for: "Plan a weekend in Paris"))
                print(try await model.tokenCount(for: Prompt("Plan a weekend")))
                print(try await model.tokenCount(for: Instructions("Be brief.")))
                print(try await model.tokenCount(for: [WeatherTool()]) > 0)
                print(try await model.tokenCount(for: Suggestions.generationSchema) > 0)
                let session = LanguageModelSession(instructions: "Be brief.")
                let response = try await session.respond(to: "Hi")
                print(try await model.tokenCount(for: session.transcript))
                print(try await model.tokenCount(for: response.transcriptEntries))
            }
            """)
        XCTAssertEqual(result.blocks[0].status, .ok, "\(result.blocks[0].error ?? "")")
        // "(Prompt) Plan a weekend in Paris": the entry as the scripted model reads it.
        XCTAssertEqual(prints(result), ["6", "4", "3", "true", "true", "10", "7"])
    }

    func testNestedUsageAndSessionUsage() async {
        let result = await evaluate("""
            #Playground("usage") {
                let session = LanguageModelSession()
                let first = try await session.respond(to: "Hi")
                let second = try await session.respond(to: "Hi again")
                print(first.usage.input.totalTokenCount == first.usage.promptTokens)
                print(second.usage.input.cachedTokenCount == second.usage.cachedTokens)
                print(first.usage.output.totalTokenCount + second.usage.output.totalTokenCount == session.usage.responseTokens)
                print(session.usage.totalTokenCount == first.usage.totalTokenCount + second.usage.totalTokenCount)
            }
            """)
        XCTAssertEqual(prints(result), ["true", "true", "true", "true"])
    }

    func testTokenCountWithoutAModelIsAssetsUnavailable() async {
        let result = await evaluate("""
            #Playground("none") {
                do {
                    _ = try await SystemLanguageModel.default.tokenCount(for: "Hi")
                } catch LanguageModelSession.GenerationError.assetsUnavailable {
                    print("unavailable")
                }
            }
            """, model: nil)
        XCTAssertEqual(prints(result), ["unavailable"])
    }

    func testSupportedLanguagesAndLocales() async {
        let english = ScriptedLanguageModel(supportedLanguages: ["en", "pt-BR"])
        let result = await evaluate("""
            #Playground("languages") {
                let model = SystemLanguageModel.default
                for language in model.supportedLanguages {
                    let code = language.languageCode?.identifier ?? ""
                    let region = language.region?.identifier ?? "-"
                    print(code, region, Locale.current.localizedString(forLanguageCode: code) ?? code)
                }
                print(model.supportsLocale())
                print(model.supportsLocale(Locale(identifier: "en_GB")))
                print(model.supportsLocale(Locale(identifier: "fr_FR")))
                let locale = Locale.autoupdatingCurrent
                print(locale.identifier, locale.language.languageCode?.identifier ?? "", locale.localizedString(forRegionCode: "FR") ?? "")
            }
            """, model: english)
        XCTAssertEqual(prints(result), ["en - English", "pt BR Portuguese", "true", "true", "false", "en_US en France"])
        let none = await evaluate("""
            #Playground("none") {
                print(SystemLanguageModel.default.supportsLocale())
            }
            """, model: nil)
        XCTAssertEqual(prints(none), ["false"])
    }

    func testGenerableFromGeneratedContent() async {
        let result = await evaluate(travelTypes + """
            #Playground("convert") {
                let content = try GeneratedContent(json: #"{"searchTerms": ["a", "b", "c"], "mood": "calm", "stars": 4}"#)
                let suggestions = try Suggestions(content)
                print(suggestions.stars, suggestions.mood, suggestions.searchTerms.count)
                do {
                    _ = try Suggestions(GeneratedContent(json: #"{"searchTerms": [], "mood": "calm", "stars": 9}"#))
                } catch LanguageModelSession.GenerationError.decodingFailure {
                    print("rejected")
                }
            }
            """)
        XCTAssertEqual(prints(result), ["4 calm 3", "rejected"])
    }

    /// Apple's @Generable macro leaves stored properties with a starting value out of the
    /// schema; generated values take the starting value, and computed properties are ignored.
    func testGenerablePropertiesWithStartingValuesAreNotGenerated() async throws {
        let source = """
            @Generable
            struct Note {
                let id = UUID()
                var pinned: Bool = false
                @Guide(description: "The note's title")
                var title: String
                var words: Int
                var summary: String { "\\(title) (\\(words) words)" }
            }

            #Playground("starting values") {
                let note = try Note(GeneratedContent(json: #"{"title": "Groceries", "words": 3}"#))
                print(note.pinned, note.summary, note.id.uuidString.count)
                let session = LanguageModelSession()
                let generated = try await session.respond(to: "A note", generating: Note.self).content
                print(generated.pinned, generated.id == note.id)
            }
            """
        let analysis = PromptAnalyzer.analyze(source)
        XCTAssertEqual(analysis.diagnostics.filter { $0.severity == .error }.map(\.message), [])
        let schema = try XCTUnwrap(analysis.file.schemas["Note"])
        let rendered = schema.jsonSchema().serialized()
        XCTAssertTrue(rendered.contains("\"title\"") && rendered.contains("\"words\""), rendered)
        XCTAssertFalse(rendered.contains("\"id\"") || rendered.contains("pinned") || rendered.contains("summary"), rendered)
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["false Groceries (3 words) 36", "false false"])
    }

    func testFeedbackAttachmentIsJSONOfTheSession() async {
        let result = await evaluate("""
            #Playground("feedback") {
                let session = LanguageModelSession()
                _ = try await session.respond(to: "Hi")
                let data = session.logFeedbackAttachment(sentiment: .negative,
                    issues: [LanguageModelFeedback.Issue(category: .incorrect, explanation: "wrong")],
                    desiredResponseText: "Hello!")
                print(data.count > 100)
                print(String(data: data, encoding: .utf8) ?? "")
            }
            """)
        let lines = prints(result)
        XCTAssertEqual(lines.first, "true")
        XCTAssertEqual(lines.last, #"{"sentiment":"negative","issues":[{"category":"incorrect","explanation":"wrong"}],"desiredOutput":"Hello!","transcript":[{"id":"1","kind":"prompt","text":"(Prompt) Hi"},{"id":"2","kind":"response","text":"(Response) Scripted reply to \"Hi\"."}]}"#)
        let bad = await evaluate("""
            #Playground("bad") {
                let session = LanguageModelSession()
                _ = session.logFeedbackAttachment(sentiment: .positive, issues: [LanguageModelFeedback.Issue(category: .boring)])
            }
            """)
        XCTAssertEqual(bad.blocks[0].status, .error)
        // An unknown case is a lint error (FM310), so the block does not run.
        XCTAssertTrue(bad.blocks[0].error?.contains("has no member 'boring'") ?? false, bad.blocks[0].error ?? "")
    }

    func testNullDynamicSchemaIsAClearError() async {
        let result = await evaluate("""
            #Playground("null") {
                let property = DynamicGenerationSchema.Property(name: "nothing", schema: .null, isOptional: true)
            }
            """)
        // FM309 before anything runs.
        XCTAssertEqual(result.blocks[0].status, .error)
        XCTAssertTrue(result.blocks[0].error?.contains("FM309") ?? false, result.blocks[0].error ?? "")
        XCTAssertTrue(result.blocks[0].error?.contains("mark it optional instead") ?? false, result.blocks[0].error ?? "")
    }

    func testContextOptionsIncludeSchemaInPrompt() async {
        let model = ScriptedLanguageModel()
        let result = await evaluate(travelTypes + """
            #Playground("context") {
                let session = LanguageModelSession()
                let off = try await session.respond(to: "Porto", generating: Suggestions.self,
                                                    contextOptions: ContextOptions(includeSchemaInPrompt: false))
                let on = try await session.respond(to: "Lisbon", generating: Suggestions.self, contextOptions: ContextOptions())
                print(off.content.stars, on.content.stars)
            }
            """, model: model)
        XCTAssertEqual(result.blocks[0].status, .ok, result.blocks[0].error ?? "")
        XCTAssertEqual(model.receivedRequests.map(\.includeSchemaInPrompt), [false, true])
    }
}
