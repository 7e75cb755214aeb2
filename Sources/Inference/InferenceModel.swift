import Foundation
import GGUF

/// A loaded model: its file (memory-mapped), configuration and weights.
/// Immutable and shareable; each conversation runs in its own `InferenceSession`.
public final class InferenceModel: Sendable {
    public let path: String
    public let file: GGUFFile
    public let configuration: ModelConfiguration
    let transformer: Transformer

    /// Maps the GGUF file at `path` and checks every tensor the architecture needs.
    public init(path: String) throws {
        let file: GGUFFile
        do { file = try GGUFFile(path: path) }
        self.path = path
        self.file = file
        transformer = try Transformer(file: file, path: path)
        configuration = transformer.configuration
    }

    /// A model over an already-open GGUF file (tests build these in memory).
    public init(file: GGUFFile, path: String = "<memory>") throws {
        self.path = path
        self.file = file
        transformer = try Transformer(file: file, path: path)
        configuration = transformer.configuration
    }

    public var vocabularySize: Int { configuration.vocabularySize }

    /// The context length the model was trained for.
    public var trainedContextLength: Int { configuration.contextLength }

    /// A new sequence with an empty KV cache of `contextSize` positions
    /// (default: the trained context, capped at 4096).
    public func makeSession(contextSize: Int? = nil, threads: Int? = nil, maxBatch: Int = 512) -> InferenceSession {
        InferenceSession(model: self, contextSize: contextSize ?? min(configuration.contextLength, 4096),
                         threads: threads ?? ProcessInfo.processInfo.activeProcessorCount, maxBatch: maxBatch)
    }
}
