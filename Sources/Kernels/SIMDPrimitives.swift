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
    return equalMask(bitAnd(spread, mask), mask)
}

// Byte-vector operations. The generic SIMD operators are lane loops that LLVM
// usually, but not always, vectorises (inside the large tiled kernels it did
// not), so the kernels use these, which map to single instructions on x86-64.

#if arch(x86_64)
@inline(__always) private func raw(_ v: SIMD32<UInt8>) -> Builtin.Vec32xInt8 { unsafeBitCast(v, to: Builtin.Vec32xInt8.self) }
@inline(__always) private func bytes(_ v: Builtin.Vec32xInt8) -> SIMD32<UInt8> { unsafeBitCast(v, to: SIMD32<UInt8>.self) }
@inline(__always) private func words(_ v: SIMD32<UInt8>) -> Builtin.Vec16xInt16 { unsafeBitCast(v, to: Builtin.Vec16xInt16.self) }
@inline(__always) private func splatWords(_ n: Int) -> Builtin.Vec16xInt16 {
    unsafeBitCast(SIMD16<UInt16>(repeating: UInt16(truncatingIfNeeded: n)), to: Builtin.Vec16xInt16.self)
}
#endif

@inline(__always)
func bitAnd(_ a: SIMD32<UInt8>, _ b: SIMD32<UInt8>) -> SIMD32<UInt8> {
    #if arch(x86_64)
    return bytes(Builtin.and_Vec32xInt8(raw(a), raw(b)))
    #else
    return a & b
    #endif
}

@inline(__always)
func bitOr(_ a: SIMD32<UInt8>, _ b: SIMD32<UInt8>) -> SIMD32<UInt8> {
    #if arch(x86_64)
    return bytes(Builtin.or_Vec32xInt8(raw(a), raw(b)))
    #else
    return a | b
    #endif
}

/// Lane-wise `a &- b`.
@inline(__always)
func wrappingSubtract(_ a: SIMD32<UInt8>, _ b: SIMD32<UInt8>) -> SIMD32<UInt8> {
    #if arch(x86_64)
    return bytes(Builtin.sub_Vec32xInt8(raw(a), raw(b)))
    #else
    return a &- b
    #endif
}

/// Each byte shifted right by `n` (0...7), zeros shifted in.
@inline(__always)
func shiftRight(_ v: SIMD32<UInt8>, _ n: Int) -> SIMD32<UInt8> {
    #if arch(x86_64)
    let shifted = unsafeBitCast(Builtin.lshr_Vec16xInt16(words(v), splatWords(n)), to: SIMD32<UInt8>.self)
    return bitAnd(shifted, SIMD32(repeating: UInt8(truncatingIfNeeded: 0xFF >> n)))
    #else
    return v &>> UInt8(n)
    #endif
}

/// Each byte shifted left by `n` (0...7).
@inline(__always)
func shiftLeft(_ v: SIMD32<UInt8>, _ n: Int) -> SIMD32<UInt8> {
    #if arch(x86_64)
    let shifted = unsafeBitCast(Builtin.shl_Vec16xInt16(words(v), splatWords(n)), to: SIMD32<UInt8>.self)
    return bitAnd(shifted, SIMD32(repeating: UInt8(truncatingIfNeeded: 0xFF << n)))
    #else
    return v &<< UInt8(n)
    #endif
}

/// 0xFF where `a[i] == b[i]`, else 0.
@inline(__always)
func equalMask(_ a: SIMD32<UInt8>, _ b: SIMD32<UInt8>) -> SIMD32<UInt8> {
    #if arch(x86_64)
    return bytes(Builtin.sext_Vec32xInt1_Vec32xInt8(Builtin.cmp_eq_Vec32xInt8(raw(a), raw(b))))
    #else
    return SIMD32<UInt8>(repeating: 0).replacing(with: 0xFF, where: a .== b)
    #endif
}

