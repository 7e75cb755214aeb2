import Foundation
import GGUF
import Inference

/// Deterministic pseudo-random numbers for test weights.
struct TestRandom {
    private var generator: SeededGenerator
    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    /// Uniform in [-scale, scale).
    mutating func uniform(_ scale: Float) -> Float {
        (Float(next() >> 40) / Float(1 << 24) * 2 - 1) * scale
    }
}

/// The shape of a tiny seeded-random model written by the tests as GGUF.
struct TinyModelSpec {
    var architecture: String
    /// Storage type of the 2-D weight matrices (norms and biases stay F32).
    var matrixType: GGMLType
    var blockCount = 2
    var embeddingLength = 64
    var feedForwardLength = 96
    var headCount = 4
    var headCountKV = 2
    var headDimension = 16
    var vocabularySize = 96
    var ropeBase: Float = 10_000
    var normEpsilon: Float = 1e-5
    var slidingWindow = 4
    var tiedEmbeddings = true
    var seed: UInt64 = 42

    /// Quantized block types need rows that are multiples of 256 for the K formats.
    static func forType(_ architecture: String, _ type: GGMLType) -> TinyModelSpec {
        var spec = TinyModelSpec(architecture: architecture, matrixType: type)
        if type.blockSize == 256 {
            spec.embeddingLength = 256
            spec.feedForwardLength = 256
            spec.headCount = 4
            spec.headCountKV = 2
            spec.headDimension = 64
        }
        if architecture == "gemma3" {
            spec.blockCount = 6 // blocks 0-4 windowed, block 5 global
            spec.headCountKV = 1
            spec.ropeBase = 1_000_000
            spec.normEpsilon = 1e-6
        }
        if architecture == "llama" { spec.tiedEmbeddings = false }
        return spec
    }
}

/// A tiny model: the GGUF bytes and the F32 weights the reference uses
/// (the dequantized values of what was written).
struct TinyModel {
    let spec: TinyModelSpec
    let file: [UInt8]
    let weights: [String: [Float]]

    /// `encode` turns F32 rows into `spec.matrixType`'s bytes and `decode`
    /// back (so the reference sees exactly what the file holds).
    init(spec: TinyModelSpec,
         encode: (GGMLType, [Float], Int) throws -> [UInt8],
         decode: (GGMLType, [UInt8], Int) throws -> [Float]) throws {
        self.spec = spec
        var random = TestRandom(seed: spec.seed)
        var writer = GGUFWriter()
        var weights: [String: [Float]] = [:]
        let a = spec.architecture + "."
        writer.set("general.architecture", spec.architecture)
        writer.set("tokenizer.ggml.model", "gpt2")
        writer.set("tokenizer.ggml.pre", "default")
        writer.set("tokenizer.ggml.tokens", strings: (0..<spec.vocabularySize).map { "t\($0)" })
        writer.set(a + "block_count", uint32: UInt32(spec.blockCount))
        writer.set(a + "context_length", uint32: 256)
        writer.set(a + "embedding_length", uint32: UInt32(spec.embeddingLength))
        writer.set(a + "feed_forward_length", uint32: UInt32(spec.feedForwardLength))
        writer.set(a + "attention.head_count", uint32: UInt32(spec.headCount))
        writer.set(a + "attention.head_count_kv", uint32: UInt32(spec.headCountKV))
        writer.set(a + "attention.key_length", uint32: UInt32(spec.headDimension))
        writer.set(a + "attention.value_length", uint32: UInt32(spec.headDimension))
        writer.set(a + "attention.layer_norm_rms_epsilon", float32: spec.normEpsilon)
        writer.set(a + "rope.freq_base", float32: spec.ropeBase)
        if spec.architecture == "gemma3" {
            writer.set(a + "attention.sliding_window", uint32: UInt32(spec.slidingWindow))
        }

        func matrix(_ name: String, rows: Int, columns: Int, scale: Float) throws {
            let values = (0..<rows * columns).map { _ in random.uniform(scale) }
            let bytes = try encode(spec.matrixType, values, columns)
            try writer.addTensor(name: name, type: spec.matrixType, dimensions: [columns, rows], data: bytes)
            weights[name] = try decode(spec.matrixType, bytes, columns)
        }
        func vector(_ name: String, count: Int, around center: Float, spread: Float) throws {
            let values = (0..<count).map { _ in center + random.uniform(spread) }
            try writer.addTensor(name: name, dimensions: [count], float32s: values)
            weights[name] = values
        }

        let embedding = spec.embeddingLength
        let query = spec.headCount * spec.headDimension
        let keyValue = spec.headCountKV * spec.headDimension
        let inScale = 1 / Float(embedding).squareRoot() * 1.7
        try matrix("token_embd.weight", rows: spec.vocabularySize, columns: embedding, scale: 1)
        try vector("output_norm.weight", count: embedding, around: 1, spread: 0.2)
        if !spec.tiedEmbeddings {
            try matrix("output.weight", rows: spec.vocabularySize, columns: embedding, scale: inScale)
        }
        for block in 0..<spec.blockCount {
            let p = "blk.\(block)."
            try vector(p + "attn_norm.weight", count: embedding, around: 1, spread: 0.2)
            try matrix(p + "attn_q.weight", rows: query, columns: embedding, scale: inScale)
            try matrix(p + "attn_k.weight", rows: keyValue, columns: embedding, scale: inScale)
            try matrix(p + "attn_v.weight", rows: keyValue, columns: embedding, scale: inScale)
            try matrix(p + "attn_output.weight", rows: embedding, columns: query, scale: 1 / Float(query).squareRoot())
            if spec.architecture == "qwen2" {
                try vector(p + "attn_q.bias", count: query, around: 0, spread: 0.3)
                try vector(p + "attn_k.bias", count: keyValue, around: 0, spread: 0.3)
                try vector(p + "attn_v.bias", count: keyValue, around: 0, spread: 0.3)
            }
            if spec.architecture == "gemma3" || spec.architecture == "qwen3" {
                try vector(p + "attn_q_norm.weight", count: spec.headDimension, around: 1, spread: 0.3)
                try vector(p + "attn_k_norm.weight", count: spec.headDimension, around: 1, spread: 0.3)
            }
            if spec.architecture == "gemma3" {
                try vector(p + "post_attention_norm.weight", count: embedding, around: 1, spread: 0.2)
                try vector(p + "post_ffw_norm.weight", count: embedding, around: 1, spread: 0.2)
            }
            try vector(p + "ffn_norm.weight", count: embedding, around: 1, spread: 0.2)
            try matrix(p + "ffn_gate.weight", rows: spec.feedForwardLength, columns: embedding, scale: inScale)
            try matrix(p + "ffn_up.weight", rows: spec.feedForwardLength, columns: embedding, scale: inScale)
            try matrix(p + "ffn_down.weight", rows: embedding, columns: spec.feedForwardLength,
                       scale: 1 / Float(spec.feedForwardLength).squareRoot())
        }
        file = try writer.serialized()
        self.weights = weights
    }

    func load() throws -> InferenceModel {
        try InferenceModel(file: try GGUFFile(bytes: file), path: "<tiny \(spec.architecture) \(spec.matrixType)>")
    }
}
