/// Straightforward reference quantizers from F32 to every `QuantFormat`, so
/// tests can build weights (and whole tiny model files) in any format. They
/// round to nearest with simple per-block ranges; they are not llama.cpp's
/// error-minimising searches, so files they write differ from llama.cpp's
/// but decode with the same formulas.
public enum Quantize {
    /// Encodes `count` floats from `source` as one row in `format` at `destination`
    /// (`format.rowBytes(columns: count)` bytes).
    public static func row(_ format: QuantFormat, from source: UnsafePointer<Float>,
                           to destination: UnsafeMutableRawPointer, count: Int) {
        precondition(count % format.blockElements == 0, "\(format) rows need a multiple of \(format.blockElements) elements")
        let blocks = count / format.blockElements
        switch format {
        case .f32:
            destination.copyMemory(from: source, byteCount: 4 * count)
        case .f16:
            for i in 0..<count { destination.storeBytes(of: Float16(source[i]), toByteOffset: 2 * i, as: Float16.self) }
        case .bf16:
            for i in 0..<count { destination.storeBytes(of: floatToBF16(source[i]), toByteOffset: 2 * i, as: UInt16.self) }
        case .q8_0:
            for b in 0..<blocks {
                let x = source + 32 * b, blk = destination + 34 * b
                let amax = (0..<32).reduce(Float(0)) { max($0, abs(x[$1])) }
                let d = amax / 127, id = d == 0 ? 0 : 1 / d
                blk.storeBytes(of: Float16(d), as: Float16.self)
                for j in 0..<32 { blk.storeBytes(of: Int8((x[j] * id).rounded()), toByteOffset: 2 + j, as: Int8.self) }
            }
        case .q4_0, .q5_0:
            let five = format == .q5_0
            let levels: Float = five ? -16 : -8, top = five ? 31 : 15
            for b in 0..<blocks {
                let x = source + 32 * b, blk = destination + format.blockBytes * b
                var amax: Float = 0, signedMax: Float = 0
                for j in 0..<32 where abs(x[j]) > amax { amax = abs(x[j]); signedMax = x[j] }
                let d = signedMax / levels, id = d == 0 ? 0 : 1 / d
                blk.storeBytes(of: Float16(d), as: Float16.self)
                var codes = [Int](repeating: 0, count: 32)
                for j in 0..<32 { codes[j] = min(top, max(0, Int((x[j] * id - levels).rounded()))) }
                storeNibbles(codes, five: five, to: blk, highBitsOffset: 2, nibblesOffset: five ? 6 : 2)
            }
        case .q4_1, .q5_1:
            let five = format == .q5_1
            let top = five ? 31 : 15
            for b in 0..<blocks {
                let x = source + 32 * b, blk = destination + format.blockBytes * b
                var lo = x[0], hi = x[0]
                for j in 1..<32 { lo = min(lo, x[j]); hi = max(hi, x[j]) }
                let d = (hi - lo) / Float(top), id = d == 0 ? 0 : 1 / d
                blk.storeBytes(of: Float16(d), as: Float16.self)
                blk.storeBytes(of: Float16(lo), toByteOffset: 2, as: Float16.self)
                var codes = [Int](repeating: 0, count: 32)
                for j in 0..<32 { codes[j] = min(top, max(0, Int(((x[j] - lo) * id).rounded()))) }
                storeNibbles(codes, five: five, to: blk, highBitsOffset: 4, nibblesOffset: five ? 8 : 4)
            }
        case .q4_K, .q5_K:
            for b in 0..<blocks { quantizeKBlock(source + 256 * b, to: destination + format.blockBytes * b, five: format == .q5_K) }
        case .q6_K:
            for b in 0..<blocks { quantizeQ6KBlock(source + 256 * b, to: destination + 210 * b) }
        }
    }

    /// Stores 32 codes as 16 bytes of nibbles (element j low, j+16 high) plus, for the 5-bit
    /// formats, their fifth bits as a little-endian UInt32.
    private static func storeNibbles(_ codes: [Int], five: Bool, to blk: UnsafeMutableRawPointer,
                                     highBitsOffset: Int, nibblesOffset: Int) {
        var high: UInt32 = 0
        for j in 0..<16 {
            blk.storeBytes(of: UInt8(codes[j] & 15) | UInt8(codes[j + 16] & 15) << 4, toByteOffset: nibblesOffset + j, as: UInt8.self)
            if codes[j] & 16 != 0 { high |= 1 << UInt32(j) }
            if codes[j + 16] & 16 != 0 { high |= 1 << UInt32(j + 16) }
        }
        if five { blk.storeBytes(of: high.littleEndian, toByteOffset: highBitsOffset, as: UInt32.self) }
    }

