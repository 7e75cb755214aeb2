// The few integer SIMD operations the quantized dot products are built from.
//
// LLVM does not recognise Swift SIMD lane arithmetic as x86's multiply-add
// instructions (it emits vpmulld or per-lane code), so on x86-64 these call the
// LLVM intrinsics through the compiler's Builtin module (`-enable-builtin-module`,
// set for this target in Package.swift). Everything stays Swift; other
// architectures get plain lane-wise SIMD code with the same results.

#if arch(x86_64)
import Builtin
#endif

/// Sum of adjacent pairs of products `a[i] * b[i]` of unsigned and signed
/// bytes, saturated to Int16 (x86 `vpmaddubsw`). Callers keep
/// |a[2i]*b[2i] + a[2i+1]*b[2i+1]| within Int16.
@inline(__always)
func multiplyAddPairs(_ a: SIMD32<UInt8>, _ b: SIMD32<Int8>) -> SIMD16<Int16> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx2_pmadd_ub_sw(
        unsafeBitCast(a, to: Builtin.Vec32xInt8.self),
        unsafeBitCast(b, to: Builtin.Vec32xInt8.self)), to: SIMD16<Int16>.self)
    #else
    var r = SIMD16<Int16>()
    for i in 0..<16 {
        let s = Int32(a[2 * i]) * Int32(b[2 * i]) + Int32(a[2 * i + 1]) * Int32(b[2 * i + 1])
        r[i] = Int16(clamping: s)
    }
    return r
    #endif
}

/// Sum of adjacent pairs of Int16 products widened to Int32 (x86 `vpmaddwd`).
@inline(__always)
func multiplyAddPairs(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD8<Int32> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx2_pmadd_wd(
        unsafeBitCast(a, to: Builtin.Vec16xInt16.self),
        unsafeBitCast(b, to: Builtin.Vec16xInt16.self)), to: SIMD8<Int32>.self)
    #else
    var r = SIMD8<Int32>()
    for i in 0..<8 {
        r[i] = Int32(a[2 * i]) &* Int32(b[2 * i]) &+ Int32(a[2 * i + 1]) &* Int32(b[2 * i + 1])
    }
    return r
    #endif
}

/// `b` with the sign of `s` applied: -b where s < 0, 0 where s == 0, b otherwise (x86 `vpsignb`).
@inline(__always)
func applySign(_ b: SIMD32<Int8>, of s: SIMD32<Int8>) -> SIMD32<Int8> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx2_psign_b(
        unsafeBitCast(b, to: Builtin.Vec32xInt8.self),
        unsafeBitCast(s, to: Builtin.Vec32xInt8.self)), to: SIMD32<Int8>.self)
    #else
    var r = SIMD32<Int8>()
    for i in 0..<32 { r[i] = s[i] < 0 ? 0 &- b[i] : (s[i] == 0 ? 0 : b[i]) }
    return r
    #endif
}

/// Byte shuffle within each 128-bit half (x86 `vpshufb`); indices are below 16.
@inline(__always)
func shuffleBytes(_ table: SIMD32<UInt8>, _ indices: SIMD32<UInt8>) -> SIMD32<UInt8> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx2_pshuf_b(
        unsafeBitCast(table, to: Builtin.Vec32xInt8.self),
        unsafeBitCast(indices, to: Builtin.Vec32xInt8.self)), to: SIMD32<UInt8>.self)
    #else
    var r = SIMD32<UInt8>()
    for i in 0..<32 { r[i] = table[(i & 16) | Int(indices[i] & 15)] }
    return r
    #endif
}

/// Eight Int32 partial sums of the 32 products `w[i] * x[i]`, unsigned weights
/// below 128 (the 4- and 5-bit formats store unsigned codes).
@inline(__always)
func dotUnsigned32(_ w: SIMD32<UInt8>, _ x: SIMD32<Int8>) -> SIMD8<Int32> {
    multiplyAddPairs(multiplyAddPairs(w, x), SIMD16<Int16>(repeating: 1))
}

/// Eight Int32 partial sums of the 32 products `w[i] * x[i]` of signed bytes
/// (|w| <= 128, |x| <= 127), computed as |w| * (x with w's sign).
@inline(__always)
func dotSigned32(_ w: SIMD32<Int8>, _ x: SIMD32<Int8>) -> SIMD8<Int32> {
    let magnitude = unsafeBitCast(applySign(w, of: w), to: SIMD32<UInt8>.self)
    return multiplyAddPairs(multiplyAddPairs(magnitude, applySign(x, of: w)), SIMD16<Int16>(repeating: 1))
}

/// Spreads the 32 bits of `bits` to 32 bytes: byte i is 0xFF when bit i is set.
@inline(__always)
func expandBits(_ bits: UInt32) -> SIMD32<UInt8> {
    let broadcast = unsafeBitCast(SIMD8<UInt32>(repeating: bits), to: SIMD32<UInt8>.self)
    let spread = shuffleBytes(broadcast, SIMD32<UInt8>(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                                       2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3))
    let mask = SIMD32<UInt8>(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
                             1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128)
    return SIMD32<UInt8>(repeating: 0).replacing(with: 0xFF, where: (spread & mask) .== mask)
}

@inline(__always)
func loadHalf(_ p: UnsafeRawPointer, _ offset: Int = 0) -> Float {
    Float(p.loadUnaligned(fromByteOffset: offset, as: Float16.self))
}
