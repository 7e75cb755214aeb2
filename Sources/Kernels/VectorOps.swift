#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if arch(x86_64)
import KernelsAVX512
#endif

/// Element-wise and reduction helpers for the transformer, on F32 vectors,
/// eight lanes at a time. All are single-threaded and allocation-free;
/// `x` and `y` may be the same buffer where a function writes `y` from `x`.
public enum VectorOps {
    /// `sum(a[i] * b[i])`.
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        FloatDot.f32(UnsafeRawPointer(a), b, count)
    }

    /// `sum(Float(a[i]) * b[i])` with `a` stored as F16 (for F16 key caches).
    public static func dot(_ a: UnsafePointer<Float16>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        FloatDot.f16(UnsafeRawPointer(a), b, count)
    }

    /// `y[i] += alpha * x[i]`.
    public static func addScaled(_ x: UnsafePointer<Float>, scale alpha: Float, into y: UnsafeMutablePointer<Float>, count: Int) {
        let a = SIMD8<Float>(repeating: alpha)
        var i = 0
        while i + 8 <= count {
            var v = load8(y + i)
            v.addProduct(load8(x + i), a)
            store8(v, y + i)
            i += 8
        }
        while i < count { y[i] += alpha * x[i]; i += 1 }
    }

    /// `y[i] += alpha * Float(x[i])` with `x` stored as F16 (for F16 value caches).
    public static func addScaled(_ x: UnsafePointer<Float16>, scale alpha: Float, into y: UnsafeMutablePointer<Float>, count: Int) {
        let a = SIMD8<Float>(repeating: alpha)
        let raw = UnsafeRawPointer(x)
        var i = 0
        while i + 8 <= count {
            var v = load8(y + i)
            v.addProduct(widenHalves(raw.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self)), a)
            store8(v, y + i)
            i += 8
        }
        while i < count { y[i] += alpha * Float(x[i]); i += 1 }
    }

    /// Converts F32 to F16 (round to nearest even).
    public static func convert(_ x: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float16>, count: Int) {
        var i = 0
        while i + 8 <= count {
            UnsafeMutableRawPointer(y + i).storeBytes(of: narrowToHalves(load8(x + i)), as: SIMD8<Float16>.self)
            i += 8
        }
        while i < count { y[i] = Float16(x[i]); i += 1 }
    }

    /// `y[i] = (x[i] * scale) * weight[i]` with `scale = 1 / sqrt(mean(x^2) + epsilon)` (RMSNorm),
    /// as ggml computes it: the F32 squares summed in Double in index order, the mean rounded to F32.
    public static func rmsNorm(_ x: UnsafePointer<Float>, weight: UnsafePointer<Float>, epsilon: Float,
                               into y: UnsafeMutablePointer<Float>, count: Int) {
        // One Double sum in index order, as ggml's loop (GCC does not reorder it).
        var sum: Double = 0
        for j in 0..<count { sum += Double(x[j] * x[j]) }
        let meanSquare = Float(sum / Double(count))
        scaleRow(x, by: 1 / (meanSquare + epsilon).squareRoot(), weight: weight, into: y, count: count)
    }

    /// `rmsNorm` of `rows` rows `stride` apart (row r of `x` at `x + r * stride`, its result at
    /// `y + r * stride`; `y` may be `x`): each row's bits are `rmsNorm`'s. A row's Double sum is one
    /// chain of dependent additions in index order (ggml's), four cycles each; eight rows' chains run
    /// side by side here, so the additions overlap instead of waiting on one another.
    /// `avx512`: the AVX-512 sums (`RowSums`), where the CPU has them; the same bits either way.
    public static func rmsNorm(rows: Int, _ x: UnsafePointer<Float>, stride: Int, weight: UnsafePointer<Float>, epsilon: Float,
                               into y: UnsafeMutablePointer<Float>, count: Int, avx512: Bool = CPUFeatures.avx512VNNI) {
        var r = 0
        while r < rows {
            let n = min(8, rows - r)
            // Rows past the last are stand-ins for it: summed, never written.
            @inline(__always) func row(_ k: Int) -> UnsafePointer<Float> { x + (r + min(k, n - 1)) * stride }
            let x0 = row(0), x1 = row(1), x2 = row(2), x3 = row(3), x4 = row(4), x5 = row(5), x6 = row(6), x7 = row(7)
            let sums: SIMD8<Double>
            #if arch(x86_64)
            if avx512 {
                // Eight squares of each row at a time, transposed into the lanes (KernelsAVX512.RowSums).
                sums = RowSums.squares((x0, x1, x2, x3, x4, x5, x6, x7), count: count)
            } else {
                sums = squareSums(x0, x1, x2, x3, x4, x5, x6, x7, count: count)
            }
            #else
            sums = squareSums(x0, x1, x2, x3, x4, x5, x6, x7, count: count)
            #endif
            for k in 0..<n {
                let meanSquare = Float(sums[k] / Double(count))
                scaleRow(x + (r + k) * stride, by: 1 / (meanSquare + epsilon).squareRoot(), weight: weight,
                         into: y + (r + k) * stride, count: count)
            }
            r += n
        }
    }

    /// Eight rows' sums of squares as eight scalar chains side by side.
    @inline(__always)
    private static func squareSums(_ x0: UnsafePointer<Float>, _ x1: UnsafePointer<Float>, _ x2: UnsafePointer<Float>, _ x3: UnsafePointer<Float>,
                                   _ x4: UnsafePointer<Float>, _ x5: UnsafePointer<Float>, _ x6: UnsafePointer<Float>, _ x7: UnsafePointer<Float>,
                                   count: Int) -> SIMD8<Double> {
        var s0: Double = 0, s1: Double = 0, s2: Double = 0, s3: Double = 0
        var s4: Double = 0, s5: Double = 0, s6: Double = 0, s7: Double = 0
        for j in 0..<count {
            s0 += Double(x0[j] * x0[j]); s1 += Double(x1[j] * x1[j]); s2 += Double(x2[j] * x2[j]); s3 += Double(x3[j] * x3[j])
            s4 += Double(x4[j] * x4[j]); s5 += Double(x5[j] * x5[j]); s6 += Double(x6[j] * x6[j]); s7 += Double(x7[j] * x7[j])
        }
        return SIMD8<Double>(s0, s1, s2, s3, s4, s5, s6, s7)
    }

    @inline(__always)
    private static func scaleRow(_ x: UnsafePointer<Float>, by scale: Float, weight: UnsafePointer<Float>,
                                 into y: UnsafeMutablePointer<Float>, count: Int) {
        let s = SIMD8<Float>(repeating: scale)
        var i = 0
        while i + 8 <= count { store8(load8(x + i) * s * load8(weight + i), y + i); i += 8 }
        while i < count { y[i] = x[i] * scale * weight[i]; i += 1 }
    }

    /// `y[i] = a[i] * b[i] * scale`.
    public static func multiply(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, scale: Float = 1,
                                into y: UnsafeMutablePointer<Float>, count: Int) {
        let s = SIMD8<Float>(repeating: scale)
        var i = 0
        while i + 8 <= count { store8(load8(a + i) * load8(b + i) * s, y + i); i += 8 }
        while i < count { y[i] = a[i] * b[i] * scale; i += 1 }
    }

    /// `y[i] = a[i] + b[i]`.
    public static func add(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count { store8(load8(a + i) + load8(b + i), y + i); i += 8 }
        while i < count { y[i] = a[i] + b[i]; i += 1 }
    }

    /// `y[i] = x[i] * scale`.
    public static func scale(_ x: UnsafePointer<Float>, by scale: Float, into y: UnsafeMutablePointer<Float>, count: Int) {
        let s = SIMD8<Float>(repeating: scale)
        var i = 0
        while i + 8 <= count { store8(load8(x + i) * s, y + i); i += 8 }
        while i < count { y[i] = x[i] * scale; i += 1 }
    }

    /// In-place softmax; returns the maximum (useful for log-probabilities).
    @discardableResult
    public static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) -> Float {
        guard count > 0 else { return -.infinity }
        // The maximum, eight lanes at a time (exact in any order).
        var m = -Float.infinity
        var j = 0
        if count >= 8 {
            var lanes = load8(x)
            j = 8
            while j + 8 <= count { lanes = lanewiseMax(lanes, load8(x + j)); j += 8 }
            m = horizontalMax(lanes)
        }
        while j < count { m = max(m, x[j]); j += 1 }
        var sum: Float = 0
        var i = 0
        let mv = SIMD8<Float>(repeating: m)
        var acc = SIMD8<Float>()
        while i + 8 <= count { let e = exp8(load8(x + i) - mv); store8(e, x + i); acc += e; i += 8 }
        sum = acc.sum()
        while i < count { x[i] = expf(x[i] - m); sum += x[i]; i += 1 }
        scale(x, by: 1 / sum, into: x, count: count)
        return m
    }

    /// `y[i] = silu(gate[i]) * up[i]` with `silu(g) = g / (1 + exp(-g))` (SwiGLU), as ggml's
    /// `ggml_vec_swiglu_f32` computes it on AVX2: eight lanes at a time with `ggmlExp8`
    /// (`ggml_v_expf`), the tail with the C library's `expf`.
    /// `avx512Order`: the exponential of an AVX-512 build of ggml (`ggmlExpAVX512`), whose
    /// rounding differs from the AVX2 one.
    public static func swiGLU(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int,
                              avx512Order: Bool = false) {
        var i = 0
        let one = SIMD8<Float>(repeating: 1)
        while i + 8 <= count {
            let g = load8(gate + i)
            let e = avx512Order ? ggmlExpAVX512(SIMD8<Float>() - g) : ggmlExp8(SIMD8<Float>() - g)
            store8(g / (one + e) * load8(up + i), y + i)
            i += 8
        }
        while i < count { y[i] = gate[i] / (1 + expf(-gate[i])) * up[i]; i += 1 }
    }

    /// The part both of ggml's `ggml_v_expf` share: `z = fma(x, log2(e), 0x1.8p23)`, `n = z - 0x1.8p23`,
    /// `b = x - n*ln2` (two fused steps), `u = b*b` and `fma(fma(c1, b, c2), u, fma(c3, b, c4))`.
    @inline(__always)
    static func ggmlExpReduced(_ x: SIMD8<Float>) -> (z: SIMD8<Float>, n: SIMD8<Float>, b: SIMD8<Float>, u: SIMD8<Float>, cubic: SIMD8<Float>) {
        let r = SIMD8<Float>(repeating: 0x1.8p23)
        let z = r.addingProduct(x, SIMD8(repeating: 0x1.715476p+0))
        let n = z - r
        let negativeN = SIMD8<Float>() - n
        let b = x.addingProduct(negativeN, SIMD8(repeating: 0x1.62e4p-1)).addingProduct(negativeN, SIMD8(repeating: 0x1.7f7d1cp-20))
        let u = b * b
        let inner = SIMD8<Float>(repeating: 0x1.573e2ep-5).addingProduct(SIMD8(repeating: 0x1.0e4020p-7), b)
        let low = SIMD8<Float>(repeating: 0x1.fffdb6p-2).addingProduct(SIMD8(repeating: 0x1.555e66p-3), b)
        return (z, n, b, u, low.addingProduct(inner, u))
    }

    /// ggml's `ggml_v_expf` for AVX-512 (the same polynomial, but `fma(c5, b, 1)` inside it and
    /// `_mm512_scalef_ps(j, n)`, i.e. `j * 2^n`, at the end; |n| > 192 gives infinity or 0).
    @inline(__always)
    static func ggmlExpAVX512(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let (_, n, b, u, cubic) = ggmlExpReduced(x)
        let linear = SIMD8<Float>(repeating: 1).addingProduct(SIMD8(repeating: 0x1.ffffecp-1), b)
        let j = linear.addingProduct(cubic, u)
        // j * 2^n exactly (n is an integer here); two steps keep 2^n representable.
        let ni = roundToInt32(n)
        let half = shiftRightArithmetic(ni, 1)
        var result = j * powerOfTwo(half) * powerOfTwo(ni &- half)
        if horizontalMax(magnitude(n)) > 192 {
            for lane in 0..<8 where abs(n[lane]) > 192 { result[lane] = n[lane] <= 0 ? 0 : .infinity }
        }
        return result
    }

    /// ggml's `ggml_v_expf` for AVX2 (an Arm Optimized Routines exp, maximum error about
    /// 1.5 ulp), operation for operation: the same constants, the same fused multiply-adds
    /// and the same special cases (|n| > 126: scaled in two steps; |n| > 192: overflow to
    /// infinity or underflow to 0).
    @inline(__always)
    static func ggmlExp8(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let (z, n, b, u, cubic) = ggmlExpReduced(x)
        let e = shiftLeft23(z)
        let k = addBits(e, SIMD8<Float>(repeating: 1))
        let j = (SIMD8<Float>(repeating: 0x1.ffffecp-1) * b).addingProduct(cubic, u)
        var result = k.addingProduct(j, k)
        if horizontalMax(magnitude(n)) > 126 {
            // Rare (|x| > about 87): redo the out-of-range lanes as ggml's slow path does.
            for lane in 0..<8 where abs(n[lane]) > 126 {
                let g: UInt32 = n[lane] <= 0 ? 0x8200_0000 : 0
                let s1 = Float(bitPattern: g &+ 0x7F00_0000)
                let s2 = Float(bitPattern: e[lane].bitPattern &- g)
                result[lane] = abs(n[lane]) > 192 ? s1 * s1 : s2.addingProduct(s2, j[lane]) * s1
            }
        }
        return result
    }

    /// `y[i] = gelu(gate[i]) * up[i]` (GeGLU) as ggml's CPU backend computes it: GELU with the
    /// tanh approximation looked up in a table over F16 inputs (the gate rounded to F16, the
    /// result stored as F16), 0 for gates <= -10 and the gate itself for gates >= 10.
    public static func geGLU(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        let table = halfGELUTable
        // Eight at a time: the F16 rounding and the two cut-offs as vector operations (NaN takes the table, as below).
        var start = 0
        let low = SIMD8<Float>(repeating: -10), high = SIMD8<Float>(repeating: 10)
        while start + 8 <= count {
            let g = load8(gate + start)
            let looked = lookUpHalves(table, narrowToHalves(g))
            let activated = selectLessOrEqual(g, low, SIMD8(), selectLessOrEqual(high, g, g, looked))
            store8(activated * load8(up + start), y + start)
            start += 8
        }
        for i in start..<count {
            let g = gate[i]
            let activated: Float
            if g <= -10 {
                activated = 0
            } else if g >= 10 {
                activated = g
            } else {
                activated = Float(table[Int(Float16(g).bitPattern)])
            }
            y[i] = activated * up[i]
        }
    }

    /// GELU (tanh approximation, ggml's F32 formula and operation order) of every F16 bit pattern, rounded to F16.
    nonisolated(unsafe) static let halfGELUTable: UnsafeMutablePointer<Float16> = {
        let table = UnsafeMutablePointer<Float16>.allocate(capacity: 1 << 16)
        for bits in 0..<(1 << 16) {
            let x = Float(Float16(bitPattern: UInt16(bits)))
            // ggml_gelu_f32 as GCC compiles it: `1 + GELU_COEF_A*x*x` contracted to fma(a*x, x, 1).
            let inner = Float(1).addingProduct(0.044_715 * x, x)
            let value: Float = (0.5 * x) * (1 + tanhf((0.797_884_56 * x) * inner))
            table[bits] = Float16(value)
        }
        return table
    }()

    /// In-place GELU (tanh approximation).
    public static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count { store8(gelu8(load8(x + i)), x + i); i += 8 }
        while i < count { x[i] = gelu(x[i]); i += 1 }
    }

    /// In-place SiLU.
    public static func silu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        let one = SIMD8<Float>(repeating: 1)
        while i + 8 <= count { let g = load8(x + i); store8(g / (one + exp8(-g)), x + i); i += 8 }
        while i < count { x[i] = x[i] / (1 + expf(-x[i])); i += 1 }
    }

    @inline(__always)
    static func gelu(_ x: Float) -> Float {
        0.5 * x * (1 + tanhf(0.797_884_56 * (x + 0.044_715 * x * x * x)))
    }

    @inline(__always)
    static func gelu8(_ x: SIMD8<Float>) -> SIMD8<Float> {
        // tanh(u) = 1 - 2 / (exp(2u) + 1)
        let u = SIMD8<Float>(repeating: 0.797_884_56) * (x + SIMD8<Float>(repeating: 0.044_715) * x * x * x)
        let t = SIMD8<Float>(repeating: 1) - SIMD8<Float>(repeating: 2) / (exp8(u + u) + SIMD8<Float>(repeating: 1))
        return SIMD8<Float>(repeating: 0.5) * x * (SIMD8<Float>(repeating: 1) + t)
    }

    /// exp on eight lanes: 2^(x log2 e) split into an integer and a fraction, with a degree-6
    /// polynomial for the fraction (relative error about 2e-7). Inputs are clamped to
    /// [-87.3, 88.7] first, so far-negative inputs give about 1e-38 rather than 0 and
    /// far-positive ones about 3.4e38 rather than infinity (harmless for softmax and gating).
    @inline(__always)
    static func exp8(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let clamped = lanewiseMin(lanewiseMax(x, SIMD8(repeating: -87.33654)), SIMD8(repeating: 88.72283))
        let t = clamped * SIMD8<Float>(repeating: 1.442_695_04)
        let ni = roundToInt32(t)
        let f = t - toFloat(ni)  // |f| <= 1/2, 2^f via its Taylor series in f ln2
        let z = f * SIMD8<Float>(repeating: 0.693_147_18)
        var p = SIMD8<Float>(repeating: 1.0 / 720)
        p = p * z + SIMD8<Float>(repeating: 1.0 / 120)
        p = p * z + SIMD8<Float>(repeating: 1.0 / 24)
        p = p * z + SIMD8<Float>(repeating: 1.0 / 6)
        p = p * z + SIMD8<Float>(repeating: 0.5)
        p = p * z + SIMD8<Float>(repeating: 1)
        p = p * z + SIMD8<Float>(repeating: 1)
        // Multiply by 2^n in two halves so n = 128 (x near the top) does not overflow the exponent.
        let half = shiftRightArithmetic(ni, 1)
        return p * powerOfTwo(half) * powerOfTwo(ni &- half)
    }

    @inline(__always) static func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
    @inline(__always) static func load8(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
    @inline(__always) static func store8(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }
}

