/// Quantized dot products of the 32-element formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1)
/// in exactly the floating-point order of ggml's x86 AVX2 `ggml_vec_dot_*` functions
/// (ggml-cpu/arch/x86/quants.c), which llama.cpp uses for these formats both when
/// decoding and, for Q4_1/Q5_1, when processing prompts:
///
/// - per block, eight Int32 lanes, lane `k` the exact sum of the products of elements
///   `4k ..< 4k+4` (`mul_sum_i8_pairs_float` / `mul_sum_us8_pairs_float`; Q4_0 and Q5_0
///   codes are made signed first, `code - 8` / `code - 16`, as ggml does);
/// - the lanes converted to F32 and accumulated with one fused multiply-add per lane,
///   `acc = fma(d_w * d_x, lanes, acc)`, `d_w * d_x` the F32 product of the two F16 scales;
/// - Q4_1/Q5_1 also accumulate `summs = fma(m_w, s_x, summs)` (GCC contracts
///   `summs += m * s`);
/// - at the end `hsum_float_8(acc) + summs`, the horizontal sum in ggml's order
///   `((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))`.
///
/// `rows8` and `tokens8` compute exactly this per output, so results stay independent
/// of the thread count and of how tokens are batched.
enum GGMLOrderKernels {
    /// The eight ggml lanes of one block: `codes` are the format's byte codes.
    @inline(__always)
    static func lanes<W: WeightBlocks>(_: W.Type, _ codes: SIMD32<UInt8>, _ x: SIMD32<Int8>) -> SIMD8<Float> {
        if W.signedCodes {
            return toFloat(dotSigned32(unsafeBitCast(codes, to: SIMD32<Int8>.self), x))
        }
        if W.ggmlCodeBias != 0 {
            let signed = wrappingSubtract(codes, SIMD32(repeating: W.ggmlCodeBias))
            return toFloat(dotSigned32(unsafeBitCast(signed, to: SIMD32<Int8>.self), x))
        }
        return toFloat(dotUnsigned32(codes, x))
    }

    /// ggml's `hsum_float_8`.
    @inline(__always)
    static func horizontalSum(_ a: SIMD8<Float>) -> Float {
        let r = a.lowHalf + a.highHalf
        return (r[0] + r[2]) + (r[1] + r[3])
    }

    /// Whether the format adds ggml's `summs` (the F16 block minimum times the activation sum).
    @inline(__always)
    static func hasSumTerm<W: WeightBlocks>(_: W.Type) -> Bool { W.hasOffset && W.ggmlCodeBias == 0 }

    /// `output[r - firstRow]` for rows `firstRow ..< min(firstRow + 8, matrix.rows)` times `x`.
    @inline(__always)
    static func rows8<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, firstRow: Int, x: QuantizedRow,
                                       output: UnsafeMutablePointer<Float>) {
        let last = matrix.rows - 1
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { matrix.row(min(firstRow + i, last)) }
        let w0 = row(0), w1 = row(1), w2 = row(2), w3 = row(3), w4 = row(4), w5 = row(5), w6 = row(6), w7 = row(7)
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
        var a4 = SIMD8<Float>(), a5 = SIMD8<Float>(), a6 = SIMD8<Float>(), a7 = SIMD8<Float>()
        var summs = SIMD8<Float>()
        for b in 0..<(matrix.columns / 32) {
            let xb = x.block(b)
            let at = matrix.blockStride * b
            if matrix.interleavedRows { TiledKernels.prefetchAhead(of: w0 + at, bytes: 8 * W.blockBytes) }
            @inline(__always) func header(_ w: UnsafeRawPointer) -> UInt32 { w.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
            let (scales, minima) = W.scales(headers: SIMD8(header(w0), header(w1), header(w2), header(w3),
                                                           header(w4), header(w5), header(w6), header(w7)))
            let d = scales * SIMD8(repeating: x.scales[b])
            @inline(__always) func q(_ w: UnsafeRawPointer) -> SIMD8<Float> { lanes(W.self, W.codes(w + at, 0), xb) }
            a0.addProduct(SIMD8(repeating: d[0]), q(w0)); a1.addProduct(SIMD8(repeating: d[1]), q(w1))
            a2.addProduct(SIMD8(repeating: d[2]), q(w2)); a3.addProduct(SIMD8(repeating: d[3]), q(w3))
            a4.addProduct(SIMD8(repeating: d[4]), q(w4)); a5.addProduct(SIMD8(repeating: d[5]), q(w5))
            a6.addProduct(SIMD8(repeating: d[6]), q(w6)); a7.addProduct(SIMD8(repeating: d[7]), q(w7))
            if hasSumTerm(W.self) { summs.addProduct(minima, SIMD8(repeating: x.sums[b])) }
        }
        let result = SIMD8<Float>(horizontalSum(a0), horizontalSum(a1), horizontalSum(a2), horizontalSum(a3),
                                  horizontalSum(a4), horizontalSum(a5), horizontalSum(a6), horizontalSum(a7)) + summs
        for i in 0..<min(8, matrix.rows - firstRow) { output[i] = result[i] }
    }

    /// `output[t * outputStride]` for the eight tokens of `group` times row `row`.
    @inline(__always)
    static func tokens8<W: WeightBlocks>(_: W.Type, row: UnsafeRawPointer, blocks: Int, blockStride: Int, group: TiledKernels.TokenGroup,
                                         output: UnsafeMutablePointer<Float>, outputStride: Int) {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
        var a4 = SIMD8<Float>(), a5 = SIMD8<Float>(), a6 = SIMD8<Float>(), a7 = SIMD8<Float>()
        var summs = SIMD8<Float>()
        let codes = UnsafeRawPointer(group.codes), scales = UnsafeRawPointer(group.scales), sums = UnsafeRawPointer(group.sums)
        for b in 0..<blocks {
            let (c, scale, minimum) = W.decode(row + blockStride * b, 0)
            let xb = codes + 256 * b
            let d = SIMD8(repeating: scale) * scales.loadUnaligned(fromByteOffset: 32 * b, as: SIMD8<Float>.self)
            @inline(__always) func q(_ t: Int) -> SIMD8<Float> {
                lanes(W.self, c, xb.loadUnaligned(fromByteOffset: 32 * t, as: SIMD32<Int8>.self))
            }
            a0.addProduct(SIMD8(repeating: d[0]), q(0)); a1.addProduct(SIMD8(repeating: d[1]), q(1))
            a2.addProduct(SIMD8(repeating: d[2]), q(2)); a3.addProduct(SIMD8(repeating: d[3]), q(3))
            a4.addProduct(SIMD8(repeating: d[4]), q(4)); a5.addProduct(SIMD8(repeating: d[5]), q(5))
            a6.addProduct(SIMD8(repeating: d[6]), q(6)); a7.addProduct(SIMD8(repeating: d[7]), q(7))
            if hasSumTerm(W.self) {
                summs.addProduct(SIMD8(repeating: minimum), sums.loadUnaligned(fromByteOffset: 32 * b, as: SIMD8<Float>.self))
            }
        }
        let result = SIMD8<Float>(horizontalSum(a0), horizontalSum(a1), horizontalSum(a2), horizontalSum(a3),
                                  horizontalSum(a4), horizontalSum(a5), horizontalSum(a6), horizontalSum(a7)) + summs
        for t in 0..<8 { output[t * outputStride] = result[t] }
    }
}
