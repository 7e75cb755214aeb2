import Schema
import JSON

/// A deterministic, instant `LanguageModel` for tests and for
/// `fmplay run --backend scripted`.
///
/// It follows a script of replies when given one (one reply per model turn,
/// in order), and otherwise derives a reply from the request:
/// - with tools attached and tool calling not disallowed, it calls the first
///   tool once per prompt (every turn when `.required`), with arguments
///   synthesized from the tool's schema;
/// - under a schema it writes the simplest JSON that satisfies the schema and
///   every guide (strings are words from the prompt; a `pattern` guide gets
///   the shortest match, and a pattern it cannot read is `unsupportedGuide`);
/// - otherwise it answers `Scripted reply to "<prompt>"`, mentioning tool
///   outputs it was given.
/// A token is one whitespace-separated word or punctuation run; prompts
/// longer than `contextSize` tokens throw `exceededContextWindowSize`; text
/// streams one token per `.text` event, after `tokenDelay`.
public struct ScriptedLanguageModel: LanguageModel {
    public enum Reply: Sendable, Hashable {
        case text(String)
        case toolCall(name: String, arguments: GeneratedContent)
        case error(GenerationError)
    }

    public let name: String
    public let contextSize: Int
    public let availability: SystemLanguageModel.Availability
    public let supportedLanguages: [String]?
    /// A pause before each streamed token, to simulate generation speed.
    public let tokenDelay: Duration
    /// Whether it emulates a thinking mode: with a reasoning level requested it
    /// first streams `.reasoning` (one token per word) naming the level and prompt.
    public let supportsReasoning: Bool
    private let script: Locked<[Reply]>?
    private let requests = Locked<[GenerationRequest]>([])

    public init(name: String = "scripted", contextSize: Int = 4096, availability: SystemLanguageModel.Availability = .available,
                tokenDelay: Duration = .zero, script: [Reply]? = nil, supportedLanguages: [String]? = nil,
                supportsReasoning: Bool = false) {
        self.supportsReasoning = supportsReasoning
        self.name = name
        self.supportedLanguages = supportedLanguages
        self.tokenDelay = tokenDelay
        self.contextSize = contextSize
        self.availability = availability
        self.script = script.map { Locked($0) }
    }

    public var identity: String { "scripted:\(name):\(contextSize)" }

    /// Every request received so far (for tests).
    public var receivedRequests: [GenerationRequest] { requests.withLock { $0 } }

