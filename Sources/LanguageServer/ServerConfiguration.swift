import JSON

/// The server's settings, from `initializationOptions` and
/// `workspace/didChangeConfiguration` (either the settings object itself or
/// one nested under `fmplay`).
public struct ServerConfiguration: Sendable, Equatable, Codable {
    public enum EvaluationTrigger: String, Sendable, CaseIterable, Codable {
        /// Evaluate a document's changed blocks when it is saved (default).
        case onSave
        /// Evaluate after typing pauses for `debounceMilliseconds`.
        case onChange
        /// Only through `fmplay.run` / `fmplay.runAll` (code lenses).
        case manual
    }

    /// A GGUF file; nil means the embedded default model.
    public var modelPath: String?
    public var evaluate: EvaluationTrigger = .onSave
    public var debounceMilliseconds = 500
    /// The sampling seed when the file does not set one; nil means the evaluator's fixed default.
    public var seed: UInt64?
    /// A cap on response tokens per call, applied when the file does not set `maximumResponseTokens`.
    public var maximumTokens: Int?
    /// The longest an inlay hint's text gets, in characters.
    public var hintLength = 40
    /// Seconds a block may run (nil: until cancelled by an edit or `fmplay.cancel`).
    public var timeoutSeconds: Double?
    /// Per-block limits (`EvaluationLimits`; nil keeps the default): memory growth, one string and
    /// printed output in megabytes, elements of one collection.
    public var memoryLimitMB: Int?
    public var stringLimitMB: Int?
    public var elementLimit: Int?
    public var outputLimitMB: Int?

    /// The settings that change what a block produces when it hits a limit (part of block fingerprints).
    public var limitsDescription: String {
        [timeoutSeconds.map { "\($0)" }, memoryLimitMB.map(String.init), stringLimitMB.map(String.init),
         elementLimit.map(String.init), outputLimitMB.map(String.init)].map { $0 ?? "-" }.joined(separator: ",")
    }
    /// The OpenAI-compatible endpoint behind `PrivateCloudComputeLanguageModel`; nil: $FMPLAY_SERVER_URL.
    public var serverURL: String?
    /// The model name sent to it; nil: $FMPLAY_SERVER_MODEL, else the server's first.
    public var serverModel: String?
    /// A file holding its API key; nil: $FMPLAY_SERVER_API_KEY(_FILE). The key itself is never a setting.
    public var serverAPIKeyFile: String?

    public init() {}

    /// Every key, with its meaning, for `fmplay lsp --help`.
    public static let documentation: [(key: String, meaning: String)] = [
        ("modelPath", "GGUF model file (default: the embedded SmolLM2 model, or $FMPLAY_MODEL)"),
        ("evaluate", "\"onSave\" (default), \"onChange\" (with debounceMilliseconds) or \"manual\""),
        ("debounceMilliseconds", "pause after typing before evaluating with onChange (default 500)"),
        ("seed", "sampling seed when the file sets none"),
        ("maxTokens", "maximum response tokens per model call"),
        ("hintLength", "maximum inlay hint length in characters (default 40)"),
        ("timeoutSeconds", "seconds a block may run (default: until cancelled)"),
        ("memoryLimitMB", "memory a block may add, in MB (default 1024)"),
        ("stringLimitMB", "largest string a block may build, in MB (default 16)"),
        ("elementLimit", "largest array or dictionary, in elements (default 1000000)"),
        ("outputLimitMB", "output a block may print, in MB (default 16)"),
        ("serverURL", "OpenAI-compatible endpoint for PrivateCloudComputeLanguageModel, e.g. http://127.0.0.1:8080/v1 (default: $FMPLAY_SERVER_URL)"),
        ("serverModel", "model name sent to the server (default: $FMPLAY_SERVER_MODEL, else the server's first model)"),
        ("serverAPIKeyFile", "file with the server's API key (default: $FMPLAY_SERVER_API_KEY or $FMPLAY_SERVER_API_KEY_FILE)"),
    ]