extension VectorOps {
    /// Attention's value sum for `heads` heads sharing one value sequence:
    /// `output[h * dimension + i] = sum over p < count, in order, of weights[h * weightStride + p] * values[p * dimension + i]`
    /// starting from zero (fused multiply-adds on the 8-lane part), bit for bit what repeated `addScaled` calls give,
    /// but each value row is converted once and each output lane stays in a register.
    /// With `avx512` (and a dimension that is a multiple of 16), `KernelsAVX512.AttentionProducts`
    /// computes the same bits with 16-lane vectors.
    public static func weightedSum(values: UnsafePointer<Float16>, count: Int, dimension: Int, heads: Int,
                                   weights: UnsafePointer<Float>, weightStride: Int, into output: UnsafeMutablePointer<Float>,
                                   avx512: Bool = CPUFeatures.avx512VNNI) {
        #if arch(x86_64)
        if avx512 && dimension % 16 == 0 {
            AttentionProducts.weightedSum(values: values, count: count, dimension: dimension, heads: heads,
                                          weights: weights, weightStride: weightStride, into: output)
            return
        }
        #endif
        weightedSumOf(values, count: count, dimension: dimension, heads: heads, weights: weights, weightStride: weightStride, into: output) {
            widenHalves(UnsafeRawPointer($0).loadUnaligned(as: SIMD8<Float16>.self))
        } scalar: { Float($0.pointee) }
    }

