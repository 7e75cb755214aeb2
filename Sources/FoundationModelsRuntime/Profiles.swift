/// FoundationModels 27 dynamic profiles as the session sees them.
///
/// A prompt file's `LanguageModelSession.DynamicProfile` is evaluated (by the
/// evaluator, or by Swift code in tests) into a `ProfileConfiguration`: the one
/// `Profile` its body resolved to, with its dynamic instructions rendered
/// (text + tools) and every modifier on the way from that `Profile` out to the
/// session, in application order (the one nearest the `Profile` first). The
/// session asks for a fresh configuration before every model request
/// (`LanguageModelSession.init(profile:history:...)`), so a body that reads
/// changing state switches profiles between prompts and between tool rounds.
///
/// Rules (Apple's pages; the reference's §5-§6, §15):
/// - value modifiers: the one nearest the `Profile` wins; `nil` means "not set
///   here"; call-site `GenerationOptions` fields that are set win over all;
/// - lifecycle callbacks accumulate (every level's run, innermost first);
/// - history transforms stack and run outermost first, on the full request
///   transcript (instructions entry included), before each inference; they
///   change what the model sees, never `session.transcript`.
public struct ProfileConfiguration: Sendable {
    /// Which `Profile` this is (stable across evaluations: the evaluator uses the
    /// `Profile { }` source position). Used for `onActivate`/`onDeactivate`.
    public var identity: String
    /// A readable name for results and hovers (e.g. `CraftProfile: brainstorming`).
    public var displayName: String
    /// The rendered dynamic instructions: text segments in declaration order.
    public var instructions: [Transcript.Segment]
    /// The tools listed in the dynamic instructions, in declaration order.
    public var tools: [any Tool]
    /// Modifiers in application order: the one nearest the `Profile` first.
    public var modifiers: [ProfileModifier]

    public init(identity: String, displayName: String? = nil, instructions: [Transcript.Segment] = [], tools: [any Tool] = [],
                modifiers: [ProfileModifier] = []) {
        self.identity = identity
        self.displayName = displayName ?? identity
        self.instructions = instructions
        self.tools = tools
        self.modifiers = modifiers
    }

    /// Adds a modifier further out than the existing ones.
    public func adding(_ modifier: ProfileModifier) -> ProfileConfiguration {
        var copy = self
        copy.modifiers.append(modifier)
        return copy
    }
}

/// The reasoning level of `ContextOptions` and `.reasoningLevel(_:)`.
public enum ReasoningLevel: Sendable, Hashable, CustomStringConvertible {
    case light, moderate, deep
    case custom(String)

    public var description: String {
        switch self {
        case .light: "light"
        case .moderate: "moderate"
        case .deep: "deep"
        case .custom(let text): "custom(\(text))"
        }
    }
}

/// `TranscriptErrorHandlingPolicy` (top level in 27; the slides nest it in the session).
public struct TranscriptErrorHandlingPolicy: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case revertTranscript, preserveTranscript }
    public var kind: Kind
    /// Roll the transcript back to its state just before the failed request (the default).
    public static let revertTranscript = TranscriptErrorHandlingPolicy(kind: .revertTranscript)
    /// Keep the transcript as it was when the error happened; the last entry may be partial.
    public static let preserveTranscript = TranscriptErrorHandlingPolicy(kind: .preserveTranscript)
    public var description: String { kind == .revertTranscript ? "revertTranscript" : "preserveTranscript" }
}

/// One profile modifier (Apple's value and lifecycle modifiers).
public enum ProfileModifier: Sendable {
    public typealias HistoryTransform = @Sendable ([Transcript.Entry]) async throws -> [Transcript.Entry]

    case model(any LanguageModel)
    case temperature(Double?)
    case samplingMode(GenerationOptions.SamplingMode?)
    case maximumResponseTokens(Int?)
    case reasoningLevel(ReasoningLevel?)
    case toolCallingMode(GenerationOptions.ToolCallingMode?)
    case transcriptErrorHandlingPolicy(TranscriptErrorHandlingPolicy?)
    case historyTransform(HistoryTransform)
    /// `owner` is the identity of the profile the callback is attached to.
    case onActivate(owner: String, @Sendable () async -> Void)
    case onDeactivate(owner: String, @Sendable () async -> Void)
    case onPrompt(@Sendable (Transcript.Prompt) async throws -> Void)
    case onResponse(@Sendable (Transcript.Response) async throws -> Void)
    case onReasoning(@Sendable (Transcript.Reasoning) async throws -> Void)
    case onToolCall(@Sendable (Transcript.ToolCall) async throws -> Void)
    case onToolOutput(@Sendable (Transcript.ToolCall, Transcript.ToolOutput) async throws -> Void)

