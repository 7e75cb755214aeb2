// Attention over an F16 KV cache with 16-lane AVX-512 vectors, for head dimensions that
// are multiples of 16. Each result is computed with exactly the F32 operations of the
// eight-lane kernels in `Kernels.VectorOps` (`scores`, `weightedSum`), which the callers
// fall back to elsewhere:
// - a score's dot product keeps two eight-lane accumulators over 16-value steps, `a` for
//   values 16s..<16s+8 and `b` for 16s+8..<16s+16: one 16-lane accumulator here is `a`
//   and `b` side by side, with the same fused multiply-add chain per lane; then `a + b`,
//   the eight lanes summed in lane order (Swift's `SIMD.sum()`), `+ 0` for the (empty)
//   tail and `* scale`;
// - a weighted sum's output lane is one fused multiply-add chain over the positions in
//   order, whatever the vector width.

#if arch(x86_64)
import Builtin

public enum AttentionProducts {
    /// `scores[h * scoreStride + p] = dot(keys[p], queries[h]) * scale` for keys `p` in
    /// `0..<count` (`dimension` apart) and query rows `h` in `0..<heads` (`dimension` apart).
    public static func scores(keys: UnsafePointer<Float16>, count: Int, queries: UnsafePointer<Float>, heads: Int,
                              dimension: Int, scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        precondition(dimension % 16 == 0, "AttentionProducts: the head dimension must be a multiple of 16")
        var h = 0
        while h < heads {
            let n = min(4, heads - h)
            let q0 = queries + h * dimension, q1 = queries + (h + min(1, n - 1)) * dimension
            let q2 = queries + (h + min(2, n - 1)) * dimension, q3 = queries + (h + min(3, n - 1)) * dimension
            let out = scores + h * scoreStride
            for p in 0..<count {
                let key = keys + p * dimension
                var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
                var i = 0
                while i < dimension {
                    let k = widen(UnsafeRawPointer(key + i).loadUnaligned(as: SIMD16<Float16>.self))
                    a0.addProduct(load16(q0 + i), k)
                    a1.addProduct(load16(q1 + i), k)
                    a2.addProduct(load16(q2 + i), k)
                    a3.addProduct(load16(q3 + i), k)
                    i += 16
                }
                out[p] = finish(a0, scale)
                if n > 1 { out[scoreStride + p] = finish(a1, scale) }
                if n > 2 { out[2 * scoreStride + p] = finish(a2, scale) }
                if n > 3 { out[3 * scoreStride + p] = finish(a3, scale) }
            }
            h += n
        }
    }