    /// `weightedSum` over F32 values.
    public static func weightedSum(values: UnsafePointer<Float>, count: Int, dimension: Int, heads: Int,
                                   weights: UnsafePointer<Float>, weightStride: Int, into output: UnsafeMutablePointer<Float>) {
        weightedSumOf(values, count: count, dimension: dimension, heads: heads, weights: weights, weightStride: weightStride, into: output) {
            UnsafeRawPointer($0).loadUnaligned(as: SIMD8<Float>.self)
        } scalar: { $0.pointee }
    }

    @inline(__always)
    static func weightedSumOf<E>(_ values: UnsafePointer<E>, count: Int, dimension: Int, heads: Int,
                                 weights: UnsafePointer<Float>, weightStride: Int, into output: UnsafeMutablePointer<Float>,
                                 load8: (UnsafePointer<E>) -> SIMD8<Float>, scalar: (UnsafePointer<E>) -> Float) {
        var h = 0
        // Up to four heads per pass: their eight-lane accumulators stay in registers.
        while h < heads {
            let n = min(4, heads - h)
            let w0 = weights + h * weightStride
            let w1 = weights + (h + min(1, n - 1)) * weightStride
            let w2 = weights + (h + min(2, n - 1)) * weightStride
            let w3 = weights + (h + min(3, n - 1)) * weightStride
            var i = 0
            while i + 8 <= dimension {
                var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
                for p in 0..<count {
                    let v = load8(values + p * dimension + i)
                    a0.addProduct(v, SIMD8(repeating: w0[p]))
                    a1.addProduct(v, SIMD8(repeating: w1[p]))
                    a2.addProduct(v, SIMD8(repeating: w2[p]))
                    a3.addProduct(v, SIMD8(repeating: w3[p]))
                }
                store8(a0, output + h * dimension + i)
                if n > 1 { store8(a1, output + (h + 1) * dimension + i) }
                if n > 2 { store8(a2, output + (h + 2) * dimension + i) }
                if n > 3 { store8(a3, output + (h + 3) * dimension + i) }
                i += 8
            }
            while i < dimension {
                for k in 0..<n {
                    var sum: Float = 0
                    // Unfused, as `addScaled`'s scalar tail.
                    for p in 0..<count { sum += weights[(h + k) * weightStride + p] * scalar(values + p * dimension + i) }
                    output[(h + k) * dimension + i] = sum
                }
                i += 1
            }
            h += n
        }
    }
}

