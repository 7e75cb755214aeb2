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
    /// The model of a plain session; for a profile session, the model used when
    /// the active profile has no `.model(_:)` (the system model).
    public let model: any LanguageModel
    public let tools: [any Tool]
    /// 27: the dynamic profile, evaluated before every model request (nil: a plain session).
    public let profile: (@Sendable () async throws -> ProfileConfiguration)?
    /// The most tool-calling rounds one request may take before it fails.
    public let maximumToolRounds: Int
    /// The seed used when options carry none.
    public let defaultSeed: UInt64
    /// Option values used when neither the call site nor the active profile sets them
    /// (the CLI's / editor's `--temperature`, `--max-tokens`).
    public let defaultOptions: GenerationOptions

    struct State {
        var transcript: Transcript
        var isResponding = false
        var nextID = 1
        var usage = Usage()
        /// The running request's transcript (lifecycle callbacks edit history here).
        var working: Transcript?
        var mutatedWhileResponding = false
        var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
        /// Custom session property values by key name (`@SessionPropertyEntry`).
        var properties: [String: any Sendable] = [:]
        /// The profile owners active after the last resolution, with their `onDeactivate`s.
        var activeOwners: Set<String> = []
        var deactivations: [(owner: String, action: @Sendable () async -> Void)] = []
        var activeProfileName: String?
    }
    let state: Locked<State>

    public init(model: any LanguageModel, tools: [any Tool] = [], instructions: Instructions? = nil,
                defaultSeed: UInt64 = GenerationOptions.defaultSeed, maximumToolRounds: Int = 8,
                defaultOptions: GenerationOptions = GenerationOptions()) {
        self.model = model
        self.tools = tools
        self.profile = nil
        self.defaultSeed = defaultSeed
        self.maximumToolRounds = maximumToolRounds
        self.defaultOptions = defaultOptions
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
                defaultSeed: UInt64 = GenerationOptions.defaultSeed, maximumToolRounds: Int = 8,
                defaultOptions: GenerationOptions = GenerationOptions()) {
        self.model = model
        self.tools = tools
        self.profile = nil
        self.defaultSeed = defaultSeed
        self.maximumToolRounds = maximumToolRounds
        self.defaultOptions = defaultOptions
        self.state = Locked(State(transcript: transcript, nextID: transcript.nextSequentialID))
    }

    /// 27's `init(profile:history:)` (and `init(model:dynamicInstructions:history:)`,
    /// a profile without modifiers). `history` excludes the instructions entry: the
    /// profile's dynamic instructions supply it before every request. `model` is used
    /// while the active profile has no `.model(_:)`.
    public init(model: any LanguageModel, profile: @escaping @Sendable () async throws -> ProfileConfiguration,
                history: [Transcript.Entry] = [], defaultSeed: UInt64 = GenerationOptions.defaultSeed,
                maximumToolRounds: Int = 8, defaultOptions: GenerationOptions = GenerationOptions()) {
        self.model = model
        self.tools = []
        self.profile = profile
        self.defaultSeed = defaultSeed
        self.maximumToolRounds = maximumToolRounds
        self.defaultOptions = defaultOptions
        let transcript = Transcript(entries: history)
        self.state = Locked(State(transcript: transcript, nextID: transcript.nextSequentialID))
    }

    /// 27: settable. Set it only while `isResponding` is false: setting it during a
    /// request leaves it unchanged and fails that request with
    /// `transcriptMutationWhileResponding`.
    public var transcript: Transcript {
        get { state.withLock { $0.transcript } }
        set {
            state.withLock { state in
                if state.isResponding {
                    state.mutatedWhileResponding = true
                } else {
                    state.transcript = newValue
                    state.nextID = max(state.nextID, newValue.nextSequentialID)
                }
            }
        }
    }

    /// 27: the session's policy when a request fails (nil: revert).
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy? {
        get { state.withLock { $0.transcriptErrorHandlingPolicy } }
        set { state.withLock { $0.transcriptErrorHandlingPolicy = newValue } }
    }

    /// The display name of the profile that answered last (profile sessions).
    public var activeProfileName: String? { state.withLock { $0.activeProfileName } }

    /// 27's `@SessionProperty(\.history)`: the entries after the leading
    /// instructions entry; during a request, the request's entries so far.
    /// Writing it inside a lifecycle callback edits the running request's
    /// transcript (legitimate, unlike setting `transcript`).
    public var history: [Transcript.Entry] {
        get { state.withLock { ($0.working ?? $0.transcript).history } }
        set {
            state.withLock { state in
                if var working = state.working {
                    working.history = newValue
                    state.working = working
                } else {
                    state.transcript.history = newValue
                }
            }
        }
    }

    /// A custom session property (`@SessionPropertyEntry var name`), nil when never set.
    public func propertyValue(_ key: String) -> (any Sendable)? { state.withLock { $0.properties[key] } }
    public func setPropertyValue(_ key: String, _ value: any Sendable) { state.withLock { $0.properties[key] = value } }

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
                        options: GenerationOptions = GenerationOptions(),
                        contextOptions: ContextOptions = ContextOptions(),
                        metadata: [String: GeneratedContent] = [:]) async throws -> Response<GeneratedContent> {
        let raw = try await run(prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
                                contextOptions: contextOptions, metadata: metadata) { _ in }
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
    /// `serverSentEvents: false` asks a server model for one JSON answer
    /// instead of an event stream (its usage is then exact: llama-cpp-python
    /// reports none in a stream); the embedded model streams either way.
    public func streamResponse(to prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool = true,
                               options: GenerationOptions = GenerationOptions(),
                               contextOptions: ContextOptions = ContextOptions(), metadata: [String: GeneratedContent] = [:],
                               serverSentEvents: Bool = true) -> ResponseStream<GeneratedContent> {
        ResponseStream(session: self, prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
                       contextOptions: contextOptions, metadata: metadata, serverSentEvents: serverSentEvents)
    }

    public func streamResponse<Content: Generable>(to prompt: Prompt, generating type: Content.Type = Content.self,
                                                   includeSchemaInPrompt: Bool = true,
                                                   options: GenerationOptions = GenerationOptions()) -> ResponseStream<Content> {
        ResponseStream(session: self, prompt: prompt, schema: Self.schema(for: type), includeSchemaInPrompt: includeSchemaInPrompt,
                       options: options)
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
    /// What happened while answering, in order: the active profile, lifecycle
    /// callbacks, tool calls and outputs (fmplay addition, shown in editors).
    public let lifecycle: [LifecycleEvent]

    init(raw: LanguageModelSession.RawResponse, content: Content) {
        self.lifecycle = raw.events
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

/// One step of a request, for editors: which profile answered, which lifecycle
/// callbacks ran and which tools were called, in order.
public struct LifecycleEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case profile, onActivate, onDeactivate, onPrompt, onReasoning, onToolCall, onToolOutput, onResponse, toolCall, toolOutput
    }
    public var kind: Kind
    public var detail: String
    public init(kind: Kind, detail: String) { self.kind = kind; self.detail = detail }
    public var description: String { detail.isEmpty ? kind.rawValue : "\(kind.rawValue) \(detail)" }
}
