// The matrix-vector product (one token: decoding) of Q5_0 weights on AVX-512 VNNI.
//
// Q5_0 is the format llama.cpp's Q4_K_M falls back to where a matrix's rows are not a multiple
// of 256 (Gemma 3 270M: Q, K, V, gate and up, 640 columns), and its decoding is what makes a
// matrix-vector product of it compute-bound rather than memory-bound: the fifth bit of each code
// sits in a separate 32-bit field. Here one 64-byte vector holds two blocks of one row: their
// 16 packed bytes twice each (low nibbles, then high nibbles), the two fields' 64 fifth bits
// one mask register that sets bit 4 of its bytes, and one `vpdpbusd` multiplies the 64 unsigned codes by the
// two blocks' 64 signed activation codes into 16 Int32 lanes (8 per block). Eight rows' lanes are
// then summed per row and block with three rounds of two-source permutes (`vpermt2d`) and adds.
//
// Each block's integer dot product is exact, and the F32 operations after it are those of every
// other kernel (`Kernels.TiledKernels`): per block b in order, `acc = fma(d_w(b) * d_x(b), Float(isum(b)), acc)`
// and `off = fma(-16 * d_w(b), s_x(b), off)`, then `acc + off`. So the results are bit for bit
// those of `TiledKernels.rows8`.

#if arch(x86_64)
import Builtin

public enum MatrixVectorProducts {
    /// Bytes of one Q5_0 block: F16 scale, 32 fifth bits, 16 bytes of packed nibbles.
    static let q5_0BlockBytes = 22

    /// `output[i]` for rows i in `0..<rows` (1...8) of a row-major Q5_0 matrix, row i at
    /// `weights + i * rowStride`, times one activation row laid out as `QuantizedActivations`
    /// does (`blocks` blocks of 32 signed codes, then the blocks' F32 scales, then their F32 sums).
    /// `blocks` must be even. `prefetch`: memory read next (the next row group), whose
    /// `prefetchBytes` are prefetched while these rows are read.
    public static func q5_0(_ weights: UnsafeRawPointer, rowStride: Int, rows: Int, blocks: Int,
                            x: UnsafeRawPointer, output: UnsafeMutablePointer<Float>,
                            prefetch: UnsafeRawPointer?, prefetchBytes: Int) {
        precondition(blocks % 2 == 0 && rows >= 1 && rows <= 8, "MatrixVectorProducts.q5_0: an even block count and 1...8 rows")
        let (w0, w1, w2, w3, w4, w5, w6, w7) = rowPointers(weights, rowStride: rowStride, rows: rows)
        let (scales, sums) = activationScales(x, blocks: blocks)
        let pairs = blocks / 2
        let ahead = Prefetch(prefetch, bytes: prefetchBytes, steps: pairs)
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        for p in 0..<pairs {
            ahead.step(p)
            let at = 2 * q5_0BlockBytes * p
            let xv = (x + 64 * p).loadUnaligned(as: SIMD16<Int32>.self)
            @inline(__always) func dot(_ w: UnsafeRawPointer) -> SIMD16<Int32> {
                dotBytes(SIMD16(), unsafeBitCast(codes(w + at), to: SIMD16<Int32>.self), xv)
            }
            let d0 = dot(w0), d1 = dot(w1), d2 = dot(w2), d3 = dot(w3), d4 = dot(w4), d5 = dot(w5), d6 = dot(w6), d7 = dot(w7)
            // Per row, [block 2p: 8 lanes | block 2p + 1: 8 lanes] summed to one lane each: lanes 0..<8
            // of `isums` are block 2p's rows 0..<8, lanes 8..<16 block 2p + 1's.
            let floats = toFloat(blockSums(d0, d1, d2, d3, d4, d5, d6, d7))
            @inline(__always) func scale(_ w: UnsafeRawPointer, _ block: Int) -> UInt16 {
                w.loadUnaligned(fromByteOffset: at + q5_0BlockBytes * block, as: UInt16.self)
            }
            for block in 0..<2 {
                let d = widen(SIMD8<UInt16>(scale(w0, block), scale(w1, block), scale(w2, block), scale(w3, block),
                                            scale(w4, block), scale(w5, block), scale(w6, block), scale(w7, block)))
                let b = 2 * p + block
                let isum = block == 0 ? floats.lowHalf : floats.highHalf
                acc.addProduct(d * SIMD8(repeating: scales[b]), isum)
                off.addProduct(SIMD8(repeating: -16) * d, SIMD8(repeating: sums[b]))
            }
        }
        store(acc + off, rows: rows, into: output)
    }