/// The 32 4-bit codes packed in 16 bytes, ggml order: the low nibbles are
/// elements 0..<16, the high nibbles elements 16..<32.
@inline(__always)
func unpackNibbles(_ q: SIMD16<UInt8>) -> SIMD32<UInt8> {
    let both = concatenate(q, q, as: SIMD32<UInt8>.self)
    #if arch(x86_64)
    let shifted = Builtin.lshr_Vec8xInt32(unsafeBitCast(both, to: Builtin.Vec8xInt32.self),
                                         unsafeBitCast(SIMD8<UInt32>(0, 0, 0, 0, 4, 4, 4, 4), to: Builtin.Vec8xInt32.self))
    return bitAnd(unsafeBitCast(shifted, to: SIMD32<UInt8>.self), SIMD32(repeating: 0x0F))
    #else
    return SIMD32<UInt8>(lowHalf: q & 0x0F, highHalf: q &>> 4)
    #endif
}

/// `low` followed by `high`.
@inline(__always)
func concatenate<V: SIMD, W: SIMD>(_ low: V, _ high: V, as: W.Type) -> W {
    var pair = (low, high)
    return withUnsafeBytes(of: &pair) { $0.loadUnaligned(as: W.self) }
}

/// Adjacent pairs of Int16 summed within each 128-bit half (x86 `vphaddw`), wrapping.
@inline(__always)
func horizontalAddPairs(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD16<Int16> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx2_phadd_w(
        unsafeBitCast(a, to: Builtin.Vec16xInt16.self),
        unsafeBitCast(b, to: Builtin.Vec16xInt16.self)), to: SIMD16<Int16>.self)
    #else
    var r = SIMD16<Int16>()
    for half in 0..<2 {
        for i in 0..<4 {
            r[8 * half + i] = a[8 * half + 2 * i] &+ a[8 * half + 2 * i + 1]
            r[8 * half + 4 + i] = b[8 * half + 2 * i] &+ b[8 * half + 2 * i + 1]
        }
    }
    return r
    #endif
}

/// Lane i of the result is the sum of the sixteen Int16 lanes of `v.i`, for vectors whose
/// eight-lane half sums fit in Int16 (the 4-bit formats: |lane| <= 2 * 15 * 127, so
/// |half sum| <= 30480).
@inline(__always)
func sumLanes(_ v0: SIMD16<Int16>, _ v1: SIMD16<Int16>, _ v2: SIMD16<Int16>, _ v3: SIMD16<Int16>,
              _ v4: SIMD16<Int16>, _ v5: SIMD16<Int16>, _ v6: SIMD16<Int16>, _ v7: SIMD16<Int16>) -> SIMD8<Int32> {
    let h0123 = horizontalAddPairs(horizontalAddPairs(v0, v1), horizontalAddPairs(v2, v3))
    let h4567 = horizontalAddPairs(horizontalAddPairs(v4, v5), horizontalAddPairs(v6, v7))
    // [v0..v7 low-half sums | v0..v7 high-half sums]
    var all = horizontalAddPairs(h0123, h4567)
    return withUnsafeBytes(of: &all) { p in
        widen(p.loadUnaligned(as: SIMD8<Int16>.self)) &+ widen(p.loadUnaligned(fromByteOffset: 16, as: SIMD8<Int16>.self))
    }
}

/// Lane i of the result is the sum of the eight Int16 lanes of row i's half: `v0` holds
/// rows 0 and 4 (low and high 128-bit half), `v1` rows 1 and 5, `v2` rows 2 and 6, `v3`
/// rows 3 and 7. Each half's sum must fit in Int16 (the 4-bit formats: at most
/// 2 * 2 * 15 * 127 per lane, 30480 per half).
@inline(__always)
func sumPairedRows(_ v0: SIMD16<Int16>, _ v1: SIMD16<Int16>, _ v2: SIMD16<Int16>, _ v3: SIMD16<Int16>) -> SIMD8<Int32> {
    // [r0 x4, r1 x4 | r4 x4, r5 x4] and [r2 x4, r3 x4 | r6 x4, r7 x4], then pairs of those.
    let sums = horizontalAddPairs(horizontalAddPairs(v0, v1), horizontalAddPairs(v2, v3))
    return multiplyAddPairs(sums, SIMD16(repeating: 1))
}

