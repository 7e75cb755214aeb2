import Foundation
import FoundationModelsRuntime
import GGUF
import Guidance
import Inference
import JSON
import Schema
import Tokenizer

/// The embedded GGUF engine as a `LanguageModel`: renders the transcript with
/// the model's chat template, reuses the KV cache for the longest shared
/// prompt prefix across turns, and decodes with Inference's one decoding loop
/// (`TokenGeneration`), under a `GrammarConstraint` when the request has a
/// schema or tools (forced text is fed as one batch, never sampled).
///
/// One generation runs at a time per model (later requests wait); a
/// cancelled consumer stops generation within one token.
public final class EmbeddedLanguageModel: LanguageModel, @unchecked Sendable {
    public let name: String
    public let identity: String
    public let contextSize: Int
    public var availability: SystemLanguageModel.Availability { .available }
    /// `general.languages` from the GGUF metadata (SmolLM2: ["en"]).
    public let supportedLanguages: [String]?

    let model: InferenceModel
    let tokenizer: Tokenizer
    let template: ChatTemplate
    let vocabulary: VocabularyIndex
    private let session: InferenceSession
    private let endOfGeneration: Set<Int32>
    /// Serializes generations: the KV cache and the matchers are single-user.
    private let lock = NSLock()
    /// Compiled grammars with their warm mask caches, by what they constrain.
    private var matchers: [GrammarKey: GrammarMatcher] = [:]

    private struct GrammarKey: Hashable {
        var schema: GenerationSchema?
        var tools: [ToolSignature]
        var alternative: ToolCallAlternative?
    }

    /// Loads a GGUF model file.
    public init(path: String, contextSize: Int? = nil, threads: Int? = nil) throws {
        model = try InferenceModel(path: path)
        tokenizer = try Tokenizer(gguf: model.file)
        let metadata = model.file.metadata
        let modelName = (try? metadata.string("general.name")) ?? URL(fileURLWithPath: path).lastPathComponent
        template = try ChatTemplate.detect(templateText: try metadata.string("tokenizer.chat_template"),
                                           modelName: modelName, tokenizer: tokenizer)
        let size = contextSize ?? model.trainedContextLength
        session = model.makeSession(contextSize: size, threads: threads)
        self.contextSize = session.contextSize
        name = modelName
        supportedLanguages = (try? metadata.strings("general.languages")) ?? nil
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let fileSize = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        identity = "\(path)#\(fileSize)#\(Int(modified))"
        endOfGeneration = tokenizer.endOfGenerationIDs
        var special = Set<Int>()
        for id in 0..<tokenizer.vocabularySize where tokenizer.isControl(TokenID(id)) { special.insert(id) }
        for id in endOfGeneration { special.insert(Int(id)) }
        vocabulary = VocabularyIndex(tokens: tokenizer.allTokenBytes(), specialTokens: special,
                                     endOfSequence: endOfGeneration.map { Int($0) }.sorted())
    }

    public func prewarm(transcript: Transcript) async {
        let prompt = tokenize(render(GenerationRequest(transcript: transcript)))
        lock.withLock { _ = try? session.prefill(prompt) }
    }

