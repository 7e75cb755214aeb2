import Foundation
import Schema

/// `LanguageModelSession`: a conversation with a model. It keeps the
/// transcript across turns, runs the tool loop (the model calls tools, the
/// session executes them, appends their output and asks again until the model
/// answers), parses guided output and raises `GenerationError`s.
///
/// Invariants:
/// - One request at a time: asking while `isResponding` throws
///   `GenerationError.concurrentRequests`.
/// - A failed request leaves the transcript as it was before the request.
/// - Entry ids are sequential, so the same inputs give the same transcript.
public final class LanguageModelSession: Sendable {
    public let model: any LanguageModel
    public let tools: [any Tool]
    /// The most tool-calling rounds one request may take before it fails.
    public let maximumToolRounds: Int
    /// The seed used when options carry none.
    public let defaultSeed: UInt64

    private struct State {
        var transcript: Transcript
        var isResponding = false
        var nextID = 1
        var usage = Usage()
    }
    private let state: Locked<State>

    public init(model: any LanguageModel, tools: [any Tool] = [], instructions: Instructions? = nil,
                defaultSeed: UInt64 = GenerationOptions.defaultSeed, maximumToolRounds: Int = 8) {
        self.model = model
        self.tools = tools
        self.defaultSeed = defaultSeed
        self.maximumToolRounds = maximumToolRounds
        var segments: [Transcript.Segment] = []
        if let system = model as? SystemLanguageModel, let builtIn = system.builtInInstructions {
            segments.append(.text(.init(content: builtIn)))
        }
        if let instructions { segments += instructions.segments }
        var state = State(transcript: Transcript())
        let definitions = tools.filter(\.includesSchemaInInstructions).map(\.definition)
        if !segments.isEmpty || !definitions.isEmpty {
            let id = String(state.nextID)
            state.nextID += 1
            state.transcript.entries.append(.instructions(.init(id: id, segments: Self.identified(segments, id), toolDefinitions: definitions)))
        }
        self.state = Locked(state)
    }

    public convenience init(model: any LanguageModel, tools: [any Tool] = [], instructions: String?) {
        self.init(model: model, tools: tools, instructions: instructions.map { Instructions($0) })
    }

    /// Starts a session from a transcript (its ids continue after the last entry).
    public init(model: any LanguageModel, tools: [any Tool] = [], transcript: Transcript,
                defaultSeed: UInt64 = GenerationOptions.defaultSeed, maximumToolRounds: Int = 8) {
        self.model = model
        self.tools = tools
        self.defaultSeed = defaultSeed
        self.maximumToolRounds = maximumToolRounds
        self.state = Locked(State(transcript: transcript, nextID: transcript.count + 1))
    }

    public var transcript: Transcript { state.withLock { $0.transcript } }
    public var isResponding: Bool { state.withLock { $0.isResponding } }
    /// Token usage of every successful response of this session, summed (27's `session.usage`).
    public var usage: Usage { state.withLock { $0.usage } }

    /// Warms the model up for this session's transcript.
    public func prewarm() async {
        await model.prewarm(transcript: transcript)
    }

    // MARK: respond

    public func respond(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respond(to: prompt, generating: String.self, options: options)
    }

