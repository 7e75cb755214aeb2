/// The transformer families the engine runs. Each one fixes how the GGUF
/// keys and tensors are read and which optional pieces the forward pass uses.
public enum Architecture: String, Sendable, CaseIterable {
    /// SmolLM2, Llama 2/3.x, Mistral: RMSNorm, normal RoPE, GQA, SwiGLU.
    case llama
    /// Qwen 2 / 2.5: as llama plus biases on Q, K and V, NeoX RoPE.
    case qwen2
    /// Qwen 3: as llama plus per-head RMSNorm on Q and K, NeoX RoPE.
    case qwen3
    /// Gemma 3: scaled embeddings, Q/K norms, post-norms, GeGLU (tanh GELU),
    /// sliding-window attention with periodic global blocks, per-block RoPE base.
    case gemma3
}

/// How RoPE pairs the dimensions of a head.
public enum RoPEOrdering: Sendable, Equatable {
    /// Pairs adjacent dimensions (2i, 2i+1), as llama.cpp's "normal" mode.
    case adjacentPairs
    /// Pairs dimension i with i + n/2, as llama.cpp's NeoX mode.
    case halves
}

/// The feed-forward activation applied to the gate projection.
public enum FeedForwardActivation: Sendable, Equatable {
    /// SwiGLU: silu(gate) * up.
    case silu
    /// GeGLU with the tanh approximation of GELU: gelu(gate) * up.
    case geluTanh
}

/// Per-block settings that can differ between blocks (Gemma 3 alternates
/// windowed and global attention blocks with different RoPE bases).
public struct BlockConfiguration: Sendable, Equatable {
    public var ropeBase: Float
    /// Multiplies positions before rotation (1 / linear scaling factor).
    public var ropePositionScale: Float
    /// Keys older than `query position - window + 1` are masked; nil attends to all.
    public var slidingWindow: Int?
}

/// Hyperparameters of a transformer, read from the GGUF keys of its architecture.
public struct ModelConfiguration: Sendable, Equatable {
    public var architecture: Architecture
    public var blockCount: Int
    public var embeddingLength: Int
    public var feedForwardLength: Int
    public var headCount: Int
    public var headCountKV: Int
    public var headDimension: Int
    /// Number of leading dimensions of each head that RoPE rotates.
    public var ropeDimensions: Int
    public var ropeOrdering: RoPEOrdering
    public var normEpsilon: Float
    public var contextLength: Int
    public var vocabularySize: Int
    public var activation: FeedForwardActivation
    /// Multiplies the token embeddings (sqrt(n_embd) for Gemma, else 1).
    public var embeddingScale: Float
    /// Multiplies Q·K before the softmax.
    public var attentionScale: Float
    public var blocks: [BlockConfiguration]

    public var queryDimension: Int { headCount * headDimension }
    public var keyValueDimension: Int { headCountKV * headDimension }
}
