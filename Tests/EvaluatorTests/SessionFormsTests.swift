import PlaygroundEvaluator
import XCTest

/// The 27.0 respond/streamResponse forms Apple documents beside `to:`: builder prompts with `contextOptions:` (and
/// `metadata:`), dynamic schemas, and the 26.0 `streamResponse(schema:) { }` builder form, run on the scripted model.
final class SessionFormsTests: XCTestCase {
    func testBuilderAndSchemaFormsWithContextOptions() async {
        let result = await evaluate("""
            import FoundationModels
            @Generable
            struct Idea {
                var title: String
            }
            #Playground {
                let session = LanguageModelSession()
                let context = ContextOptions(includeSchemaInPrompt: false)
                let schema = try GenerationSchema(root: DynamicGenerationSchema(name: "Pick", properties: [
                    DynamicGenerationSchema.Property(name: "word", schema: DynamicGenerationSchema(type: String.self))]), dependencies: [])
                print(try await session.respond(contextOptions: context) { "Say hi" }.content)
                print(try await session.respond(generating: Idea.self, contextOptions: context) { "An idea" }.content.title)
                print(try await session.respond(schema: schema, contextOptions: context) { "A word" }.content)
                print(try await session.respond(schema: schema, contextOptions: context, metadata: ["k": "v"]) { "Metadata" }.content)
                let text = session.streamResponse(contextOptions: context, metadata: ["tag": "x"]) { "Stream" }
                print(try await text.collect().content)
                let idea = session.streamResponse(generating: Idea.self, contextOptions: context) { "Stream idea" }
                print(try await idea.collect().content.title)
                let picked = session.streamResponse(to: "Pick one", schema: schema, contextOptions: context)
                print(try await picked.collect().content)
                let builder = session.streamResponse(schema: schema) { "Old form" }
                print(try await builder.collect().content)
                print(session.transcript.count)
            }
            """)
        XCTAssertEqual(prints(result), [
            "Scripted reply to \"Say hi\".", "an idea", "Pick(word: \"a word\")", "Pick(word: \"metadata metadata\")",
            "Scripted reply to \"Stream\".", "stream idea", "Pick(word: \"pick one\")", "Pick(word: \"old form\")", "16",
        ])
    }

    /// `SystemLanguageModel(useCase:guardrails:)`: every documented spelling of the guardrails runs.
    func testGuardrails() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let model = SystemLanguageModel(useCase: .general, guardrails: .permissiveContentTransformations)
                let other = SystemLanguageModel(guardrails: .default)
                let tagger = SystemLanguageModel(useCase: .contentTagging, guardrails: SystemLanguageModel.Guardrails.default)
                print(model.isAvailable, other.isAvailable, tagger.isAvailable)
                print(try await LanguageModelSession(model: model).respond(to: "Rewrite: hello").content)
            }
            """)
        XCTAssertEqual(prints(result), ["true true true", "Scripted reply to \"Rewrite: hello\"."])
    }
}
