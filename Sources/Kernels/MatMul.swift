/// Matrix products `y[t][r] = sum_c W[r][c] * x[t][c]` for `t` in `0..<tokens`,
/// on a thread pool, with reusable scratch memory.
///
/// For block-quantized weights the activations are first quantized to 8 bits
/// (`QuantizedActivations`) and every output comes from integer dot products,
/// as llama.cpp does on CPUs. F32/F16/BF16 weights use F32 dot products.
/// Each output row is computed by one thread in a fixed order, so results do
/// not depend on the thread count or on `tokens` (a matrix-matrix product
/// equals the matrix-vector products of its columns bit for bit).
///
/// A context is not thread-safe: use one per inference stream. Its scratch
/// grows to the largest product seen and is then reused, so steady-state
/// calls do not allocate.
public final class KernelContext: @unchecked Sendable {
    public let pool: ThreadPool
    private var activationScratch = ScratchBuffer()
    private var groupScratch = ScratchBuffer()

    public init(pool: ThreadPool) {
        self.pool = pool
    }

    public convenience init(threads: Int = ThreadPool.availableCores) {
        self.init(pool: ThreadPool(threadCount: threads))
    }

    deinit {
        activationScratch.release()
        groupScratch.release()
    }

    /// `output[t * outputStride + r] = dot(weights.row(r), input[t * inputStride ..< + columns])`.
    /// Strides are in elements and default to `weights.columns` and `weights.rows`.
    public func matmul(_ weights: MatrixView, input: UnsafePointer<Float>, tokens: Int,
                       output: UnsafeMutablePointer<Float>, inputStride: Int? = nil, outputStride: Int? = nil) {
        let columns = weights.columns, rows = weights.rows
        let inStride = inputStride ?? columns, outStride = outputStride ?? rows
        guard tokens > 0, rows > 0 else { return }
        // Rows per chunk: enough to amortise claiming, few enough to balance.
        let grain = 16
        if weights.format.isQuantized {
            let rowBytes = QuantizedActivations.rowBytes(columns: columns)
            let activations = activationScratch.reserve(bytes: rowBytes * tokens)
            let quantizeRows = { (range: Range<Int>) in
                for t in range {
                    QuantizedActivations.quantizeRow(input + t * inStride, columns: columns, into: activations + t * rowBytes)
                }
            }
            if tokens >= 4 { pool.parallelFor(tokens, grain: 1, quantizeRows) } else { quantizeRows(0..<tokens) }
            let blocks = columns / 32
            let groups = tokens / 8
            let groupBytes = TiledKernels.TokenGroup.bytes(blocks: blocks)
            let packed = groupScratch.reserve(bytes: groupBytes * groups)
            let quantized = UnsafeRawPointer(activations)
            if groups > 0 {
                pool.parallelFor(groups, grain: 1) { range in
                    for g in range {
                        TiledKernels.TokenGroup.pack(rows: quantized + 8 * g * rowBytes, rowBytes: rowBytes, blocks: blocks,
                                                     into: packed + g * groupBytes)
                    }
                }
            }
            let y = output
            func run<W: WeightBlocks>(_ w: W.Type) {
                TiledKernels.matmul(w, weights, activations: quantized, rowBytes: rowBytes, groups: UnsafeRawPointer(packed),
                                    tokens: tokens, output: y, outputStride: outStride, pool: pool)
            }
            switch weights.format {
            case .q8_0: run(Q8_0Blocks.self)
            case .q4_0: run(Q4_0Blocks.self)
            case .q4_1: run(Q4_1Blocks.self)
            case .q5_0: run(Q5_0Blocks.self)
            case .q5_1: run(Q5_1Blocks.self)
            case .q4_K: run(Q4_KBlocks.self)
            case .q5_K: run(Q5_KBlocks.self)
            case .q6_K: run(Q6_KBlocks.self)
            case .f32, .f16, .bf16: preconditionFailure("unreachable")
            }
        } else {
            let kernel: (UnsafeRawPointer, UnsafePointer<Float>, Int) -> Float
            switch weights.format {
            case .f32: kernel = FloatDot.f32
            case .f16: kernel = FloatDot.f16
            default: kernel = FloatDot.bf16
            }
            pool.parallelFor(rows, grain: grain) { range in
                for r in range {
                    let w = weights.row(r)
                    for t in 0..<tokens {
                        output[t * outStride + r] = kernel(w, input + t * inStride, columns)
                    }
                }
            }
        }
    }

    /// The matrix-vector product: `matmul` with one token.
    public func matvec(_ weights: MatrixView, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
        matmul(weights, input: input, tokens: 1, output: output)
    }
}

/// Memory that grows to the largest request and is then reused.
struct ScratchBuffer {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0

    mutating func reserve(bytes: Int) -> UnsafeMutableRawPointer {
        if let base, bytes <= capacity { return base }
        base?.deallocate()
        capacity = max(bytes, 64)
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        base = fresh
        return fresh
    }

    mutating func release() {
        base?.deallocate()
        base = nil
        capacity = 0
    }
}
