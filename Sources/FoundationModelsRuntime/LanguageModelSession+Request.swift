import Foundation
import Schema

/// The request loop: one `respond`/`streamResponse` call, from the prompt entry through
/// tool rounds to the committed response.
extension LanguageModelSession {
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
        /// The response's usage so far: the finished turns' counts plus this turn's output (its input is
        /// counted when the turn ends).
        var usage: Usage
        /// The entries the response has added so far (the prompt, tool calls and outputs).
        var entries: ArraySlice<Transcript.Entry>
    }

    /// What one call asks for, as the caller wrote it.
    struct Request {
        var prompt: Prompt
        var schema: GenerationSchema?
        var includeSchemaInPrompt: Bool
        var options: GenerationOptions
        /// 27: the call's context options (its reasoning level is the request's) and metadata, recorded on the prompt entry.
        var contextOptions: ContextOptions
        var metadata: [String: GeneratedContent]
        var streaming: Bool
        var start: ContinuousClock.Instant
    }

    /// One request's working state: the copy of the transcript it edits (committed only
    /// when it succeeds) and what it has measured so far.
    struct RequestState {
        var working: Transcript
        var nextID: Int
        var events: [LifecycleEvent] = []
        var policy: TranscriptErrorHandlingPolicy?
        /// The answer text of the inference that failed, kept by `.preserveTranscript`.
        var partialText = ""
        /// The id of the request's prompt entry in `working` (the entries from it on are the response's).
        var promptID: String?
        var usage = Usage()
        /// Seconds from the request to the first token of text, as the caller sees it.
        var timeToFirstToken: Double?
        var tokensPerSecond = 0.0
        var renderedPrompt: String?
        var stopReason: ResponseStopReason?
        /// The id of the request's generated content (`GeneratedContent.id`), shared by its snapshots.
        let generationID = GenerationID(UUID().uuidString)

        mutating func newID() -> String {
            defer { nextID += 1 }
            return String(nextID)
        }
    }

    /// What one inference runs with: the plain session's set-up, or the
    /// active profile resolved for this inference.
    struct Inference {
        var model: any LanguageModel
        var tools: [any Tool]
        var resolved: ResolvedProfile?
    }

    /// What the model produced in one inference.
    struct Turn {
        var text = ""
        var reasoning = ""
        var calls: [Transcript.ToolCall] = []
    }

    static func identified(_ segments: [Transcript.Segment], _ entryID: String) -> [Transcript.Segment] {
        segments.enumerated().map { index, segment in
            switch segment {
            case .text(var s): s.id = "\(entryID).\(index + 1)"; return .text(s)
            case .structure(var s): s.id = "\(entryID).\(index + 1)"; return .structure(s)
            }
        }
    }

    func run(prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool, options: GenerationOptions,
             contextOptions: ContextOptions = ContextOptions(), metadata: [String: GeneratedContent] = [:], streaming: Bool = false,
             onProgress: @Sendable (Progress) async -> Void) async throws -> RawResponse {
        let request = Request(prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
                              contextOptions: contextOptions, metadata: metadata, streaming: streaming, start: ContinuousClock.now)
        // Claim the session and record the prompt on a working copy.
        var run = try state.withLock { state -> RequestState in
            if state.isResponding {
                throw GenerationError.concurrentRequests(.init(debugDescription:
                    "The session is already responding to a request; wait for it to finish before asking again."))
            }
            state.isResponding = true
            state.mutatedWhileResponding = false
            state.working = state.transcript
            return RequestState(working: state.transcript, nextID: state.nextID, policy: state.transcriptErrorHandlingPolicy)
        }
        defer { state.withLock { $0.isResponding = false; $0.working = nil } }
        do {
            return try await respond(request, &run, onProgress: onProgress)
        } catch {
            if run.policy?.kind == .preserveTranscript {
                if !run.partialText.isEmpty {
                    let id = run.newID()
                    run.working.entries.append(.response(.init(id: id, segments: [.text(.init(id: "\(id).1", content: run.partialText))])))
                }
                let kept = run.working
                let committedID = run.nextID
                state.withLock { state in
                    state.transcript = kept
                    state.nextID = committedID
                }
            }
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// The tool loop: infer, run the tools the model called, infer again, until the model answers.
    private func respond(_ request: Request, _ run: inout RequestState,
                         onProgress: @Sendable (Progress) async -> Void) async throws -> RawResponse {
        let firstNew = run.working.count
        let format = request.schema.map { Transcript.ResponseFormat(name: $0.typeName, schema: $0) }
        let promptID = run.newID()
        let promptEntry = Transcript.Prompt(id: promptID, segments: Self.identified(request.prompt.segments, promptID),
                                            options: request.options, responseFormat: format,
                                            contextOptions: request.contextOptions, metadata: request.metadata)
        run.promptID = promptID
        run.working.entries.append(.prompt(promptEntry))
        var answeringModel = model.name
        var rounds = 0
        while true {
            try Task.checkCancellation()
            let inference = try await prepareInference(&run)
            let resolved = inference.resolved
            answeringModel = inference.model.name
            if let profilePolicy = resolved?.transcriptErrorHandlingPolicy { run.policy = profilePolicy }
            if rounds == 0, let resolved, !resolved.onPrompt.isEmpty {
                run.events.append(LifecycleEvent(kind: .onPrompt, detail: ""))
                try await runCallbacks(&run.working) { for action in resolved.onPrompt { try await action(promptEntry) } }
            }
            let options = effectiveOptions(request, inference)
            let reasoningLevel = request.contextOptions.reasoningLevel ?? resolved?.reasoningLevel
            if reasoningLevel != nil, !inference.model.supportsReasoning {
                throw LanguageModelError.unsupportedCapability(capability: "reasoning", modelName: inference.model.name)
            }
            let mode = options.toolCallingMode?.kind ?? .allowed
            if mode == .required, inference.tools.isEmpty {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "toolCallingMode is .required but no tools are attached; attach a tool or use .allowed"))
            }
            let turn = try await infer(request, options: options, reasoningLevel: reasoningLevel, inference, isFirstTurn: rounds == 0,
                                       &run, onProgress: onProgress)
            try await recordReasoning(turn.reasoning, resolved, &run)
            if turn.calls.isEmpty {
                if mode == .required {
                    throw GenerationError.decodingFailure(.init(debugDescription:
                        "toolCallingMode is .required but the model answered without calling a tool"))
                }
                try await recordResponse(turn.text, schema: request.schema, resolved, &run)
                break
            }
            // The model called tools.
            guard mode != .disallowed, !inference.tools.isEmpty else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "the model called \(turn.calls.map(\.toolName)) although tool calling is disallowed"))
            }
            rounds += 1
            guard rounds <= maximumToolRounds else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "the model kept calling tools for \(maximumToolRounds) rounds without answering"
                    + (mode == .required ? " (toolCallingMode .required keeps calling tools until a tool throws or a dynamic profile changes the mode, e.g. .toolCallingMode(done ? .disallowed : .required) with .onToolCall { done = true })" : ""),
                    stopReason: .toolRoundLimit))
            }
            try await callTools(turn.calls, inference, &run)
        }
        return commit(run, promptID: promptID, firstNew: firstNew, answeringModel: answeringModel)
    }

    /// The call site's options over the active profile's, then the session's defaults.
    private func effectiveOptions(_ request: Request, _ inference: Inference) -> GenerationOptions {
        var options = inference.resolved?.effectiveOptions(callSite: request.options) ?? request.options
        if options.temperature == nil { options.temperature = defaultOptions.temperature }
        if options.maximumResponseTokens == nil { options.maximumResponseTokens = defaultOptions.maximumResponseTokens }
        if options.samplingMode == nil { options.samplingMode = defaultOptions.samplingMode }
        return options
    }

    /// One inference: the model reads the transcript (through the profile's history transforms)
    /// and streams text, reasoning and tool calls; progress goes to the caller as it comes.
    private func infer(_ request: Request, options: GenerationOptions, reasoningLevel: ReasoningLevel?, _ inference: Inference,
                       isFirstTurn: Bool, _ run: inout RequestState, onProgress: @Sendable (Progress) async -> Void) async throws -> Turn {
        let mode = options.toolCallingMode?.kind ?? .allowed
        // What the model sees: the profile's history transforms, outermost first.
        var view = run.working
        if let resolved = inference.resolved {
            for transform in resolved.historyTransforms { view.entries = try await transform(view.entries) }
        }
        let generation = GenerationRequest(transcript: view, schema: request.schema, includeSchemaInPrompt: request.includeSchemaInPrompt,
                                           tools: mode == .disallowed ? [] : inference.tools.map(\.definition), options: options,
                                           seed: defaultSeed, reasoningLevel: reasoningLevel, streaming: request.streaming)
        var turn = Turn()
        var tokens = 0
        var lastContent: GeneratedContent?
        run.partialText = ""
        for try await event in inference.model.generate(generation) {
            switch event {
            case .text(let piece, let count):
                if run.timeToFirstToken == nil { run.timeToFirstToken = (ContinuousClock.now - request.start).seconds }
                turn.text += piece
                run.partialText = turn.text
                tokens += count
                var usage = run.usage
                usage.responseTokens += tokens
                let promptIndex = run.working.entries.lastIndex { $0.id == run.promptID } ?? run.working.entries.endIndex
                let entries = run.working.entries[promptIndex...]
                if request.schema != nil {
                    // Snapshot only when the parsed value changed.
                    if let partial = try? GeneratedContent(json: turn.text, partial: true), partial != lastContent {
                        lastContent = partial
                        await onProgress(Progress(text: turn.text, content: partial.identified(run.generationID), tokens: tokens, usage: usage,
                                            entries: entries))
                    }
                } else {
                    await onProgress(Progress(text: turn.text, content: GeneratedContent(kind: .string(turn.text), isComplete: false), tokens: tokens,
                                        usage: usage, entries: entries))
                }
            case .reasoning(let piece, _):
                turn.reasoning += piece
            case .toolCalls(let requested):
                turn.calls += requested
            case .finished(let statistics):
                run.usage = run.usage.adding(turn: statistics.usage, isFirst: isFirstTurn)
                run.tokensPerSecond = statistics.tokensPerSecond
                run.renderedPrompt = statistics.renderedPrompt
                run.stopReason = statistics.stopReason
            }
        }
        try Task.checkCancellation()
        run.partialText = ""
        try checkMutation()
        return turn
    }

    private func recordReasoning(_ reasoning: String, _ resolved: ResolvedProfile?, _ run: inout RequestState) async throws {
        guard !reasoning.isEmpty else { return }
        let id = run.newID()
        let entry = Transcript.Reasoning(id: id, segments: [.text(.init(id: "\(id).1", content: reasoning))])
        run.working.entries.append(.reasoning(entry))
        if let resolved, !resolved.onReasoning.isEmpty {
            run.events.append(LifecycleEvent(kind: .onReasoning, detail: ""))
            try await runCallbacks(&run.working) { for action in resolved.onReasoning { try await action(entry) } }
        }
    }

    /// The model's answer: parsed (and checked against the schema) and appended as the response entry.
    private func recordResponse(_ text: String, schema: GenerationSchema?, _ resolved: ResolvedProfile?,
                                _ run: inout RequestState) async throws {
        var content = try Self.parse(text, schema: schema)
        if schema != nil { content = content.identified(run.generationID) }
        let responseID = run.newID()
        let segment: Transcript.Segment = schema.map { .structure(.init(id: "\(responseID).1", source: $0.typeName, content: content)) }
            ?? .text(.init(id: "\(responseID).1", content: text))
        let response = Transcript.Response(id: responseID, segments: [segment])
        run.working.entries.append(.response(response))
        if let resolved, !resolved.onResponse.isEmpty {
            run.events.append(LifecycleEvent(kind: .onResponse, detail: ""))
            try await runCallbacks(&run.working) { for action in resolved.onResponse { try await action(response) } }
        }
    }

    /// Runs the tools the model called, in order, appending each call and its output.
    private func callTools(_ calls: [Transcript.ToolCall], _ inference: Inference, _ run: inout RequestState) async throws {
        let tools = inference.tools
        let callsID = run.newID()
        let numbered = calls.enumerated().map { index, call in
            var call = call
            call.id = "\(callsID).\(index + 1)"
            return call
        }
        run.working.entries.append(.toolCalls(.init(id: callsID, numbered)))
        for call in numbered {
            guard let tool = tools.first(where: { $0.name == call.toolName }) else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "the model called '\(call.toolName)', which is not one of the session's tools \(tools.map(\.name))"))
            }
            run.events.append(LifecycleEvent(kind: .toolCall, detail: "\(call.toolName)(\(call.arguments.jsonString))"))
            if let resolved = inference.resolved, !resolved.onToolCall.isEmpty {
                run.events.append(LifecycleEvent(kind: .onToolCall, detail: call.toolName))
                try await runCallbacks(&run.working) { for action in resolved.onToolCall { try await action(call) } }
            }
            let output: GeneratedContent
            do {
                let current = run.working
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
            run.working.entries.append(.toolOutput(toolOutput))
            run.events.append(LifecycleEvent(kind: .toolOutput, detail: "\(tool.name): \(Transcript.Segment.text(of: [segment]).prefix(80))"))
            if let resolved = inference.resolved, !resolved.onToolOutput.isEmpty {
                run.events.append(LifecycleEvent(kind: .onToolOutput, detail: call.toolName))
                try await runCallbacks(&run.working) { for action in resolved.onToolOutput { try await action(call, toolOutput) } }
            }
        }
    }

    /// Makes the request's transcript the session's and adds its usage.
    private func commit(_ run: RequestState, promptID: String, firstNew: Int, answeringModel: String) -> RawResponse {
        guard let response = run.working.entries.last(where: { if case .response = $0 { true } else { false } }),
              case .response(let final) = response else { preconditionFailure("the loop ends with a response") }
        let content: GeneratedContent
        switch final.segments.first {
        case .structure(let s): content = s.content
        case .text(let s): content = GeneratedContent(s.content)
        case nil: content = GeneratedContent("")
        }
        let committed = run.working
        let committedID = committed.nextSequentialID
        let responseUsage = run.usage
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
        return RawResponse(content: content, entries: committed.entries[promptIndex...],
                           statistics: GenerationStatistics(usage: run.usage, timeToFirstToken: run.timeToFirstToken ?? 0,
                                                            tokensPerSecond: run.tokensPerSecond, renderedPrompt: run.renderedPrompt,
                                                            stopReason: run.stopReason, modelName: answeringModel),
                           events: run.events)
    }

    /// Evaluates the dynamic profile, fires `onDeactivate`/`onActivate` when the
    /// active profile changed, and writes its instructions as the leading entry.
    private func prepareInference(_ run: inout RequestState) async throws -> Inference {
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
            run.events.append(LifecycleEvent(kind: .profile, detail: resolved.configuration.displayName))
        }
        for (owner, action) in deactivations where !owners.contains(owner) {
            run.events.append(LifecycleEvent(kind: .onDeactivate, detail: owner))
            await action()
        }
        for (owner, action) in resolved.onActivate where !previousOwners.contains(owner) {
            run.events.append(LifecycleEvent(kind: .onActivate, detail: owner))
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
        if case .instructions(let existing)? = run.working.entries.first {
            run.working.entries[0] = .instructions(.init(id: existing.id, segments: Self.identified(segments, existing.id),
                                                         toolDefinitions: definitions))
        } else if !segments.isEmpty || !definitions.isEmpty {
            let id = run.newID()
            run.working.entries.insert(.instructions(.init(id: id, segments: Self.identified(segments, id), toolDefinitions: definitions)), at: 0)
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
        return schema.representingNils(in: content, as: schema.root)
    }
}
