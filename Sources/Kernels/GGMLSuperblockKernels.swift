/// The K-quant products (Q4_K, Q6_K) in exactly the floating-point order llama.cpp's x86 CPU
/// path gives them, for `Numerics.llamaCpp` (ggml-cpu of llama.cpp 0c1e570, read from its
/// source and checked against its AVX2 build's machine code):
///
/// - Q4_K: llama.cpp repacks every Q4_K matrix with a multiple of 8 rows to `q4_K_8x8`.
///   A matrix-vector product (`ggml_gemv_q4_K_8x8_q8_K`) takes, per 256-value superblock, two
///   exact integers per output, `isum = sum_j scale_j * dot_j` and `imin = sum_j min_j * bsum_j`
///   over the eight 32-value sub-blocks (`bsum_j` the sum of the sub-block's activation codes);
///   then `acc = fma(Float(isum), d_w * d_x, acc)`, `accMin = fma(Float(imin), dmin_w * d_x, accMin)`,
///   and at the end `acc - accMin`. A batch's tokens in groups of four (`ggml_gemm_q4_K_8x8_q8_K`,
///   AVX2 and AVX-512 alike; the first `tokens - tokens % 4` of the batch) do the same per pair of
///   sub-blocks (four pairs per superblock); the last `tokens % 4` tokens take the gemv order.
/// - Q6_K, batches under 8 tokens (decoding): `ggml_vec_dot_q6_K_q8_K` (AVX2). Eight Int32 lanes
///   per superblock: lane `m` holds, over the eight 32-value chunks, `scale * sum(code * x)` for the
///   chunk's bytes `4m ..< 4m+4` (codes unsigned, 0..<64; the chunk's scale for the 16 bytes the
///   lane lies in), minus `32 * (bsum16[2m] * scale[2m] + bsum16[2m+1] * scale[2m+1])`; then
///   `acc = fma(d_x * d_w, Float(lanes), acc)` lane-wise and `hsum_float_8(acc)` at the end.
///   Batches of 8 or more tokens: one exact total per superblock (the sum of those lanes) and
///   `acc = fma(Float(total) * d_w, d_x, acc)` (measured against llama.cpp's batches: from 8 tokens
///   on, every token of the batch takes this order).
///
/// The activations are Q8_K as llama.cpp rounds them (`QuantizedActivations`, `.q8_K`). Every
/// output is computed alone, so results do not depend on threads or batching.
extension GGMLOrderKernels {
    /// Rows `range` of a Q4_K or Q6_K product for `tokens` activation rows (`rowBytes` apart):
    /// `output[t * outputStride + r]`, each output alone in llama.cpp's order.
    @inline(never)
    static func superblockRows(_ format: QuantFormat, _ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer,
                               rowBytes: Int, tokens: Int, output: UnsafeMutablePointer<Float>, outputStride: Int) {
        let superblocks = matrix.columns / 256
        // llama.cpp's repacked Q4_K takes the tokens of a batch in groups of four (gemm) and the
        // last `tokens % 4` one by one (gemv), with different summation orders.
        let grouped = tokens - tokens % 4
        for r in range {
            let row = matrix.row(r)
            for t in 0..<tokens {
                let x = QuantizedRow(activations + t * rowBytes, columns: matrix.columns)
                output[t * outputStride + r] = format == .q4_K ? q4K(row, superblocks: superblocks, x: x, pairwise: t < grouped)
                                                               : q6K(row, superblocks: superblocks, x: x, wholeSuperblocks: tokens >= 8)
            }
        }
    }

