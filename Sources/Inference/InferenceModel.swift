import Foundation
import Synchronization
import GGUF
import Kernels
import Tokenizer

/// A loaded model: its file (memory-mapped), configuration, weights and
/// tokenizer. Immutable and shareable; each conversation
/// runs in its own `InferenceSession`.
public final class InferenceModel: Sendable {
    public let path: String
    public let file: GGUFFile
    public let configuration: ModelConfiguration
    public let tokenizer: Tokenizer
    /// Compute threads of sessions that do not ask for a count.
    public let defaultThreadCount: Int
    let transformer: Transformer

    /// Maps the GGUF file at `path`, reads its tokenizer and checks every
    /// tensor the architecture needs. `threads` (default: the available cores)
    /// is the thread count of sessions that do not choose one.
    public convenience init(path: String, threads: Int? = nil) throws {
        try self.init(file: try GGUFFile(path: path), path: path, threads: threads)
    }

    /// A model over an already-open GGUF file (tests build these in memory).
    public init(file: GGUFFile, path: String = "<memory>", threads: Int? = nil) throws {
        self.path = path
        self.file = file
        transformer = try Transformer(file: file, path: path)
        configuration = transformer.configuration
        tokenizer = try Tokenizer(gguf: file)
        defaultThreadCount = max(1, threads ?? ThreadPool.availableCores)
    }

    public var vocabularySize: Int { configuration.vocabularySize }

    /// The context length the model was trained for.
    public var trainedContextLength: Int { configuration.contextLength }

    /// The byte string of every token id (index = id), as the model would
    /// produce it in text; control tokens map to their empty rendering.
    public func vocabularyBytes() -> [[UInt8]] { tokenizer.allTokenBytes() }

    /// The chat template text the file carries, if any.
    public var chatTemplateSource: String? { try? file.metadata.string("tokenizer.chat_template") }

    /// A new sequence with an empty KV cache of `contextSize` positions
    /// (default: the trained context, capped at 4096) that processes prompts
    /// in batches of up to `maxBatch` tokens on `threads` compute threads
    /// (pools are shared process-wide per thread count; none is created per call).
    /// The cache stores keys and values as `cacheType` (default F16, as llama.cpp).
    /// `numerics` chooses the quantized dot products' order (`Numerics`).
    public func makeSession(contextSize: Int? = nil, threads: Int? = nil, maxBatch: Int = 512,
                            cacheType: KVCacheType = .f16, numerics: Numerics = .fast) -> InferenceSession {
        InferenceSession(model: self, contextSize: contextSize ?? min(configuration.contextLength, 4096),
                         threadPool: ComputeThreads.pool(threadCount: threads ?? defaultThreadCount), maxBatch: maxBatch,
                         cacheType: cacheType, numerics: numerics)
    }
}

/// How the engine orders the floating-point sums of its quantized matrix products.
public enum Numerics: String, Sendable, CaseIterable {
    /// The engine's own kernels (the default): each block's eight partial sums are
    /// reduced as integers first, one fused multiply-add per block and output.
    case fast
    /// llama.cpp's order for the quantized products (`GGMLOrderKernels`): the 32-element
    /// formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1) with eight F32 lanes per output, one fused
    /// multiply-add per lane and block and ggml's horizontal sum; Q4_K as its repacked
    /// `q4_K_8x8` kernels and Q6_K as `ggml_vec_dot_q6_K_q8_K` (both with the orders llama.cpp
    /// uses for a batch's size). With it, SmolLM2's and Gemma 3's greedy logits equal those of
    /// llama.cpp built for AVX2 bit for bit; the matrix products cost more (about 20% for the
    /// 32-element formats, several times for the K-quants).
    case llamaCpp = "llama.cpp"
    /// `llamaCpp` as an AVX-512 build of llama.cpp computes it (the shared reference data was
    /// recorded with one): the same products, but the F16 Q·K dot product in 16-lane order
    /// and SiLU's exponential as `ggml_v_expf` for AVX-512. Emulated with AVX2 instructions.
    case llamaCppAVX512 = "llama.cpp-avx512"

    var kernelOrder: (ggml: Bool, avx512: Bool) {
        switch self {
        case .fast: (false, false)
        case .llamaCpp: (true, false)
        case .llamaCppAVX512: (true, true)
        }
    }
}

/// Process-wide thread pools, one per thread count, created on first use
/// and kept for the life of the process: models and sessions come and go,
/// the threads do not.
enum ComputeThreads {
    private static let pools = Mutex<[Int: ThreadPool]>([:])

    static func pool(threadCount: Int) -> ThreadPool {
        let count = max(1, threadCount)
        return pools.withLock { pools in
            if let pool = pools[count] { return pool }
            let pool = ThreadPool(threadCount: count)
            pools[count] = pool
            return pool
        }
    }
}
