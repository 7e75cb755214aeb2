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
    private var scratch: UnsafeMutableRawPointer?
    private var scratchBytes = 0

    public init(pool: ThreadPool) {
        self.pool = pool
    }

    public convenience init(threads: Int = ThreadPool.availableCores) {
        self.init(pool: ThreadPool(threadCount: threads))
    }

    deinit { scratch?.deallocate() }

    /// Scratch memory of at least `bytes` bytes, valid until the next call.
    public func scratchBuffer(bytes: Int) -> UnsafeMutableRawPointer {
        if bytes > scratchBytes || scratch == nil {
            scratch?.deallocate()
            scratchBytes = max(bytes, 64)
            scratch = .allocate(byteCount: scratchBytes, alignment: 64)
        }
        return scratch!
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
            let activations = scratchBuffer(bytes: rowBytes * tokens)
            let quantizeRows = { (range: Range<Int>) in
                for t in range {
                    QuantizedActivations.quantizeRow(input + t * inStride, columns: columns, into: activations + t * rowBytes)
                }
            }
            if tokens >= 4 { pool.parallelFor(tokens, grain: 1, quantizeRows) } else { quantizeRows(0..<tokens) }
            let kernel = QuantizedDot.kernel(for: weights.format)
            let blocks = columns / 32
            let quantized = UnsafeRawPointer(activations)
            pool.parallelFor(rows, grain: grain) { range in
                for r in range {
                    let w = weights.row(r)
                    for t in 0..<tokens {
                        output[t * outStride + r] = kernel(w, QuantizedRow(quantized + t * rowBytes, columns: columns), blocks)
                    }
                }
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
