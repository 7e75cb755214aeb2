/// Errors from loading a model or running it. Each names what went wrong
/// and, where it can, how to fix it.
public enum InferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupportedArchitecture(String, path: String)
    case missingMetadata(key: String, path: String)
    case invalidMetadata(key: String, reason: String, path: String)
    case missingTensor(name: String, path: String)
    case tensorShapeMismatch(name: String, expected: [Int], actual: [Int], path: String)
    case unsupportedTensorType(name: String, type: String, path: String)
    case contextFull(capacity: Int, requested: Int)
    case invalidToken(Int32, vocabularySize: Int)
    case emptyInput
    case maskAllowsNoToken
    case noLogits
    /// A batched decoding step was given sessions it cannot serve together.
    case invalidBatch(String)

    public var description: String {
        switch self {
        case .unsupportedArchitecture(let name, let path):
            "\(path): architecture '\(name)' is not supported; supported: \(Architecture.allCases.map(\.rawValue).joined(separator: ", "))"
        case .missingMetadata(let key, let path):
            "\(path): the model file has no metadata key '\(key)', which the architecture requires"
        case .invalidMetadata(let key, let reason, let path):
            "\(path): metadata key '\(key)' is invalid: \(reason)"
        case .missingTensor(let name, let path):
            "\(path): the model file has no tensor '\(name)', which the architecture requires"
        case .tensorShapeMismatch(let name, let expected, let actual, let path):
            "\(path): tensor '\(name)' has shape \(actual), expected \(expected)"
        case .unsupportedTensorType(let name, let type, let path):
            "\(path): tensor '\(name)' has type \(type), which the engine cannot compute with"
        case .contextFull(let capacity, let requested):
            "the context holds \(capacity) tokens but \(requested) were needed; start a new session or use a larger context size"
        case .invalidToken(let token, let vocabularySize):
            "token id \(token) is outside the vocabulary (0..<\(vocabularySize))"
        case .emptyInput:
            "no tokens to evaluate"
        case .maskAllowsNoToken:
            "the allowed-token mask allows no token"
        case .noLogits:
            "there are no logits yet: evaluate at least one token first"
        case .invalidBatch(let reason):
            "batched decoding: \(reason)"
        }
    }
}
