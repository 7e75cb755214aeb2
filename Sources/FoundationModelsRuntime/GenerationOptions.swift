/// `GenerationOptions` as in FoundationModels (26 and 27 spellings).
public struct GenerationOptions: Sendable, Hashable {
    /// The seed used when neither the options nor the caller give one, so the
    /// same file always gives the same output.
    public static let defaultSeed: UInt64 = 42

    public struct SamplingMode: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case greedy
            case randomTopK(Int, seed: UInt64?)
            case randomProbabilityThreshold(Double, seed: UInt64?)
        }
        public var kind: Kind
        public init(kind: Kind) { self.kind = kind }

        public static let greedy = SamplingMode(kind: .greedy)
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .randomTopK(k, seed: seed))
        }
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .randomProbabilityThreshold(probabilityThreshold, seed: seed))
        }

        /// The seed this mode carries, if any.
        public var seed: UInt64? {
            switch kind {
            case .greedy: nil
            case .randomTopK(_, let seed), .randomProbabilityThreshold(_, let seed): seed
            }
        }
    }

    public struct ToolCallingMode: Sendable, Hashable {
        public enum Kind: Sendable, Hashable { case allowed, required, disallowed }
        public var kind: Kind
        public init(kind: Kind) { self.kind = kind }
        /// The model chooses between answering and calling tools (the default).
        public static let allowed = ToolCallingMode(kind: .allowed)
        /// The model must call a tool on every turn; the session keeps calling
        /// tools until one throws or the tool-round bound is reached.
        public static let required = ToolCallingMode(kind: .required)
        /// The model must answer without calling tools.
        public static let disallowed = ToolCallingMode(kind: .disallowed)
    }

    public var samplingMode: SamplingMode?
    public var temperature: Double?
    public var maximumResponseTokens: Int?
    public var toolCallingMode: ToolCallingMode?

    /// The 26.0 name of `samplingMode`.
    public var sampling: SamplingMode? {
        get { samplingMode }
        set { samplingMode = newValue }
    }

    public init(samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
                toolCallingMode: ToolCallingMode? = nil) {
        self.samplingMode = samplingMode
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
        self.toolCallingMode = toolCallingMode
    }

    public init(sampling: SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.init(samplingMode: sampling, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
    }
}

/// 27's `ContextOptions`: what goes into the model's context besides the transcript. A prompt entry
/// records the options it was sent with (`Transcript.Prompt.contextOptions`); nil means unset.
public struct ContextOptions: Sendable, Hashable {
    public var includeSchemaInPrompt: Bool?
    public var reasoningLevel: ReasoningLevel?
    public init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ReasoningLevel? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.reasoningLevel = reasoningLevel
    }
}
