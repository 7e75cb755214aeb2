/// How activations are rounded to 8 bits for one weight format: the scheme
/// llama.cpp pairs with that format on CPUs (its `vec_dot_type`).
public enum ActivationScheme: Sendable {
    /// ggml's Q8_0 (for Q4_0, Q5_0, Q8_0): per 32 values `code = rne(x * 127 / max|x|)`,
    /// scale `d = f16(max|x| / 127)`.
    case q8_0
    /// ggml's Q8_1 (for Q4_1, Q5_1): as Q8_0, plus `s = f16(max|x| / 127 * sum(codes))`.
    case q8_1
    /// ggml's Q8_K (for the K-quants): one scale per 256 values,
    /// `code = rne(x * 127 / max|x|)`, `d = 1 / (127 / max|x|)` in F32.
    case q8_K
}

extension QuantFormat {
    /// The activation rounding llama.cpp uses with this format (nil for float formats).
    public var activationScheme: ActivationScheme? {
        switch self {
        case .f32, .f16, .bf16: return nil
        case .q8_0, .q4_0, .q5_0: return .q8_0
        case .q4_1, .q5_1: return .q8_1
        case .q4_K, .q5_K, .q6_K: return .q8_K
        }
    }
}

/// Activations quantized to 8 bits for the integer dot products, stored as blocks
/// of 32 values with one F32 scale each, whatever the `ActivationScheme` (for Q8_K
/// the eight blocks of a 256-value super-block carry the same scale).
///
/// Layout of one row of `columns` values (`blocks = columns / 32`):
/// `blocks * 32` Int8 codes, then `blocks` F32 scales `d`, then `blocks` F32
/// `s = d * sum(codes)` (used by the formats with an offset or a zero point;
/// rounded to F16 as ggml stores it for Q8_1). A value is `d * code`.
public enum QuantizedActivations {
    public static let blockElements = 32

    /// Bytes of one quantized row.
    @inline(__always)
    public static func rowBytes(columns: Int) -> Int { columns / 32 * 40 }

    /// Quantizes `columns` floats (a multiple of 32, of 256 for `.q8_K`) into `destination`.
    public static func quantizeRow(_ x: UnsafePointer<Float>, columns: Int, scheme: ActivationScheme = .q8_0,
                                   into destination: UnsafeMutableRawPointer) {
        let blocks = columns / 32
        let scales = (destination + blocks * 32).assumingMemoryBound(to: Float.self)
        let sums = scales + blocks
        if scheme == .q8_K {
            for superBlock in 0..<blocks / 8 {
                var amax: Float = 0
                for b in 8 * superBlock..<8 * superBlock + 8 { amax = max(amax, blockMaximum(x + 32 * b)) }
                let inverse: Float = amax == 0 ? 0 : 127 / amax
                let d: Float = amax == 0 ? 0 : 1 / inverse
                for b in 8 * superBlock..<8 * superBlock + 8 {
                    let sum = quantizeBlock(x + 32 * b, inverse: inverse, into: destination + 32 * b)
                    scales[b] = d
                    sums[b] = d * Float(sum)
                }
            }
            return
        }
        for b in 0..<blocks {
            let amax = blockMaximum(x + 32 * b)
            let inverse: Float = amax == 0 ? 0 : 127 / amax
            let d = amax / 127
            let sum = quantizeBlock(x + 32 * b, inverse: inverse, into: destination + 32 * b)
            let storedScale = Float(Float16(d))
            scales[b] = storedScale
            sums[b] = scheme == .q8_1 ? Float(Float16(d * Float(sum))) : storedScale * Float(sum)
        }
    }

    @inline(__always)
    static func blockMaximum(_ x: UnsafePointer<Float>) -> Float {
        let v = UnsafeRawPointer(x)
        let x0 = v.loadUnaligned(as: SIMD8<Float>.self), x1 = v.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
        let x2 = v.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self), x3 = v.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self)
        return horizontalMax(lanewiseMax(lanewiseMax(magnitude(x0), magnitude(x1)), lanewiseMax(magnitude(x2), magnitude(x3))))
    }

    /// Writes `rne(x[i] * inverse)` for 32 values and returns the sum of the codes.
    @inline(__always)
    static func quantizeBlock(_ x: UnsafePointer<Float>, inverse: Float, into out: UnsafeMutableRawPointer) -> Int32 {
        let v = UnsafeRawPointer(x)
        let scale = SIMD8<Float>(repeating: inverse)
        let q0 = roundToInt32(v.loadUnaligned(as: SIMD8<Float>.self) * scale)
        let q1 = roundToInt32(v.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self) * scale)
        let q2 = roundToInt32(v.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self) * scale)
        let q3 = roundToInt32(v.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self) * scale)
        out.storeBytes(of: truncateToInt8(q0), as: SIMD8<Int8>.self)
        out.storeBytes(of: truncateToInt8(q1), toByteOffset: 8, as: SIMD8<Int8>.self)
        out.storeBytes(of: truncateToInt8(q2), toByteOffset: 16, as: SIMD8<Int8>.self)
        out.storeBytes(of: truncateToInt8(q3), toByteOffset: 24, as: SIMD8<Int8>.self)
        let total = (q0 &+ q1) &+ (q2 &+ q3)
        var sum: Int32 = 0
        for i in 0..<8 { sum &+= total[i] }
        return sum
    }
}

/// One quantized activation row, as the dot-product kernels read it.
struct QuantizedRow {
    let codes: UnsafePointer<Int8>
    let scales: UnsafePointer<Float>
    let sums: UnsafePointer<Float>

    @inline(__always)
    init(_ base: UnsafeRawPointer, columns: Int) {
        let blocks = columns / 32
        codes = base.assumingMemoryBound(to: Int8.self)
        scales = (base + blocks * 32).assumingMemoryBound(to: Float.self)
        sums = scales + blocks
    }

    @inline(__always)
    func block(_ b: Int) -> SIMD32<Int8> {
        UnsafeRawPointer(codes + 32 * b).loadUnaligned(as: SIMD32<Int8>.self)
    }
}
