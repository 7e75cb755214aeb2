import GGUF
import Kernels

/// A tensor as the loader sees it in the model file.
struct TensorView: @unchecked Sendable {
    let name: String
    /// nil when the kernels cannot compute with the stored type.
    let format: QuantFormat?
    let typeName: String
    /// Innermost first, as GGUF stores them.
    let dimensions: [Int]
    let data: UnsafeRawPointer
}

/// F32 vectors (norm weights, biases) copied out of the file at load time,
/// in one allocation owned by the model.
final class VectorArena: @unchecked Sendable {
    private var storage: UnsafeMutablePointer<Float>
    private var capacity: Int
    private var used = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// Copies (converting to F32) `count` elements; the pointer lives as long as the arena.
    func store(_ tensor: TensorView, count: Int) -> UnsafePointer<Float> {
        precondition(tensor.format != nil)
        precondition(used + count <= capacity, "VectorArena sized too small")
        let destination = storage + used
        used += count
        Dequantize.row(tensor.format!, from: tensor.data, to: destination, count: count)
        return UnsafePointer(destination)
    }
}

/// Weight matrices copied out of the file at load time (`TransformerWeights.interleaveRows`),
/// owned by the model.
final class MatrixCopies: @unchecked Sendable {
    private var allocations: [UnsafeMutableRawPointer] = []

    func allocate(bytes: Int) -> UnsafeMutableRawPointer {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 64)
        allocations.append(memory)
        return memory
    }

    deinit { for memory in allocations { memory.deallocate() } }
}

struct BlockWeights: @unchecked Sendable {
    var attentionNorm: UnsafePointer<Float>
    var query: WeightMatrix
    var key: WeightMatrix
    var value: WeightMatrix
    var output: WeightMatrix
    var queryBias: UnsafePointer<Float>?
    var keyBias: UnsafePointer<Float>?
    var valueBias: UnsafePointer<Float>?
    var queryNorm: UnsafePointer<Float>?
    var keyNorm: UnsafePointer<Float>?
    var postAttentionNorm: UnsafePointer<Float>?
    var feedForwardNorm: UnsafePointer<Float>
    var gate: WeightMatrix
    var up: WeightMatrix
    var down: WeightMatrix
    var postFeedForwardNorm: UnsafePointer<Float>?
}

struct TransformerWeights: @unchecked Sendable {
    var tokenEmbedding: WeightMatrix
    var outputNorm: UnsafePointer<Float>
    /// The output projection; `tokenEmbedding` when the embeddings are tied.
    var output: WeightMatrix
    /// Llama 3.1 style RoPE frequency divisors (`rope_freqs.weight`), ropeDimensions/2 long.
    var ropeFrequencyFactors: UnsafePointer<Float>?
    var blocks: [BlockWeights]
    let arena: VectorArena
    /// Memory of the weight matrices copied out of the file (`interleaveRows`).
    let copies = MatrixCopies()

    /// Finds and checks every tensor the architecture needs.
    init(configuration c: ModelConfiguration, path: String, tensor lookup: (String) -> TensorView?) throws(InferenceError) {
        let vectorCount = 2 * c.embeddingLength + c.ropeDimensions
            + c.blockCount * (4 * c.embeddingLength + 2 * c.queryDimension + 4 * c.keyValueDimension + 2 * c.headDimension)
        let arena = VectorArena(capacity: vectorCount)
        self.arena = arena

        func find(_ name: String) throws(InferenceError) -> TensorView {
            guard let view = lookup(name) else { throw .missingTensor(name: name, path: path) }
            return view
        }
        func matrix(_ name: String, rows: Int, columns: Int) throws(InferenceError) -> WeightMatrix {
            let view = try find(name)
            return try Self.matrix(view, rows: rows, columns: columns, path: path)
        }
        func vector(_ name: String, count: Int) throws(InferenceError) -> UnsafePointer<Float> {
            try Self.vector(try find(name), count: count, arena: arena, path: path)
        }
        func optionalVector(_ name: String, count: Int) throws(InferenceError) -> UnsafePointer<Float>? {
            guard let view = lookup(name) else { return nil }
            return try Self.vector(view, count: count, arena: arena, path: path)
        }

        let embedding = try matrix("token_embd.weight", rows: c.vocabularySize, columns: c.embeddingLength)
        tokenEmbedding = embedding
        outputNorm = try vector("output_norm.weight", count: c.embeddingLength)
        if lookup("output.weight") != nil {
            output = try matrix("output.weight", rows: c.vocabularySize, columns: c.embeddingLength)
        } else {
            output = embedding
        }
        ropeFrequencyFactors = try optionalVector("rope_freqs.weight", count: c.ropeDimensions / 2)

        var blocks: [BlockWeights] = []
        for index in 0..<c.blockCount {
            let p = "blk.\(index)."
            let needsQKNorm = c.architecture == .gemma3 || c.architecture == .qwen3
            let needsBias = c.architecture == .qwen2
            let needsPostNorms = c.architecture == .gemma3
            blocks.append(BlockWeights(
                attentionNorm: try vector(p + "attn_norm.weight", count: c.embeddingLength),
                query: try matrix(p + "attn_q.weight", rows: c.queryDimension, columns: c.embeddingLength),
                key: try matrix(p + "attn_k.weight", rows: c.keyValueDimension, columns: c.embeddingLength),
                value: try matrix(p + "attn_v.weight", rows: c.keyValueDimension, columns: c.embeddingLength),
                output: try matrix(p + "attn_output.weight", rows: c.embeddingLength, columns: c.queryDimension),
                queryBias: needsBias ? try vector(p + "attn_q.bias", count: c.queryDimension) : try optionalVector(p + "attn_q.bias", count: c.queryDimension),
                keyBias: needsBias ? try vector(p + "attn_k.bias", count: c.keyValueDimension) : try optionalVector(p + "attn_k.bias", count: c.keyValueDimension),
                valueBias: needsBias ? try vector(p + "attn_v.bias", count: c.keyValueDimension) : try optionalVector(p + "attn_v.bias", count: c.keyValueDimension),
                queryNorm: needsQKNorm ? try vector(p + "attn_q_norm.weight", count: c.headDimension) : nil,
                keyNorm: needsQKNorm ? try vector(p + "attn_k_norm.weight", count: c.headDimension) : nil,
                postAttentionNorm: needsPostNorms ? try vector(p + "post_attention_norm.weight", count: c.embeddingLength) : nil,
                feedForwardNorm: try vector(p + "ffn_norm.weight", count: c.embeddingLength),
                gate: try matrix(p + "ffn_gate.weight", rows: c.feedForwardLength, columns: c.embeddingLength),
                up: try matrix(p + "ffn_up.weight", rows: c.feedForwardLength, columns: c.embeddingLength),
                down: try matrix(p + "ffn_down.weight", rows: c.embeddingLength, columns: c.feedForwardLength),
                postFeedForwardNorm: needsPostNorms ? try vector(p + "post_ffw_norm.weight", count: c.embeddingLength) : nil
            ))
        }
        self.blocks = blocks
    }

