/// How each quantized format presents a 32-element block to the tiled dot
/// products: byte codes plus F32 factors, such that
/// `value[i] = scale * pairWeight[i/2] * code[i] + offset`, with the pair
/// weights 1 for every format except Q6_K (its Int8 sub-block scales).
/// Codes are unsigned (0..<32) unless `signedCodes`, then they are Int8 bit
/// patterns (Q8_0, Q6_K) and `offset` is 0.
protocol WeightBlocks {
    static var format: QuantFormat { get }
    static var signedCodes: Bool { get }
    static var hasOffset: Bool { get }
    static var hasPairWeights: Bool { get }
    /// Unsigned 4-bit codes: eight `vpmaddubsw` lanes of a block sum within Int16.
    static var fourBitCodes: Bool { get }
    /// Block `b` (in 32-element blocks) of the row at `row`.
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float)
    static func pairWeights(_ row: UnsafeRawPointer, _ b: Int) -> SIMD16<Int16>

    /// True for the 32-element formats, whose blocks start with an F16 scale (and, for
    /// Q4_1/Q5_1, an F16 offset): `rows8` then loads the eight rows' headers as one vector.
    static var headerScales: Bool { get }
    /// Bytes per 32-element block (formats with `headerScales`).
    static var blockBytes: Int { get }
    /// The codes alone (formats with `headerScales`).
    static func codes(_ row: UnsafeRawPointer, _ b: Int) -> SIMD32<UInt8>
    /// Scales and offsets of eight blocks from their first four bytes, exactly as `decode` gives them.
    static func scales(headers: SIMD8<UInt32>) -> (scale: SIMD8<Float>, offset: SIMD8<Float>)
    /// Byte offset, within a block, of the 16 bytes of packed 4-bit codes (formats with
    /// `headerScales` and `fourBitCodes`: low nibbles are elements 0..<16, high nibbles 16..<32).
    static var packedCodesOffset: Int { get }
    /// What ggml subtracts from the unsigned codes to make them signed (8 for Q4_0, 16 for Q5_0;
    /// 0 for the others), for `GGMLOrderKernels`.
    static var ggmlCodeBias: UInt8 { get }
}

extension WeightBlocks {
    static var hasPairWeights: Bool { false }
    static var fourBitCodes: Bool { false }
    static var headerScales: Bool { false }
    static var blockBytes: Int { 0 }
    static var packedCodesOffset: Int { 0 }
    static var ggmlCodeBias: UInt8 { 0 }
    @inline(__always)
    static func codes(_ row: UnsafeRawPointer, _ b: Int) -> SIMD32<UInt8> { decode(row, b).codes }
    @inline(__always)
    static func scales(headers: SIMD8<UInt32>) -> (scale: SIMD8<Float>, offset: SIMD8<Float>) { (SIMD8(), SIMD8()) }
    @inline(__always)
    static func pairWeights(_ row: UnsafeRawPointer, _ b: Int) -> SIMD16<Int16> { SIMD16(repeating: 1) }

    @inline(__always)
    static func nibbles(_ p: UnsafeRawPointer) -> SIMD32<UInt8> {
        unpackNibbles(p.loadUnaligned(as: SIMD16<UInt8>.self))
    }
}

enum Q8_0Blocks: WeightBlocks {
    static let headerScales = true, blockBytes = 34
    @inline(__always)
    static func codes(_ row: UnsafeRawPointer, _ b: Int) -> SIMD32<UInt8> {
        let blk = row + 34 * b
        return blk.loadUnaligned(fromByteOffset: 2, as: SIMD32<UInt8>.self)
    }
    @inline(__always)
    static func scales(headers: SIMD8<UInt32>) -> (scale: SIMD8<Float>, offset: SIMD8<Float>) {
        (halvesToFloat(headers, high: false), SIMD8())
    }
    static let format = QuantFormat.q8_0
    static let signedCodes = true, hasOffset = false
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 34 * b
        return (blk.loadUnaligned(fromByteOffset: 2, as: SIMD32<UInt8>.self), loadHalf(blk), 0)
    }
}