    public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error> {
        let previous = requests.withLock { list -> GenerationRequest? in
            defer { list.append(request) }
            return list.last
        }
        let scripted = script?.withLock { list -> Reply? in list.isEmpty ? nil : list.removeFirst() }
        let (stream, continuation) = AsyncThrowingStream<LanguageModelEvent, any Error>.makeStream()
        let task = Task {
            do {
                let promptText = Self.render(request.transcript)
                let promptTokens = Self.tokens(of: promptText).count
                guard promptTokens <= contextSize else {
                    throw GenerationError.exceededContextWindowSize(.init(debugDescription:
                        "The prompt has \(promptTokens) tokens, more than the model's context size of \(contextSize) tokens.",
                        contextSize: contextSize, tokenCount: promptTokens))
                }
                let cached = previous.map { Self.tokens(of: Self.commonPrefix(Self.render($0.transcript), promptText)).count } ?? 0
                let reply = try scripted ?? Self.reply(to: request)
                var responseTokens = 0
                var reasoningTokens = 0
                if supportsReasoning, let level = request.reasoningLevel {
                    let thought = "Reasoning (\(level)) about \"\(Self.lastPromptWords(request.transcript).prefix(8).joined(separator: " "))\"."
                    for piece in Self.pieces(of: thought) {
                        continuation.yield(.reasoning(piece, tokenCount: 1))
                        reasoningTokens += 1
                    }
                    responseTokens += reasoningTokens
                }
                switch reply {
                case .error(let error):
                    throw error
                case .toolCall(let name, let arguments):
                    continuation.yield(.toolCalls([Transcript.ToolCall(toolName: name, arguments: arguments)]))
                    responseTokens += Self.tokens(of: arguments.jsonString).count
                case .text(let text):
                    var pieces = Self.pieces(of: text)
                    if let limit = request.options.maximumResponseTokens, pieces.count > limit {
                        pieces = Array(pieces.prefix(max(limit, 0)))
                    }
                    for piece in pieces {
                        if tokenDelay > .zero { try await Task.sleep(for: tokenDelay) }
                        try Task.checkCancellation()
                        continuation.yield(.text(piece, tokenCount: 1))
                        responseTokens += 1
                        await Task.yield()
                    }
                }
                continuation.yield(.finished(GenerationStatistics(
                    usage: Usage(promptTokens: promptTokens, cachedTokens: min(cached, promptTokens), responseTokens: responseTokens,
                                 reasoningTokens: reasoningTokens),
                    timeToFirstToken: 0, tokensPerSecond: 0)))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Words of the entries as the model reads them, plus the words of the
    /// schema's JSON Schema text.
    public func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int {
        Self.tokens(of: Self.render(Transcript(entries: entries))).count
            + (schema.map { Self.tokens(of: $0.jsonSchema().serialized(pretty: true)).count } ?? 0)
    }

    // MARK: Deriving a reply

    static func reply(to request: GenerationRequest) throws -> Reply {
        let mode = request.options.toolCallingMode?.kind ?? .allowed
        let sincePrompt = request.transcript.entries.reversed().prefix { if case .prompt = $0 { false } else { true } }
        let toolOutputs = sincePrompt.reversed().compactMap { entry -> Transcript.ToolOutput? in
            if case .toolOutput(let output) = entry { output } else { nil }
        }
        let promptWords = lastPromptWords(request.transcript)
        if let tool = request.tools.first, mode != .disallowed, mode == .required || toolOutputs.isEmpty {
            var synthesizer = Synthesizer(schema: tool.parameters, words: promptWords)
            return .toolCall(name: tool.name, arguments: try synthesizer.value(tool.parameters.root, depth: 0))
        }
        if let schema = request.schema {
            var synthesizer = Synthesizer(schema: schema, words: promptWords)
            return .text(try synthesizer.value(schema.root, depth: 0).jsonString)
        }
        let prompt = promptWords.prefix(12).joined(separator: " ")
        var text = "Scripted reply to \"\(prompt)\""
        for output in toolOutputs {
            text += " using \(output.toolName): \(Transcript.Segment.text(of: output.segments))"
        }
        return .text(text + ".")
    }

    /// The words of the last prompt entry.
    static func lastPromptWords(_ transcript: Transcript) -> [String] {
        for entry in transcript.entries.reversed() {
            if case .prompt(let prompt) = entry {
                return Transcript.Segment.text(of: prompt.segments).split(whereSeparator: \.isWhitespace).map(String.init)
            }
        }
        return []
    }

    /// Builds the simplest value satisfying a schema and its guides.
    struct Synthesizer {
        let schema: GenerationSchema
        let words: [String]
        var counter = 0

        init(schema: GenerationSchema, words: [String]) {
            self.schema = schema
            let cleaned = words.map { $0.filter { $0.isLetter || $0.isNumber } }.filter { !$0.isEmpty }
            self.words = cleaned.isEmpty ? ["value"] : cleaned
        }

        /// The rotating counter behind every choice, then advanced.
        mutating func tick() -> Int {
            defer { counter += 1 }
            return counter
        }

        mutating func word() -> String {
            words[tick() % words.count].lowercased()
        }

        mutating func value(_ type: SchemaType, depth: Int) throws -> GeneratedContent {
            switch type {
            case .string(let guides):
                if let pattern = guides.pattern {
                    guard let example = PatternExample.shortestMatch(of: pattern) else {
                        throw GenerationError.unsupportedGuide(.init(debugDescription:
                            "the scripted model cannot generate strings for the pattern /\(pattern)/"))
                    }
                    return GeneratedContent(example)
                }
                if let constant = guides.constant { return GeneratedContent(constant) }
                if let choices = guides.anyOf, !choices.isEmpty { return GeneratedContent(choices[tick() % choices.count]) }
                return GeneratedContent(word() + " " + word())
            case .integer(let guides), .number(let guides):
                let low = guides.minimum ?? 0
                let high = guides.maximum ?? max(low, 0) + 10
                var number = min(max(low, Double(tick() % 10) + low), high)
                if case .integer = type { number = number.rounded(.down) < low ? number.rounded(.up) : number.rounded(.down) }
                return GeneratedContent(number)
            case .boolean:
                return GeneratedContent(tick() % 2 == 0)
            case .any:
                return GeneratedContent(word())
            case .array(let element, let guides):
                let count = depth > 3 ? (guides.minimumCount ?? 0)
                    : max(guides.minimumCount ?? 0, min(guides.maximumCount ?? 2, 2))
                return GeneratedContent(elements: try (0..<count).map { _ in try value(element, depth: depth + 1) })
            case .reference(let name):
                guard let definition = schema.definition(named: name) else {
                    throw GenerationError.decodingFailure(.init(debugDescription: "the schema has no definition '\(name)'"))
                }
                switch definition.kind {
                case .object(let properties):
                    return GeneratedContent(properties: try properties.compactMap { property in
                        if property.isOptional, depth > 2 { return nil }
                        return (property.name, try value(property.type, depth: depth + 1))
                    })
                case .enumeration(let cases):
                    guard !cases.isEmpty else { return GeneratedContent(kind: .null) }
                    let chosen = cases[tick() % cases.count]
                    if chosen.associatedValues.isEmpty { return GeneratedContent(chosen.name) }
                    let payload = GeneratedContent(properties: try chosen.associatedValues.map {
                        ($0.name, try value($0.type, depth: depth + 1))
                    })
                    return GeneratedContent(properties: [(chosen.name, payload)])
                }
            }
        }
    }

    // MARK: Tokens

    /// The transcript as one text, the way the scripted model "reads" it.
    static func render(_ transcript: Transcript) -> String {
        transcript.entries.map(\.description).joined(separator: "\n")
    }

    static func tokens(of text: String) -> [Substring] {
        text.split(whereSeparator: \.isWhitespace)
    }

    /// The text as streamed tokens: each word with the space before it.
    static func pieces(of text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in text {
            if character.isWhitespace, !current.isEmpty, !current.allSatisfy(\.isWhitespace) {
                pieces.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    static func commonPrefix(_ a: String, _ b: String) -> String {
        String(zip(a, b).prefix { $0 == $1 }.map(\.0))
    }
}

