// RMSNorm's sums of squares for eight rows at once.
//
// ggml sums a row's squares in Double, one addition after the other in index order (GCC does not
// reorder them): a chain of dependent additions. Here eight rows' chains advance together, one
// Double lane per row: eight values of each row are squared in F32 (as ggml does), the 8 x 8 block
// is transposed with two-source permutes, and its columns are added to the lanes in index order.
// Every lane's additions are its row's, in its order, so the sums are bit for bit ggml's.

#if arch(x86_64)
import Builtin

public enum RowSums {
    /// Lane r: `sum over j in 0..<count of Double(x_r[j] * x_r[j])`, added in index order from 0,
    /// for the eight rows `rows[r]`.
    public static func squares(_ rows: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>,
                                        UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
                               count: Int) -> SIMD8<Double> {
        let (x0, x1, x2, x3, x4, x5, x6, x7) = rows
        var sums = SIMD8<Double>()
        var j = 0
        while j + 8 <= count {
            @inline(__always) func squared(_ x: UnsafePointer<Float>) -> SIMD8<Float> {
                let v = UnsafeRawPointer(x + j).loadUnaligned(as: SIMD8<Float>.self)
                return v * v
            }
            // [row 2i | row 2i + 1], eight squares each.
            let a = SIMD16(lowHalf: squared(x0), highHalf: squared(x1)), b = SIMD16(lowHalf: squared(x2), highHalf: squared(x3))
            let c = SIMD16(lowHalf: squared(x4), highHalf: squared(x5)), d = SIMD16(lowHalf: squared(x6), highHalf: squared(x7))
            // Level 1: per input pair, columns k and k + 4 of four rows: lanes [k: rows | ...].
            // ab0 lane 4m + r (r in 0..<4 rows 0-3, m in 0..<4 columns 0-3), ab1 columns 4-7.
            let ab0 = permute(a, b, SIMD16(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27))
            let ab1 = permute(a, b, SIMD16(4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31))
            let cd0 = permute(c, d, SIMD16(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27))
            let cd1 = permute(c, d, SIMD16(4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31))
            // Level 2: columns (2m, 2m + 1) of all eight rows: [column 2m: rows 0-7 | column 2m + 1: rows 0-7].
            let first = SIMD16<Int32>(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23)
            let second = SIMD16<Int32>(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31)
            let c01 = permute(ab0, cd0, first), c23 = permute(ab0, cd0, second)
            let c45 = permute(ab1, cd1, first), c67 = permute(ab1, cd1, second)
            sums += widen(c01.lowHalf); sums += widen(c01.highHalf)
            sums += widen(c23.lowHalf); sums += widen(c23.highHalf)
            sums += widen(c45.lowHalf); sums += widen(c45.highHalf)
            sums += widen(c67.lowHalf); sums += widen(c67.highHalf)
            j += 8
        }
        while j < count {
            @inline(__always) func square(_ x: UnsafePointer<Float>) -> Float { x[j] * x[j] }
            sums += widen(SIMD8(square(x0), square(x1), square(x2), square(x3), square(x4), square(x5), square(x6), square(x7)))
            j += 1
        }
        return sums
    }

    /// Exactly (`vcvtps2pd`).
    @inline(__always)
    private static func widen(_ v: SIMD8<Float>) -> SIMD8<Double> {
        unsafeBitCast(Builtin.fpext_Vec8xFPIEEE32_Vec8xFPIEEE64(unsafeBitCast(v, to: Builtin.Vec8xFPIEEE32.self)), to: SIMD8<Double>.self)
    }
}
#endif
