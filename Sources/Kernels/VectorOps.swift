#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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
            v.addProduct(SIMD8<Float>(raw.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self)), a)
            store8(v, y + i)
            i += 8
        }
        while i < count { y[i] += alpha * Float(x[i]); i += 1 }
    }

    /// Converts F32 to F16 (round to nearest even).
    public static func convert(_ x: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float16>, count: Int) {
        var i = 0
        while i + 8 <= count {
            UnsafeMutableRawPointer(y + i).storeBytes(of: SIMD8<Float16>(load8(x + i)), as: SIMD8<Float16>.self)
            i += 8
        }
        while i < count { y[i] = Float16(x[i]); i += 1 }
    }

    /// `y[i] = x[i] * weight[i] / sqrt(mean(x^2) + epsilon)` (RMSNorm).
    public static func rmsNorm(_ x: UnsafePointer<Float>, weight: UnsafePointer<Float>, epsilon: Float,
                               into y: UnsafeMutablePointer<Float>, count: Int) {
        let meanSquare = dot(x, x, count: count) / Float(count)
        let scale = 1 / (meanSquare + epsilon).squareRoot()
        multiply(x, weight, scale: scale, into: y, count: count)
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
        var m = -Float.infinity
        for i in 0..<count { m = max(m, x[i]) }
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

    /// `y[i] = silu(gate[i]) * up[i]` with `silu(g) = g / (1 + exp(-g))` (SwiGLU).
    public static func swiGLU(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        let one = SIMD8<Float>(repeating: 1)
        while i + 8 <= count {
            let g = load8(gate + i)
            store8(g / (one + exp8(-g)) * load8(up + i), y + i)
            i += 8
        }
        while i < count { y[i] = gate[i] / (1 + expf(-gate[i])) * up[i]; i += 1 }
    }

    /// `y[i] = gelu(gate[i]) * up[i]` with the tanh approximation of GELU (GeGLU, as ggml's `gelu`).
    public static func geGLU(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count { store8(gelu8(load8(gate + i)) * load8(up + i), y + i); i += 8 }
        while i < count { y[i] = gelu(gate[i]) * up[i]; i += 1 }
    }

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
