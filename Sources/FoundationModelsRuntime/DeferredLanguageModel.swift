import Schema

/// A model loaded on first use. `fmplay run` and the language server wrap
/// the embedded engine in it, so a run whose blocks are all cached never
/// loads weights. The identity is given up front (e.g. path, size and
/// modification time of the file), so cache keys need no loading either.
public final class DeferredLanguageModel: LanguageModel, @unchecked Sendable {
    public let name: String
    public let identity: String
    private let load: @Sendable () throws -> any LanguageModel
    private let state = Locked<Result<any LanguageModel, any Error>?>(nil)

    public init(name: String, identity: String, load: @escaping @Sendable () throws -> any LanguageModel) {
        self.name = name
        self.identity = identity
        self.load = load
    }

    /// The loaded model (loading it now if needed); a failed load is remembered.
    public func loaded() throws -> any LanguageModel {
        try state.withLock { state in
            if state == nil { state = Result { try load() } }
            return try state!.get()
        }
    }

    /// The loaded model's context size (loads it); 0 when loading fails.
    public var contextSize: Int { (try? loaded().contextSize) ?? 0 }

    /// The loaded model's languages (loads it); nil when loading fails.
    public var supportedLanguages: [String]? { (try? loaded())?.supportedLanguages ?? nil }
    public var supportsReasoning: Bool { (try? loaded())?.supportsReasoning ?? false }

    /// Available until a load fails; then `.unavailable(.modelNotReady)`.
    public var availability: SystemLanguageModel.Availability {
        switch state.withLock({ $0 }) {
        case .failure?: .unavailable(.modelNotReady)
        case .success(let model)?: model.availability
        case nil: .available
        }
    }

    public func prewarm(transcript: Transcript) async {
        await (try? loaded())?.prewarm(transcript: transcript)
    }

    public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error> {
        do {
            return try loaded().generate(request)
        } catch {
            let failure = loadFailure(error)
            return AsyncThrowingStream { continuation in continuation.finish(throwing: failure) }
        }
    }

    public func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int {
        let model: any LanguageModel
        do { model = try loaded() } catch { throw loadFailure(error) }
        return try await model.tokenCount(for: entries, schema: schema)
    }

    private func loadFailure(_ error: any Error) -> GenerationError {
        .assetsUnavailable(.init(debugDescription: "the model \(name) could not be loaded: \(error)"))
    }
}