    private static func quantizeKBlock(_ x: UnsafePointer<Float>, to blk: UnsafeMutableRawPointer, five: Bool) {
        let top: Float = five ? 31 : 15
        var scales = [Float](repeating: 0, count: 8), mins = [Float](repeating: 0, count: 8)
        for s in 0..<8 {
            var lo: Float = 0, hi: Float = 0   // the offset can only lower values, so the range includes 0
            for l in 0..<32 { lo = min(lo, x[32 * s + l]); hi = max(hi, x[32 * s + l]) }
            scales[s] = (hi - lo) / top
            mins[s] = -lo
        }
        let d = (scales.max() ?? 0) / 63, dmin = (mins.max() ?? 0) / 63
        let sc = scales.map { d == 0 ? 0 : min(63, Int(($0 / d).rounded())) }
        let mc = mins.map { dmin == 0 ? 0 : min(63, Int(($0 / dmin).rounded())) }
        let dh = Float16(d), dminh = Float16(dmin)
        blk.storeBytes(of: dh, as: Float16.self)
        blk.storeBytes(of: dminh, toByteOffset: 2, as: Float16.self)
        for j in 0..<4 {
            blk.storeBytes(of: UInt8(sc[j] & 63) | UInt8(sc[j + 4] >> 4) << 6, toByteOffset: 4 + j, as: UInt8.self)
            blk.storeBytes(of: UInt8(mc[j] & 63) | UInt8(mc[j + 4] >> 4) << 6, toByteOffset: 8 + j, as: UInt8.self)
            blk.storeBytes(of: UInt8(sc[j + 4] & 15) | UInt8(mc[j + 4] & 15) << 4, toByteOffset: 12 + j, as: UInt8.self)
        }
        let qh = blk + 16, qs = blk + (five ? 48 : 16)
        if five { qh.initializeMemory(as: UInt8.self, repeating: 0, count: 32) }
        qs.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
        for s in 0..<8 {
            let scale = Float(dh) * Float(sc[s]), offset = Float(dminh) * Float(mc[s])
            let inv = scale == 0 ? 0 : 1 / scale
            for l in 0..<32 {
                let q = min(Int(top), max(0, Int(((x[32 * s + l] + offset) * inv).rounded())))
                let byte = qs + 32 * (s / 2) + l
                byte.storeBytes(of: byte.load(as: UInt8.self) | UInt8(q & 15) << UInt8(4 * (s % 2)), as: UInt8.self)
                if five && q & 16 != 0 {
                    qh.storeBytes(of: qh.load(fromByteOffset: l, as: UInt8.self) | UInt8(1) << UInt8(s), toByteOffset: l, as: UInt8.self)
                }
            }
        }
    }

    private static func quantizeQ6KBlock(_ x: UnsafePointer<Float>, to blk: UnsafeMutableRawPointer) {
        var scales = [Float](repeating: 0, count: 16)
        for g in 0..<16 {
            var amax: Float = 0, signedMax: Float = 0
            for l in 0..<16 where abs(x[16 * g + l]) > amax { amax = abs(x[16 * g + l]); signedMax = x[16 * g + l] }
            scales[g] = signedMax / -32
        }
        let smax = scales.reduce(Float(0)) { abs($1) > abs($0) ? $1 : $0 }
        let d = abs(smax) / 127
        let dh = Float16(d)
        blk.storeBytes(of: dh, toByteOffset: 208, as: Float16.self)
        blk.initializeMemory(as: UInt8.self, repeating: 0, count: 192)
        for g in 0..<16 {
            let sc = d == 0 ? 0 : Int8(max(-127, min(127, (scales[g] / d).rounded())))
            blk.storeBytes(of: sc, toByteOffset: 192 + g, as: Int8.self)
            let scale = Float(dh) * Float(sc), inv = scale == 0 ? 0 : 1 / scale
            for l in 0..<16 {
                let e = 16 * g + l
                let q = min(31, max(-32, Int((x[e] * inv).rounded()))) + 32
                let half = e / 128, r = e % 128, group = r / 32, i = r % 32
                let lowAt = 64 * half + 32 * (group & 1) + i, highAt = 128 + 32 * half + i
                blk.storeBytes(of: blk.load(fromByteOffset: lowAt, as: UInt8.self) | UInt8(q & 15) << UInt8(4 * (group >> 1)),
                               toByteOffset: lowAt, as: UInt8.self)
                blk.storeBytes(of: blk.load(fromByteOffset: highAt, as: UInt8.self) | UInt8(q >> 4) << UInt8(2 * group),
                               toByteOffset: highAt, as: UInt8.self)
            }
        }
    }
}

/// F32 to BF16, rounding to nearest even (NaN stays NaN).
public func floatToBF16(_ x: Float) -> UInt16 {
    if x.isNaN { return 0x7FC0 }
    let bits = x.bitPattern
    return UInt16(truncatingIfNeeded: (bits &+ 0x7FFF &+ ((bits >> 16) & 1)) >> 16)
}