    /// Every key `apply` accepts (documented keys and their aliases).
    public static let acceptedKeys: Set<String> = Set(documentation.map(\.key)).union([
        "model", "debounce", "maximumTokens", "maximumResponseTokens",
    ])

    /// Applies the settings in `value` over the current ones. Returns one
    /// message per key that was ignored (unknown or of the wrong type), naming it.
    public mutating func apply(_ value: JSONValue) -> [String] {
        guard case .object(var object) = value else {
            if value.isNull { return [] }
            return ["fmplay settings must be an object, not \(value.kindDescription)"]
        }
        if case .object(let nested)? = object["fmplay"] { object = nested }
        var problems: [String] = []
        for (key, member) in object {
            switch key {
            case "modelPath", "model":
                if member.isNull { modelPath = nil } else if let path = member.stringValue, !path.isEmpty { modelPath = path } else {
                    problems.append("setting \(key) must be a file path, not \(member.kindDescription)")
                }
            case "evaluate":
                if let raw = member.stringValue, let trigger = EvaluationTrigger(rawValue: raw) {
                    evaluate = trigger
                } else {
                    problems.append("setting evaluate must be \"onSave\", \"onChange\" or \"manual\", not \(member.kindDescription)")
                }
            case "debounceMilliseconds", "debounce":
                if let ms = member.intValue, ms >= 0, ms <= 60_000 { debounceMilliseconds = ms } else {
                    problems.append("setting \(key) must be a number of milliseconds from 0 to 60000, not \(member.kindDescription)")
                }
            case "seed":
                if member.isNull { seed = nil } else if let n = member.intValue, n >= 0 { seed = UInt64(n) } else {
                    problems.append("setting seed must be a non-negative integer, not \(member.kindDescription)")
                }
            case "maxTokens", "maximumTokens", "maximumResponseTokens":
                if member.isNull { maximumTokens = nil } else if let n = member.intValue, n > 0 { maximumTokens = n } else {
                    problems.append("setting \(key) must be a positive integer, not \(member.kindDescription)")
                }
            case "timeoutSeconds":
                if member.isNull { timeoutSeconds = nil } else if let seconds = member.doubleValue, seconds.isFinite, seconds > 0, seconds <= 604_800 {
                    timeoutSeconds = seconds
                } else {
                    problems.append("setting timeoutSeconds must be a number of seconds over 0 and at most 604800, not \(member.kindDescription)")
                }
            case "memoryLimitMB", "stringLimitMB", "elementLimit", "outputLimitMB":
                let range = key == "elementLimit" ? 1...(1 << 30) : (key == "memoryLimitMB" ? 1...(1 << 20) : 1...4096)
                if member.isNull || member.intValue.map(range.contains) == true {
                    let value = member.isNull ? nil : member.intValue
                    switch key {
                    case "memoryLimitMB": memoryLimitMB = value
                    case "stringLimitMB": stringLimitMB = value
                    case "elementLimit": elementLimit = value
                    default: outputLimitMB = value
                    }
                } else {
                    problems.append("setting \(key) must be an integer from \(range.lowerBound) to \(range.upperBound), not \(member.kindDescription)")
                }
            case "serverURL", "serverModel", "serverAPIKeyFile":
                if member.isNull {
                    setServer(key, nil)
                } else if let text = member.stringValue, !text.isEmpty {
                    setServer(key, text)
                } else {
                    problems.append("setting \(key) must be a non-empty string, not \(member.kindDescription)")
                }
            case "hintLength":
                if let n = member.intValue, n >= 8, n <= 1000 { hintLength = n } else {
                    problems.append("setting hintLength must be an integer from 8 to 1000, not \(member.kindDescription)")
                }
            default:
                problems.append("unknown setting \(key) (known: \(Self.documentation.map(\.key).joined(separator: ", ")))")
            }
        }
        return problems
    }

    private mutating func setServer(_ key: String, _ value: String?) {
        switch key {
        case "serverURL": serverURL = value
        case "serverModel": serverModel = value
        default: serverAPIKeyFile = value
        }
    }
}