    /// Replaces the output matrix (and the token embedding, when tied to it) and the layers'
    /// matrices by copies with their rows interleaved in groups of eight
    /// (`MatrixView.interleavingRows`), where the format allows: a matrix-vector product then
    /// reads one sequential stream and needs no gathering of the eight rows' scales (the
    /// output matrix, the largest product of a decoding step; Q4_0/Q4_1 layers, whose
    /// row-major `rows8` reads eight short streams). Same bytes, same results bit for bit.
    /// The file's pages of each copied matrix are released as the copy proceeds, so resident
    /// memory does not grow.
    mutating func interleaveRows(releasing storage: GGUFStorage) {
        let source = output.view
        let tied = tokenEmbedding.view.base == source.base
        output = Self.interleaved(output, into: copies, releasing: storage)
        if tied { tokenEmbedding = output }
        let copies = self.copies
        blocks = blocks.map { block in
            var block = block
            func layer(_ matrix: inout WeightMatrix) {
                if Self.interleavesLayer(matrix.view.format) { matrix = Self.interleaved(matrix, into: copies, releasing: storage) }
            }
            layer(&block.query)
            layer(&block.key)
            layer(&block.value)
            layer(&block.output)
            layer(&block.gate)
            layer(&block.up)
            layer(&block.down)
            return block
        }
    }

    /// Layer matrices worth interleaving: the formats whose row-major matrix-vector product
    /// reads eight rows side by side (`TiledKernels.sideBySideTail`).
    static func interleavesLayer(_ format: QuantFormat) -> Bool {
        format == .q4_0 || format == .q4_1
    }

    private static func interleaved(_ matrix: WeightMatrix, into copies: MatrixCopies, releasing storage: GGUFStorage) -> WeightMatrix {
        let source = matrix.view
        guard source.canInterleaveRows else { return matrix }
        let memory = copies.allocate(bytes: source.rows * source.rowStride)
        let view = source.interleavingRows(into: memory) { rows in storage.releasePages(source.base, count: rows * source.rowStride) }
        return WeightMatrix(name: matrix.name, view: view)
    }

    private static func matrix(_ view: TensorView, rows: Int, columns: Int, path: String) throws(InferenceError) -> WeightMatrix {
        let expected = [columns, rows]
        guard view.dimensions == expected || view.dimensions == expected + [1] || view.dimensions == expected + [1, 1] else {
            throw .tensorShapeMismatch(name: view.name, expected: expected, actual: view.dimensions, path: path)
        }
        guard let format = view.format, format.canStoreRow(columns: columns) else {
            throw .unsupportedTensorType(name: view.name, type: view.typeName, path: path)
        }
        return WeightMatrix(name: view.name, view: MatrixView(format: format, rows: rows, columns: columns, base: view.data))
    }

    private static func vector(_ view: TensorView, count: Int, arena: VectorArena, path: String) throws(InferenceError) -> UnsafePointer<Float> {
        guard view.dimensions.reduce(1, *) == count, view.dimensions.first == count else {
            throw .tensorShapeMismatch(name: view.name, expected: [count], actual: view.dimensions, path: path)
        }
        guard let format = view.format, !format.isQuantized else {
            throw .unsupportedTensorType(name: view.name, type: view.typeName, path: path)
        }
        return arena.store(view, count: count)
    }
}