    /// Row `row` (`superblocks` Q4_K superblocks of 144 bytes) times `x`: the integer sums and the
    /// fused multiply-adds per superblock (`ggml_gemv_q4_K_8x8_q8_K`) or, with `pairwise`, per pair of
    /// 32-value sub-blocks (`ggml_gemm_q4_K_8x8_q8_K`, the tokens llama.cpp multiplies in groups of four).
    @inline(__always)
    static func q4K(_ row: UnsafeRawPointer, superblocks: Int, x: QuantizedRow, pairwise: Bool) -> Float {
        var acc: Float = 0, accMin: Float = 0
        let ones = SIMD32<UInt8>(repeating: 1)
        let groupSize = pairwise ? 2 : 8
        for s in 0..<superblocks {
            let blk = row + 144 * s
            let dx = x.scales[8 * s]
            let scale = loadHalf(blk) * dx, minimumScale = loadHalf(blk, 2) * dx
            for first in stride(from: 0, to: 8, by: groupSize) {
                var isum: Int32 = 0, imin: Int32 = 0
                for sub in first..<first + groupSize {
                    let xb = x.block(8 * s + sub)
                    let packed = blk.loadUnaligned(fromByteOffset: 16 + 32 * (sub >> 1), as: SIMD32<UInt8>.self)
                    let codes = bitAnd(shiftRight(packed, 4 * (sub & 1)), SIMD32(repeating: 0x0F))
                    let (subScale, subMinimum) = kQuantScaleMin(sub, blk + 4)
                    isum &+= Int32(subScale) &* total(multiplyAddPairs(codes, xb))
                    imin &+= Int32(subMinimum) &* total(multiplyAddPairs(ones, xb))
                }
                acc.addProduct(Float(isum), scale)
                accMin.addProduct(Float(imin), minimumScale)
            }
        }
        return acc - accMin
    }

    /// Row `row` (`superblocks` Q6_K superblocks of 210 bytes) times `x`: eight lanes per superblock
    /// (`ggml_vec_dot_q6_K_q8_K`) or, with `wholeSuperblocks` (llama.cpp's batches of 8 or more
    /// tokens), one exact total per superblock, `acc = fma(Float(total) * d_w, d_x, acc)`.
    @inline(__always)
    static func q6K(_ row: UnsafeRawPointer, superblocks: Int, x: QuantizedRow, wholeSuperblocks: Bool) -> Float {
        var acc = SIMD8<Float>(), total: Float = 0
        let ones = SIMD32<UInt8>(repeating: 1), pairOnes = SIMD16<Int16>(repeating: 1)
        for s in 0..<superblocks {
            let blk = row + 210 * s
            var lanes = SIMD8<Int32>()
            // bsum16[i] * scale[i], summed in pairs: lane m gets pairs 2m and 2m+1.
            var correction = SIMD8<Int32>()
            for sub in 0..<8 {
                let xb = x.block(8 * s + sub)
                let codes = wrappingSubtract(Q6_KBlocks.decode(blk, sub).codes, SIMD32(repeating: 224))
                let weights = Q6_KBlocks.pairWeights(blk, sub)
                lanes &+= multiplyAddPairs(multiplyAddPairs(codes, xb), weights)
                // This sub-block's two 16-value activation sums times their scales.
                let halves = multiplyAddPairs(multiplyAddPairs(ones, xb), pairOnes)
                let low = halves[0] &+ halves[1] &+ halves[2] &+ halves[3]
                let high = halves[4] &+ halves[5] &+ halves[6] &+ halves[7]
                correction[sub] = low &* Int32(weights[0]) &+ high &* Int32(weights[8])
            }
            lanes &-= correction &<< 5
            let dw = loadHalf(blk, 208), dx = x.scales[8 * s]
            if wholeSuperblocks {
                total.addProduct(Float(lanes.wrappedSum()) * dw, dx)
            } else {
                acc.addProduct(SIMD8(repeating: dx * dw), toFloat(lanes))
            }
        }
        return wholeSuperblocks ? total : horizontalSum(acc)
    }

    /// The sum of sixteen Int16 lanes as an Int32.
    @inline(__always)
    static func total(_ v: SIMD16<Int16>) -> Int32 {
        multiplyAddPairs(v, SIMD16<Int16>(repeating: 1)).wrappedSum()
    }
}