/// Lane-wise `a &+ b` (x86 `vpaddw`).
@inline(__always)
func wrappingAdd(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD16<Int16> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.add_Vec16xInt16(unsafeBitCast(a, to: Builtin.Vec16xInt16.self),
                                                 unsafeBitCast(b, to: Builtin.Vec16xInt16.self)), to: SIMD16<Int16>.self)
    #else
    return a &+ b
    #endif
}

/// 16 bytes at `low` followed by 16 bytes at `high` (x86 `vmovdqu` + `vinserti128`).
@inline(__always)
func loadHalves(_ low: UnsafeRawPointer, _ high: UnsafeRawPointer) -> SIMD32<UInt8> {
    concatenate(low.loadUnaligned(as: SIMD16<UInt8>.self), high.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD32<UInt8>.self)
}

/// The 16 bytes at `p` in both halves (x86 `vbroadcasti128`).
@inline(__always)
func broadcastHalf(_ p: UnsafeRawPointer) -> SIMD32<Int8> {
    let half = p.loadUnaligned(as: SIMD16<Int8>.self)
    return concatenate(half, half, as: SIMD32<Int8>.self)
}

@inline(__always)
func widen(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.sext_Vec8xInt16_Vec8xInt32(unsafeBitCast(v, to: Builtin.Vec8xInt16.self)), to: SIMD8<Int32>.self)
    #else
    return SIMD8<Int32>(truncatingIfNeeded: v)
    #endif
}

/// |v| lane-wise.
@inline(__always)
func magnitude(_ v: SIMD8<Float>) -> SIMD8<Float> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.and_Vec8xInt32(unsafeBitCast(v, to: Builtin.Vec8xInt32.self),
                                                unsafeBitCast(SIMD8<UInt32>(repeating: 0x7FFF_FFFF), to: Builtin.Vec8xInt32.self)),
                         to: SIMD8<Float>.self)
    #else
    return SIMD8<Float>(v.indices.map { abs(v[$0]) })
    #endif
}

@inline(__always)
func lanewiseMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx_max_ps_256(unsafeBitCast(a, to: Builtin.Vec8xFPIEEE32.self),
                                                        unsafeBitCast(b, to: Builtin.Vec8xFPIEEE32.self)), to: SIMD8<Float>.self)
    #else
    return pointwiseMax(a, b)
    #endif
}

@inline(__always)
func lanewiseMin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx_min_ps_256(unsafeBitCast(a, to: Builtin.Vec8xFPIEEE32.self),
                                                        unsafeBitCast(b, to: Builtin.Vec8xFPIEEE32.self)), to: SIMD8<Float>.self)
    #else
    return pointwiseMin(a, b)
    #endif
}

@inline(__always)
func toFloat(_ v: SIMD8<Int32>) -> SIMD8<Float> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.sitofp_Vec8xInt32_Vec8xFPIEEE32(unsafeBitCast(v, to: Builtin.Vec8xInt32.self)), to: SIMD8<Float>.self)
    #else
    return SIMD8<Float>(v)
    #endif
}

@inline(__always)
func shiftRightArithmetic(_ v: SIMD8<Int32>, _ n: Int32) -> SIMD8<Int32> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.ashr_Vec8xInt32(unsafeBitCast(v, to: Builtin.Vec8xInt32.self),
                                                 unsafeBitCast(SIMD8<Int32>(repeating: n), to: Builtin.Vec8xInt32.self)), to: SIMD8<Int32>.self)
    #else
    return v &>> n
    #endif
}

