#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Attention over an F16 key/value cache with the numerics of ggml's CPU flash
/// attention for F16 K/V (`ggml_compute_forward_flash_attn_ext_f16`, one query row
/// at a time), which is llama.cpp's default on CPUs:
///
/// - the query is rounded to F16 before the Q·K dot product;
/// - each dot product converts both F16 rows to F32 and accumulates with FMAs in
///   four 8-lane accumulators over steps of 32 elements, which are then summed
///   pairwise (tail elements, if any, are added in Double);
/// - the softmax is online: a running maximum `M` and sum `S`; when a score
///   exceeds `M`, the accumulator is multiplied by `exp(M_old - M)`;
/// - the value accumulator is itself F16: every update `acc = acc * ms` and
///   `acc = fma(v, weight, acc)` is computed in F32 and rounded back to F16;
/// - at the end the accumulator is converted to F32 and multiplied by `1 / S`.
///
/// `exp` is the C library's `expf`, as in ggml. Keys outside the window are
/// simply not visited (ggml skips masked cells the same way).
public enum HalfAttention {
    /// `sum(a[i] * b[i])` of two F16 rows in ggml's `ggml_vec_dot_f16` order (x86 AVX2).
    @inline(__always)
    public static func dot(_ a: UnsafePointer<Float16>, _ b: UnsafePointer<Float16>, count: Int) -> Float {
        let pa = UnsafeRawPointer(a), pb = UnsafeRawPointer(b)
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var i = 0
        while i + 32 <= count {
            s0.addProduct(half8(pa, i), half8(pb, i))
            s1.addProduct(half8(pa, i + 8), half8(pb, i + 8))
            s2.addProduct(half8(pa, i + 16), half8(pb, i + 16))
            s3.addProduct(half8(pa, i + 24), half8(pb, i + 24))
            i += 32
        }
        // Pairwise reduction: (s0 + s2) + (s1 + s3), then the two 4-lane halves,
        // then two horizontal adds.
        let r = (s0 + s2) + (s1 + s3)
        let t = r.lowHalf + r.highHalf
        var sum = Double((t[0] + t[1]) + (t[2] + t[3]))
        while i < count {
            sum += Double(Float(a[i]) * Float(b[i]))
            i += 1
        }
        return Float(sum)
    }

    /// `dot` in the order of an AVX-512 build of ggml (`GGML_F16_STEP` 64, four 16-lane
    /// accumulators, `(s0 + s2) + (s1 + s3)`, then GCC's `_mm512_reduce_add_ps`: halves
    /// of 8, of 4, then `(t0 + t2) + (t1 + t3)`); the tail as in `dot`.
    @inline(__always)
    public static func dotAVX512Order(_ a: UnsafePointer<Float16>, _ b: UnsafePointer<Float16>, count: Int) -> Float {
        let pa = UnsafeRawPointer(a), pb = UnsafeRawPointer(b)
        @inline(__always) func half16(_ p: UnsafeRawPointer, _ i: Int) -> SIMD16<Float> {
            SIMD16(lowHalf: half8(p, i), highHalf: half8(p, i + 8))
        }
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var i = 0
        while i + 64 <= count {
            s0.addProduct(half16(pa, i), half16(pb, i))
            s1.addProduct(half16(pa, i + 16), half16(pb, i + 16))
            s2.addProduct(half16(pa, i + 32), half16(pb, i + 32))
            s3.addProduct(half16(pa, i + 48), half16(pb, i + 48))
            i += 64
        }
        let r = (s0 + s2) + (s1 + s3)
        let t3 = r.highHalf + r.lowHalf
        let t6 = t3.highHalf + t3.lowHalf
        var sum = Double((t6[0] + t6[2]) + (t6[1] + t6[3]))
        while i < count {
            sum += Double(Float(a[i]) * Float(b[i]))
            i += 1
        }
        return Float(sum)
    }

    /// `acc[i] = f16(f32(acc[i]) * factor)`.
    @inline(__always)
    static func scale(_ acc: UnsafeMutablePointer<Float16>, by factor: Float, count: Int) {
        let raw = UnsafeMutableRawPointer(acc)
        let f = SIMD8<Float>(repeating: factor)
        var i = 0
        while i + 8 <= count {
            raw.storeBytes(of: narrowToHalves(half8(raw, i) * f), toByteOffset: 2 * i, as: SIMD8<Float16>.self)
            i += 8
        }
        while i < count { acc[i] = Float16(Float(acc[i]) * factor); i += 1 }
    }

