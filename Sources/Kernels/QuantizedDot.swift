/// Dot products of one stored weight row with one row of 8-bit activations.
///
/// Each 32-element block gives eight Int32 partial sums (exact), which are
/// converted to F32, scaled by `d_w * d_x` and accumulated lane-wise; the
/// blocks' offset terms are accumulated in a scalar. The order of operations
/// depends only on the row length, never on threads or tiling.
enum QuantizedDot {
    typealias Kernel = (UnsafeRawPointer, QuantizedRow, Int) -> Float

    /// The kernel for `format`; `blocks` counts 32-element blocks.
    static func kernel(for format: QuantFormat) -> Kernel {
        switch format {
        case .q8_0: return q8_0
        case .q4_0: return q4_0
        case .q4_1: return q4_1
        case .q5_0: return q5_0
        case .q5_1: return q5_1
        case .q4_K: return q4_K
        case .q5_K: return q5_K
        case .q6_K: return q6_K
        case .f32, .f16, .bf16: preconditionFailure("\(format) is not a quantized format")
        }
    }

    @inline(__always)
    static func nibbles(_ p: UnsafeRawPointer) -> SIMD32<UInt8> {
        let q = p.loadUnaligned(as: SIMD16<UInt8>.self)
        return SIMD32<UInt8>(lowHalf: q & 0x0F, highHalf: q &>> 4)
    }