enum Q4_0Blocks: WeightBlocks {
    static let fourBitCodes = true
    static let ggmlCodeBias: UInt8 = 8
    static let headerScales = true, blockBytes = 18, packedCodesOffset = 2
    @inline(__always)
    static func codes(_ row: UnsafeRawPointer, _ b: Int) -> SIMD32<UInt8> {
        let blk = row + 18 * b
        return nibbles(blk + 2)
    }
    @inline(__always)
    static func scales(headers: SIMD8<UInt32>) -> (scale: SIMD8<Float>, offset: SIMD8<Float>) {
        let d = halvesToFloat(headers, high: false)
        return (d, SIMD8(repeating: -8) * d)
    }
    static let format = QuantFormat.q4_0
    static let signedCodes = false, hasOffset = true
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 18 * b
        let d = loadHalf(blk)
        return (nibbles(blk + 2), d, -8 * d)
    }
}

enum Q4_1Blocks: WeightBlocks {
    static let fourBitCodes = true
    static let headerScales = true, blockBytes = 20, packedCodesOffset = 4
    @inline(__always)
    static func codes(_ row: UnsafeRawPointer, _ b: Int) -> SIMD32<UInt8> {
        let blk = row + 20 * b
        return nibbles(blk + 4)
    }
    @inline(__always)
    static func scales(headers: SIMD8<UInt32>) -> (scale: SIMD8<Float>, offset: SIMD8<Float>) {
        (halvesToFloat(headers, high: false), halvesToFloat(headers, high: true))
    }
    static let format = QuantFormat.q4_1
    static let signedCodes = false, hasOffset = true
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 20 * b
        return (nibbles(blk + 4), loadHalf(blk), loadHalf(blk, 2))
    }
}

enum Q5_0Blocks: WeightBlocks {
    static let ggmlCodeBias: UInt8 = 16
    static let headerScales = true, blockBytes = 22
    @inline(__always)
    static func codes(_ row: UnsafeRawPointer, _ b: Int) -> SIMD32<UInt8> {
        let blk = row + 22 * b
        return bitOr(nibbles(blk + 6), bitAnd(expandBits(UInt32(littleEndian: blk.loadUnaligned(fromByteOffset: 2, as: UInt32.self))), SIMD32(repeating: 0x10)))
    }
    @inline(__always)
    static func scales(headers: SIMD8<UInt32>) -> (scale: SIMD8<Float>, offset: SIMD8<Float>) {
        let d = halvesToFloat(headers, high: false)
        return (d, SIMD8(repeating: -16) * d)
    }
    static let format = QuantFormat.q5_0
    static let signedCodes = false, hasOffset = true
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 22 * b
        let d = loadHalf(blk)
        let high = bitAnd(expandBits(UInt32(littleEndian: blk.loadUnaligned(fromByteOffset: 2, as: UInt32.self))), SIMD32(repeating: 0x10))
        return (bitOr(nibbles(blk + 6), high), d, -16 * d)
    }
}

enum Q5_1Blocks: WeightBlocks {
    static let headerScales = true, blockBytes = 24
    @inline(__always)
    static func codes(_ row: UnsafeRawPointer, _ b: Int) -> SIMD32<UInt8> {
        let blk = row + 24 * b
        return bitOr(nibbles(blk + 8), bitAnd(expandBits(UInt32(littleEndian: blk.loadUnaligned(fromByteOffset: 4, as: UInt32.self))), SIMD32(repeating: 0x10)))
    }
    @inline(__always)
    static func scales(headers: SIMD8<UInt32>) -> (scale: SIMD8<Float>, offset: SIMD8<Float>) {
        (halvesToFloat(headers, high: false), halvesToFloat(headers, high: true))
    }
    static let format = QuantFormat.q5_1
    static let signedCodes = false, hasOffset = true
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 24 * b
        let high = bitAnd(expandBits(UInt32(littleEndian: blk.loadUnaligned(fromByteOffset: 4, as: UInt32.self))), SIMD32(repeating: 0x10))
        return (bitOr(nibbles(blk + 8), high), loadHalf(blk), loadHalf(blk, 2))
    }
}

