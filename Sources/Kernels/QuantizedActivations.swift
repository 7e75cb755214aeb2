/// Activations quantized to 8 bits for the integer dot products: blocks of 32
/// values with one F32 scale each (like ggml's Q8_0/Q8_1, with F32 scales).
///
/// Layout of one row of `columns` values (`blocks = columns / 32`):
/// `blocks * 32` Int8 codes, then `blocks` F32 scales `d`, then `blocks` F32
/// `s = d * sum(codes)` (used by the formats with an offset or a zero point).
/// A value is `d * code`, with `d = max|x| / 127`, rounded to nearest even.
public enum QuantizedActivations {
    public static let blockElements = 32

    /// Bytes of one quantized row.
    @inline(__always)
    public static func rowBytes(columns: Int) -> Int { columns / 32 * 40 }

    /// Quantizes `columns` floats (a multiple of 32) into `destination`.
    public static func quantizeRow(_ x: UnsafePointer<Float>, columns: Int, into destination: UnsafeMutableRawPointer) {
        let blocks = columns / 32
        let codes = destination
        let scales = (destination + blocks * 32).assumingMemoryBound(to: Float.self)
        let sums = scales + blocks
        for b in 0..<blocks {
            let v = UnsafeRawPointer(x + 32 * b)
            let x0 = v.loadUnaligned(as: SIMD8<Float>.self), x1 = v.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
            let x2 = v.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self), x3 = v.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self)
            let amax = horizontalMax(lanewiseMax(lanewiseMax(magnitude(x0), magnitude(x1)), lanewiseMax(magnitude(x2), magnitude(x3))))
            let d = amax / 127
            let id: Float = d == 0 ? 0 : 1 / d
            let scale = SIMD8<Float>(repeating: id)
            let q0 = roundToInt32(x0 * scale), q1 = roundToInt32(x1 * scale)
            let q2 = roundToInt32(x2 * scale), q3 = roundToInt32(x3 * scale)
            let out = codes + 32 * b
            out.storeBytes(of: truncateToInt8(q0), as: SIMD8<Int8>.self)
            out.storeBytes(of: truncateToInt8(q1), toByteOffset: 8, as: SIMD8<Int8>.self)
            out.storeBytes(of: truncateToInt8(q2), toByteOffset: 16, as: SIMD8<Int8>.self)
            out.storeBytes(of: truncateToInt8(q3), toByteOffset: 24, as: SIMD8<Int8>.self)
            scales[b] = d
            let total = (q0 &+ q1) &+ (q2 &+ q3)
            var sum: Int32 = 0
            for i in 0..<8 { sum &+= total[i] }
            sums[b] = d * Float(sum)
        }
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