    public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task.detached { [self] in
                do {
                    try self.lock.withLock {
                        try self.run(request) { continuation.yield($0) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: Prompt

    /// The chat-template text for the request, ending with the assistant turn
    /// opening unless `addGenerationPrompt` is false.
    func render(_ request: GenerationRequest, addGenerationPrompt: Bool = true) -> String {
        var messages: [ChatMessage] = []
        var toolDefinitions = request.tools
        let lastPrompt = request.transcript.entries.lastIndex { if case .prompt = $0 { true } else { false } }
        for (index, entry) in request.transcript.entries.enumerated() {
            switch entry {
            case .instructions(let instructions):
                messages.append(.system(instructions.segments.map(\.text).joined(separator: "\n")))
                if toolDefinitions.isEmpty { toolDefinitions = instructions.toolDefinitions }
            case .prompt(let prompt):
                var text = prompt.segments.map(\.text).joined(separator: "\n")
                if index == lastPrompt, let schema = request.schema, request.includeSchemaInPrompt {
                    text += Self.schemaInstruction + SchemaPrompt.describe(schema)
                }
                messages.append(.user(text))
            case .toolCalls(let calls):
                messages.append(.assistant("", toolCalls: calls.calls.map { call in
                    "{\"name\":" + JSONText.quoted(call.toolName) + ",\"arguments\":" + call.arguments.jsonString + "}"
                }))
            case .toolOutput(let output):
                messages.append(.tool(output.segments.map(\.text).joined(separator: "\n")))
            case .response(let response):
                messages.append(.assistant(response.segments.map(\.text).joined(separator: "\n")))
            case .reasoning:
                // Earlier turns' reasoning is not replayed (as Qwen3's template drops past thinking).
                continue
            }
        }
        let allowsTools = request.options.toolCallingMode?.kind != .disallowed
        let tools = allowsTools ? toolDefinitions.map(Self.toolDefinitionJSON) : []
        return template.render(messages, addGenerationPrompt: addGenerationPrompt, tools: tools)
    }

    /// Tokens of the entries in the chat format (without the template's
    /// default system turn, which is not the caller's text), plus the schema
    /// description `includeSchemaInPrompt` adds.
    public func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int {
        var count = 0
        if !entries.isEmpty {
            let text = render(GenerationRequest(transcript: Transcript(entries: entries)), addGenerationPrompt: false)
            let overhead = render(GenerationRequest(transcript: Transcript()), addGenerationPrompt: false)
            let startsWithInstructions = if case .instructions? = entries.first { true } else { false }
            count += tokenize(text).count - (startsWithInstructions ? tokenize("").count : tokenize(overhead).count)
        }
        if let schema {
            count += tokenizer.tokenize(Self.schemaInstruction + SchemaPrompt.describe(schema), addSpecial: false, parseSpecial: false).count
        }
        return count
    }

    /// Precedes the schema description in the last prompt.
    static let schemaInstruction = "\n\nAnswer with JSON only, in this form:\n"

    /// A tool as the Qwen/Hermes function-signature JSON the tool section lists.
    /// The parameters are the JSON Schema without what only validators need
    /// (`title`, `x-order`, `additionalProperties`, `$schema`): the grammar
    /// enforces the exact shape, and a short signature helps a small model.
    static func toolDefinitionJSON(_ tool: Transcript.ToolDefinition) -> String {
        let function: JSONValue = ["name": .string(tool.name), "description": .string(tool.description),
                                   "parameters": concise(tool.parameters.jsonSchema())]
        let definition: JSONValue = ["type": "function", "function": function]
        return definition.serialized()
    }

    private static let validatorOnlyKeys: Set<String> = ["title", "x-order", "additionalProperties", "$schema"]

    static func concise(_ schema: JSONValue) -> JSONValue {
        switch schema {
        case .object(let object):
            // Under "properties" and "$defs" the keys are names, not keywords: keep them all.
            return .object(JSONObject(object.compactMap { key, value in
                if validatorOnlyKeys.contains(key) { return nil }
                if key == "properties" || key == "$defs", case .object(let named) = value {
                    return (key, .object(JSONObject(named.map { ($0.key, concise($0.value)) })))
                }
                return (key, concise(value))
            }))
        case .array(let items):
            return .array(items.map(concise))
        default:
            return schema
        }
    }

    func tokenize(_ text: String) -> [Int32] {
        tokenizer.tokenize(text, addSpecial: true, parseSpecial: true)
    }

    // MARK: Decoding

    private func run(_ request: GenerationRequest, emit: (LanguageModelEvent) -> Void) throws {
        let started = ContinuousClock.now
        let renderedPrompt = render(request)
        let prompt = tokenize(renderedPrompt)
        let maximumTokens = request.options.maximumResponseTokens ?? max(1, contextSize - prompt.count)
        guard prompt.count + 1 <= contextSize else {
            throw GenerationError.exceededContextWindowSize(.init(debugDescription:
                "the prompt is \(prompt.count) tokens; the model's context size is \(contextSize) tokens",
                contextSize: contextSize, tokenCount: prompt.count))
        }
        let budget = min(maximumTokens, contextSize - prompt.count)
        let cached = try session.prefill(prompt)
        try Task.checkCancellation()

        let constraint = try matcher(for: request).map { GrammarConstraint(matcher: $0, tokenizer: tokenizer) }
        let generation = TokenGeneration(session: session, sampling: samplingParameters(request), maxTokens: budget,
                                         constraint: constraint)
        // With tools, the answer streams as soon as its first bytes rule out the tool-call opener.
        var gate = ToolCallGate(opener: ToolCallFormat.chatML.opener,
                                toolsPossible: constraint != nil && !toolSignatures(request).isEmpty)
        var firstTokenAt: ContinuousClock.Instant?
        while let run = try generation.advance() {
            if firstTokenAt == nil { firstTokenAt = .now }
            if let (piece, count) = gate.add(generation.text(of: run), tokens: run.count) { emit(.text(piece, tokenCount: count)) }
        }
        let finishedValue = try finish(generation, gate: &gate, budget: budget, emit: emit)
        let end = ContinuousClock.now
        let firstToken = firstTokenAt ?? end
        let decodeSeconds = Self.seconds(end - firstToken)
        let generatedCount = generation.tokens.count
        let stopReason: ResponseStopReason = gate.decision == .toolCall ? .toolCalls : (finishedValue ? .endOfTurn : .tokenLimit)
        let statistics = GenerationStatistics(
            usage: Usage(promptTokens: prompt.count, cachedTokens: cached, responseTokens: generatedCount),
            timeToFirstToken: Self.seconds(firstToken - started),
            tokensPerSecond: generatedCount > 1 && decodeSeconds > 0 ? Double(generatedCount - 1) / decodeSeconds : 0,
            renderedPrompt: renderedPrompt, stopReason: stopReason)
        emit(.finished(statistics))
    }

    /// After the loop: the held text out, the check that a constrained value completed, the
    /// tool calls. Returns whether the response ended by itself (not at the token limit).
    private func finish(_ generation: TokenGeneration, gate: inout ToolCallGate, budget: Int,
                        emit: (LanguageModelEvent) -> Void) throws -> Bool {
        if let (piece, count) = gate.finish(tail: generation.finalText()) { emit(.text(piece, tokenCount: count)) }
        if let constraint = generation.constraint, !constraint.isComplete {
            throw GenerationError.decodingFailure(.init(debugDescription:
                "the response reached \(budget) tokens before the value was complete (maximumResponseTokens or the context size \(contextSize))"))
        }
        if gate.decision == .toolCall {
            emit(.toolCalls(try parseToolCalls(gate.heldText, format: .chatML)))
        }
        return generation.stopReason != .length || generation.constraint?.isFinished == true
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func samplingParameters(_ request: GenerationRequest) -> SamplingParameters {
        let temperature = Float(request.options.temperature ?? 0.7)
        let seed = request.effectiveSeed
        switch request.options.samplingMode?.kind {
        case .greedy:
            return .greedy
        case .randomTopK(let k, _):
            return SamplingParameters(temperature: temperature, topK: max(1, k), topP: 1, minP: 0, seed: seed)
        case .randomProbabilityThreshold(let p, _):
            return SamplingParameters(temperature: temperature, topK: 0, topP: Float(p), minP: 0, seed: seed)
        case nil:
            return SamplingParameters(temperature: temperature, topK: 40, topP: 0.95, minP: 0.05, seed: seed)
        }
    }

    // MARK: Grammars

    private func toolSignatures(_ request: GenerationRequest) -> [ToolSignature] {
        guard request.options.toolCallingMode?.kind != .disallowed else { return [] }
        var definitions = request.tools
        if definitions.isEmpty {
            for entry in request.transcript.entries {
                if case .instructions(let instructions) = entry { definitions = instructions.toolDefinitions }
            }
        }
        return definitions.map { ToolSignature(name: $0.name, arguments: $0.parameters) }
    }

    /// The matcher for the request's constraints (reset, with its mask cache warm), or nil for free text.
    private func matcher(for request: GenerationRequest) throws -> GrammarMatcher? {
        let tools = toolSignatures(request)
        let required = request.options.toolCallingMode?.kind == .required
        if tools.isEmpty && request.schema == nil { return nil }
        let alternative: ToolCallAlternative? = tools.isEmpty ? nil
            : (required ? ToolCallAlternative.none : request.schema.map { .value($0) } ?? .freeText)
        let key = GrammarKey(schema: request.schema, tools: tools, alternative: alternative)
        if let existing = matchers[key] {
            existing.reset()
            return existing
        }
        let grammar: ByteGrammar
        do {
            if let alternative {
                grammar = try ByteGrammar.toolCalls(tools, alternative: alternative)
            } else {
                grammar = try ByteGrammar.compile(request.schema!)
            }
        } catch {
            switch error.kind {
            case .unsupportedGuide:
                throw GenerationError.unsupportedGuide(.init(debugDescription: error.description))
            case .invalidSchema:
                throw GenerationError.decodingFailure(.init(debugDescription: "the schema cannot be generated: \(error.description)"))
            }
        }
        let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        matchers[key] = matcher
        return matcher
    }

    private func parseToolCalls(_ text: String, format: ToolCallFormat) throws -> [Transcript.ToolCall] {
        var calls: [Transcript.ToolCall] = []
        var rest = Substring(text)
        while let open = rest.range(of: format.opener) {
            rest = rest[open.upperBound...]
            guard let close = rest.range(of: format.closer) else { break }
            let json = String(rest[..<close.lowerBound])
            rest = rest[close.upperBound...]
            let value: JSONValue
            do { value = try JSONValue.parse(json) } catch {
                throw GenerationError.decodingFailure(.init(debugDescription: "tool call is not JSON: \(json)"))
            }
            guard let name = value["name"]?.stringValue, let arguments = value["arguments"] else {
                throw GenerationError.decodingFailure(.init(debugDescription: "tool call without name or arguments: \(json)"))
            }
            calls.append(Transcript.ToolCall(id: "call-\(calls.count)", toolName: name, arguments: GeneratedContent(arguments)))
        }
        return calls
    }
}
