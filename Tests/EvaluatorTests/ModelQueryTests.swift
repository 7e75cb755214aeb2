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

    /// A model that lists no languages: supportedLanguages and supportsLocale(_:) read one rule (English, the language of
    /// Locale.current in prompt files), so they agree (audit: the set was empty while every locale was supported).
    func testUnlistedLanguagesAgreeWithSupportsLocale() async {
        let result = await evaluate("""
            #Playground {
                let model = SystemLanguageModel.default
                print(model.supportedLanguages.map { $0.minimalIdentifier })
                print(model.supportsLocale(), model.supportsLocale(Locale(identifier: "en_US")), model.supportsLocale(Locale(identifier: "xx_YY")))
                print(model.supportedLanguages.allSatisfy { model.supportsLocale(Locale(identifier: $0.minimalIdentifier)) })
            }
            """, model: ScriptedLanguageModel())
        XCTAssertEqual(prints(result), [#"["en"]"#, "true true false", "true"])
        let listed = await evaluate("""
            #Playground {
                print(SystemLanguageModel.default.supportsLocale(Locale(identifier: "pt_PT")), SystemLanguageModel.default.supportsLocale(Locale(identifier: "en_US")))
            }
            """, model: ScriptedLanguageModel(supportedLanguages: ["pt-BR"]))
        XCTAssertEqual(prints(listed), ["true false"])
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

    /// Apple's Generable overview and GenerationID page: `var id: GenerationID` is not generated (not in the schema or
    /// the prompt); the framework fills it. Each generated value has its own id, the snapshots of one stream share
    /// the final value's ids, and two responses differ.
    func testGenerationIDPropertiesAreFilledByTheFramework() async throws {
        let source = """
            @Generable
            struct SearchSuggestions {
                @Guide(description: "Suggested search terms.", .count(2))
                var searchTerms: [SearchTerm]
                @Generable
                struct SearchTerm {
                    var id: GenerationID
                    var searchTerm: String
                }
            }
            #Playground {
                let session = LanguageModelSession()
                let first = try await session.respond(to: "Sea", generating: SearchSuggestions.self).content
                print(first.searchTerms.count, first.searchTerms[0].id != first.searchTerms[1].id, first.searchTerms[0].searchTerm.isEmpty)
                var snapshotIDs: [GenerationID] = []
                let stream = session.streamResponse(to: "Sky", generating: SearchSuggestions.self)
                for try await snapshot in stream {
                    if let terms = snapshot.content.searchTerms, let term = terms.first { snapshotIDs.append(term.id) }
                }
                let final = try await stream.collect().content
                print(snapshotIDs.count > 1, Set(snapshotIDs).count, snapshotIDs.last == final.searchTerms[0].id)
                print(final.searchTerms[0].id == first.searchTerms[0].id)
                let made = SearchSuggestions.SearchTerm(id: GenerationID(), searchTerm: "waves")
                print(made.searchTerm)
            }
            """
        let analysis = PromptAnalyzer.analyze(source)
        XCTAssertEqual(analysis.diagnostics.filter { $0.severity == .error }.map(\.message), [])
        let rendered = try XCTUnwrap(analysis.file.schemas["SearchSuggestions"]).jsonSchema().serialized()
        XCTAssertFalse(rendered.contains("\"id\""), rendered)
        let model = ScriptedLanguageModel()
        let result = await evaluate(source, model: model)
        XCTAssertEqual(prints(result), ["2 true false", "true 1 true", "false", "waves"])
        XCTAssertFalse(model.receivedRequests.contains { $0.schema?.jsonSchema().serialized().contains("\"id\"") ?? false })
        let again = await evaluate(source, model: ScriptedLanguageModel())
        XCTAssertEqual(result.blocks[0].results.map(\.text), again.blocks[0].results.map(\.text), "ids repeat run to run (seeded)")
    }

    /// Apple's ConvertibleToGeneratedContent / PromptRepresentable: a type's own `generatedContent` (keys renamed) is
    /// what `Prompt(p)`, a prompt builder line and `respond(to: p)` send; a declared `promptRepresentation` wins;
    /// `promptRepresentation` and `generatedContent` are members of such values.
    func testDeclaredRepresentationsAreWhatPromptsSend() async throws {
        let source = """
            struct Person: ConvertibleToGeneratedContent {
                var name: String
                var age: Int
                var generatedContent: GeneratedContent {
                    GeneratedContent(properties: ["firstName": name, "ageInYears": age])
                }
            }
            struct Figure: PromptRepresentable {
                var name: String
                var promptRepresentation: Prompt {
                    "Figure:"
                    "- name: \\(name)"
                }
            }
            @Generable
            struct Plain {
                var title: String
            }
            #Playground {
                let session = LanguageModelSession()
                let p = Person(name: "Ann", age: 30)
                print(try await session.respond(to: Prompt(p)).content)
                print(try await session.respond(to: Prompt { "Describe:"; p }).content)
                print(try await session.respond(to: Figure(name: "Ada")).content)
                print(Plain(title: "t").generatedContent.jsonString, Plain(title: "u").promptRepresentation)
                print(p.promptRepresentation)
            }
            """
        let model = ScriptedLanguageModel()
        let result = await evaluate(source, model: model)
        let printed = prints(result)
        XCTAssertEqual(printed.count, 5)
        XCTAssertTrue(printed[0].contains(#"{"firstName":"Ann","ageInYears":30}"#), printed[0])
        let prompts = model.receivedRequests.map(\.transcript.description)
        XCTAssertTrue(prompts[1].contains("Describe:") && prompts[1].contains(#""firstName":"Ann""#), prompts[1])
        XCTAssertFalse(prompts.joined().contains(#""name":"Ann""#), "the memberwise content is never sent")
        XCTAssertTrue(prompts[2].contains("Figure:\n- name: Ada"), prompts[2])
        XCTAssertEqual(printed[3], #"{"title":"t"} {"title":"u"}"#)
        XCTAssertEqual(printed[4], #"{"firstName":"Ann","ageInYears":30}"#)
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
