import GGUF
import Kernels
#if canImport(Glibc)
import Glibc
#endif

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

/// Weight matrices copied out of the file at load time (`TransformerWeights.copyMatrices`), in one
/// allocation owned by the model. It is 2 MiB-aligned and, on Linux, advised as transparent huge
/// pages before any of it is touched: a decoded token streams every weight once, and with 4 KiB
/// pages that walk also misses the TLB every 4 KiB (and its page tables fall out of the caches).
final class MatrixCopies: @unchecked Sendable {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0
    private var used = 0

    /// Allocates the memory for all later `allocate` calls (`bytes` in all, each a multiple of 64).
    func reserve(bytes: Int) {
        precondition(base == nil, "MatrixCopies.reserve called twice")
        let hugePage = 2 << 20
        capacity = max(bytes, 1)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: hugePage)
        #if os(Linux)
        if capacity >= hugePage { _ = madvise(memory, capacity, MADV_HUGEPAGE) }
        #endif
        base = memory
    }

    /// The next `bytes` (rounded up to 64) of the reserved memory.
    func allocate(bytes: Int) -> UnsafeMutableRawPointer {
        let size = Self.size(bytes)
        precondition(base != nil && used + size <= capacity, "MatrixCopies reserved too small")
        let memory = base! + used
        used += size
        return memory
    }

    static func size(_ bytes: Int) -> Int { (bytes + 63) / 64 * 64 }

    deinit { base?.deallocate() }
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

    var matrices: [WeightMatrix] { [query, key, value, output, gate, up, down] }
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
    /// Memory of the weight matrices copied out of the file (`copyMatrices`).
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
    /// matrices by copies in one `MatrixCopies` allocation (huge pages), with their rows
    /// interleaved in groups of eight (`MatrixView.interleavingRows`) where that pays: a
    /// matrix-vector product then reads one sequential stream and needs no gathering of the
    /// eight rows' scales (the output matrix, the largest product of a decoding step; Q4_0/Q4_1
    /// layers, whose row-major `rows8` reads eight short streams). Other matrices are copied as
    /// they are. Same bytes, same results bit for bit. The file's pages of each copied matrix
    /// are released as the copy proceeds, so resident memory does not grow; when the file is
    /// not mapped (an owned copy, whose memory cannot be released) only interleaved matrices
    /// are copied.
    mutating func copyMatrices(releasing storage: GGUFStorage) {
        let tied = tokenEmbedding.view.base == output.view.base
        func copies(_ matrix: WeightMatrix, layer: Bool) -> Bool {
            storage.isMapped || Self.interleaves(matrix.view, layer: layer)
        }
        var bytes = copies(output, layer: false) ? MatrixCopies.size(output.view.rows * output.view.rowStride) : 0
        for block in blocks {
            for matrix in block.matrices where copies(matrix, layer: true) {
                bytes += MatrixCopies.size(matrix.view.rows * matrix.view.rowStride)
            }
        }
        guard bytes > 0 else { return }
        let memory = self.copies
        memory.reserve(bytes: bytes)
        func copy(_ matrix: inout WeightMatrix, layer: Bool) {
            guard copies(matrix, layer: layer) else { return }
            matrix = Self.copy(matrix, interleaving: Self.interleaves(matrix.view, layer: layer), into: memory, releasing: storage)
        }
        copy(&output, layer: false)
        if tied { tokenEmbedding = output }
        blocks = blocks.map { block in
            var block = block
            copy(&block.query, layer: true)
            copy(&block.key, layer: true)
            copy(&block.value, layer: true)
            copy(&block.output, layer: true)
            copy(&block.gate, layer: true)
            copy(&block.up, layer: true)
            copy(&block.down, layer: true)
            return block
        }
    }

    /// Whether the copy interleaves the matrix's rows: always for the output matrix when its
    /// format allows; for layers, the formats whose row-major matrix-vector product reads eight
    /// rows side by side (`TiledKernels.sideBySideTail`).
    static func interleaves(_ view: MatrixView, layer: Bool) -> Bool {
        view.canInterleaveRows && (!layer || view.format == .q4_0 || view.format == .q4_1)
    }

    private static func copy(_ matrix: WeightMatrix, interleaving: Bool, into copies: MatrixCopies,
                             releasing storage: GGUFStorage) -> WeightMatrix {
        let source = matrix.view
        let bytes = source.rows * source.rowStride
        let memory = copies.allocate(bytes: bytes)
        if interleaving {
            let view = source.interleavingRows(into: memory) { rows in storage.releasePages(source.base, count: rows * source.rowStride) }
            return WeightMatrix(name: matrix.name, view: view)
        }
        memory.copyMemory(from: source.base, byteCount: bytes)
        storage.releasePages(source.base, count: bytes)
        return WeightMatrix(name: matrix.name, view: MatrixView(format: source.format, rows: source.rows, columns: source.columns,
                                                                base: memory))
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
