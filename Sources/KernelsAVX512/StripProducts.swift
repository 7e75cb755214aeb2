// The prompt-processing micro-kernel on AVX-512 VNNI: 16 weight rows times 8 tokens.
//
// This module is compiled for x86-64-v4 plus VNNI (Package.swift, `avx512Flags`) and
// holds nothing else, so that no other code can carry AVX-512 instructions onto a
// machine without them. `Kernels` calls it only when `CPUFeatures.avx512VNNI` holds
// (`KernelContext.useAVX512`); it works on raw pointers and knows no weight format:
// `Kernels.StripKernels` decodes a strip of 16 rows into the layout below first.
//
// One `vpdpbusd` multiplies 16 rows x 4 columns of unsigned weight codes by 4 signed
// activation codes of one token (broadcast from memory) and adds the 16 four-term sums
// to 16 Int32 lanes, one per row: a 32-element block is 8 of them per token, and the
// lanes are the outputs already, with no horizontal sums.
//
// Every output is computed with the F32 operations the other kernels use (TiledKernels):
// per block b in order, `acc = fma(scale_w(b) * d_x(b), Float(isum(b)), acc)`, and
// `off = fma(offset_w(b), s_x(b), off)`, then `acc + off`; `isum(b)` is the block's exact
// integer dot product. So the results are bit for bit those of `tokens8` and `rows8`.

#if arch(x86_64)
import Builtin

/// The decoded strip `StripKernels` prepares for 16 rows of one matrix, `blocks` 32-element blocks:
/// - `codes`: per block, 8 groups of 64 bytes; group k holds, for rows 0..<16, the row's
///   unsigned codes of columns 4k..<4k+4 (bytes `64 * k + 4 * row ..< + 4`): 512 bytes a block;
/// - `scales`: per block, the 16 rows' F32 scales; `offsets` likewise (nil: no offset);
/// - `pairWeights` (Q6_K): per block, the 16 rows' Int32 weights of the block's first 16
///   columns, then of its last 16 columns.
public struct DecodedStrip {
    public let codes: UnsafeRawPointer
    public let scales: UnsafePointer<Float>
    public let offsets: UnsafePointer<Float>?
    public let pairWeights: UnsafePointer<Int32>?
    public let blocks: Int
    /// The codes are stored plus `1 << zeroShift` (0: unsigned codes as they are): the kernel
    /// subtracts `(1 << zeroShift) * sum(x)` of the block (of each half with pair weights).
    public let zeroShift: Int

    public init(codes: UnsafeRawPointer, scales: UnsafePointer<Float>, offsets: UnsafePointer<Float>?,
                pairWeights: UnsafePointer<Int32>?, blocks: Int, zeroShift: Int) {
        self.codes = codes
        self.scales = scales
        self.offsets = offsets
        self.pairWeights = pairWeights
        self.blocks = blocks
        self.zeroShift = zeroShift
    }
}

/// Eight activation rows (tokens) as `QuantizedActivations` lays them out, `rowBytes` apart,
/// and, for strips with a zero point, each row's block sums: `halfSums[t * halfSumStride + 2 * b]`
/// is the sum of block b's first 16 codes, `+ 1` of its last 16.
public struct TokenRows {
    public let base: UnsafeRawPointer
    public let rowBytes: Int
    public let halfSums: UnsafePointer<Int32>?
    public let halfSumStride: Int

    public init(base: UnsafeRawPointer, rowBytes: Int, halfSums: UnsafePointer<Int32>?, halfSumStride: Int) {
        self.base = base
        self.rowBytes = rowBytes
        self.halfSums = halfSums
        self.halfSumStride = halfSumStride
    }
}

public enum StripProducts {
    /// `output[t * outputStride + i]` for tokens t in 0..<8 and strip rows i in 0..<rows (at most 16).
    public static func multiply(_ strip: DecodedStrip, _ x: TokenRows,
                                output: UnsafeMutablePointer<Float>, outputStride: Int, rows: Int) {
        if strip.pairWeights != nil {
            kernel(PairWeightedCodes.self, strip, x, output: output, outputStride: outputStride, rows: rows)
        } else if strip.zeroShift != 0 {
            kernel(ZeroPointCodes.self, strip, x, output: output, outputStride: outputStride, rows: rows)
        } else {
            kernel(UnsignedCodes.self, strip, x, output: output, outputStride: outputStride, rows: rows)
        }
    }

    /// The three kinds of strips, as types so that each gets its own compiled kernel.
    private protocol CodeKind {
        /// The codes carry a zero point (`DecodedStrip.zeroShift`).
        static var zeroPoint: Bool { get }
        /// The block's halves have their own Int32 weights (Q6_K).
        static var halves: Bool { get }
    }
    private enum UnsignedCodes: CodeKind { static let zeroPoint = false, halves = false }
    private enum ZeroPointCodes: CodeKind { static let zeroPoint = true, halves = false }
    private enum PairWeightedCodes: CodeKind { static let zeroPoint = true, halves = true }