/// 2^n for n in -126...127, built in the exponent field.
@inline(__always)
func powerOfTwo(_ n: SIMD8<Int32>) -> SIMD8<Float> {
    #if arch(x86_64)
    let biased = Builtin.add_Vec8xInt32(unsafeBitCast(n, to: Builtin.Vec8xInt32.self),
                                        unsafeBitCast(SIMD8<Int32>(repeating: 127), to: Builtin.Vec8xInt32.self))
    return unsafeBitCast(Builtin.shl_Vec8xInt32(biased, unsafeBitCast(SIMD8<Int32>(repeating: 23), to: Builtin.Vec8xInt32.self)),
                         to: SIMD8<Float>.self)
    #else
    return unsafeBitCast((n &+ 127) &<< 23, to: SIMD8<Float>.self)
    #endif
}

@inline(__always)
func horizontalMax(_ v: SIMD8<Float>) -> Float {
    var m = v[0]
    for i in 1..<8 { m = max(m, v[i]) }
    return m
}

/// Rounds to the nearest integer, ties to even (x86 `vcvtps2dq` in the default rounding mode).
@inline(__always)
func roundToInt32(_ v: SIMD8<Float>) -> SIMD8<Int32> {
    #if arch(x86_64)
    let rounded = Builtin.int_rint_Vec8xFPIEEE32(unsafeBitCast(v, to: Builtin.Vec8xFPIEEE32.self))
    return unsafeBitCast(Builtin.fptosi_Vec8xFPIEEE32_Vec8xInt32(rounded), to: SIMD8<Int32>.self)
    #else
    return SIMD8<Int32>(v.rounded(.toNearestOrEven))
    #endif
}

/// The low byte of each lane.
@inline(__always)
func truncateToInt8(_ v: SIMD8<Int32>) -> SIMD8<Int8> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.trunc_Vec8xInt32_Vec8xInt8(unsafeBitCast(v, to: Builtin.Vec8xInt32.self)), to: SIMD8<Int8>.self)
    #else
    return SIMD8<Int8>(truncatingIfNeeded: v)
    #endif
}

/// The F16 numbers in the low (or high) 16 bits of each lane, as F32.
@inline(__always)
func halvesToFloat(_ words: SIMD8<UInt32>, high: Bool) -> SIMD8<Float> {
    #if arch(x86_64)
    var raw = unsafeBitCast(words, to: Builtin.Vec8xInt32.self)
    if high { raw = Builtin.lshr_Vec8xInt32(raw, unsafeBitCast(SIMD8<UInt32>(repeating: 16), to: Builtin.Vec8xInt32.self)) }
    return widenHalves(unsafeBitCast(Builtin.trunc_Vec8xInt32_Vec8xInt16(raw), to: SIMD8<Float16>.self))
    #else
    var r = SIMD8<Float>()
    for i in 0..<8 { r[i] = Float(Float16(bitPattern: UInt16(truncatingIfNeeded: high ? words[i] >> 16 : words[i]))) }
    return r
    #endif
}

@inline(__always)
func loadHalf(_ p: UnsafeRawPointer, _ offset: Int = 0) -> Float {
    Float(p.loadUnaligned(fromByteOffset: offset, as: Float16.self))
}

/// Adjacent pairs summed within each 128-bit half: [a0+a1, a2+a3, b0+b1, b2+b3 | a4+a5, ...] (x86 `vphaddd`).
@inline(__always)
func horizontalAddPairs(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.int_x86_avx2_phadd_d(
        unsafeBitCast(a, to: Builtin.Vec8xInt32.self),
        unsafeBitCast(b, to: Builtin.Vec8xInt32.self)), to: SIMD8<Int32>.self)
    #else
    return SIMD8<Int32>(a[0] &+ a[1], a[2] &+ a[3], b[0] &+ b[1], b[2] &+ b[3],
                        a[4] &+ a[5], a[6] &+ a[7], b[4] &+ b[5], b[6] &+ b[7])
    #endif
}