    static func q8_0(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float {
        var acc = SIMD8<Float>()
        for b in 0..<blocks {
            let blk = w + 34 * b
            let q = blk.loadUnaligned(fromByteOffset: 2, as: SIMD32<Int8>.self)
            acc.addProduct(SIMD8<Float>(dotSigned32(q, x.block(b))), SIMD8<Float>(repeating: loadHalf(blk) * x.scales[b]))
        }
        return acc.sum()
    }

    static func q4_0(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float {
        var acc = SIMD8<Float>(), offset: Float = 0
        for b in 0..<blocks {
            let blk = w + 18 * b
            let d = loadHalf(blk)
            acc.addProduct(SIMD8<Float>(dotUnsigned32(nibbles(blk + 2), x.block(b))), SIMD8<Float>(repeating: d * x.scales[b]))
            offset += d * x.sums[b]
        }
        return acc.sum() - 8 * offset
    }

    static func q4_1(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float {
        var acc = SIMD8<Float>(), offset: Float = 0
        for b in 0..<blocks {
            let blk = w + 20 * b
            acc.addProduct(SIMD8<Float>(dotUnsigned32(nibbles(blk + 4), x.block(b))), SIMD8<Float>(repeating: loadHalf(blk) * x.scales[b]))
            offset += loadHalf(blk, 2) * x.sums[b]
        }
        return acc.sum() + offset
    }

    static func q5_0(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float {
        var acc = SIMD8<Float>(), offset: Float = 0
        for b in 0..<blocks {
            let blk = w + 22 * b
            let d = loadHalf(blk)
            let high = expandBits(UInt32(littleEndian: blk.loadUnaligned(fromByteOffset: 2, as: UInt32.self))) & 0x10
            acc.addProduct(SIMD8<Float>(dotUnsigned32(nibbles(blk + 6) | high, x.block(b))), SIMD8<Float>(repeating: d * x.scales[b]))
            offset += d * x.sums[b]
        }
        return acc.sum() - 16 * offset
    }

    static func q5_1(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float {
        var acc = SIMD8<Float>(), offset: Float = 0
        for b in 0..<blocks {
            let blk = w + 24 * b
            let high = expandBits(UInt32(littleEndian: blk.loadUnaligned(fromByteOffset: 4, as: UInt32.self))) & 0x10
            acc.addProduct(SIMD8<Float>(dotUnsigned32(nibbles(blk + 8) | high, x.block(b))), SIMD8<Float>(repeating: loadHalf(blk) * x.scales[b]))
            offset += loadHalf(blk, 2) * x.sums[b]
        }
        return acc.sum() + offset
    }

    @inline(__always)
    static func kQuant(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int, five: Bool) -> Float {
        var acc = SIMD8<Float>(), offset: Float = 0
        let blockBytes = five ? 176 : 144
        for sb in 0..<(blocks / 8) {
            let blk = w + blockBytes * sb
            let d = loadHalf(blk), dmin = loadHalf(blk, 2)
            let qs = blk + (five ? 48 : 16)
            let qh = five ? blk.loadUnaligned(fromByteOffset: 16, as: SIMD32<UInt8>.self) : SIMD32<UInt8>()
            for pair in 0..<4 {
                let packed = qs.loadUnaligned(fromByteOffset: 32 * pair, as: SIMD32<UInt8>.self)
                for half in 0..<2 {
                    let sub = 2 * pair + half
                    var q = half == 0 ? packed & 0x0F : packed &>> 4
                    if five { q |= ((qh &>> UInt8(sub)) & 1) &<< 4 }
                    let (sc, m) = kQuantScaleMin(sub, blk + 4)
                    let b = 8 * sb + sub
                    acc.addProduct(SIMD8<Float>(dotUnsigned32(q, x.block(b))), SIMD8<Float>(repeating: d * Float(sc) * x.scales[b]))
                    offset += dmin * Float(m) * x.sums[b]
                }
            }
        }
        return acc.sum() - offset
    }

    static func q4_K(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float { kQuant(w, x, blocks, five: false) }
    static func q5_K(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float { kQuant(w, x, blocks, five: true) }

    static func q6_K(_ w: UnsafeRawPointer, _ x: QuantizedRow, _ blocks: Int) -> Float {
        var acc = SIMD8<Float>()
        for sb in 0..<(blocks / 8) {
            let blk = w + 210 * sb
            let d = loadHalf(blk, 208)
            for half in 0..<2 {
                let high = blk.loadUnaligned(fromByteOffset: 128 + 32 * half, as: SIMD32<UInt8>.self)
                for group in 0..<4 {
                    let low = blk.loadUnaligned(fromByteOffset: 64 * half + 32 * (group & 1), as: SIMD32<UInt8>.self)
                    let code = ((low &>> UInt8(4 * (group >> 1))) & 0x0F) | (((high &>> UInt8(2 * group)) & 3) &<< 4)
                    let q = SIMD32<Int8>(truncatingIfNeeded: code) &- 32
                    let b = 8 * sb + 4 * half + group
                    let xq = x.block(b)
                    let magnitude = unsafeBitCast(applySign(q, of: q), to: SIMD32<UInt8>.self)
                    let pairs = multiplyAddPairs(magnitude, applySign(xq, of: q))
                    let s0 = Int16(blk.load(fromByteOffset: 192 + 2 * (4 * half + group), as: Int8.self))
                    let s1 = Int16(blk.load(fromByteOffset: 193 + 2 * (4 * half + group), as: Int8.self))
                    let scales = SIMD16<Int16>(lowHalf: SIMD8(repeating: s0), highHalf: SIMD8(repeating: s1))
                    acc.addProduct(SIMD8<Float>(multiplyAddPairs(pairs, scales)), SIMD8<Float>(repeating: d * x.scales[b]))
                }
            }
        }
        return acc.sum()
    }
}

/// Dot products of float rows with F32 activations.
enum FloatDot {
    static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        let xv = UnsafeRawPointer(x)
        var i = 0
        while i + 16 <= n {
            a0.addProduct(w.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self), xv.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self))
            a1.addProduct(w.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self), xv.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self))
            i += 16
        }
        var tail: Float = 0
        while i < n { tail += w.loadUnaligned(fromByteOffset: 4 * i, as: Float.self) * x[i]; i += 1 }
        return (a0 + a1).sum() + tail
    }

    static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        let xv = UnsafeRawPointer(x)
        var i = 0
        while i + 16 <= n {
            a0.addProduct(SIMD8<Float>(w.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self)), xv.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self))
            a1.addProduct(SIMD8<Float>(w.loadUnaligned(fromByteOffset: 2 * i + 16, as: SIMD8<Float16>.self)), xv.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self))
            i += 16
        }
        var tail: Float = 0
        while i < n { tail += loadHalf(w, 2 * i) * x[i]; i += 1 }
        return (a0 + a1).sum() + tail
    }

    static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var a0 = SIMD8<Float>()
        let xv = UnsafeRawPointer(x)
        var i = 0
        while i + 8 <= n {
            let bits = SIMD8<UInt32>(truncatingIfNeeded: w.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<UInt16>.self)) &<< 16
            a0.addProduct(unsafeBitCast(bits, to: SIMD8<Float>.self), xv.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self))
            i += 8
        }
        var tail: Float = 0
        while i < n { tail += bf16ToFloat(w.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) * x[i]; i += 1 }
        return a0.sum() + tail
    }
}