    /// `q5_0` for Q4_K (144-byte superblocks of 256 elements: F16 `d` and `dmin`, twelve bytes of
    /// 6-bit scales and minimums for the eight 32-element blocks, 128 bytes of nibbles), `superblocks`
    /// per row. Per row and superblock, four vectors of two blocks (32 packed bytes twice: low nibbles
    /// are block 2k, high nibbles block 2k + 1) meet the activations in one `vpdpbusd` each; the eight
    /// rows' scale and minimum codes are transposed to block-major order with one byte permute
    /// (`vpermb`). Per block, `scale = d * Float(sc)` and `offset = -(dmin * Float(m))`, the F32
    /// operations of `Kernels.Q4_KBlocks`, then `rows8`'s order: the same bits.
    public static func q4_K(_ weights: UnsafeRawPointer, rowStride: Int, rows: Int, superblocks: Int,
                            x: UnsafeRawPointer, output: UnsafeMutablePointer<Float>,
                            prefetch: UnsafeRawPointer?, prefetchBytes: Int) {
        precondition(rows >= 1 && rows <= 8, "MatrixVectorProducts.q4_K: 1...8 rows")
        let (w0, w1, w2, w3, w4, w5, w6, w7) = rowPointers(weights, rowStride: rowStride, rows: rows)
        let blocks = 8 * superblocks
        let (scales, sums) = activationScales(x, blocks: blocks)
        let ahead = Prefetch(prefetch, bytes: prefetchBytes, steps: superblocks)
        // Bytes 8r + j (row r, block j) to 8j + r.
        let transpose = unsafeBitCast(SIMD8<UInt64>(0x3830_2820_1810_0800, 0x3931_2921_1911_0901, 0x3A32_2A22_1A12_0A02, 0x3B33_2B23_1B13_0B03,
                                                    0x3C34_2C24_1C14_0C04, 0x3D35_2D25_1D15_0D05, 0x3E36_2E26_1E16_0E06, 0x3F37_2F27_1F17_0F07),
                                      to: SIMD64<UInt8>.self)
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        for s in 0..<superblocks {
            ahead.step(s)
            let at = 144 * s
            // Per row, the eight blocks' scale codes and minimum codes (byte j: block j), as ggml unpacks them.
            @inline(__always) func codes(_ w: UnsafeRawPointer) -> (scales: UInt64, minimums: UInt64) {
                let q0 = w.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)
                let q1 = w.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self)
                let q2 = w.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)
                return (UInt64(q0 & 0x3F3F_3F3F) | UInt64((q2 & 0x0F0F_0F0F) | ((q0 >> 2) & 0x3030_3030)) << 32,
                        UInt64(q1 & 0x3F3F_3F3F) | UInt64(((q2 >> 4) & 0x0F0F_0F0F) | ((q1 >> 2) & 0x3030_3030)) << 32)
            }
            let c0 = codes(w0), c1 = codes(w1), c2 = codes(w2), c3 = codes(w3), c4 = codes(w4), c5 = codes(w5), c6 = codes(w6), c7 = codes(w7)
            let scaleCodes = permuteBytes(unsafeBitCast(SIMD8<UInt64>(c0.scales, c1.scales, c2.scales, c3.scales,
                                                                      c4.scales, c5.scales, c6.scales, c7.scales), to: SIMD64<UInt8>.self), transpose)
            let minimumCodes = permuteBytes(unsafeBitCast(SIMD8<UInt64>(c0.minimums, c1.minimums, c2.minimums, c3.minimums,
                                                                        c4.minimums, c5.minimums, c6.minimums, c7.minimums), to: SIMD64<UInt8>.self), transpose)
            @inline(__always) func half(_ w: UnsafeRawPointer, _ offset: Int) -> UInt16 { w.loadUnaligned(fromByteOffset: at + offset, as: UInt16.self) }
            let d8 = widen(SIMD8<UInt16>(half(w0, 0), half(w1, 0), half(w2, 0), half(w3, 0), half(w4, 0), half(w5, 0), half(w6, 0), half(w7, 0)))
            let m8 = widen(SIMD8<UInt16>(half(w0, 2), half(w1, 2), half(w2, 2), half(w3, 2), half(w4, 2), half(w5, 2), half(w6, 2), half(w7, 2)))
            let d = SIMD16(lowHalf: d8, highHalf: d8), dmin = SIMD16(lowHalf: m8, highHalf: m8)
            for k in 0..<4 {
                let xv = (x + 256 * s + 64 * k).loadUnaligned(as: SIMD16<Int32>.self)
                @inline(__always) func dot(_ w: UnsafeRawPointer) -> SIMD16<Int32> {
                    let packed = w.loadUnaligned(fromByteOffset: at + 16 + 32 * k, as: SIMD32<UInt8>.self)
                    let both = SIMD64(lowHalf: packed, highHalf: packed)
                    let codes = or(and(both, lowNibbles), and(shiftWordsRight4(both), highNibbles))
                    return dotBytes(SIMD16(), unsafeBitCast(codes, to: SIMD16<Int32>.self), xv)
                }
                let d0 = dot(w0), d1 = dot(w1), d2 = dot(w2), d3 = dot(w3), d4 = dot(w4), d5 = dot(w5), d6 = dot(w6), d7 = dot(w7)
                let floats = toFloat(blockSums(d0, d1, d2, d3, d4, d5, d6, d7))
                // Lanes 0..<8: block 2k's rows, 8..<16: block 2k + 1's.
                let blockScales = d * toFloat(widenBytes(scaleCodes, quarter: k))
                let blockOffsets = -(dmin * toFloat(widenBytes(minimumCodes, quarter: k)))
                for h in 0..<2 {
                    let b = 8 * s + 2 * k + h
                    let scale = h == 0 ? blockScales.lowHalf : blockScales.highHalf
                    let offset = h == 0 ? blockOffsets.lowHalf : blockOffsets.highHalf
                    acc.addProduct(scale * SIMD8(repeating: scales[b]), h == 0 ? floats.lowHalf : floats.highHalf)
                    off.addProduct(offset, SIMD8(repeating: sums[b]))
                }
            }
        }
        store(acc + off, rows: rows, into: output)
    }

    /// `q5_0` for Q6_K (210-byte superblocks of 256 elements: 128 bytes of low nibbles, 64 bytes of
    /// high 2-bit pairs, sixteen Int8 scales of 16 elements each, F16 `d`), `superblocks` per row.
    /// Per row and superblock, four vectors of two blocks: the unsigned 6-bit codes meet the
    /// activations in one `vpdpbusd`; each lane (four elements) loses `32 *` its four activation
    /// codes' sum (one `vpdpbusd` of ones per vector, shared by the rows) and is multiplied by its
    /// 16 elements' scale, so a block's lanes sum to its exact integer product with the codes minus 32.
    /// Per block, `acc = fma(d * d_x, Float(isum), acc)`, then `acc + 0`: `rows8`'s order, the same bits.
    public static func q6_K(_ weights: UnsafeRawPointer, rowStride: Int, rows: Int, superblocks: Int,
                            x: UnsafeRawPointer, output: UnsafeMutablePointer<Float>,
                            prefetch: UnsafeRawPointer?, prefetchBytes: Int) {
        precondition(rows >= 1 && rows <= 8, "MatrixVectorProducts.q6_K: 1...8 rows")
        let (w0, w1, w2, w3, w4, w5, w6, w7) = rowPointers(weights, rowStride: rowStride, rows: rows)
        let blocks = 8 * superblocks
        let scales = activationScales(x, blocks: blocks).scales
        let ahead = Prefetch(prefetch, bytes: prefetchBytes, steps: superblocks)
        let ones = SIMD16<Int32>(repeating: 0x0101_0101)
        var acc = SIMD8<Float>()
        for s in 0..<superblocks {
            ahead.step(s)
            let at = 210 * s
            @inline(__always) func half(_ w: UnsafeRawPointer) -> UInt16 { w.loadUnaligned(fromByteOffset: at + 208, as: UInt16.self) }
            let d = widen(SIMD8<UInt16>(half(w0), half(w1), half(w2), half(w3), half(w4), half(w5), half(w6), half(w7)))
            for k in 0..<4 {
                let xv = (x + 256 * s + 64 * k).loadUnaligned(as: SIMD16<Int32>.self)
                let zero = dotBytes(SIMD16(), ones, xv) &<< 5
                // Blocks 2k and 2k + 1: the low nibbles (k even) or high nibbles (k odd) of the 64 bytes of
                // `ql` of superblock half k / 2, and bits (0-1, 2-3) or (4-5, 6-7) of its 32 bytes of `qh`.
                let n = k / 2, odd = k % 2 == 1
                @inline(__always) func dot(_ w: UnsafeRawPointer) -> SIMD16<Int32> {
                    let ql = w.loadUnaligned(fromByteOffset: at + 64 * n, as: SIMD64<UInt8>.self)
                    let qh32 = w.loadUnaligned(fromByteOffset: at + 128 + 32 * n, as: SIMD32<UInt8>.self)
                    let qh = SIMD64(lowHalf: qh32, highHalf: qh32)
                    let low = odd ? shiftWordsRight4(ql) : ql
                    let high = odd ? shiftWords(qh, right: oddHighShifts) : shiftWords(qh, left: evenHighShifts)
                    let codes = or(and(low, SIMD64(repeating: 0x0F)), and(high, SIMD64(repeating: 0x30)))
                    let sixteens = w.loadUnaligned(fromByteOffset: at + 192, as: SIMD16<Int8>.self)
                    let lanes = permute(widenSigned(sixteens), widenSigned(sixteens), scaleLanes(k))
                    return (dotBytes(SIMD16(), unsafeBitCast(codes, to: SIMD16<Int32>.self), xv) &- zero) &* lanes
                }
                let d0 = dot(w0), d1 = dot(w1), d2 = dot(w2), d3 = dot(w3), d4 = dot(w4), d5 = dot(w5), d6 = dot(w6), d7 = dot(w7)
                let floats = toFloat(blockSums(d0, d1, d2, d3, d4, d5, d6, d7))
                let b = 8 * s + 2 * k
                acc.addProduct(d * SIMD8(repeating: scales[b]), floats.lowHalf)
                acc.addProduct(d * SIMD8(repeating: scales[b + 1]), floats.highHalf)
            }
        }
        store(acc + SIMD8<Float>(), rows: rows, into: output)
    }

    /// Per 16-bit lane: the low 32 bytes shift left by 4 (bits 0-1 to 4-5), the high 32 by 2 (bits 2-3 to 4-5).
    private static var evenHighShifts: SIMD32<UInt16> {
        unsafeBitCast(SIMD8<UInt64>(0x0004_0004_0004_0004, 0x0004_0004_0004_0004, 0x0004_0004_0004_0004, 0x0004_0004_0004_0004,
                                    0x0002_0002_0002_0002, 0x0002_0002_0002_0002, 0x0002_0002_0002_0002, 0x0002_0002_0002_0002),
                      to: SIMD32<UInt16>.self)
    }
    /// Per 16-bit lane: the low 32 bytes stay (bits 4-5), the high 32 shift right by 2 (bits 6-7 to 4-5).
    private static var oddHighShifts: SIMD32<UInt16> {
        unsafeBitCast(SIMD8<UInt64>(0, 0, 0, 0, 0x0002_0002_0002_0002, 0x0002_0002_0002_0002, 0x0002_0002_0002_0002, 0x0002_0002_0002_0002),
                      to: SIMD32<UInt16>.self)
    }

    /// Lanes of the sixteen scales (widened) for blocks 2k and 2k + 1: scale 4k + m in lanes 4m ..< 4m + 4.
    @inline(__always)
    private static func scaleLanes(_ k: Int) -> SIMD16<Int32> {
        let m = Int32(4 * k)
        return SIMD16(m, m, m, m, m + 1, m + 1, m + 1, m + 1, m + 2, m + 2, m + 2, m + 2, m + 3, m + 3, m + 3, m + 3)
    }

    @inline(__always)
    private static func widenSigned(_ v: SIMD16<Int8>) -> SIMD16<Int32> {
        unsafeBitCast(Builtin.sext_Vec16xInt8_Vec16xInt32(unsafeBitCast(v, to: Builtin.Vec16xInt8.self)), to: SIMD16<Int32>.self)
    }

    /// Each 16-bit lane shifted by its own count (`vpsllvw`, `vpsrlvw`).
    @inline(__always)
    private static func shiftWords(_ x: SIMD64<UInt8>, left counts: SIMD32<UInt16>) -> SIMD64<UInt8> {
        unsafeBitCast(Builtin.shl_Vec32xInt16(unsafeBitCast(x, to: Builtin.Vec32xInt16.self), unsafeBitCast(counts, to: Builtin.Vec32xInt16.self)),
                      to: SIMD64<UInt8>.self)
    }
    @inline(__always)
    private static func shiftWords(_ x: SIMD64<UInt8>, right counts: SIMD32<UInt16>) -> SIMD64<UInt8> {
        unsafeBitCast(Builtin.lshr_Vec32xInt16(unsafeBitCast(x, to: Builtin.Vec32xInt16.self), unsafeBitCast(counts, to: Builtin.Vec32xInt16.self)),
                      to: SIMD64<UInt8>.self)
    }

    /// An activation row's per-block F32 scales and sums (`QuantizedActivations`: after its `blocks` x 32 codes).
    @inline(__always)
    private static func activationScales(_ x: UnsafeRawPointer, blocks: Int) -> (scales: UnsafePointer<Float>, sums: UnsafePointer<Float>) {
        let scales = UnsafePointer((x + 32 * blocks).assumingMemoryBound(to: Float.self))
        return (scales, scales + blocks)
    }

    /// The first `rows` lanes of `result` to `output`.
    @inline(__always)
    private static func store(_ result: SIMD8<Float>, rows: Int, into output: UnsafeMutablePointer<Float>) {
        for i in 0..<rows { output[i] = result[i] }
    }

    /// Rows 0..<8 from `weights`, `rowStride` apart; rows from `rows` on repeat the last (computed, not stored).
    @inline(__always)
    private static func rowPointers(_ weights: UnsafeRawPointer, rowStride: Int, rows: Int)
        -> (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer) {
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { weights + min(i, rows - 1) * rowStride }
        return (row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
    }

    /// The lines of the memory read next, spread over a kernel's steps: step i prefetches its share.
    private struct Prefetch {
        let start: UnsafeRawPointer?
        let lines: Int
        let linesPerStep: Int

        @inline(__always)
        init(_ start: UnsafeRawPointer?, bytes: Int, steps: Int) {
            self.start = start
            lines = start == nil ? 0 : (bytes + 63) / 64
            linesPerStep = (lines + steps - 1) / max(1, steps)
        }

        @inline(__always)
        func step(_ i: Int) {
            guard let start else { return }
            var line = i * linesPerStep
            while line < min(lines, (i + 1) * linesPerStep) { prefetchLine(start + 64 * line); line += 1 }
        }
    }

    private static var lowNibbles: SIMD64<UInt8> {
        unsafeBitCast(SIMD8<UInt64>(nibbleMask, nibbleMask, nibbleMask, nibbleMask, 0, 0, 0, 0), to: SIMD64<UInt8>.self)
    }
    private static var highNibbles: SIMD64<UInt8> {
        unsafeBitCast(SIMD8<UInt64>(0, 0, 0, 0, nibbleMask, nibbleMask, nibbleMask, nibbleMask), to: SIMD64<UInt8>.self)
    }

    /// Eight rows' vectors of two blocks' Int32 partial sums (each [block A: 8 lanes | block B: 8 lanes])
    /// summed per row and block: lanes 0..<8 are block A's rows 0..<8, lanes 8..<16 block B's.
    @inline(__always)
    private static func blockSums(_ d0: SIMD16<Int32>, _ d1: SIMD16<Int32>, _ d2: SIMD16<Int32>, _ d3: SIMD16<Int32>,
                                  _ d4: SIMD16<Int32>, _ d5: SIMD16<Int32>, _ d6: SIMD16<Int32>, _ d7: SIMD16<Int32>) -> SIMD16<Int32> {
        let q01 = foldHalves(d0, d1), q23 = foldHalves(d2, d3), q45 = foldHalves(d4, d5), q67 = foldHalves(d6, d7)
        let h0123 = foldPairs(q01, q23), h4567 = foldPairs(q45, q67)
        return permute(h0123, h4567, finalFirst) &+ permute(h0123, h4567, finalSecond)
    }

    /// Bytes `16 * quarter ..< 16 * quarter + 16` of `v`, zero-extended to Int32 lanes.
    @inline(__always)
    private static func widenBytes(_ v: SIMD64<UInt8>, quarter: Int) -> SIMD16<Int32> {
        var copy = v
        let bytes = withUnsafeBytes(of: &copy) { $0.loadUnaligned(fromByteOffset: 16 * quarter, as: SIMD16<UInt8>.self) }
        return unsafeBitCast(Builtin.zext_Vec16xInt8_Vec16xInt32(unsafeBitCast(bytes, to: Builtin.Vec16xInt8.self)), to: SIMD16<Int32>.self)
    }

    /// Byte i: byte `index[i] & 63` of v (`vpermb`).
    @inline(__always)
    private static func permuteBytes(_ v: SIMD64<UInt8>, _ index: SIMD64<UInt8>) -> SIMD64<UInt8> {
        unsafeBitCast(Builtin.int_x86_avx512_permvar_qi_512(unsafeBitCast(v, to: Builtin.Vec64xInt8.self),
                                                            unsafeBitCast(index, to: Builtin.Vec64xInt8.self)), to: SIMD64<UInt8>.self)
    }

    /// Two Q5_0 blocks (at `blk` and `blk + 22`) as 64 unsigned codes: block 0's elements 0..<32,
    /// then block 1's (low nibbles are elements 0..<16, high nibbles 16..<32, plus 16 where the
    /// element's fifth bit is set).
    @inline(__always)
    private static func codes(_ blk: UnsafeRawPointer) -> SIMD64<UInt8> {
        let q0 = blk.loadUnaligned(fromByteOffset: 6, as: SIMD16<UInt8>.self)
        let q1 = blk.loadUnaligned(fromByteOffset: 28, as: SIMD16<UInt8>.self)
        let packed = SIMD64<UInt8>(lowHalf: SIMD32(lowHalf: q0, highHalf: q0), highHalf: SIMD32(lowHalf: q1, highHalf: q1))
        // Low nibbles in the 16-byte quarters 0 and 2, high nibbles in 1 and 3.
        let lowQuarters = unsafeBitCast(SIMD8<UInt64>(nibbleMask, nibbleMask, 0, 0, nibbleMask, nibbleMask, 0, 0), to: SIMD64<UInt8>.self)
        let highQuarters = unsafeBitCast(SIMD8<UInt64>(0, 0, nibbleMask, nibbleMask, 0, 0, nibbleMask, nibbleMask), to: SIMD64<UInt8>.self)
        let nibbles = or(and(packed, lowQuarters), and(shiftWordsRight4(packed), highQuarters))
        let fifth = UInt64(blk.loadUnaligned(fromByteOffset: 2, as: UInt32.self))
            | UInt64(blk.loadUnaligned(fromByteOffset: 24, as: UInt32.self)) << 32
        // Byte k of the result takes bit k of `fifth` (a mask register, `vpmovm2b`).
        let set = unsafeBitCast(Builtin.sext_Vec64xInt1_Vec64xInt8(Builtin.bitcast_Int64_Vec64xInt1(fifth._value)), to: SIMD64<UInt8>.self)
        return or(nibbles, and(set, SIMD64(repeating: 0x10)))
    }

    private static let nibbleMask: UInt64 = 0x0F0F_0F0F_0F0F_0F0F

    /// From rows x and y, each [block A: 8 lanes | block B: 8 lanes]: [xA, xB, yA, yB] in groups
    /// of 4 lanes, each group the sum of a block's two halves.
    @inline(__always)
    private static func foldHalves(_ x: SIMD16<Int32>, _ y: SIMD16<Int32>) -> SIMD16<Int32> {
        permute(x, y, SIMD16(0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27))
            &+ permute(x, y, SIMD16(4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31))
    }

    /// From two `foldHalves` results (groups of 4 lanes): the same groups, in order, of 2 lanes.
    @inline(__always)
    private static func foldPairs(_ x: SIMD16<Int32>, _ y: SIMD16<Int32>) -> SIMD16<Int32> {
        permute(x, y, SIMD16(0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29))
            &+ permute(x, y, SIMD16(2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31))
    }

    /// The last round, from `foldPairs` of rows 0-3 and of rows 4-7 (2-lane groups ordered row by
    /// row, block A then B): lane i < 8 is row i's block A, lane 8 + i its block B. Group
    /// (row r, block k) starts at lane 4r + 2k (rows 4-7: 16 + 4(r - 4) + 2k in the pair).
    private static var finalFirst: SIMD16<Int32> { SIMD16(0, 4, 8, 12, 16, 20, 24, 28, 2, 6, 10, 14, 18, 22, 26, 30) }
    private static var finalSecond: SIMD16<Int32> { SIMD16(1, 5, 9, 13, 17, 21, 25, 29, 3, 7, 11, 15, 19, 23, 27, 31) }

    // The generic SIMD operators are lane loops that LLVM does not always vectorize; these are one instruction each.
    @inline(__always)
    private static func and(_ x: SIMD64<UInt8>, _ y: SIMD64<UInt8>) -> SIMD64<UInt8> {
        unsafeBitCast(Builtin.and_Vec64xInt8(unsafeBitCast(x, to: Builtin.Vec64xInt8.self), unsafeBitCast(y, to: Builtin.Vec64xInt8.self)),
                      to: SIMD64<UInt8>.self)
    }

    @inline(__always)
    private static func or(_ x: SIMD64<UInt8>, _ y: SIMD64<UInt8>) -> SIMD64<UInt8> {
        unsafeBitCast(Builtin.or_Vec64xInt8(unsafeBitCast(x, to: Builtin.Vec64xInt8.self), unsafeBitCast(y, to: Builtin.Vec64xInt8.self)),
                      to: SIMD64<UInt8>.self)
    }

    /// Each 16-bit lane shifted right by 4 (`vpsrlw`): bits cross from a byte's high half into the byte below.
    @inline(__always)
    private static func shiftWordsRight4(_ x: SIMD64<UInt8>) -> SIMD64<UInt8> {
        let four = unsafeBitCast(SIMD32<UInt16>(repeating: 4), to: Builtin.Vec32xInt16.self)
        return unsafeBitCast(Builtin.lshr_Vec32xInt16(unsafeBitCast(x, to: Builtin.Vec32xInt16.self), four), to: SIMD64<UInt8>.self)
    }

    /// F16 bit patterns widened to F32 exactly (`vcvtph2ps`).
    @inline(__always)
    private static func widen(_ h: SIMD8<UInt16>) -> SIMD8<Float> {
        unsafeBitCast(Builtin.fpext_Vec8xFPIEEE16_Vec8xFPIEEE32(unsafeBitCast(h, to: Builtin.Vec8xFPIEEE16.self)), to: SIMD8<Float>.self)
    }

    @inline(__always)
    private static func prefetchLine(_ p: UnsafeRawPointer) {
        Builtin.int_prefetch_RawPointer(p._rawValue, Builtin.zeroInitializer(), (3 as Int32)._value, (1 as Int32)._value)
    }
}
#endif
