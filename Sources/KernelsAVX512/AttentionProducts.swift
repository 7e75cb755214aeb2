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
    /// accumulator, so the lanes' `a + b` and their sum in lane order are vector additions. Each
    /// block (`dimension` x 64 bytes, in order) is read once for all heads.
    public static func scores(keyBlocks keys: UnsafePointer<Float>, first: Int, count: Int,
                              queries: UnsafePointer<Float>, heads: Int, dimension: Int, scale: Float,
                              into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        precondition(dimension % 16 == 0, "AttentionProducts: the head dimension must be a multiple of 16")
        guard count > 0 else { return }
        for block in first / 16...(first + count - 1) / 16 {
            let base = keys + block * dimension * 16
            for h in 0..<heads {
                let q = queries + h * dimension
                var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
                var a4 = SIMD16<Float>(), a5 = SIMD16<Float>(), a6 = SIMD16<Float>(), a7 = SIMD16<Float>()
                var b0 = SIMD16<Float>(), b1 = SIMD16<Float>(), b2 = SIMD16<Float>(), b3 = SIMD16<Float>()
                var b4 = SIMD16<Float>(), b5 = SIMD16<Float>(), b6 = SIMD16<Float>(), b7 = SIMD16<Float>()
                var i = 0
                while i < dimension {
                    let k = base + i * 16
                    @inline(__always) func term(_ m: Int) -> (SIMD16<Float>, SIMD16<Float>) {
                        (SIMD16(repeating: q[i + m]), load16(k + 16 * m))
                    }
                    var t = term(0); a0.addProduct(t.0, t.1); t = term(1); a1.addProduct(t.0, t.1)
                    t = term(2); a2.addProduct(t.0, t.1); t = term(3); a3.addProduct(t.0, t.1)
                    t = term(4); a4.addProduct(t.0, t.1); t = term(5); a5.addProduct(t.0, t.1)
                    t = term(6); a6.addProduct(t.0, t.1); t = term(7); a7.addProduct(t.0, t.1)
                    t = term(8); b0.addProduct(t.0, t.1); t = term(9); b1.addProduct(t.0, t.1)
                    t = term(10); b2.addProduct(t.0, t.1); t = term(11); b3.addProduct(t.0, t.1)
                    t = term(12); b4.addProduct(t.0, t.1); t = term(13); b5.addProduct(t.0, t.1)
                    t = term(14); b6.addProduct(t.0, t.1); t = term(15); b7.addProduct(t.0, t.1)
                    i += 16
                }
                var sum = SIMD16<Float>(repeating: -Float.zero)
                sum += a0 + b0; sum += a1 + b1; sum += a2 + b2; sum += a3 + b3
                sum += a4 + b4; sum += a5 + b5; sum += a6 + b6; sum += a7 + b7
                let result = (sum + SIMD16<Float>()) * SIMD16(repeating: scale)
                let out = scores + h * scoreStride - first
                let lower = max(first, 16 * block), upper = min(first + count, 16 * block + 16)
                if upper - lower == 16 {
                    store16(result, out + lower)
                } else {
                    for key in lower..<upper { out[key] = result[key - 16 * block] }
                }
            }
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