extension VectorOps {
    /// Attention scores of one key against `heads` query rows (`dimension` apart):
    /// `scores[h * scoreStride] = dot(key, queries[h]) * scale`, each dot in exactly the
    /// order of `dot` (two eight-lane accumulators over 16-value steps, then a scalar tail),
    /// with the key converted once for all heads.
    /// True where `scores(transposedKeys:...)` runs: AVX-512 and a head dimension that is a multiple of 16.
    public static func canScoreTransposedKeys(dimension: Int) -> Bool {
        #if arch(x86_64)
        return CPUFeatures.avx512VNNI && dimension % 16 == 0
        #else
        return false
        #endif
    }

    /// Floats `transposeKeys` writes for `count` keys of `dimension` values.
    public static func transposedKeyCount(keys count: Int, dimension: Int) -> Int { (count + 15) / 16 * 16 * dimension }

    /// Keys `0..<count` (F16, `dimension` apart) in blocks of 16, transposed to F32: value d of key p
    /// at `destination[(p / 16 * dimension + d) * 16 + p % 16]` (`transposedKeyCount` floats; the
    /// lanes of a last partial block are left as they were).
    public static func transposeKeys(_ keys: UnsafePointer<Float16>, count: Int, dimension: Int,
                                     into destination: UnsafeMutablePointer<Float>) {
        @inline(__always) func at(_ p: Int, _ d: Int) -> Int { (p / 16 * dimension + d) * 16 + p % 16 }
        var p = 0
        while p + 8 <= count {
            @inline(__always) func key(_ k: Int, _ d: Int) -> SIMD8<Float> {
                widenHalves(UnsafeRawPointer(keys + (p + k) * dimension + d).loadUnaligned(as: SIMD8<Float16>.self))
            }
            for d in Swift.stride(from: 0, to: dimension, by: 8) {
                // An 8 x 8 block: eight keys' values d..<d+8, written as eight runs of eight lanes.
                let k0 = key(0, d), k1 = key(1, d), k2 = key(2, d), k3 = key(3, d)
                let k4 = key(4, d), k5 = key(5, d), k6 = key(6, d), k7 = key(7, d)
                for j in 0..<8 {
                    store8(SIMD8(k0[j], k1[j], k2[j], k3[j], k4[j], k5[j], k6[j], k7[j]), destination + at(p, d + j))
                }
            }
            p += 8
        }
        while p < count {
            for d in 0..<dimension { destination[at(p, d)] = Float(keys[p * dimension + d]) }
            p += 1
        }
    }

