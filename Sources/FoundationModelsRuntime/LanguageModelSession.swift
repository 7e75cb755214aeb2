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
                        reasoningLevel: ReasoningLevel? = nil) async throws -> Response<GeneratedContent> {
        let raw = try await run(prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
                                reasoningLevel: reasoningLevel) { _ in }
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
                               reasoningLevel: ReasoningLevel? = nil, serverSentEvents: Bool = true) -> ResponseStream<GeneratedContent> {
        ResponseStream(session: self, prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
                       reasoningLevel: reasoningLevel, serverSentEvents: serverSentEvents)
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
        var events: [LifecycleEvent] = []
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

    /// What one inference runs with: the plain session's set-up, or the
    /// active profile resolved for this inference.
    struct Inference {
        var model: any LanguageModel
        var tools: [any Tool]
        var resolved: ResolvedProfile?
    }

    /// Evaluates the dynamic profile, fires `onDeactivate`/`onActivate` when the
    /// active profile changed, and writes its instructions as the leading entry.
    private func prepareInference(_ working: inout Transcript, newID: () -> String,
                                  events: inout [LifecycleEvent]) async throws -> Inference {
        guard let profile else { return Inference(model: model, tools: tools, resolved: nil) }
        let resolved = ResolvedProfile(try await profile())
        let owners = resolved.owners
        let (previousOwners, deactivations, previousName) = state.withLock { state in
            defer {
                state.activeOwners = owners
                state.deactivations = resolved.onDeactivate
                state.activeProfileName = resolved.configuration.displayName
            }
            return (state.activeOwners, state.deactivations, state.activeProfileName)
        }
        if previousName != resolved.configuration.displayName {
            events.append(LifecycleEvent(kind: .profile, detail: resolved.configuration.displayName))
        }
        for (owner, action) in deactivations where !owners.contains(owner) {
            events.append(LifecycleEvent(kind: .onDeactivate, detail: owner))
            await action()
        }
        for (owner, action) in resolved.onActivate where !previousOwners.contains(owner) {
            events.append(LifecycleEvent(kind: .onActivate, detail: owner))
            await action()
        }
        let model = resolved.model ?? self.model
        var segments: [Transcript.Segment] = []
        if let system = model as? SystemLanguageModel, let builtIn = system.builtInInstructions {
            segments.append(.text(.init(content: builtIn)))
        }
        segments += resolved.configuration.instructions
        let tools = resolved.configuration.tools
        let definitions = tools.filter(\.includesSchemaInInstructions).map(\.definition)
        if case .instructions(let existing)? = working.entries.first {
            working.entries[0] = .instructions(.init(id: existing.id, segments: Self.identified(segments, existing.id),
                                                     toolDefinitions: definitions))
        } else if !segments.isEmpty || !definitions.isEmpty {
            let id = newID()
            working.entries.insert(.instructions(.init(id: id, segments: Self.identified(segments, id), toolDefinitions: definitions)), at: 0)
        }
        return Inference(model: model, tools: tools, resolved: resolved)
    }

    /// Runs lifecycle callbacks with the request's transcript visible to
    /// `history`, then takes back what they wrote; a `transcript` set during
    /// them fails the request.
    private func runCallbacks(_ working: inout Transcript, _ body: () async throws -> Void) async throws {
        let current = working
        state.withLock { $0.working = current }
        try await body()
        working = state.withLock { $0.working ?? current }
        try checkMutation()
    }

    private func checkMutation() throws {
        if state.withLock({ $0.mutatedWhileResponding }) { throw SessionUsageError.transcriptMutationWhileResponding }
    }

    func run(prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool, options: GenerationOptions,
             reasoningLevel: ReasoningLevel? = nil, streaming: Bool = false,
             onProgress: @Sendable (Progress) -> Void) async throws -> RawResponse {
        // Claim the session and record the prompt on a working copy.
        let start = ContinuousClock.now
        var (working, nextID) = try state.withLock { state -> (Transcript, Int) in
            if state.isResponding {
                throw GenerationError.concurrentRequests(.init(debugDescription:
                    "The session is already responding to a request; wait for it to finish before asking again."))
            }
            state.isResponding = true
            state.mutatedWhileResponding = false
            state.working = state.transcript
            return (state.transcript, state.nextID)
        }
        defer { state.withLock { $0.isResponding = false; $0.working = nil } }
        func newID() -> String { defer { nextID += 1 }; return String(nextID) }

        var events: [LifecycleEvent] = []
        var policy: TranscriptErrorHandlingPolicy? = state.withLock { $0.transcriptErrorHandlingPolicy }
        // The answer text of the inference that failed, kept by .preserveTranscript.
        var partialText = ""
        do {
            return try await respond(prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt,
                                     callSiteOptions: options, reasoningLevel: reasoningLevel, streaming: streaming, start: start,
                                     working: &working, newID: newID, events: &events, policy: &policy,
                                     partialText: &partialText, onProgress: onProgress)
        } catch {
            if policy?.kind == .preserveTranscript {
                if !partialText.isEmpty {
                    let id = newID()
                    working.entries.append(.response(.init(id: id, segments: [.text(.init(id: "\(id).1", content: partialText))])))
                }
                let kept = working
                let committedID = nextID
                state.withLock { state in
                    state.transcript = kept
                    state.nextID = committedID
                }
            }
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    private func respond(prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool, callSiteOptions: GenerationOptions,
                         reasoningLevel callSiteReasoning: ReasoningLevel?, streaming: Bool, start: ContinuousClock.Instant,
                         working: inout Transcript, newID: () -> String, events: inout [LifecycleEvent],
                         policy: inout TranscriptErrorHandlingPolicy?, partialText: inout String,
                         onProgress: @Sendable (Progress) -> Void) async throws -> RawResponse {
        let firstNew = working.count
        let format = schema.map { Transcript.ResponseFormat(name: $0.typeName, schema: $0) }
        let promptID = newID()
        let promptEntry = Transcript.Prompt(id: promptID, segments: Self.identified(prompt.segments, promptID),
                                            options: callSiteOptions, responseFormat: format)
        working.entries.append(.prompt(promptEntry))
        var usage = Usage()
        // Seconds from the request to the first token of text, as the caller sees it.
        var timeToFirstToken: Double?
        var tokensPerSecond = 0.0
        var renderedPrompt: String?
        var stopReason: ResponseStopReason?
        var answeringModel = model.name
        var rounds = 0

        while true {
            try Task.checkCancellation()
            let inference = try await prepareInference(&working, newID: newID, events: &events)
            let resolved = inference.resolved
            answeringModel = inference.model.name
            if let profilePolicy = resolved?.transcriptErrorHandlingPolicy { policy = profilePolicy }
            if rounds == 0, let resolved, !resolved.onPrompt.isEmpty {
                events.append(LifecycleEvent(kind: .onPrompt, detail: ""))
                try await runCallbacks(&working) { for action in resolved.onPrompt { try await action(promptEntry) } }
            }
            var options = resolved?.effectiveOptions(callSite: callSiteOptions) ?? callSiteOptions
            if options.temperature == nil { options.temperature = defaultOptions.temperature }
            if options.maximumResponseTokens == nil { options.maximumResponseTokens = defaultOptions.maximumResponseTokens }
            if options.samplingMode == nil { options.samplingMode = defaultOptions.samplingMode }
            let reasoningLevel = callSiteReasoning ?? resolved?.reasoningLevel
            if reasoningLevel != nil, !inference.model.supportsReasoning {
                throw LanguageModelError.unsupportedCapability(capability: "reasoning", modelName: inference.model.name)
            }
            let tools = inference.tools
            let mode = options.toolCallingMode?.kind ?? .allowed
            if mode == .required, tools.isEmpty {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "toolCallingMode is .required but no tools are attached; attach a tool or use .allowed"))
            }
            // What the model sees: the profile's history transforms, outermost first.
            var view = working
            if let resolved {
                for transform in resolved.historyTransforms { view.entries = try await transform(view.entries) }
            }
            let request = GenerationRequest(transcript: view, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt,
                                            tools: mode == .disallowed ? [] : tools.map(\.definition), options: options,
                                            seed: defaultSeed, reasoningLevel: reasoningLevel, streaming: streaming)
            var text = ""
            var reasoning = ""
            var tokens = 0
            var calls: [Transcript.ToolCall] = []
            var lastContent: GeneratedContent?
            let isFirstTurn = rounds == 0
            partialText = ""
            for try await event in inference.model.generate(request) {
                switch event {
                case .text(let piece, let count):
                    if timeToFirstToken == nil { timeToFirstToken = (ContinuousClock.now - start).seconds }
                    text += piece
                    partialText = text
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
                case .reasoning(let piece, _):
                    reasoning += piece
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
            partialText = ""
            try checkMutation()

            if !reasoning.isEmpty {
                let id = newID()
                let entry = Transcript.Reasoning(id: id, segments: [.text(.init(id: "\(id).1", content: reasoning))])
                working.entries.append(.reasoning(entry))
                if let resolved, !resolved.onReasoning.isEmpty {
                    events.append(LifecycleEvent(kind: .onReasoning, detail: ""))
                    try await runCallbacks(&working) { for action in resolved.onReasoning { try await action(entry) } }
                }
            }

            if calls.isEmpty {
                if mode == .required {
                    throw GenerationError.decodingFailure(.init(debugDescription:
                        "toolCallingMode is .required but the model answered without calling a tool"))
                }
                let content = try Self.parse(text, schema: schema)
                let responseID = newID()
                let segment: Transcript.Segment = schema == nil
                    ? .text(.init(id: "\(responseID).1", content: text))
                    : .structure(.init(id: "\(responseID).1", source: schema!.typeName, content: content))
                let response = Transcript.Response(id: responseID, segments: [segment])
                working.entries.append(.response(response))
                if let resolved, !resolved.onResponse.isEmpty {
                    events.append(LifecycleEvent(kind: .onResponse, detail: ""))
                    try await runCallbacks(&working) { for action in resolved.onResponse { try await action(response) } }
                }
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
                    + (mode == .required ? " (toolCallingMode .required keeps calling tools until a tool throws or a dynamic profile changes the mode, e.g. .toolCallingMode(done ? .disallowed : .required) with .onToolCall { done = true })" : ""),
                    stopReason: .toolRoundLimit))
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
                events.append(LifecycleEvent(kind: .toolCall, detail: "\(call.toolName)(\(call.arguments.jsonString))"))
                if let resolved, !resolved.onToolCall.isEmpty {
                    events.append(LifecycleEvent(kind: .onToolCall, detail: call.toolName))
                    try await runCallbacks(&working) { for action in resolved.onToolCall { try await action(call) } }
                }
                let output: GeneratedContent
                do {
                    let current = working
                    state.withLock { $0.working = current }
                    output = try await tool.call(arguments: call.arguments)
                    try checkMutation()
                } catch let error as SessionUsageError {
                    throw error
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    // A tool that throws ends the request (also CancellationError: the
                    // final-answer pattern of the .required loop).
                    throw ToolCallError(toolName: tool.name, underlyingError: error, tool: tool)
                }
                let segment: Transcript.Segment = output.stringValue.map { .text(.init(id: "\(call.id).1", content: $0)) }
                    ?? .structure(.init(id: "\(call.id).1", source: tool.name, content: output))
                let toolOutput = Transcript.ToolOutput(id: call.id, toolName: tool.name, segments: [segment])
                working.entries.append(.toolOutput(toolOutput))
                events.append(LifecycleEvent(kind: .toolOutput, detail: "\(tool.name): \(Transcript.Segment.text(of: [segment]).prefix(80))"))
                if let resolved, !resolved.onToolOutput.isEmpty {
                    events.append(LifecycleEvent(kind: .onToolOutput, detail: call.toolName))
                    try await runCallbacks(&working) { for action in resolved.onToolOutput { try await action(call, toolOutput) } }
                }
            }
        }

        guard let response = working.entries.last(where: { if case .response = $0 { true } else { false } }),
              case .response(let final) = response else { preconditionFailure("the loop ends with a response") }
        let content: GeneratedContent
        switch final.segments.first {
        case .structure(let s): content = s.content
        case .text(let s): content = GeneratedContent(s.content)
        case nil: content = GeneratedContent("")
        }
        let committed = working
        let committedID = nextIDAfter(committed)
        let responseUsage = usage
        state.withLock { state in
            state.transcript = committed
            state.nextID = max(committedID, state.nextID)
            state.usage = Usage(promptTokens: state.usage.promptTokens + responseUsage.promptTokens,
                                cachedTokens: state.usage.cachedTokens + responseUsage.cachedTokens,
                                responseTokens: state.usage.responseTokens + responseUsage.responseTokens,
                                reasoningTokens: state.usage.reasoningTokens + responseUsage.reasoningTokens)
        }
        // From the prompt on (a profile may have inserted the instructions entry before it).
        let promptIndex = committed.entries.firstIndex { $0.id == promptID } ?? min(firstNew, committed.entries.count)
        let added = committed.entries[promptIndex...]
        return RawResponse(content: content, entries: added,
                           statistics: GenerationStatistics(usage: usage, timeToFirstToken: timeToFirstToken ?? 0,
                                                            tokensPerSecond: tokensPerSecond, renderedPrompt: renderedPrompt,
                                                            stopReason: stopReason, modelName: answeringModel),
                           events: events)
    }

    private func nextIDAfter(_ transcript: Transcript) -> Int { transcript.nextSequentialID }

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