enum Q4_KBlocks: WeightBlocks {
    static let fourBitCodes = true
    static let format = QuantFormat.q4_K
    static let signedCodes = false, hasOffset = true
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 144 * (b >> 3), sub = b & 7
        let (sc, m) = kQuantScaleMin(sub, blk + 4)
        let packed = blk.loadUnaligned(fromByteOffset: 16 + 32 * (sub >> 1), as: SIMD32<UInt8>.self)
        return (bitAnd(shiftRight(packed, 4 * (sub & 1)), SIMD32(repeating: 0x0F)), loadHalf(blk) * Float(sc), -(loadHalf(blk, 2) * Float(m)))
    }
}

enum Q5_KBlocks: WeightBlocks {
    static let format = QuantFormat.q5_K
    static let signedCodes = false, hasOffset = true
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 176 * (b >> 3), sub = b & 7
        let (sc, m) = kQuantScaleMin(sub, blk + 4)
        let packed = blk.loadUnaligned(fromByteOffset: 48 + 32 * (sub >> 1), as: SIMD32<UInt8>.self)
        let high = bitAnd(shiftLeft(shiftRight(blk.loadUnaligned(fromByteOffset: 16, as: SIMD32<UInt8>.self), sub), 4), SIMD32(repeating: 0x10))
        let low = bitAnd(shiftRight(packed, 4 * (sub & 1)), SIMD32(repeating: 0x0F))
        return (bitOr(low, high), loadHalf(blk) * Float(sc), -(loadHalf(blk, 2) * Float(m)))
    }
}

enum Q6_KBlocks: WeightBlocks {
    static let format = QuantFormat.q6_K
    static let signedCodes = true, hasOffset = false, hasPairWeights = true
    @inline(__always)
    static func decode(_ row: UnsafeRawPointer, _ b: Int) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
        let blk = row + 210 * (b >> 3), sub = b & 7
        let half = sub >> 2, group = sub & 3
        let low = blk.loadUnaligned(fromByteOffset: 64 * half + 32 * (group & 1), as: SIMD32<UInt8>.self)
        let high = blk.loadUnaligned(fromByteOffset: 128 + 32 * half, as: SIMD32<UInt8>.self)
        let lowBits = bitAnd(shiftRight(low, 4 * (group >> 1)), SIMD32(repeating: 0x0F))
        let highBits = bitAnd(shiftLeft(shiftRight(high, 2 * group), 4), SIMD32(repeating: 0x30))
        return (wrappingSubtract(bitOr(lowBits, highBits), SIMD32(repeating: 32)), loadHalf(blk, 208), 0)
    }
    @inline(__always)
    static func pairWeights(_ row: UnsafeRawPointer, _ b: Int) -> SIMD16<Int16> {
        let scales = row + 210 * (b >> 3) + 192 + 2 * (b & 7)
        let s0 = Int16(scales.load(as: Int8.self)), s1 = Int16(scales.load(fromByteOffset: 1, as: Int8.self))
        return concatenate(SIMD8<Int16>(repeating: s0), SIMD8<Int16>(repeating: s1), as: SIMD16<Int16>.self)
    }
}

/// Eight Int32 partial sums of one weight block with one activation block.
/// For signed codes `magnitude` is |codes| (computed once per block by the caller).
@inline(__always)
func blockPartialSums<W: WeightBlocks>(_: W.Type, codes: SIMD32<UInt8>, magnitude: SIMD32<UInt8>,
                                       pairWeights: SIMD16<Int16>, x: SIMD32<Int8>) -> SIMD8<Int32> {
    if W.signedCodes {
        let signed = unsafeBitCast(codes, to: SIMD32<Int8>.self)
        return multiplyAddPairs(multiplyAddPairs(magnitude, applySign(x, of: signed)), pairWeights)
    }
    return multiplyAddPairs(multiplyAddPairs(codes, x), pairWeights)
}

@inline(__always)
func magnitudeOf<W: WeightBlocks>(_: W.Type, _ codes: SIMD32<UInt8>) -> SIMD32<UInt8> {
    guard W.signedCodes else { return codes }
    let signed = unsafeBitCast(codes, to: SIMD32<Int8>.self)
    return unsafeBitCast(applySign(signed, of: signed), to: SIMD32<UInt8>.self)
}