    /// `acc[i] = f16(fma(f32(v[i]), weight, f32(acc[i])))`.
    @inline(__always)
    static func addScaled(_ v: UnsafePointer<Float16>, weight: Float, into acc: UnsafeMutablePointer<Float16>, count: Int) {
        let raw = UnsafeMutableRawPointer(acc), pv = UnsafeRawPointer(v)
        let w = SIMD8<Float>(repeating: weight)
        var i = 0
        while i + 8 <= count {
            var y = half8(raw, i)
            y.addProduct(half8(pv, i), w)
            raw.storeBytes(of: narrowToHalves(y), toByteOffset: 2 * i, as: SIMD8<Float16>.self)
            i += 8
        }
        while i < count { acc[i] = Float16(Float(acc[i]).addingProduct(Float(v[i]), weight)); i += 1 }
    }

    @inline(__always)
    static func half8(_ p: UnsafeRawPointer, _ i: Int) -> SIMD8<Float> {
        widenHalves(p.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self))
    }

    @inline(__always)
    static func half8(_ p: UnsafeMutableRawPointer, _ i: Int) -> SIMD8<Float> {
        widenHalves(UnsafeRawPointer(p).loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self))
    }

    /// Bytes of scratch `attend` needs for `heads` query heads of `headDimension`.
    public static func scratchBytes(heads: Int, headDimension: Int) -> Int {
        heads * (2 * headDimension * MemoryLayout<Float16>.stride + 2 * MemoryLayout<Float>.stride)
    }

    /// Attention of `heads` query heads (rows of `queries`, F32, `headDimension`
    /// apart) that share one KV head, over the `count` consecutive cached
    /// positions at `keys`/`values` (F16, `headDimension` apart). Each head's
    /// result goes to `output + head * headDimension`.
    ///
    /// `queryScale` multiplies the query before it is rounded to F16 (Gemma 3
    /// scales Q in the graph), `scoreScale` multiplies each Q·K dot product.
    /// Positions are visited once for all heads, in order; each head's arithmetic
    /// is exactly that of a separate pass. `scratch` holds `scratchBytes` bytes.
    /// `avx512Order` takes the Q·K order of an AVX-512 build of ggml (`dotAVX512Order`).
    public static func attend(queries: UnsafePointer<Float>, heads: Int, headDimension: Int,
                              keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>, count: Int,
                              queryScale: Float, scoreScale: Float, avx512Order: Bool = false,
                              output: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer) {
        let d = headDimension
        let query16 = scratch.bindMemory(to: Float16.self, capacity: 2 * heads * d)
        let accumulators = query16 + heads * d
        let maxima = (scratch + 2 * heads * d * MemoryLayout<Float16>.stride).bindMemory(to: Float.self, capacity: 2 * heads)
        let sums = maxima + heads
        for h in 0..<heads {
            let q = queries + h * d
            if queryScale == 1 {
                VectorOps.convert(q, to: query16 + h * d, count: d)
            } else {
                for i in 0..<d { query16[h * d + i] = Float16(q[i] * queryScale) }
            }
            (accumulators + h * d).update(repeating: 0, count: d)
            maxima[h] = -.infinity
            sums[h] = 0
        }
        for p in 0..<count {
            let key = keys + p * d
            let value = values + p * d
            for h in 0..<heads {
                let s = (avx512Order ? dotAVX512Order(key, query16 + h * d, count: d) : dot(key, query16 + h * d, count: d)) * scoreScale
                let accumulator = accumulators + h * d
                let previous = maxima[h]
                var ms: Float = 1, vs: Float = 1
                if s > previous {
                    maxima[h] = s
                    ms = expf(previous - s)
                    scale(accumulator, by: ms, count: d)
                } else {
                    vs = expf(s - previous)
                }
                addScaled(value, weight: vs, into: accumulator, count: d)
                sums[h] = vs.addingProduct(sums[h], ms)  // fused, as GCC contracts `S = S*ms + vs`
            }
        }
        for h in 0..<heads {
            let inverse: Float = sums[h] == 0 ? 0 : 1 / sums[h]
            let out = output + h * d
            let accumulator = accumulators + h * d
            for i in 0..<d { out[i] = Float(accumulator[i]) * inverse }
        }
    }
}