    /// `scores(keys:...)` for keys `first ..< first + count` stored by `transposeKeys`: the same bits,
    /// 16 keys a vector. Only where `canScoreTransposedKeys`.
    public static func scores(transposedKeys keys: UnsafePointer<Float>, first: Int, count: Int,
                              queries: UnsafePointer<Float>, heads: Int, dimension: Int,
                              scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        #if arch(x86_64)
        precondition(canScoreTransposedKeys(dimension: dimension), "scores(transposedKeys:) needs AVX-512 and a dimension that is a multiple of 16")
        AttentionProducts.scores(keyBlocks: keys, first: first, count: count, queries: queries, heads: heads,
                                 dimension: dimension, scale: scale, into: scores, scoreStride: scoreStride)
        #else
        preconditionFailure("scores(transposedKeys:) needs AVX-512")
        #endif
    }

    /// `scores(key:...)` for keys `0..<count` (`dimension` apart): key p's scores at `scores + p`.
    /// With `avx512` (and a dimension that is a multiple of 16), `KernelsAVX512.AttentionProducts`
    /// computes the same bits with 16-lane vectors.
    public static func scores(keys: UnsafePointer<Float16>, count: Int, queries: UnsafePointer<Float>, heads: Int, dimension: Int,
                              scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int,
                              avx512: Bool = CPUFeatures.avx512VNNI) {
        #if arch(x86_64)
        if avx512 && dimension % 16 == 0 {
            AttentionProducts.scores(keys: keys, count: count, queries: queries, heads: heads, dimension: dimension,
                                     scale: scale, into: scores, scoreStride: scoreStride)
            return
        }
        #endif
        for p in 0..<count {
            self.scores(key: keys + p * dimension, queries: queries, heads: heads, dimension: dimension, scale: scale,
                        into: scores + p, scoreStride: scoreStride)
        }
    }

