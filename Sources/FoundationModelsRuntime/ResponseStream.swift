import Schema

/// `LanguageModelSession.ResponseStream`: cumulative snapshots of a response
/// (never deltas). The request starts when iteration (or `collect()`) starts;
/// cancelling the iterating Task cancels generation.
public struct ResponseStream<Content: Generable>: AsyncSequence, Sendable {
    public struct Snapshot: Sendable {
        /// The value so far (for prompt-file types: content with missing properties).
        public var content: Content.PartiallyGenerated
        public var rawContent: GeneratedContent
        /// Tokens generated so far in the answering turn.
        public var tokenCount: Int
        /// The response's usage so far (27.0): output tokens as they come; a turn's input tokens once the
        /// turn ends. The last snapshot carries the whole response's usage.
        public var usage: Usage
        /// The transcript entries the response has added so far (27.0): the prompt, tool calls and outputs.
        public var transcriptEntries: ArraySlice<Transcript.Entry>
    }

    private let run: StreamRun<Content>

    init(session: LanguageModelSession, prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool,
         options: GenerationOptions, reasoningLevel: ReasoningLevel? = nil, serverSentEvents: Bool = true) {
        run = StreamRun(session: session, prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt,
                        options: options, reasoningLevel: reasoningLevel, serverSentEvents: serverSentEvents)
    }

    public func makeAsyncIterator() -> AsyncThrowingStream<Snapshot, any Error>.AsyncIterator {
        run.snapshots().makeAsyncIterator()
    }

    /// Waits for the whole response (running the request if it has not started).
    public func collect() async throws -> Response<Content> {
        for try await _ in run.snapshots() {}
        return try run.finalResponse()
    }
}

/// Runs a stream's request once and remembers the outcome.
final class StreamRun<Content: Generable>: Sendable {
    private struct State {
        var stream: AsyncThrowingStream<ResponseStream<Content>.Snapshot, any Error>?
        var started = false
        var outcome: Result<Response<Content>, any Error>?
    }
    private let state = Locked(State())
    private let session: LanguageModelSession
    private let prompt: Prompt
    private let schema: GenerationSchema?
    private let includeSchemaInPrompt: Bool
    private let options: GenerationOptions
    private let reasoningLevel: ReasoningLevel?
    private let serverSentEvents: Bool

    init(session: LanguageModelSession, prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool,
         options: GenerationOptions, reasoningLevel: ReasoningLevel?, serverSentEvents: Bool) {
        self.reasoningLevel = reasoningLevel
        self.serverSentEvents = serverSentEvents
        self.session = session
        self.prompt = prompt
        self.schema = schema
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.options = options
    }

    /// The first call starts the request; later calls (after it finished)
    /// get an empty stream that rethrows the outcome's error.
    func snapshots() -> AsyncThrowingStream<ResponseStream<Content>.Snapshot, any Error> {
        let shouldStart = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard shouldStart else {
            let outcome = state.withLock { $0.outcome }
            return AsyncThrowingStream { continuation in
                if case .failure(let error) = outcome { continuation.finish(throwing: error) } else { continuation.finish() }
            }
        }
        let (stream, continuation) = AsyncThrowingStream<ResponseStream<Content>.Snapshot, any Error>.makeStream()
        let task = Task { [self] in
            do {
                let raw = try await session.run(prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt,
                                                options: options, reasoningLevel: reasoningLevel, streaming: serverSentEvents) { progress in
                    guard let partial = try? Content.partiallyGenerated(from: progress.content) else { return }
                    continuation.yield(.init(content: partial, rawContent: progress.content, tokenCount: progress.tokens,
                                             usage: progress.usage, transcriptEntries: progress.entries))
                }
                let response = Response(raw: raw, content: try LanguageModelSession.decode(Content.self, raw.content))
                state.withLock { $0.outcome = .success(response) }
                // The last snapshot is the complete value.
                if let final = try? Content.partiallyGenerated(from: raw.content) {
                    continuation.yield(.init(content: final, rawContent: raw.content, tokenCount: raw.statistics.usage.responseTokens,
                                             usage: raw.statistics.usage, transcriptEntries: raw.entries))
                }
                continuation.finish()
            } catch {
                state.withLock { $0.outcome = .failure(error) }
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    func finalResponse() throws -> Response<Content> {
        switch state.withLock({ $0.outcome }) {
        case .success(let response): return response
        case .failure(let error): throw error
        case nil: throw CancellationError()
        }
    }
}