    /// `scores` from keys stored in blocks of 16 transposed to F32 (`Kernels.VectorOps.transposeKeys`:
    /// value d of key p at `keys[(p / 16 * dimension + d) * 16 + p % 16]`), for keys
    /// `first ..< first + count`; key p's scores go to `scores + (p - first)`. One accumulator per
    /// value index modulo 16 holds, lane by lane (key by key), what `scores` keeps in one lane of its
    /// accumulator, so the lanes' `a + b` and their sum in lane order are vector additions.
    ///
    /// Register blocking: the chains for value indices `m` and `m + 8` (the pair whose `a + b` is
    /// added to the sum next) run for up to four heads and two blocks at once, 16 accumulators, so each
    /// key vector loaded serves four heads and each query value broadcast serves two blocks: 12 loads per
    /// 16 multiply-adds instead of 32 (the loads bound this loop). Every accumulator's chain and the
    /// order of the sum are those of one head and one block at a time, so the bits do not change.
    public static func scores(keyBlocks keys: UnsafePointer<Float>, first: Int, count: Int,
                              queries: UnsafePointer<Float>, heads: Int, dimension: Int, scale: Float,
                              into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        precondition(dimension % 16 == 0, "AttentionProducts: the head dimension must be a multiple of 16")
        guard count > 0 else { return }
        let lastBlock = (first + count - 1) / 16
        var block = first / 16
        while block <= lastBlock {
            // Two blocks at a time; a last odd block runs as both (its second copy is not stored).
            let blocks = block < lastBlock ? 2 : 1
            let baseA = keys + block * dimension * 16
            let baseB = blocks == 2 ? baseA + dimension * 16 : baseA
            var h = 0
            while h < heads {
                let n = min(4, heads - h)
                let q0 = queries + h * dimension, q1 = queries + (h + min(1, n - 1)) * dimension
                let q2 = queries + (h + min(2, n - 1)) * dimension, q3 = queries + (h + min(3, n - 1)) * dimension
                var s0A = SIMD16<Float>(repeating: -Float.zero), s1A = s0A, s2A = s0A, s3A = s0A
                var s0B = s0A, s1B = s0A, s2B = s0A, s3B = s0A
                for m in 0..<8 {
                    var a0A = SIMD16<Float>(), a1A = a0A, a2A = a0A, a3A = a0A, a0B = a0A, a1B = a0A, a2B = a0A, a3B = a0A
                    var b0A = a0A, b1A = a0A, b2A = a0A, b3A = a0A, b0B = a0A, b1B = a0A, b2B = a0A, b3B = a0A
                    var i = m
                    while i < dimension {
                        let kA = load16(baseA + i * 16), kA8 = load16(baseA + (i + 8) * 16)
                        let kB = load16(baseB + i * 16), kB8 = load16(baseB + (i + 8) * 16)
                        var x = SIMD16(repeating: q0[i]), y = SIMD16(repeating: q0[i + 8])
                        a0A.addProduct(x, kA); a0B.addProduct(x, kB); b0A.addProduct(y, kA8); b0B.addProduct(y, kB8)
                        x = SIMD16(repeating: q1[i]); y = SIMD16(repeating: q1[i + 8])
                        a1A.addProduct(x, kA); a1B.addProduct(x, kB); b1A.addProduct(y, kA8); b1B.addProduct(y, kB8)
                        x = SIMD16(repeating: q2[i]); y = SIMD16(repeating: q2[i + 8])
                        a2A.addProduct(x, kA); a2B.addProduct(x, kB); b2A.addProduct(y, kA8); b2B.addProduct(y, kB8)
                        x = SIMD16(repeating: q3[i]); y = SIMD16(repeating: q3[i + 8])
                        a3A.addProduct(x, kA); a3B.addProduct(x, kB); b3A.addProduct(y, kA8); b3B.addProduct(y, kB8)
                        i += 16
                    }
                    s0A += a0A + b0A; s1A += a1A + b1A; s2A += a2A + b2A; s3A += a3A + b3A
                    s0B += a0B + b0B; s1B += a1B + b1B; s2B += a2B + b2B; s3B += a3B + b3B
                }
                @inline(__always) func store(_ sum: SIMD16<Float>, head: Int, block: Int) {
                    let result = (sum + SIMD16<Float>()) * SIMD16(repeating: scale)
                    let out = scores + head * scoreStride - first
                    let lower = max(first, 16 * block), upper = min(first + count, 16 * block + 16)
                    if upper - lower == 16 {
                        store16(result, out + lower)
                    } else {
                        for key in lower..<upper { out[key] = result[key - 16 * block] }
                    }
                }
                store(s0A, head: h, block: block)
                if n > 1 { store(s1A, head: h + 1, block: block) }
                if n > 2 { store(s2A, head: h + 2, block: block) }
                if n > 3 { store(s3A, head: h + 3, block: block) }
                if blocks == 2 {
                    store(s0B, head: h, block: block + 1)
                    if n > 1 { store(s1B, head: h + 1, block: block + 1) }
                    if n > 2 { store(s2B, head: h + 2, block: block + 1) }
                    if n > 3 { store(s3B, head: h + 3, block: block + 1) }
                }
                h += n
            }
            block += blocks
        }
    }

