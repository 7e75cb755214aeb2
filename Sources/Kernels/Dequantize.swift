/// Conversion of stored rows to F32, following the ggml block formulas exactly.
public enum Dequantize {
    /// Writes the `count` elements stored at `source` in `format` to `destination`.
    /// `count` must be a multiple of `format.blockElements`.
    public static func row(_ format: QuantFormat, from source: UnsafeRawPointer,
                           to destination: UnsafeMutablePointer<Float>, count: Int) {
        precondition(count % format.blockElements == 0, "\(format) rows need a multiple of \(format.blockElements) elements")
        let blocks = count / format.blockElements
        switch format {
        case .f32:
            destination.update(from: source.assumingMemoryBound(to: Float.self), count: count)
        case .f16:
            halves(from: source, to: destination, count: count)
        case .bf16:
            for i in 0..<count { destination[i] = bf16ToFloat(source.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) }
        case .q8_0:
            for b in 0..<blocks {
                let blk = source + b * 34, y = destination + b * 32
                let d = loadHalf(blk)
                for j in 0..<32 { y[j] = Float(blk.load(fromByteOffset: 2 + j, as: Int8.self)) * d }
            }
        case .q4_0, .q4_1, .q5_0, .q5_1:
            nibbleBlocks(format, from: source, to: destination, blocks: blocks)
        case .q4_K, .q5_K:
            kQuantBlocks(format, from: source, to: destination, blocks: blocks)
        case .q6_K:
            for b in 0..<blocks {
                let blk = source + b * 210, y = destination + b * 256
                let d = loadHalf(blk, 208)
                for e in 0..<256 {
                    y[e] = d * Float(q6KScale(blk, e)) * Float(q6KValue(blk, e))
                }
            }
        }
    }

    /// F16 elements, eight at a time.
    private static func halves(from source: UnsafeRawPointer, to destination: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count {
            let h = source.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self)
            UnsafeMutableRawPointer(destination + i).storeBytes(of: widenHalves(h), as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { destination[i] = loadHalf(source, 2 * i); i += 1 }
    }

    /// The 32-element 4- and 5-bit formats: Q4_0 and Q5_0 ((codes - 8 or 16) times the scale),
    /// Q4_1 and Q5_1 (codes times the scale, plus the minimum); bit j of the 5-bit formats'
    /// 32-bit `qh` is element j's fifth bit.
    private static func nibbleBlocks(_ format: QuantFormat, from source: UnsafeRawPointer,
                                     to destination: UnsafeMutablePointer<Float>, blocks: Int) {
        let hasMinimum = format == .q4_1 || format == .q5_1
        let hasHighBits = format == .q5_0 || format == .q5_1
        let codesOffset = 2 + (hasMinimum ? 2 : 0) + (hasHighBits ? 4 : 0)
        let bias = hasHighBits ? 16 : 8
        for b in 0..<blocks {
            let blk = source + b * format.blockBytes, y = destination + b * 32
            let d = loadHalf(blk), m: Float = hasMinimum ? loadHalf(blk, 2) : 0
            let qh = hasHighBits ? UInt32(littleEndian: blk.loadUnaligned(fromByteOffset: hasMinimum ? 4 : 2, as: UInt32.self)) : 0
            for j in 0..<16 {
                let q = blk.load(fromByteOffset: codesOffset + j, as: UInt8.self)
                let low = Int(q & 0x0F) | Int((qh >> UInt32(j)) & 1) << 4, high = Int(q >> 4) | Int((qh >> UInt32(j + 16)) & 1) << 4
                if hasMinimum {
                    y[j] = Float(low) * d + m
                    y[j + 16] = Float(high) * d + m
                } else {
                    y[j] = Float(low - bias) * d
                    y[j + 16] = Float(high - bias) * d
                }
            }
        }
    }

    /// Q4_K and Q5_K super-blocks: eight sub-blocks of 32 with 6-bit scales and minimums.
    private static func kQuantBlocks(_ format: QuantFormat, from source: UnsafeRawPointer,
                                     to destination: UnsafeMutablePointer<Float>, blocks: Int) {
        let hasHighBits = format == .q5_K
        for b in 0..<blocks {
            let blk = source + b * format.blockBytes, y = destination + b * 256
            let d = loadHalf(blk), dmin = loadHalf(blk, 2)
            let scales = blk + 4
            let qh = blk + 16                      // Q5_K only
            let qs = blk + (hasHighBits ? 48 : 16)
            for sub in 0..<8 {
                let (sc, m) = kQuantScaleMin(sub, scales)
                let scale = d * Float(sc), offset = dmin * Float(m)
                let pair = sub / 2, shift = UInt8((sub % 2) * 4)
                for l in 0..<32 {
                    var q = Int((qs.load(fromByteOffset: 32 * pair + l, as: UInt8.self) >> shift) & 0x0F)
                    if hasHighBits { q += Int((qh.load(fromByteOffset: l, as: UInt8.self) >> UInt8(sub)) & 1) << 4 }
                    y[32 * sub + l] = scale * Float(q) - offset
                }
            }
        }
    }
}

/// BF16 is the upper half of an F32.
@inline(__always)
public func bf16ToFloat(_ bits: UInt16) -> Float { Float(bitPattern: UInt32(bits) << 16) }

/// The 6-bit scale and min of sub-block `j` (0..<8) of a Q4_K/Q5_K super-block,
/// packed in its 12 scale bytes (ggml `get_scale_min_k4`).
@inline(__always)
func kQuantScaleMin(_ j: Int, _ q: UnsafeRawPointer) -> (scale: UInt8, min: UInt8) {
    @inline(__always) func byte(_ i: Int) -> UInt8 { q.load(fromByteOffset: i, as: UInt8.self) }
    if j < 4 {
        return (byte(j) & 63, byte(j + 4) & 63)
    }
    return ((byte(j + 4) & 0x0F) | ((byte(j - 4) >> 6) << 4),
            (byte(j + 4) >> 4) | ((byte(j) >> 6) << 4))
}

/// Element `e` (0..<256) of a Q6_K block as its signed 6-bit code (-32..<32).
@inline(__always)
func q6KValue(_ blk: UnsafeRawPointer, _ e: Int) -> Int {
    let half = e / 128, r = e % 128, group = r / 32, l = r % 32
    let low = blk.load(fromByteOffset: 64 * half + 32 * (group & 1) + l, as: UInt8.self) >> UInt8(4 * (group >> 1)) & 0x0F
    let high = (blk.load(fromByteOffset: 128 + 32 * half + l, as: UInt8.self) >> UInt8(2 * group)) & 3
    return Int(low | (high << 4)) - 32
}

/// The Int8 scale of element `e` of a Q6_K block (one per 16 consecutive elements).
@inline(__always)
func q6KScale(_ blk: UnsafeRawPointer, _ e: Int) -> Int8 {
    blk.load(fromByteOffset: 192 + e / 16, as: Int8.self)
}