    @inline(never)
    private static func kernel<Kind: CodeKind>(_: Kind.Type, _ strip: DecodedStrip, _ x: TokenRows, output: UnsafeMutablePointer<Float>,
                                               outputStride: Int, rows: Int) {
        let zeroPoint = Kind.zeroPoint, halves = Kind.halves
        let blocks = strip.blocks, rowBytes = x.rowBytes, base = x.base
        let scalesAt = base + 32 * blocks, sumsAt = base + 36 * blocks
        let shift = Int32(strip.zeroShift)
        var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
        var a4 = SIMD16<Float>(), a5 = SIMD16<Float>(), a6 = SIMD16<Float>(), a7 = SIMD16<Float>()
        for b in 0..<blocks {
            let w = strip.codes + 512 * b
            let w0 = w.load(as: SIMD16<Int32>.self), w1 = w.load(fromByteOffset: 64, as: SIMD16<Int32>.self)
            let w2 = w.load(fromByteOffset: 128, as: SIMD16<Int32>.self), w3 = w.load(fromByteOffset: 192, as: SIMD16<Int32>.self)
            let w4 = w.load(fromByteOffset: 256, as: SIMD16<Int32>.self), w5 = w.load(fromByteOffset: 320, as: SIMD16<Int32>.self)
            let w6 = w.load(fromByteOffset: 384, as: SIMD16<Int32>.self), w7 = w.load(fromByteOffset: 448, as: SIMD16<Int32>.self)
            let scale = UnsafeRawPointer(strip.scales + 16 * b).load(as: SIMD16<Float>.self)
            let p0: SIMD16<Int32>, p1: SIMD16<Int32>
            if halves {
                let p = UnsafeRawPointer(strip.pairWeights! + 32 * b)
                p0 = p.load(as: SIMD16<Int32>.self)
                p1 = p.load(fromByteOffset: 64, as: SIMD16<Int32>.self)
            } else {
                p0 = SIMD16(); p1 = SIMD16()
            }
            @inline(__always) func integerSum(_ t: Int) -> SIMD16<Int32> {
                let xb = base + t * rowBytes + 32 * b
                @inline(__always) func x4(_ k: Int) -> SIMD16<Int32> { SIMD16(repeating: xb.loadUnaligned(fromByteOffset: 4 * k, as: Int32.self)) }
                if halves {
                    var low = dotBytes(SIMD16(), w0, x4(0)); low = dotBytes(low, w1, x4(1)); low = dotBytes(low, w2, x4(2)); low = dotBytes(low, w3, x4(3))
                    var high = dotBytes(SIMD16(), w4, x4(4)); high = dotBytes(high, w5, x4(5)); high = dotBytes(high, w6, x4(6)); high = dotBytes(high, w7, x4(7))
                    let sums = x.halfSums! + t * x.halfSumStride + 2 * b
                    low &-= SIMD16(repeating: sums[0] << shift)
                    high &-= SIMD16(repeating: sums[1] << shift)
                    return low &* p0 &+ high &* p1
                }
                var s = dotBytes(SIMD16(), w0, x4(0)); s = dotBytes(s, w1, x4(1)); s = dotBytes(s, w2, x4(2)); s = dotBytes(s, w3, x4(3))
                s = dotBytes(s, w4, x4(4)); s = dotBytes(s, w5, x4(5)); s = dotBytes(s, w6, x4(6)); s = dotBytes(s, w7, x4(7))
                if zeroPoint {
                    let sums = x.halfSums! + t * x.halfSumStride + 2 * b
                    s &-= SIMD16(repeating: (sums[0] &+ sums[1]) << shift)
                }
                return s
            }
            @inline(__always) func dx(_ t: Int) -> SIMD16<Float> {
                SIMD16(repeating: scalesAt.load(fromByteOffset: t * rowBytes + 4 * b, as: Float.self))
            }
            a0.addProduct(scale * dx(0), toFloat(integerSum(0)))
            a1.addProduct(scale * dx(1), toFloat(integerSum(1)))
            a2.addProduct(scale * dx(2), toFloat(integerSum(2)))
            a3.addProduct(scale * dx(3), toFloat(integerSum(3)))
            a4.addProduct(scale * dx(4), toFloat(integerSum(4)))
            a5.addProduct(scale * dx(5), toFloat(integerSum(5)))
            a6.addProduct(scale * dx(6), toFloat(integerSum(6)))
            a7.addProduct(scale * dx(7), toFloat(integerSum(7)))
        }
        var o0 = SIMD16<Float>(), o1 = SIMD16<Float>(), o2 = SIMD16<Float>(), o3 = SIMD16<Float>()
        var o4 = SIMD16<Float>(), o5 = SIMD16<Float>(), o6 = SIMD16<Float>(), o7 = SIMD16<Float>()
        if let offsets = strip.offsets {
            for b in 0..<blocks {
                let offset = UnsafeRawPointer(offsets + 16 * b).load(as: SIMD16<Float>.self)
                @inline(__always) func sx(_ t: Int) -> SIMD16<Float> {
                    SIMD16(repeating: sumsAt.load(fromByteOffset: t * rowBytes + 4 * b, as: Float.self))
                }
                o0.addProduct(offset, sx(0)); o1.addProduct(offset, sx(1)); o2.addProduct(offset, sx(2)); o3.addProduct(offset, sx(3))
                o4.addProduct(offset, sx(4)); o5.addProduct(offset, sx(5)); o6.addProduct(offset, sx(6)); o7.addProduct(offset, sx(7))
            }
        }
        @inline(__always) func store(_ t: Int, _ value: SIMD16<Float>) {
            let out = output + t * outputStride
            if rows == 16 {
                UnsafeMutableRawPointer(out).storeBytes(of: value, as: SIMD16<Float>.self)
            } else {
                for i in 0..<rows { out[i] = value[i] }
            }
        }
        store(0, a0 + o0); store(1, a1 + o1); store(2, a2 + o2); store(3, a3 + o3)
        store(4, a4 + o4); store(5, a5 + o5); store(6, a6 + o6); store(7, a7 + o7)
    }
}
#endif