/// Lane i of the result is the sum of the eight lanes of `v.i` (exact, wrapping).
@inline(__always)
func sumLanes(_ v0: SIMD8<Int32>, _ v1: SIMD8<Int32>, _ v2: SIMD8<Int32>, _ v3: SIMD8<Int32>,
              _ v4: SIMD8<Int32>, _ v5: SIMD8<Int32>, _ v6: SIMD8<Int32>, _ v7: SIMD8<Int32>) -> SIMD8<Int32> {
    // [v0 low-half sum, v1, v2, v3 | v0 high-half sum, v1, v2, v3]
    let r0123 = horizontalAddPairs(horizontalAddPairs(v0, v1), horizontalAddPairs(v2, v3))
    let r4567 = horizontalAddPairs(horizontalAddPairs(v4, v5), horizontalAddPairs(v6, v7))
    var pair = (r0123, r4567)
    return withUnsafeBytes(of: &pair) { p in
        let low = concatenate(p.loadUnaligned(as: SIMD4<Int32>.self), p.loadUnaligned(fromByteOffset: 32, as: SIMD4<Int32>.self), as: SIMD8<Int32>.self)
        let high = concatenate(p.loadUnaligned(fromByteOffset: 16, as: SIMD4<Int32>.self), p.loadUnaligned(fromByteOffset: 48, as: SIMD4<Int32>.self), as: SIMD8<Int32>.self)
        return low &+ high
    }
}

/// Eight F16 values widened to F32 exactly (x86 `vcvtph2ps`; the generic SIMD
/// initializer converts lane by lane).
@inline(__always)
func widenHalves(_ h: SIMD8<Float16>) -> SIMD8<Float> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.fpext_Vec8xFPIEEE16_Vec8xFPIEEE32(unsafeBitCast(h, to: Builtin.Vec8xFPIEEE16.self)), to: SIMD8<Float>.self)
    #else
    return SIMD8<Float>(h)
    #endif
}

/// Eight F32 values rounded to F16, to nearest even (x86 `vcvtps2ph`).
@inline(__always)
func narrowToHalves(_ f: SIMD8<Float>) -> SIMD8<Float16> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.fptrunc_Vec8xFPIEEE32_Vec8xFPIEEE16(unsafeBitCast(f, to: Builtin.Vec8xFPIEEE32.self)), to: SIMD8<Float16>.self)
    #else
    return SIMD8<Float16>(f)
    #endif
}

/// Asks the CPU to bring the cache line at `p` into all cache levels (x86 `prefetcht0`);
/// a hint only: it never faults and changes no result.
@inline(__always)
func prefetch(_ p: UnsafeRawPointer) {
    #if arch(x86_64)
    Builtin.int_prefetch_RawPointer(p._rawValue, Builtin.zeroInitializer(), (3 as Int32)._value, (1 as Int32)._value)
    #endif
}

/// The bit patterns of `v` shifted left by 23 (x86 `vpslld`), returned as F32 bit patterns.
@inline(__always)
func shiftLeft23(_ v: SIMD8<Float>) -> SIMD8<Float> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.shl_Vec8xInt32(unsafeBitCast(v, to: Builtin.Vec8xInt32.self),
                                                unsafeBitCast(SIMD8<UInt32>(repeating: 23), to: Builtin.Vec8xInt32.self)),
                         to: SIMD8<Float>.self)
    #else
    return SIMD8<Float>(v.indices.map { Float(bitPattern: v[$0].bitPattern << 23) })
    #endif
}

/// The bit patterns of `a` and `b` added as 32-bit integers (x86 `vpaddd`), returned as F32 bit patterns.
@inline(__always)
func addBits(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.add_Vec8xInt32(unsafeBitCast(a, to: Builtin.Vec8xInt32.self),
                                                unsafeBitCast(b, to: Builtin.Vec8xInt32.self)),
                         to: SIMD8<Float>.self)
    #else
    return SIMD8<Float>(a.indices.map { Float(bitPattern: a[$0].bitPattern &+ b[$0].bitPattern) })
    #endif
}