    public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respond(to: Prompt(prompt), options: options)
    }

    /// Guided by `schema`; a nil schema means free text (the content is then a string).
    public func respond(to prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool = true,
                        options: GenerationOptions = GenerationOptions()) async throws -> Response<GeneratedContent> {
        let raw = try await run(prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options) { _ in }
        return Response(raw: raw, content: raw.content)
    }

    public func respond<Content: Generable>(to prompt: Prompt, generating type: Content.Type = Content.self,
                                            includeSchemaInPrompt: Bool = true,
                                            options: GenerationOptions = GenerationOptions()) async throws -> Response<Content> {
        let raw = try await run(prompt: prompt, schema: Self.schema(for: type), includeSchemaInPrompt: includeSchemaInPrompt,
                                options: options) { _ in }
        return Response(raw: raw, content: try Self.decode(type, raw.content))
    }

    // MARK: streamResponse

    public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
        streamResponse(to: prompt, generating: String.self, options: options)
    }

    /// Guided by `schema`; a nil schema streams free text as string content.
    public func streamResponse(to prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool = true,
                               options: GenerationOptions = GenerationOptions()) -> ResponseStream<GeneratedContent> {
        ResponseStream(session: self, prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    public func streamResponse<Content: Generable>(to prompt: Prompt, generating type: Content.Type = Content.self,
                                                   includeSchemaInPrompt: Bool = true,
                                                   options: GenerationOptions = GenerationOptions()) -> ResponseStream<Content> {
        ResponseStream(session: self, prompt: prompt, schema: Self.schema(for: type), includeSchemaInPrompt: includeSchemaInPrompt,
                       options: options)
    }

    // MARK: The request loop

    /// String means free text; every other type is guided by its schema.
    static func schema<Content: Generable>(for type: Content.Type) -> GenerationSchema? {
        type == String.self ? nil : type.generationSchema
    }

    static func decode<Content: Generable>(_ type: Content.Type, _ content: GeneratedContent) throws -> Content {
        do { return try Content(content) } catch let error as GenerationError { throw error } catch {
            throw GenerationError.decodingFailure(.init(debugDescription: "could not convert the output to \(type): \(error)"))
        }
    }

    /// The result of one request before it is typed.
    struct RawResponse: Sendable {
        var content: GeneratedContent
        var entries: ArraySlice<Transcript.Entry>
        var statistics: GenerationStatistics
    }

    /// What a stream sees while the request runs: the text so far and, under
    /// a schema, the content parsed from it.
    struct Progress: Sendable {
        var text: String
        var content: GeneratedContent
        var tokens: Int
    }

    private func takeID(_ state: inout State) -> String {
        defer { state.nextID += 1 }
        return String(state.nextID)
    }

    private static func identified(_ segments: [Transcript.Segment], _ entryID: String) -> [Transcript.Segment] {
        segments.enumerated().map { index, segment in
            switch segment {
            case .text(var s): s.id = "\(entryID).\(index + 1)"; return .text(s)
            case .structure(var s): s.id = "\(entryID).\(index + 1)"; return .structure(s)
            }
        }
    }

    func run(prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool, options: GenerationOptions,
             onProgress: @Sendable (Progress) -> Void) async throws -> RawResponse {
        // Claim the session and record the prompt on a working copy.
        let start = ContinuousClock.now
        var (working, nextID) = try state.withLock { state -> (Transcript, Int) in
            if state.isResponding {
                throw GenerationError.concurrentRequests(.init(debugDescription:
                    "The session is already responding to a request; wait for it to finish before asking again."))
            }
            state.isResponding = true
            return (state.transcript, state.nextID)
        }
        defer { state.withLock { $0.isResponding = false } }
        func newID() -> String { defer { nextID += 1 }; return String(nextID) }

        let firstNew = working.count
        let format = schema.map { Transcript.ResponseFormat(name: $0.typeName, schema: $0) }
        let promptID = newID()
        working.entries.append(.prompt(.init(id: promptID, segments: Self.identified(prompt.segments, promptID),
                                             options: options, responseFormat: format)))
        let definitions = tools.map(\.definition)
        let mode = options.toolCallingMode?.kind ?? .allowed
        var usage = Usage()
        // Seconds from the request to the first token of text, as the caller sees it.
        var timeToFirstToken: Double?
        var tokensPerSecond = 0.0
        var renderedPrompt: String?
        var stopReason: ResponseStopReason?
        var rounds = 0

        while true {
            try Task.checkCancellation()
            let request = GenerationRequest(transcript: working, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt,
                                            tools: definitions, options: options, seed: defaultSeed)
            var text = ""
            var tokens = 0
            var calls: [Transcript.ToolCall] = []
            var lastContent: GeneratedContent?
            let isFirstTurn = rounds == 0
            for try await event in model.generate(request) {
                switch event {
                case .text(let piece, let count):
                    if timeToFirstToken == nil { timeToFirstToken = (ContinuousClock.now - start).seconds }
                    text += piece
                    tokens += count
                    if schema != nil {
                        // Snapshot only when the parsed value changed.
                        if let partial = try? GeneratedContent(json: text), partial != lastContent {
                            lastContent = partial
                            onProgress(Progress(text: text, content: partial, tokens: tokens))
                        }
                    } else {
                        onProgress(Progress(text: text, content: GeneratedContent(kind: .string(text), isComplete: false), tokens: tokens))
                    }
                case .toolCalls(let requested):
                    calls += requested
                case .finished(let statistics):
                    usage = usage.adding(turn: statistics.usage, isFirst: isFirstTurn)
                    tokensPerSecond = statistics.tokensPerSecond
                    renderedPrompt = statistics.renderedPrompt
                    stopReason = statistics.stopReason
                }
            }
            try Task.checkCancellation()

            if calls.isEmpty {
                if mode == .required, !tools.isEmpty {
                    throw GenerationError.decodingFailure(.init(debugDescription:
                        "toolCallingMode is .required but the model answered without calling a tool"))
                }
                let content = try Self.parse(text, schema: schema)
                let responseID = newID()
                let segment: Transcript.Segment = schema == nil
                    ? .text(.init(id: "\(responseID).1", content: text))
                    : .structure(.init(id: "\(responseID).1", source: schema!.typeName, content: content))
                working.entries.append(.response(.init(id: responseID, segments: [segment])))
                break
            }

            // The model called tools.
            guard mode != .disallowed, !tools.isEmpty else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "the model called \(calls.map(\.toolName)) although tool calling is disallowed"))
            }
            rounds += 1
            guard rounds <= maximumToolRounds else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "the model kept calling tools for \(maximumToolRounds) rounds without answering"
                    + (mode == .required ? " (toolCallingMode .required makes every turn call a tool)" : "")))
            }
            let callsID = newID()
            let numbered = calls.enumerated().map { index, call in
                var call = call
                call.id = "\(callsID).\(index + 1)"
                return call
            }
            working.entries.append(.toolCalls(.init(id: callsID, numbered)))
            for call in numbered {
                guard let tool = tools.first(where: { $0.name == call.toolName }) else {
                    throw GenerationError.decodingFailure(.init(debugDescription:
                        "the model called '\(call.toolName)', which is not one of the session's tools \(tools.map(\.name))"))
                }
                let output: GeneratedContent
                do {
                    output = try await tool.call(arguments: call.arguments)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    throw ToolCallError(toolName: tool.name, underlyingError: error)
                }
                let segment: Transcript.Segment = output.stringValue.map { .text(.init(id: "\(call.id).1", content: $0)) }
                    ?? .structure(.init(id: "\(call.id).1", source: tool.name, content: output))
                working.entries.append(.toolOutput(.init(id: call.id, toolName: tool.name, segments: [segment])))
            }
        }

        guard case .response(let response) = working.entries.last else { preconditionFailure("the loop ends with a response") }
        let content: GeneratedContent
        switch response.segments.first {
        case .structure(let s): content = s.content
        case .text(let s): content = GeneratedContent(s.content)
        case nil: content = GeneratedContent("")
        }
        let final = working
        let committedID = nextID
        let responseUsage = usage
        state.withLock { state in
            state.transcript = final
            state.nextID = committedID
            state.usage = Usage(promptTokens: state.usage.promptTokens + responseUsage.promptTokens,
                                cachedTokens: state.usage.cachedTokens + responseUsage.cachedTokens,
                                responseTokens: state.usage.responseTokens + responseUsage.responseTokens)
        }
        return RawResponse(content: content, entries: final.entries[firstNew...],
                           statistics: GenerationStatistics(usage: usage, timeToFirstToken: timeToFirstToken ?? 0,
                                                            tokensPerSecond: tokensPerSecond, renderedPrompt: renderedPrompt,
                                                            stopReason: stopReason))
    }

    /// Parses the final text: free text as a string, guided output as content
    /// that must be complete and conform to the schema.
    static func parse(_ text: String, schema: GenerationSchema?) throws -> GeneratedContent {
        guard let schema else { return GeneratedContent(text) }
        let content: GeneratedContent
        do {
            content = try GeneratedContent(json: text)
        } catch {
            throw GenerationError.decodingFailure(.init(debugDescription: "the output is not valid JSON for \(schema.typeName): \(error)"))
        }
        guard content.isComplete else {
            throw GenerationError.decodingFailure(.init(debugDescription:
                "the output for \(schema.typeName) ended before the value was complete (maximumResponseTokens reached?)"))
        }
        let problems = schema.violations(of: content)
        guard problems.isEmpty else {
            throw GenerationError.decodingFailure(.init(debugDescription:
                "the output does not match \(schema.typeName): " + problems.prefix(3).joined(separator: "; ")))
        }
        return content
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

/// `LanguageModelSession.Response`.
public struct Response<Content: Generable>: Sendable {
    public let content: Content
    public let rawContent: GeneratedContent
    /// The entries this request added: prompt, tool calls and outputs, response.
    public let transcriptEntries: ArraySlice<Transcript.Entry>
    public let usage: Usage
    /// Timings of the request (fmplay addition).
    public let statistics: GenerationStatistics

    init(raw: LanguageModelSession.RawResponse, content: Content) {
        self.content = content
        self.rawContent = raw.content
        self.transcriptEntries = raw.entries
        self.usage = raw.statistics.usage
        self.statistics = raw.statistics
    }

    /// The tool calls made while answering, each with its output text.
    public var toolCalls: [(call: Transcript.ToolCall, output: String)] {
        var outputs: [String: String] = [:]
        var calls: [Transcript.ToolCall] = []
        for entry in transcriptEntries {
            switch entry {
            case .toolCalls(let c): calls += c.calls
            case .toolOutput(let o): outputs[o.id] = Transcript.Segment.text(of: o.segments)
            default: break
            }
        }
        return calls.map { ($0, outputs[$0.id] ?? "") }
    }
}
