import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// Forms of Apple's FoundationModels documentation that the surface audit found missing: each runs on the
/// scripted model and gives what the documentation says.
final class DocumentedFormsTests: XCTestCase {
    func testUsageIsBuiltFromItsCounts() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let usage = LanguageModelSession.Usage(input: .init(totalTokenCount: 12, cachedTokenCount: 4),
                                                       output: .init(totalTokenCount: 5, reasoningTokenCount: 1),
                                                       metadata: ["latency": 3])
                print(usage.totalTokenCount, usage.input.cachedTokenCount, usage.output.reasoningTokenCount, usage.metadata["latency"]!)
                let plain = LanguageModelSession.Usage(input: LanguageModelSession.Usage.Input(totalTokenCount: 2, cachedTokenCount: 0),
                                                       output: LanguageModelSession.Usage.Output(totalTokenCount: 1, reasoningTokenCount: 0))
                print(plain.totalTokenCount, plain.metadata.isEmpty)
                let session = LanguageModelSession()
                let response = try await session.respond(to: "Hi")
                print(response.usage.metadata.count)
            }
            """)
        XCTAssertEqual(prints(result), ["17 4 1 3", "3 true", "0"])
    }

    func testAPartCountAboveItsTotalIsAnError() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let input = LanguageModelSession.Usage.Input(totalTokenCount: 2, cachedTokenCount: 5)
                print(input)
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertTrue(result.blocks.first?.error?.contains("0 <= cachedTokenCount <= totalTokenCount") == true, result.blocks.first?.error ?? "")
    }

    func testVariantsAndCaseIterableFeedback() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let variant = SystemLanguageModel.default.variant
                print(variant.displayName, variant == SystemLanguageModel.Variant.core3)
                print(SystemLanguageModel.Variant.core3.displayName, SystemLanguageModel.Variant.coreAdvanced3.displayName)
                print(SystemLanguageModel.Variant.core3 == SystemLanguageModel.Variant.core3)
                print(LanguageModelFeedback.Sentiment.allCases, LanguageModelFeedback.Issue.Category.allCases.count)
            }
            """)
        XCTAssertEqual(prints(result), ["scripted false", "AFM 3 Core AFM 3 Core Advanced", "true", "[positive, negative, neutral] 8"])
    }

    func testGeneratedContentIdentifiers() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let id = GenerationID()
                let list = GeneratedContent(elements: [1, 2], id: id)
                let object = GeneratedContent(properties: ["k": 1], id: id)
                let kind = GeneratedContent(kind: .string("s"), id: GenerationID())
                print(list.id == object.id, kind.id == id, GeneratedContent("x").id == nil, GeneratedContent("x", id: id).id == id)
                print(object.debugDescription, list.jsonString)
            }
            """)
        XCTAssertEqual(prints(result), ["true false true true", "{\"k\":1} [1,2]"])
    }

    func testContentThatIsNotJSONThrowsAParsingError() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                do {
                    _ = try GeneratedContent(json: "{oops")
                } catch let error as GeneratedContent.ParsingError {
                    print("parsing", error.rawContent, error.debugDescription.hasPrefix("the text is not JSON"))
                }
            }
            """)
        XCTAssertEqual(prints(result), ["parsing {oops true"])
    }

    /// GenerationSchema(root:dependencies:) throws each documented SchemaError, which prompt code catches by case.
    func testSchemaErrorsAreThrownAndCaught() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let person = DynamicGenerationSchema(name: "Person", properties: [
                    .init(name: "pet", schema: .init(referenceTo: "Pet")),
                ])
                do {
                    _ = try GenerationSchema(root: person, dependencies: [])
                } catch GenerationSchema.SchemaError.undefinedReferences(let schema, let references, let context) {
                    print("undefined", schema ?? "-", references, context.debugDescription)
                }
                let twice = DynamicGenerationSchema(name: "T", properties: [
                    .init(name: "a", schema: .init(type: String.self)), .init(name: "a", schema: .init(type: Int.self))])
                do {
                    _ = try GenerationSchema(root: twice, dependencies: [])
                } catch let error as GenerationSchema.SchemaError {
                    if case .duplicateProperty(let schema, let property, _) = error { print("duplicate property", schema, property) }
                }
                let petA = DynamicGenerationSchema(name: "Pet", properties: [.init(name: "name", schema: .init(type: String.self))])
                let petB = DynamicGenerationSchema(name: "Pet", properties: [.init(name: "age", schema: .init(type: Int.self))])
                do {
                    _ = try GenerationSchema(root: person, dependencies: [petA, petB])
                } catch GenerationSchema.SchemaError.duplicateType(_, let type, _) {
                    print("duplicate type", type)
                }
                let none: [String] = []
                do {
                    _ = try GenerationSchema(root: DynamicGenerationSchema(name: "Choice", anyOf: none), dependencies: [])
                } catch GenerationSchema.SchemaError.emptyTypeChoices(let schema, _) {
                    print("empty", schema)
                }
                let schema = try GenerationSchema(root: person, dependencies: [petA])
                print(schema.debugDescription.contains("\\"Pet\\""))
            }
            """)
        XCTAssertEqual(prints(result), ["undefined Person [\"Pet\"] Pet is not defined; pass it in dependencies:",
                                        "duplicate property T a", "duplicate type Pet", "empty Choice", "true"])
    }

    /// `representNilExplicitlyInGeneratedContent: true` writes null for an absent optional property; without it the
    /// property stays absent (the model here writes only the required one).
    func testNilIsRepresentedExplicitlyWhenAsked() async {
        func program(_ explicit: Bool) -> String {
            """
            import FoundationModels
            #Playground {
                let pet = DynamicGenerationSchema(name: "Pet", description: nil, representNilExplicitlyInGeneratedContent: \(explicit), properties: [
                    .init(name: "name", schema: .init(type: String.self)),
                    .init(name: "nickname", schema: .init(type: String.self), isOptional: true),
                ])
                let session = LanguageModelSession()
                let response = try await session.respond(to: "Name a pet", schema: try GenerationSchema(root: pet, dependencies: []))
                print(response.rawContent.jsonString.contains("nickname"), response.rawContent.jsonString.contains("null"))
            }
            """
        }
        let explicit = await evaluate(program(true), model: ScriptedLanguageModel(script: [.text(#"{"name":"Rex"}"#)]))
        XCTAssertEqual(prints(explicit), ["true true"])
        let implicit = await evaluate(program(false), model: ScriptedLanguageModel(script: [.text(#"{"name":"Rex"}"#)]))
        XCTAssertEqual(prints(implicit), ["false false"])
    }

    /// respond(schema:) answers GeneratedContent: its members work on the content as well as on rawContent.
    func testADynamicSchemaAnswerIsGeneratedContent() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let pet = DynamicGenerationSchema(name: "Pet", properties: [.init(name: "name", schema: .init(type: String.self))])
                let session = LanguageModelSession()
                let response = try await session.respond(to: "Name a pet", schema: try GenerationSchema(root: pet, dependencies: []))
                print(response.content.jsonString == response.rawContent.jsonString, response.content.isComplete)
                print(try response.content.value(String.self, forProperty: "name"))
            }
            """, model: ScriptedLanguageModel(script: [.text(#"{"name":"Rex"}"#)]))
        XCTAssertEqual(prints(result), ["true true", "Rex"])
    }

    /// Apple's Refusal example: `try await refusal.explanation`; the explanation is a model call of its own.
    func testARefusalExplainsItself() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                _ = try await session.respond(to: "Tell me a secret.")
                let refusal = LanguageModelSession.GenerationError.Refusal(transcriptEntries: Array(session.transcript))
                let explanation = try await refusal.explanation
                print(explanation.content.hasPrefix("Scripted reply"))
                var last = ""
                for try await partial in refusal.explanationStream { last = partial.content }
                print(last == explanation.content)
                let given = LanguageModelError.Refusal(explanation: "I cannot share secrets.", debugDescription: "refused", metadata: [:])
                print(try await given.explanation.content, given.debugDescription, given.metadata.isEmpty)
            }
            """)
        XCTAssertEqual(prints(result), ["true", "true", "I cannot share secrets. refused true"])
    }

    /// 27.0's Snapshot.usage counts output tokens as they come and the whole response at the end;
    /// transcriptEntries holds the response's entries so far (its prompt, then the response).
    func testSnapshotsCarryUsageAndEntries() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                var counts: [Int] = []
                var last: LanguageModelSession.ResponseStream<String>.Snapshot? = nil
                for try await snapshot in session.streamResponse(to: "Say hello to the world") {
                    counts.append(snapshot.usage.output.totalTokenCount)
                    last = snapshot
                }
                print(counts == counts.sorted(), counts.first!, last!.usage.input.totalTokenCount > 0, last!.transcriptEntries.count)
                print(last!.usage.totalTokenCount == session.usage.totalTokenCount)
            }
            """)
        XCTAssertEqual(prints(result), ["true 1 true 2", "true"])
    }

    /// Apple makes the standard types Generable: `generating: Int.self`, `Float.self`, `[String].self`, `[Person].self`,
    /// `GeneratedContent.self` answer values of that type (Evaluations' `subject(from:)` sample uses Int).
    func testStandardTypesAreGenerable() async {
        let model = ScriptedLanguageModel(script: [.text("42"), .text("2.5"), .text("true"), .text(#"["a","b"]"#),
                                                   .text(#"[{"name":"Ann"},{"name":"Bo"}]"#), .text(#"{"k":1}"#)])
        let result = await evaluate("""
            import FoundationModels
            @Generable struct Person { var name: String }
            #Playground {
                let session = LanguageModelSession()
                let count = try await session.respond(to: "How many?", generating: Int.self).content
                let ratio = try await session.respond(to: "Ratio?", generating: Float.self).content
                let flag = try await session.respond(to: "Yes?", generating: Bool.self).content
                let words = try await session.respond(to: "Words?", generating: [String].self).content
                let people = try await session.respond(to: "People?", generating: [Person].self).content
                let raw = try await session.respond(to: "Any?", generating: GeneratedContent.self).content
                print(count + 1, ratio * 2, !flag, words.joined(separator: "+"), people.map { $0.name }, raw.jsonString)
            }
            """, model: model)
        XCTAssertEqual(prints(result), ["43 5.0 false a+b [\"Ann\", \"Bo\"] {\"k\":1}"])
    }

    func testAGeneratingTypeThatIsNotGenerableIsAnError() async {
        let result = await evaluate("""
            import FoundationModels
            struct Plain { var x: Int }
            #Playground {
                let session = LanguageModelSession()
                print(try await session.respond(to: "?", generating: Plain.self).content)
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertTrue(result.blocks.first?.error?.contains("'Plain' is not @Generable") == true, result.blocks.first?.error ?? "")
    }

    /// `#available` holds (prompt files run as on the newest OS); the 27.0 transcript initializers of Apple's
    /// feedback example; `String(localized:)`; an implicit member compared with a table value.
    func testAvailabilityTranscriptFormsAndLocalizedStrings() async {
        let result = await evaluate("""
            import FoundationModels
            import Observation
            #Playground {
                if #available(iOS 27.0, macOS 27.0, *) { print("27") } else { print("older") }
                if #unavailable(iOS 26.0) { print("old OS") }
                let segment = Transcript.StructuredSegment(schemaName: "Person", content: GeneratedContent(properties: ["name": "Ann"]))
                let response = Transcript.Response(segments: [.structure(segment)])
                let tagged = Transcript.Response(metadata: ["source": "feedback"], segments: [.text(Transcript.TextSegment(content: "Hi"))])
                print(segment.schemaName, segment.source, response.segments.count, tagged.segments.count)
                print(String(localized: "greeting-key", table: "Prompts"))
                print(SystemLanguageModel.Variant.core3 == .core3, SystemLanguageModel.default.variant == .coreAdvanced3)
            }
            """)
        XCTAssertEqual(prints(result), ["27", "Person Person 1 1", "greeting-key", "true false"])
    }

    /// Apple's LanguageModelCapabilities example: check a capability before asking for it.
    func testModelCapabilities() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let selectedModel = SystemLanguageModel.default
                if selectedModel.capabilities.contains(.guidedGeneration) { print("guided") }
                print(selectedModel.capabilities.contains(.toolCalling), selectedModel.capabilities.contains(.reasoning))
                let declared = LanguageModelCapabilities([.toolCalling, .reasoning])
                print(declared.contains(.reasoning), declared.contains(.guidedGeneration))
            }
            """)
        XCTAssertEqual(prints(result), ["guided", "true false", "true false"])
    }

    func testHandWrittenStructuredTranscriptAndUtilities() async {
        let result = await evaluate("""
            import FoundationModels
            import Evaluations
            #Playground {
                let call = Transcript.ToolCall(id: "1", toolName: "weather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
                let transcript = StructuredTranscript(toolCalls: [call], instructionText: "Be brief.", prompts: ["Weather?"])
                print(transcript.toolCalls.count, transcript.instructionText, transcript.prompts, transcript.responses.isEmpty)
                print(try await PrivateCloudComputeLanguageModel().supportedLanguages.isEmpty)
            }
            """)
        XCTAssertEqual(prints(result), ["1 Be brief. [\"Weather?\"] true", "true"])
    }
}