/// Eight bytes zero-extended to Int32 lanes (x86 `vpmovzxbd`).
@inline(__always)
func widenBytes(_ v: SIMD8<UInt8>) -> SIMD8<Int32> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.zext_Vec8xInt8_Vec8xInt32(unsafeBitCast(v, to: Builtin.Vec8xInt8.self)), to: SIMD8<Int32>.self)
    #else
    return SIMD8<Int32>(truncatingIfNeeded: v)
    #endif
}

/// Sixteen bytes sign-extended to Int16 lanes (x86 `vpmovsxbw`).
@inline(__always)
func widenSigned(_ v: SIMD16<Int8>) -> SIMD16<Int16> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.sext_Vec16xInt8_Vec16xInt16(unsafeBitCast(v, to: Builtin.Vec16xInt8.self)), to: SIMD16<Int16>.self)
    #else
    return SIMD16<Int16>(truncatingIfNeeded: v)
    #endif
}

/// Lane-wise `a &- b` (x86 `vpsubd`).
@inline(__always)
func wrappingSubtract(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.sub_Vec8xInt32(unsafeBitCast(a, to: Builtin.Vec8xInt32.self),
                                                unsafeBitCast(b, to: Builtin.Vec8xInt32.self)), to: SIMD8<Int32>.self)
    #else
    return a &- b
    #endif
}

/// Lane-wise `v << n` (x86 `vpsllw`).
@inline(__always)
func shiftLeft(_ v: SIMD16<Int16>, _ n: Int16) -> SIMD16<Int16> {
    #if arch(x86_64)
    return unsafeBitCast(Builtin.shl_Vec16xInt16(unsafeBitCast(v, to: Builtin.Vec16xInt16.self),
                                                 unsafeBitCast(SIMD16<Int16>(repeating: n), to: Builtin.Vec16xInt16.self)), to: SIMD16<Int16>.self)
    #else
    return v &<< n
    #endif
}

/// `table[bits[i]]` for the F16 bit patterns `bits` of eight values, widened to F32 (eight loads:
/// no gather instruction is reachable from Swift here).
@inline(__always)
func lookUpHalves(_ table: UnsafePointer<Float16>, _ h: SIMD8<Float16>) -> SIMD8<Float> {
    let bits = unsafeBitCast(h, to: SIMD8<UInt16>.self)
    @inline(__always) func at(_ i: Int) -> Float16 { table[Int(bits[i])] }
    return widenHalves(SIMD8<Float16>(at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)))
}

/// Lane i: `ifSet[i]` where `a[i] <= b[i]` (ordered: false for NaN), else `otherwise[i]` (x86 `vcmpps` + `vblendvps`).
@inline(__always)
func selectLessOrEqual(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ ifSet: SIMD8<Float>, _ otherwise: SIMD8<Float>) -> SIMD8<Float> {
    #if arch(x86_64)
    let mask = Builtin.sext_Vec8xInt1_Vec8xInt32(Builtin.fcmp_ole_Vec8xFPIEEE32(unsafeBitCast(a, to: Builtin.Vec8xFPIEEE32.self),
                                                                              unsafeBitCast(b, to: Builtin.Vec8xFPIEEE32.self)))
    return unsafeBitCast(Builtin.int_x86_avx_blendv_ps_256(unsafeBitCast(otherwise, to: Builtin.Vec8xFPIEEE32.self),
                                                          unsafeBitCast(ifSet, to: Builtin.Vec8xFPIEEE32.self),
                                                          Builtin.bitcast_Vec8xInt32_Vec8xFPIEEE32(mask)), to: SIMD8<Float>.self)
    #else
    var r = otherwise
    for i in 0..<8 where a[i] <= b[i] { r[i] = ifSet[i] }
    return r
    #endif
}