    /// `output[h * dimension + i] = sum over p of weights[h * weightStride + p] * values[p][i]`,
    /// for `heads` weight rows and `count` value rows (`dimension` apart).
    public static func weightedSum(values: UnsafePointer<Float16>, count: Int, dimension: Int, heads: Int,
                                   weights: UnsafePointer<Float>, weightStride: Int, into output: UnsafeMutablePointer<Float>) {
        precondition(dimension % 16 == 0, "AttentionProducts: the head dimension must be a multiple of 16")
        var h = 0
        while h < heads {
            let n = min(4, heads - h)
            let w0 = weights + h * weightStride
            let w1 = weights + (h + min(1, n - 1)) * weightStride
            let w2 = weights + (h + min(2, n - 1)) * weightStride
            let w3 = weights + (h + min(3, n - 1)) * weightStride
            var i = 0
            // 32 values per pass: each weight broadcast serves two value vectors (the loads, not the
            // multiply-adds, bound this loop).
            while i + 32 <= dimension {
                var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
                var c0 = SIMD16<Float>(), c1 = SIMD16<Float>(), c2 = SIMD16<Float>(), c3 = SIMD16<Float>()
                for p in 0..<count {
                    let row = UnsafeRawPointer(values + p * dimension + i)
                    let v = widen(row.loadUnaligned(as: SIMD16<Float16>.self))
                    let u = widen(row.loadUnaligned(fromByteOffset: 32, as: SIMD16<Float16>.self))
                    let x0 = SIMD16(repeating: w0[p]), x1 = SIMD16(repeating: w1[p])
                    let x2 = SIMD16(repeating: w2[p]), x3 = SIMD16(repeating: w3[p])
                    a0.addProduct(v, x0); c0.addProduct(u, x0)
                    a1.addProduct(v, x1); c1.addProduct(u, x1)
                    a2.addProduct(v, x2); c2.addProduct(u, x2)
                    a3.addProduct(v, x3); c3.addProduct(u, x3)
                }
                store16(a0, output + h * dimension + i); store16(c0, output + h * dimension + i + 16)
                if n > 1 { store16(a1, output + (h + 1) * dimension + i); store16(c1, output + (h + 1) * dimension + i + 16) }
                if n > 2 { store16(a2, output + (h + 2) * dimension + i); store16(c2, output + (h + 2) * dimension + i + 16) }
                if n > 3 { store16(a3, output + (h + 3) * dimension + i); store16(c3, output + (h + 3) * dimension + i + 16) }
                i += 32
            }
            while i < dimension {
                var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
                for p in 0..<count {
                    let v = widen(UnsafeRawPointer(values + p * dimension + i).loadUnaligned(as: SIMD16<Float16>.self))
                    a0.addProduct(v, SIMD16(repeating: w0[p]))
                    a1.addProduct(v, SIMD16(repeating: w1[p]))
                    a2.addProduct(v, SIMD16(repeating: w2[p]))
                    a3.addProduct(v, SIMD16(repeating: w3[p]))
                }
                store16(a0, output + h * dimension + i)
                if n > 1 { store16(a1, output + (h + 1) * dimension + i) }
                if n > 2 { store16(a2, output + (h + 2) * dimension + i) }
                if n > 3 { store16(a3, output + (h + 3) * dimension + i) }
                i += 16
            }
            h += n
        }
    }

    /// `(a + b).sum() + 0` times `scale`, `a` and `b` the low and high eight lanes, summed in lane order.
    @inline(__always)
    private static func finish(_ v: SIMD16<Float>, _ scale: Float) -> Float {
        let c = v.lowHalf + v.highHalf
        var sum = -Float.zero
        sum += c[0]; sum += c[1]; sum += c[2]; sum += c[3]
        sum += c[4]; sum += c[5]; sum += c[6]; sum += c[7]
        let tail: Float = 0
        return (sum + tail) * scale
    }

    @inline(__always)
    private static func widen(_ h: SIMD16<Float16>) -> SIMD16<Float> {
        unsafeBitCast(Builtin.fpext_Vec16xFPIEEE16_Vec16xFPIEEE32(unsafeBitCast(h, to: Builtin.Vec16xFPIEEE16.self)), to: SIMD16<Float>.self)
    }

    @inline(__always)
    private static func load16(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    @inline(__always)
    private static func store16(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self)
    }
}
#endif