    public static func scores(key: UnsafePointer<Float16>, queries: UnsafePointer<Float>, heads: Int, dimension: Int,
                              scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        scoresOf(key, queries: queries, heads: heads, dimension: dimension, scale: scale, into: scores, scoreStride: scoreStride) {
            widenHalves(UnsafeRawPointer($0).loadUnaligned(as: SIMD8<Float16>.self))
        } scalar: { Float($0.pointee) }
    }

    /// `scores` for an F32 key.
    public static func scores(key: UnsafePointer<Float>, queries: UnsafePointer<Float>, heads: Int, dimension: Int,
                              scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        scoresOf(key, queries: queries, heads: heads, dimension: dimension, scale: scale, into: scores, scoreStride: scoreStride) {
            UnsafeRawPointer($0).loadUnaligned(as: SIMD8<Float>.self)
        } scalar: { $0.pointee }
    }

    @inline(__always)
    static func scoresOf<E>(_ key: UnsafePointer<E>, queries: UnsafePointer<Float>, heads: Int, dimension: Int, scale: Float,
                            into scores: UnsafeMutablePointer<Float>, scoreStride: Int,
                            loadKey8: (UnsafePointer<E>) -> SIMD8<Float>, scalar: (UnsafePointer<E>) -> Float) {
        var h = 0
        while h < heads {
            let n = min(4, heads - h)
            let q0 = queries + h * dimension, q1 = queries + (h + min(1, n - 1)) * dimension
            let q2 = queries + (h + min(2, n - 1)) * dimension, q3 = queries + (h + min(3, n - 1)) * dimension
            var a00 = SIMD8<Float>(), a01 = SIMD8<Float>(), a10 = SIMD8<Float>(), a11 = SIMD8<Float>()
            var a20 = SIMD8<Float>(), a21 = SIMD8<Float>(), a30 = SIMD8<Float>(), a31 = SIMD8<Float>()
            var i = 0
            while i + 16 <= dimension {
                let k0 = loadKey8(key + i), k1 = loadKey8(key + i + 8)
                a00.addProduct(load8(q0 + i), k0); a01.addProduct(load8(q0 + i + 8), k1)
                a10.addProduct(load8(q1 + i), k0); a11.addProduct(load8(q1 + i + 8), k1)
                a20.addProduct(load8(q2 + i), k0); a21.addProduct(load8(q2 + i + 8), k1)
                a30.addProduct(load8(q3 + i), k0); a31.addProduct(load8(q3 + i + 8), k1)
                i += 16
            }
            @inline(__always) func finish(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ q: UnsafePointer<Float>) -> Float {
                var tail: Float = 0
                for j in i..<dimension { tail += q[j] * scalar(key + j) }
                return ((a + b).sum() + tail) * scale
            }
            scores[h * scoreStride] = finish(a00, a01, q0)
            if n > 1 { scores[(h + 1) * scoreStride] = finish(a10, a11, q1) }
            if n > 2 { scores[(h + 2) * scoreStride] = finish(a20, a21, q2) }
            if n > 3 { scores[(h + 3) * scoreStride] = finish(a30, a31, q3) }
            h += n
        }
    }
}
