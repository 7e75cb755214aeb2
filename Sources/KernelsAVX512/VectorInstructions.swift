// Single AVX-512 instructions the kernels of this module share, as functions on Swift SIMD types
// (the generic SIMD initializers and operators are not always inlined or vectorized here).

#if arch(x86_64)
import Builtin

/// `acc + sum over 4-byte groups of (unsigned bytes of w) * (signed bytes of x)` per lane (`vpdpbusd`).
@inline(__always)
func dotBytes(_ acc: SIMD16<Int32>, _ w: SIMD16<Int32>, _ x: SIMD16<Int32>) -> SIMD16<Int32> {
    unsafeBitCast(Builtin.int_x86_avx512_vpdpbusd_512(
        unsafeBitCast(acc, to: Builtin.Vec16xInt32.self),
        unsafeBitCast(w, to: Builtin.Vec16xInt32.self),
        unsafeBitCast(x, to: Builtin.Vec16xInt32.self)), to: SIMD16<Int32>.self)
}

/// The lanes converted to F32 (`vcvtdq2ps`, round to nearest even, as `Float(_:)`); the generic
/// SIMD initializer is not inlined here (a stdlib call per use, 7% of a prompt's time).
@inline(__always)
func toFloat(_ v: SIMD16<Int32>) -> SIMD16<Float> {
    unsafeBitCast(Builtin.sitofp_Vec16xInt32_Vec16xFPIEEE32(unsafeBitCast(v, to: Builtin.Vec16xInt32.self)), to: SIMD16<Float>.self)
}

/// Lane i: lane `index[i]` of x (0..<16) or of y (16..<32) (`vpermt2d`).
@inline(__always)
func permute(_ x: SIMD16<Int32>, _ y: SIMD16<Int32>, _ index: SIMD16<Int32>) -> SIMD16<Int32> {
    unsafeBitCast(Builtin.int_x86_avx512_vpermi2var_d_512(
        unsafeBitCast(x, to: Builtin.Vec16xInt32.self), unsafeBitCast(index, to: Builtin.Vec16xInt32.self),
        unsafeBitCast(y, to: Builtin.Vec16xInt32.self)), to: SIMD16<Int32>.self)
}

/// `permute` of F32 lanes (`vpermt2ps`).
@inline(__always)
func permute(_ x: SIMD16<Float>, _ y: SIMD16<Float>, _ index: SIMD16<Int32>) -> SIMD16<Float> {
    unsafeBitCast(permute(unsafeBitCast(x, to: SIMD16<Int32>.self), unsafeBitCast(y, to: SIMD16<Int32>.self), index), to: SIMD16<Float>.self)
}
#endif
