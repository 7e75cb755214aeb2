import Schema

/// `LanguageModelSession.ResponseStream`: cumulative snapshots of a response
/// (never deltas). The request starts when iteration (or `collect()`) starts;
/// cancelling the iterating Task cancels generation. The request waits before each
/// snapshot until the consumer asks for the next one (`SnapshotDemand`), so while a
/// `for try await` body runs the request is still in progress (`isResponding`, and
/// editing the transcript there fails it with `transcriptMutationWhileResponding`).
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
         options: GenerationOptions, contextOptions: ContextOptions = ContextOptions(), metadata: [String: GeneratedContent] = [:],
         serverSentEvents: Bool = true) {
        run = StreamRun(session: session, prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt,
                        options: options, contextOptions: contextOptions, metadata: metadata, serverSentEvents: serverSentEvents)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var inner: AsyncThrowingStream<Snapshot, any Error>.AsyncIterator
        let demand: SnapshotDemand?

        public mutating func next() async throws -> Snapshot? {
            demand?.request()
            return try await inner.next()
        }
    }

    public func makeAsyncIterator() -> Iterator {
        let (stream, demand) = run.snapshots()
        return Iterator(inner: stream.makeAsyncIterator(), demand: demand)
    }

    /// Waits for the whole response (running the request if it has not started).
    public func collect() async throws -> Response<Content> {
        for try await _ in self {}
        return try run.finalResponse()
    }
}

/// Runs a stream's request once and remembers the outcome.
final class StreamRun<Content: Generable>: Sendable {
    private struct State {
        var stream: AsyncThrowingStream<ResponseStream<Content>.Snapshot, any Error>?
        var started = false
        var outcome: Result<Response<Content>, any Error>?
        /// The running request and its gate, so a later call waits for its outcome.
        var task: Task<Void, Never>?
        var demand: SnapshotDemand?
    }
    private let state = Locked(State())
    private let session: LanguageModelSession
    private let prompt: Prompt
    private let schema: GenerationSchema?
    private let includeSchemaInPrompt: Bool
    private let options: GenerationOptions
    private let contextOptions: ContextOptions
    private let metadata: [String: GeneratedContent]
    private let serverSentEvents: Bool

    init(session: LanguageModelSession, prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool,
         options: GenerationOptions, contextOptions: ContextOptions, metadata: [String: GeneratedContent], serverSentEvents: Bool) {
        self.contextOptions = contextOptions
        self.metadata = metadata
        self.serverSentEvents = serverSentEvents
        self.session = session
        self.prompt = prompt
        self.schema = schema
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.options = options
    }

    /// The first call starts the request; later calls (after it finished)
    /// get an empty stream that rethrows the outcome's error.
    func snapshots() -> (AsyncThrowingStream<ResponseStream<Content>.Snapshot, any Error>, SnapshotDemand?) {
        let shouldStart = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard shouldStart else {
            // The request may still be running (`collect()` inside the loop over the same stream) or winding down (its
            // consumer stopped early): let it run without waiting for that consumer, and wait for its outcome.
            let (task, demand) = state.withLock { ($0.task, $0.demand) }
            demand?.open()
            return (AsyncThrowingStream { [self] continuation in
                Task {
                    await task?.value
                    if case .failure(let error) = state.withLock({ $0.outcome }) { continuation.finish(throwing: error) } else { continuation.finish() }
                }
            }, nil)
        }
        let (stream, continuation) = AsyncThrowingStream<ResponseStream<Content>.Snapshot, any Error>.makeStream()
        let demand = SnapshotDemand()
        let task = Task { [self] in
            do {
                let raw = try await session.run(prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt,
                                                options: options, contextOptions: contextOptions, metadata: metadata,
                                                streaming: serverSentEvents) { progress in
                    guard let partial = try? Content.partiallyGenerated(from: progress.content) else { return }
                    await demand.wait()
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
        state.withLock { state in
            state.task = task
            state.demand = demand
        }
        continuation.onTermination = { _ in
            demand.open()
            task.cancel()
        }
        return (stream, demand)
    }

    func finalResponse() throws -> Response<Content> {
        switch state.withLock({ $0.outcome }) {
        case .success(let response): return response
        case .failure(let error): throw error
        case nil: throw CancellationError()
        }
    }
}

/// Back-pressure between a stream's request and its consumer: each `request()` (the consumer asking for the next
/// snapshot) lets one `wait()` (the request about to hand one over) through. `open()` (the consumer stopped, or the
/// request was cancelled) lets every wait through, so a request never waits on a consumer that is gone.
final class SnapshotDemand: Sendable {
    private struct State {
        var credits = 0
        var isOpen = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Locked(State())

    func request() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.credits += 1
            return nil
        }?.resume()
    }

    func open() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isOpen = true
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.isOpen { return true }
                    if state.credits > 0 {
                        state.credits -= 1
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            open()
        }
    }
}
