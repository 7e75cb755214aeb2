/// Matrix products `y[t][r] = sum_c W[r][c] * x[t][c]` for `t` in `0..<tokens`,
/// on a thread pool, with reusable scratch memory.
///
/// For block-quantized weights the activations are first quantized to 8 bits
/// (`QuantizedActivations`, with the rounding llama.cpp pairs with the weight
/// format) and every output comes from integer dot products, as llama.cpp does on CPUs. F32/F16/BF16 weights use F32 dot products.
/// Each output row is computed by one thread in a fixed order, so results do
/// not depend on the thread count or on `tokens` (a matrix-matrix product
/// equals the matrix-vector products of its columns bit for bit).
///
/// A context is not thread-safe: use one per inference stream. Its scratch
/// grows to the largest product seen and is then reused, so steady-state
/// calls do not allocate.
public final class KernelContext: @unchecked Sendable {
    public let pool: ThreadPool
    /// Quantized products in exactly llama.cpp's floating-point order (`GGMLOrderKernels`: the
    /// 32-element formats, about 20% slower per product than the default kernels; Q4_K and Q6_K
    /// through `GGMLOrderKernels.superblockRows`, much slower): bit-identical to its CPU path on x86.
    /// Q4_K and Q6_K results then depend on the number of tokens in the product, as llama.cpp's do.
    public var ggmlOrder = false
    /// Elementwise and attention kernels that differ between ggml's AVX2 and AVX-512 builds
    /// (SiLU's exponential, the F16 Q·K dot product) take the AVX-512 build's order; read
    /// by the transformer. The quantized products are the same in both builds.
    public var avx512Order = false
    /// Full groups of 8 tokens (prompt processing) through the AVX-512 VNNI kernel
    /// (`StripKernels`), and Q5_0, Q4_K and Q6_K matrix-vector products through `MatrixVectorProducts`, where
    /// the CPU has it: the same bits as the AVX2 kernels, faster. Not used with `ggmlOrder`.
    public var useAVX512 = CPUFeatures.avx512VNNI
    private var activationScratch = ScratchBuffer()
    private var groupScratch = ScratchBuffer()
    private var halfSumScratch = ScratchBuffer()

    public init(pool: ThreadPool) {
        self.pool = pool
    }

    public convenience init(threads: Int = ThreadPool.availableCores) {
        self.init(pool: ThreadPool(threadCount: threads))
    }

    deinit {
        activationScratch.release()
        groupScratch.release()
        halfSumScratch.release()
    }

    /// `output[t * outputStride + r] = dot(weights.row(r), input[t * inputStride ..< + columns])`.
    /// Strides are in elements and default to `weights.columns` and `weights.rows`.
    public func matmul(_ weights: MatrixView, input: UnsafePointer<Float>, tokens: Int,
                       output: UnsafeMutablePointer<Float>, inputStride: Int? = nil, outputStride: Int? = nil) {
        run(MatmulTarget(weights, output: output, outputStride: outputStride), nil, nil,
            input: input, tokens: tokens, inputStride: inputStride)
    }

    /// Two or three products of the same input (Q/K/V projections, FFN gate and up) in one
    /// pass: the activations are quantized once and one parallel loop covers all rows.
    /// Each output is bit-identical to what `matmul` gives for its matrix alone.
    /// The matrices must have the same number of columns; their formats may differ.
    public func matmul(_ first: MatmulTarget, _ second: MatmulTarget, _ third: MatmulTarget? = nil,
                       input: UnsafePointer<Float>, tokens: Int, inputStride: Int? = nil) {
        run(first, second, third, input: input, tokens: tokens, inputStride: inputStride)
    }