    /// The modifier's name as written in Swift (`temperature`, `onToolCall`, ...).
    public var name: String {
        switch self {
        case .model: "model"
        case .temperature: "temperature"
        case .samplingMode: "samplingMode"
        case .maximumResponseTokens: "maximumResponseTokens"
        case .reasoningLevel: "reasoningLevel"
        case .toolCallingMode: "toolCallingMode"
        case .transcriptErrorHandlingPolicy: "transcriptErrorHandlingPolicy"
        case .historyTransform: "historyTransform"
        case .onActivate: "onActivate"
        case .onDeactivate: "onDeactivate"
        case .onPrompt: "onPrompt"
        case .onResponse: "onResponse"
        case .onReasoning: "onReasoning"
        case .onToolCall: "onToolCall"
        case .onToolOutput: "onToolOutput"
        }
    }
}

/// A configuration with its modifiers resolved: nearest value wins, callbacks
/// accumulate, transforms outermost first.
public struct ResolvedProfile: Sendable {
    public var configuration: ProfileConfiguration
    public var model: (any LanguageModel)?
    public var temperature: Double?
    public var samplingMode: GenerationOptions.SamplingMode?
    public var maximumResponseTokens: Int?
    public var reasoningLevel: ReasoningLevel?
    public var toolCallingMode: GenerationOptions.ToolCallingMode?
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
    /// In the order they run: outermost first.
    public var historyTransforms: [ProfileModifier.HistoryTransform] = []
    public var onActivate: [(owner: String, action: @Sendable () async -> Void)] = []
    public var onDeactivate: [(owner: String, action: @Sendable () async -> Void)] = []
    public var onPrompt: [@Sendable (Transcript.Prompt) async throws -> Void] = []
    public var onResponse: [@Sendable (Transcript.Response) async throws -> Void] = []
    public var onReasoning: [@Sendable (Transcript.Reasoning) async throws -> Void] = []
    public var onToolCall: [@Sendable (Transcript.ToolCall) async throws -> Void] = []
    public var onToolOutput: [@Sendable (Transcript.ToolCall, Transcript.ToolOutput) async throws -> Void] = []

    public init(_ configuration: ProfileConfiguration) {
        self.configuration = configuration
        var modelSet = false, temperatureSet = false, samplingSet = false, tokensSet = false
        var reasoningSet = false, modeSet = false, policySet = false
        var transforms: [ProfileModifier.HistoryTransform] = []
        for modifier in configuration.modifiers {
            switch modifier {
            case .model(let m): if !modelSet { model = m; modelSet = true }
            // A nil value is "not set here": an outer modifier may still set it.
            case .temperature(let v): if !temperatureSet, let v { temperature = v; temperatureSet = true }
            case .samplingMode(let v): if !samplingSet, let v { samplingMode = v; samplingSet = true }
            case .maximumResponseTokens(let v): if !tokensSet, let v { maximumResponseTokens = v; tokensSet = true }
            case .reasoningLevel(let v): if !reasoningSet, let v { reasoningLevel = v; reasoningSet = true }
            case .toolCallingMode(let v): if !modeSet, let v { toolCallingMode = v; modeSet = true }
            case .transcriptErrorHandlingPolicy(let v): if !policySet, let v { transcriptErrorHandlingPolicy = v; policySet = true }
            case .historyTransform(let t): transforms.append(t)
            case .onActivate(let owner, let a): onActivate.append((owner, a))
            case .onDeactivate(let owner, let a): onDeactivate.append((owner, a))
            case .onPrompt(let a): onPrompt.append(a)
            case .onResponse(let a): onResponse.append(a)
            case .onReasoning(let a): onReasoning.append(a)
            case .onToolCall(let a): onToolCall.append(a)
            case .onToolOutput(let a): onToolOutput.append(a)
            }
        }
        historyTransforms = transforms.reversed()
    }

    /// The owners whose `onActivate`/`onDeactivate` belong to this profile
    /// (the profile itself and every dynamic profile around it).
    public var owners: Set<String> {
        Set(onActivate.map(\.owner) + onDeactivate.map(\.owner) + [configuration.identity])
    }

    /// Call-site options first (each field only when the caller set it), then
    /// this profile's values.
    public func effectiveOptions(callSite: GenerationOptions) -> GenerationOptions {
        GenerationOptions(samplingMode: callSite.samplingMode ?? samplingMode,
                          temperature: callSite.temperature ?? temperature,
                          maximumResponseTokens: callSite.maximumResponseTokens ?? maximumResponseTokens,
                          toolCallingMode: callSite.toolCallingMode ?? toolCallingMode)
    }
}