    private func run(_ t0: MatmulTarget, _ t1: MatmulTarget?, _ t2: MatmulTarget?,
                     input: UnsafePointer<Float>, tokens: Int, inputStride: Int?) {
        let columns = t0.weights.columns
        precondition(t1.map { $0.weights.columns == columns } ?? true && t2.map { $0.weights.columns == columns } ?? true,
                     "matmul: products sharing an input need the same number of columns")
        let inStride = inputStride ?? columns
        guard tokens > 0 else { return }
        // Products whose formats pair with different activation roundings run one by one.
        let s0 = t0.weights.format.activationScheme, s1 = t1?.weights.format.activationScheme
        let s2 = t2?.weights.format.activationScheme
        let scheme = s0 ?? s1 ?? s2
        @inline(__always) func differs(_ s: ActivationScheme?) -> Bool { s != nil && s != scheme }
        if differs(s0) || differs(s1) || differs(s2) {
            run(t0, nil, nil, input: input, tokens: tokens, inputStride: inputStride)
            if let t1 { run(t1, nil, nil, input: input, tokens: tokens, inputStride: inputStride) }
            if let t2 { run(t2, nil, nil, input: input, tokens: tokens, inputStride: inputStride) }
            return
        }
        let anyQuantized = scheme != nil
        // Quantize the activations once for every quantized product.
        let rowBytes = QuantizedActivations.rowBytes(columns: columns)
        let blocks = columns / 32
        let groups = tokens / 8
        #if arch(x86_64)
        let strips = useAVX512 && !ggmlOrder && anyQuantized && groups >= StripKernels.minimumGroups
        #else
        let strips = false
        #endif
        let groupBytes = TiledKernels.TokenGroup.bytes(blocks: blocks)
        var quantized = UnsafeRawPointer(bitPattern: 1)!, packed = UnsafeRawPointer(bitPattern: 1)!
        var halfSums: UnsafePointer<Int32>? = nil
        if anyQuantized {
            let activations = activationScratch.reserve(bytes: rowBytes * tokens)
            let quantizeRows = { (range: Range<Int>) in
                for t in range {
                    QuantizedActivations.quantizeRow(input + t * inStride, columns: columns, scheme: scheme!,
                                                     into: activations + t * rowBytes)
                }
            }
            if tokens >= 4 { pool.parallelFor(tokens, grain: 1, quantizeRows) } else { quantizeRows(0..<tokens) }
            quantized = UnsafeRawPointer(activations)
            let source = quantized
            #if arch(x86_64)
            let signed: (MatmulTarget?) -> Bool = { $0.map { $0.weights.format == .q8_0 || $0.weights.format == .q6_K } ?? false }
            if strips && (signed(t0) || signed(t1) || signed(t2)) {
                let sums = halfSumScratch.reserve(bytes: 8 * blocks * 8 * groups).assumingMemoryBound(to: Int32.self)
                pool.parallelFor(8 * groups, grain: 8) { range in
                    StripKernels.halfSums(source, rowBytes: rowBytes, tokens: range, blocks: blocks, into: sums)
                }
                halfSums = UnsafePointer(sums)
            }
            #endif
            if groups > 0 && !strips {
                let groupMemory = groupScratch.reserve(bytes: groupBytes * groups)
                pool.parallelFor(groups, grain: 1) { range in
                    for g in range {
                        TiledKernels.TokenGroup.pack(rows: source + 8 * g * rowBytes, rowBytes: rowBytes, blocks: blocks,
                                                     into: groupMemory + g * groupBytes)
                    }
                }
                packed = UnsafeRawPointer(groupMemory)
            }
        }
        // The products' rows, each padded to a multiple of 8 (16 for the AVX-512 strips), laid end
        // to end; chunks of that many rows then never straddle two products or split a row group.
        let unit = strips ? 16 : 8
        @inline(__always) func padded(_ t: MatmulTarget?) -> Int { ((t?.weights.rows ?? 0) + unit - 1) / unit * unit }
        let end0 = padded(t0), end1 = end0 + padded(t1), end2 = end1 + padded(t2)
        let activations = quantized, tokenGroups = packed, ggmlOrder = self.ggmlOrder, sums = halfSums, avx512 = useAVX512
        pool.parallelFor(end2, grain: unit) { range in
            var lower = range.lowerBound
            while lower < range.upperBound {
                let (target, start, end) = lower < end0 ? (t0, 0, end0) : (lower < end1 ? (t1!, end0, end1) : (t2!, end1, end2))
                let upper = min(range.upperBound, end)
                let rows = (lower - start)..<min(upper - start, target.weights.rows)
                if !rows.isEmpty {
                    KernelContext.compute(target, rows: rows, input: input, inputStride: inStride, tokens: tokens,
                                          activations: activations, rowBytes: rowBytes, groups: tokenGroups,
                                          kernels: TiledKernels.Choice(ggmlOrder: ggmlOrder, strips: strips, halfSums: sums, avx512: avx512))
                }
                lower = upper
            }
        }
    }

    private static func compute(_ target: MatmulTarget, rows: Range<Int>, input: UnsafePointer<Float>, inputStride: Int,
                                tokens: Int, activations: UnsafeRawPointer, rowBytes: Int, groups: UnsafeRawPointer,
                                kernels: TiledKernels.Choice) {
        let weights = target.weights, output = target.output
        let outStride = target.outputStride ?? weights.rows
        func run<W: WeightBlocks>(_ w: W.Type) {
            TiledKernels.rows(w, weights, rows, activations: activations, rowBytes: rowBytes, groups: groups,
                              tokens: tokens, output: output, outputStride: outStride, kernels: kernels)
        }
        func runFloat(_ kernel: (UnsafeRawPointer, UnsafePointer<Float>, Int) -> Float) {
            for r in rows {
                let w = weights.row(r)
                for t in 0..<tokens { output[t * outStride + r] = kernel(w, input + t * inputStride, weights.columns) }
            }
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
        case .f32: runFloat(FloatDot.f32)
        case .f16: runFloat(FloatDot.f16)
        case .bf16: runFloat(FloatDot.bf16)
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

/// One product in a shared-input `matmul`: its weights and where its outputs go
/// (`output[t * outputStride + r]`, `outputStride` defaulting to the row count).
public struct MatmulTarget: @unchecked Sendable {
    public let weights: MatrixView
    public let output: UnsafeMutablePointer<Float>
    public let outputStride: Int?

    public init(_ weights: MatrixView, output: UnsafeMutablePointer<Float>, outputStride: Int? = nil) {
        self.weights = weights
        self.output = output
        self.outputStride = outputStride
    }
}
