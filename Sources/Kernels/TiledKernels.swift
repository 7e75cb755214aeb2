#if arch(x86_64)
import KernelsAVX512
#endif

/// The quantized matrix kernels: eight outputs at a time, either eight rows
/// times one activation row (`rows8`, matrix-vector) or one row times eight
/// activation rows (`tokens8`, matrix-matrix). Each block's eight integer dot
/// products are reduced to one vector of eight exact sums, converted once and
/// accumulated with one fused multiply-add.
///
/// Output `o` (one row, one token) is always
/// `acc(o) + off(o)` with, over blocks `b` in order,
/// `acc = fma(scale_w(b) * d_x(b), Float(isum(b)), acc)` and
/// `off = fma(offset_w(b), s_x(b), off)`, whichever kernel computes it, so the
/// two kernels agree bit for bit.
enum TiledKernels {
    /// Activation rows of eight tokens interleaved per block: for block `b`, the
    /// eight tokens' 32 codes (256 bytes); after all blocks, the scales `[b][t]`, then the sums `[b][t]`.
    struct TokenGroup {
        let codes: UnsafePointer<Int8>
        let scales: UnsafePointer<Float>
        let sums: UnsafePointer<Float>

        init(_ base: UnsafeRawPointer, blocks: Int) {
            codes = base.assumingMemoryBound(to: Int8.self)
            scales = (base + 256 * blocks).assumingMemoryBound(to: Float.self)
            sums = scales + 8 * blocks
        }

        static func bytes(blocks: Int) -> Int { blocks * (256 + 64) }

        /// Interleaves eight rows laid out as `QuantizedActivations` (each `rowBytes` apart).
        static func pack(rows: UnsafeRawPointer, rowBytes: Int, blocks: Int, into destination: UnsafeMutableRawPointer) {
            for t in 0..<8 {
                let row = QuantizedRow(rows + t * rowBytes, columns: 32 * blocks)
                for b in 0..<blocks {
                    destination.storeBytes(of: row.block(b), toByteOffset: 256 * b + 32 * t, as: SIMD32<Int8>.self)
                    destination.storeBytes(of: row.scales[b], toByteOffset: 256 * blocks + 4 * (8 * b + t), as: Float.self)
                    destination.storeBytes(of: row.sums[b], toByteOffset: 288 * blocks + 4 * (8 * b + t), as: Float.self)
                }
            }
        }
    }

    /// `output[r - firstRow]` for rows `firstRow ..< min(firstRow + 8, matrix.rows)` times `x`.
    /// With `matrix.interleavedRows` the eight rows' blocks are side by side in memory, one
    /// stream (prefetched `streamingPrefetchBytes` ahead); otherwise eight streams.
    @inline(__always)
    static func rows8<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, firstRow: Int, x: QuantizedRow,
                                       output: UnsafeMutablePointer<Float>) {
        let last = matrix.rows - 1
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { matrix.row(min(firstRow + i, last)) }
        let w0 = row(0), w1 = row(1), w2 = row(2), w3 = row(3), w4 = row(4), w5 = row(5), w6 = row(6), w7 = row(7)
        let blockStride = matrix.blockStride, interleaved = matrix.interleavedRows
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        for b in 0..<(matrix.columns / 32) {
            let xb = x.block(b)
            @inline(__always) func partial(_ w: UnsafeRawPointer, _ codes: SIMD32<UInt8>) -> SIMD8<Int32> {
                blockPartialSums(W.self, codes: codes, magnitude: magnitudeOf(W.self, codes),
                                 pairWeights: W.pairWeights(w, b), x: xb)
            }
            let scales: SIMD8<Float>, offsets: SIMD8<Float>, isum: SIMD8<Int32>
            if W.headerScales {
                // Block b of row i starts at w_i + at (the formats' `codes(_:_:)` at block 0 of there).
                let at = blockStride * b
                if interleaved { prefetchAhead(of: w0 + at, bytes: 8 * W.blockBytes) }
                @inline(__always) func header(_ w: UnsafeRawPointer) -> UInt32 { w.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
                (scales, offsets) = W.scales(headers: SIMD8(header(w0), header(w1), header(w2), header(w3),
                                                            header(w4), header(w5), header(w6), header(w7)))
                if W.fourBitCodes {
                    // Two rows per vector: row i's 16 packed bytes in the low half, row i+4's in
                    // the high half; low nibbles meet activations 0..<16, high nibbles 16..<32.
                    // The sums are the same exact integers as `multiplyAddPairs(W.codes(w, b), xb)`
                    // reduced over all lanes, with half the nibble shifts and a shorter reduction.
                    let xp = UnsafeRawPointer(x.codes + 32 * b)
                    let xLow = broadcastHalf(xp), xHigh = broadcastHalf(xp + 16)
                    let codes = at + W.packedCodesOffset
                    @inline(__always) func pair(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer) -> SIMD16<Int16> {
                        let packed = loadHalves(first + codes, second + codes)
                        return wrappingAdd(multiplyAddPairs(bitAnd(packed, SIMD32(repeating: 0x0F)), xLow),
                                           multiplyAddPairs(shiftRight(packed, 4), xHigh))
                    }
                    isum = sumPairedRows(pair(w0, w4), pair(w1, w5), pair(w2, w6), pair(w3, w7))
                } else {
                    @inline(__always) func codes(_ w: UnsafeRawPointer) -> SIMD32<UInt8> { W.codes(w + at, 0) }
                    isum = sumLanes(partial(w0, codes(w0)), partial(w1, codes(w1)), partial(w2, codes(w2)),
                                    partial(w3, codes(w3)), partial(w4, codes(w4)), partial(w5, codes(w5)),
                                    partial(w6, codes(w6)), partial(w7, codes(w7)))
                }
            } else {
                let d0 = W.decode(w0, b), d1 = W.decode(w1, b), d2 = W.decode(w2, b), d3 = W.decode(w3, b)
                let d4 = W.decode(w4, b), d5 = W.decode(w5, b), d6 = W.decode(w6, b), d7 = W.decode(w7, b)
                if W.fourBitCodes {
                    isum = sumLanes(multiplyAddPairs(d0.codes, xb), multiplyAddPairs(d1.codes, xb), multiplyAddPairs(d2.codes, xb),
                                    multiplyAddPairs(d3.codes, xb), multiplyAddPairs(d4.codes, xb), multiplyAddPairs(d5.codes, xb),
                                    multiplyAddPairs(d6.codes, xb), multiplyAddPairs(d7.codes, xb))
                } else {
                    isum = sumLanes(partial(w0, d0.codes), partial(w1, d1.codes), partial(w2, d2.codes), partial(w3, d3.codes),
                                    partial(w4, d4.codes), partial(w5, d5.codes), partial(w6, d6.codes), partial(w7, d7.codes))
                }
                scales = SIMD8<Float>(d0.scale, d1.scale, d2.scale, d3.scale, d4.scale, d5.scale, d6.scale, d7.scale)
                offsets = SIMD8<Float>(d0.offset, d1.offset, d2.offset, d3.offset, d4.offset, d5.offset, d6.offset, d7.offset)
            }
            acc.addProduct(scales * SIMD8(repeating: x.scales[b]), SIMD8<Float>(isum))
            if W.hasOffset { off.addProduct(offsets, SIMD8(repeating: x.sums[b])) }
        }
        let result = acc + off
        for i in 0..<min(8, matrix.rows - firstRow) { output[i] = result[i] }
    }

    /// Blocks per pass of `rows8Streaming`: its partial sums (8 rows x this many blocks of
    /// `SIMD8<Int32>`, 8 KiB) stay in L1.
    static let streamingChunkBlocks = 32
    /// How far ahead of its reads `rows8` over interleaved rows prefetches (measured best of 0, 1, 2, 6 KiB).
    static let streamingPrefetchBytes = 2048

    /// Prefetches `bytes` bytes `streamingPrefetchBytes` after `chunk`, the part of a stream
    /// read next. The hardware prefetcher stops at 4 KiB pages (a file mapping has no huge
    /// pages), so the kernels ask for the lines ahead themselves.
    @inline(__always)
    static func prefetchAhead(of chunk: UnsafeRawPointer, bytes: Int) {
        prefetchLines(chunk + streamingPrefetchBytes, bytes: bytes)
    }

    /// Prefetches the cache lines of `bytes` bytes from `start`. The streaming kernels
    /// (`rows8Streaming`, `streamSuperblocks`) prefetch, while they read a chunk of a row, the
    /// same chunk of the same row of the next 8-row group: exactly one group ahead in the order
    /// they read memory (a fixed distance past the chunk is not, when a row has several chunks:
    /// Gemma's 2048-column Q4_K/Q6_K matrices; KernelBench `--cold`: Q6_K 190-210 -> 125-135 µs).
    @inline(__always)
    static func prefetchLines(_ start: UnsafeRawPointer, bytes: Int) {
        for line in 0..<(bytes + 63) / 64 { prefetch(start + 64 * line) }
    }

    /// `rows8` for the 32-element formats with 5- and 8-bit codes (Q8_0, Q5_0, Q5_1), reading
    /// memory in order: each row's blocks (up to `streamingChunkBlocks` of them) one after the
    /// other, the next row after that, so a matrix-vector product is one sequential stream
    /// that the hardware prefetcher follows (eight rows read side by side are eight short
    /// streams; measured on a 178 MB Q8_0 matrix, about half the bandwidth); the next 8-row
    /// group is prefetched chunk by chunk (`prefetchLines`). The partial sums
    /// wait in L1 until all eight rows of a chunk are read; then each block's eight sums are
    /// reduced and accumulated exactly as `rows8` does, so the outputs are bit for bit the same.
    @inline(__always)
    static func rows8Streaming<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, firstRow: Int, x: QuantizedRow,
                                                partials: UnsafeMutablePointer<SIMD8<Int32>>,
                                                output: UnsafeMutablePointer<Float>) {
        let last = matrix.rows - 1
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { matrix.row(min(firstRow + i, last)) }
        let w0 = row(0), w1 = row(1), w2 = row(2), w3 = row(3), w4 = row(4), w5 = row(5), w6 = row(6), w7 = row(7)
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        let blocks = matrix.columns / 32
        var start = 0
        while start < blocks {
            let end = min(start + streamingChunkBlocks, blocks)
            for i in 0..<8 {
                let w = row(i)
                if firstRow + 8 + i <= last {
                    prefetchLines(matrix.row(firstRow + 8 + i) + W.blockBytes * start, bytes: (end - start) * W.blockBytes)
                }
                for b in start..<end {
                    let codes = W.codes(w, b)
                    partials[8 * (b - start) + i] = blockPartialSums(W.self, codes: codes, magnitude: magnitudeOf(W.self, codes),
                                                                     pairWeights: W.pairWeights(w, b), x: x.block(b))
                }
            }
            for b in start..<end {
                let at = W.blockBytes * b
                @inline(__always) func header(_ w: UnsafeRawPointer) -> UInt32 { w.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
                let (scales, offsets) = W.scales(headers: SIMD8(header(w0), header(w1), header(w2), header(w3),
                                                                header(w4), header(w5), header(w6), header(w7)))
                let p = partials + 8 * (b - start)
                let isum = sumLanes(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
                acc.addProduct(scales * SIMD8(repeating: x.scales[b]), SIMD8<Float>(isum))
                if W.hasOffset { off.addProduct(offsets, SIMD8(repeating: x.sums[b])) }
            }
            start = end
        }
        let result = acc + off
        for i in 0..<min(8, matrix.rows - firstRow) { output[i] = result[i] }
    }

    /// Per-call memory of the streaming K-quant kernels: for one chunk of blocks, per block and
    /// row (`[block][row]`), the partial sums (32 bytes), the F32 scale, the F32 offset (Q4_K) or
    /// the Int32 correction (Q6_K), the row's pair weights (Q6_K), and per token the activation
    /// row's sums of 16 codes (Q6_K, whole rows).
    struct StreamingScratch {
        let partials: UnsafeMutableRawPointer
        let scales: UnsafeMutablePointer<Float>
        let offsets: UnsafeMutablePointer<Float>
        let corrections: UnsafeMutablePointer<Int32>
        let pairWeights: UnsafeMutableRawPointer
        let halfSums: UnsafeMutablePointer<Int16>

        static func bytes(columns: Int, tokens: Int) -> Int { 8 * streamingChunkBlocks * (32 + 4 + 4 + 4) + 64 + tokens * columns / 16 * 2 }

        init(_ base: UnsafeMutableRawPointer) {
            let n = 8 * streamingChunkBlocks
            partials = base
            scales = (base + 32 * n).assumingMemoryBound(to: Float.self)
            offsets = scales + n
            corrections = UnsafeMutableRawPointer(offsets + n).assumingMemoryBound(to: Int32.self)
            pairWeights = UnsafeMutableRawPointer(corrections + n)
            halfSums = (pairWeights + 64).assumingMemoryBound(to: Int16.self)
        }
    }

    /// `rows8` for Q4_K, reading memory in order as `rows8Streaming` does. Per 256-element
    /// superblock and row, the eight 6-bit scales and minimums are decoded at once (32-bit
    /// masks, as ggml does) and `d * scale`, `-(dmin * min)` computed as eight-lane products,
    /// the same F32 operations `Q4_KBlocks.decode` does per block; then each block's sums,
    /// scales and offsets meet in the same order as in `rows8`, so outputs are bit for bit the same.
    @inline(__always)
    static func rows8StreamingQ4K(_ matrix: MatrixView, firstRow: Int, x: QuantizedRow, scratch: StreamingScratch,
                                  output: UnsafeMutablePointer<Float>) {
        let partials = scratch.partials.assumingMemoryBound(to: SIMD16<Int16>.self)
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        streamSuperblocks(matrix, firstRow: firstRow, superblockBytes: 144, read: { i, start, s, blk in
            let q0 = blk.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let q1 = blk.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            let q2 = blk.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
            let scaleCodes = UInt64(q0 & 0x3F3F_3F3F) | UInt64((q2 & 0x0F0F_0F0F) | ((q0 >> 2) & 0x3030_3030)) << 32
            let minCodes = UInt64(q1 & 0x3F3F_3F3F) | UInt64(((q2 >> 4) & 0x0F0F_0F0F) | ((q1 >> 2) & 0x3030_3030)) << 32
            let scales = SIMD8(repeating: loadHalf(blk)) * toFloat(widenBytes(unsafeBitCast(scaleCodes, to: SIMD8<UInt8>.self)))
            let offsets = -(SIMD8(repeating: loadHalf(blk, 2)) * toFloat(widenBytes(unsafeBitCast(minCodes, to: SIMD8<UInt8>.self))))
            for j in 0..<8 {
                scratch.scales[8 * (s + j) + i] = scales[j]
                scratch.offsets[8 * (s + j) + i] = offsets[j]
            }
            for pair in 0..<4 {
                let packed = blk.loadUnaligned(fromByteOffset: 16 + 32 * pair, as: SIMD32<UInt8>.self)
                let b = s + 2 * pair
                partials[8 * b + i] = multiplyAddPairs(bitAnd(packed, SIMD32(repeating: 0x0F)), x.block(start + b))
                partials[8 * (b + 1) + i] = multiplyAddPairs(bitAnd(shiftRight(packed, 4), SIMD32(repeating: 0x0F)), x.block(start + b + 1))
            }
        }, reduce: { b, start in
            let p = partials + 8 * (b - start)
            let isum = sumLanes(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
            let scales = UnsafeRawPointer(scratch.scales + 8 * (b - start)).loadUnaligned(as: SIMD8<Float>.self)
            let offsets = UnsafeRawPointer(scratch.offsets + 8 * (b - start)).loadUnaligned(as: SIMD8<Float>.self)
            acc.addProduct(scales * SIMD8(repeating: x.scales[b]), SIMD8<Float>(isum))
            off.addProduct(offsets, SIMD8(repeating: x.sums[b]))
        })
        let result = acc + off
        for i in 0..<min(8, matrix.rows - firstRow) { output[i] = result[i] }
    }

    /// `rows8` for Q6_K, reading memory in order as `rows8Streaming` does. The 6-bit codes
    /// stay unsigned (0..<64) for `vpmaddubsw`, and the `- 32` of every code comes back as
    /// `32 * sum(pairWeight * sum of 16 activation codes)` per block (the activation sums are
    /// computed once per token, `halfSums`): the same exact integer as `rows8`'s signed codes.
    /// Scales and the F32 order are those of `rows8`, so outputs are bit for bit the same.
    @inline(__always)
    static func rows8StreamingQ6K(_ matrix: MatrixView, firstRow: Int, x: QuantizedRow, halfSums: UnsafePointer<Int16>,
                                  scratch: StreamingScratch,
                                  output: UnsafeMutablePointer<Float>) {
        let partials = scratch.partials.assumingMemoryBound(to: SIMD8<Int32>.self)
        // Picks word 0 of each 32-bit lane for the low 128 bits and word 1 for the high 128 bits.
        let pairIndex = SIMD32<UInt8>(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3)
        var acc = SIMD8<Float>()
        streamSuperblocks(matrix, firstRow: firstRow, superblockBytes: 210, read: { i, start, s, blk in
            scratch.scales[s + i] = loadHalf(blk, 208)
            let weights = widenSigned(blk.loadUnaligned(fromByteOffset: 192, as: SIMD16<Int8>.self))
            scratch.pairWeights.storeBytes(of: weights, as: SIMD16<Int16>.self)
            let sums = UnsafeRawPointer(halfSums + 2 * (start + s)).loadUnaligned(as: SIMD16<Int16>.self)
            let corrections = multiplyAddPairs(shiftLeft(weights, 5), sums)
            for j in 0..<8 { scratch.corrections[8 * (s + j) + i] = corrections[j] }
            for half in 0..<2 {
                let low0 = blk.loadUnaligned(fromByteOffset: 64 * half, as: SIMD32<UInt8>.self)
                let low1 = blk.loadUnaligned(fromByteOffset: 64 * half + 32, as: SIMD32<UInt8>.self)
                let high = blk.loadUnaligned(fromByteOffset: 128 + 32 * half, as: SIMD32<UInt8>.self)
                for group in 0..<4 {
                    let sub = 4 * half + group
                    let lowBits = bitAnd(shiftRight(group & 1 == 0 ? low0 : low1, 4 * (group >> 1)), SIMD32(repeating: 0x0F))
                    let highBits = bitAnd(shiftLeft(shiftRight(high, 2 * group), 4), SIMD32(repeating: 0x30))
                    let pair = UnsafeRawPointer(scratch.pairWeights).load(fromByteOffset: 4 * sub, as: UInt32.self)
                    let pairWeights = unsafeBitCast(shuffleBytes(unsafeBitCast(SIMD8<UInt32>(repeating: pair), to: SIMD32<UInt8>.self),
                                                                 pairIndex), to: SIMD16<Int16>.self)
                    partials[8 * (s + sub) + i] = multiplyAddPairs(multiplyAddPairs(bitOr(lowBits, highBits), x.block(start + s + sub)),
                                                                   pairWeights)
                }
            }
        }, reduce: { b, start in
            let p = partials + 8 * (b - start)
            let corrections = UnsafeRawPointer(scratch.corrections + 8 * (b - start)).loadUnaligned(as: SIMD8<Int32>.self)
            let isum = wrappingSubtract(sumLanes(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]), corrections)
            let scales = UnsafeRawPointer(scratch.scales + (b - start) / 8 * 8).loadUnaligned(as: SIMD8<Float>.self)
            acc.addProduct(scales * SIMD8(repeating: x.scales[b]), SIMD8<Float>(isum))
        })
        let result = acc + SIMD8<Float>()
        for i in 0..<min(8, matrix.rows - firstRow) { output[i] = result[i] }
    }

    /// The memory walk of the streaming K-quant kernels: per chunk of `streamingChunkBlocks`
    /// blocks, each of the eight rows' superblocks in order (`read(row, chunk start, block
    /// within the chunk, superblock)`, rows past the matrix's end read its last row), then every
    /// block of the chunk in order (`reduce(block, chunk start)`).
    @inline(__always)
    static func streamSuperblocks(_ matrix: MatrixView, firstRow: Int, superblockBytes: Int,
                                  read: (_ row: Int, _ start: Int, _ block: Int, _ superblock: UnsafeRawPointer) -> Void,
                                  reduce: (_ block: Int, _ start: Int) -> Void) {
        let last = matrix.rows - 1
        let blocks = matrix.columns / 32
        var start = 0
        while start < blocks {
            let end = min(start + streamingChunkBlocks, blocks)
            for i in 0..<8 {
                let w = matrix.row(min(firstRow + i, last)) + superblockBytes * (start / 8)
                if firstRow + 8 + i <= last {
                    prefetchLines(matrix.row(firstRow + 8 + i) + superblockBytes * (start / 8), bytes: (end - start) / 8 * superblockBytes)
                }
                for s in stride(from: 0, to: end - start, by: 8) { read(i, start, s, w + superblockBytes * (s / 8)) }
            }
            for b in start..<end { reduce(b, start) }
            start = end
        }
    }

    /// `output[t * outputStride]` for the eight tokens of `group` times row `row`; the
    /// 32-element formats find block `b` at `row + blockStride * b` (`MatrixView.blockStride`).
    @inline(__always)
    static func tokens8<W: WeightBlocks>(_: W.Type, row: UnsafeRawPointer, blocks: Int, blockStride: Int, group: TokenGroup,
                                         output: UnsafeMutablePointer<Float>, outputStride: Int) {
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        let codes = UnsafeRawPointer(group.codes), scales = UnsafeRawPointer(group.scales), sums = UnsafeRawPointer(group.sums)
        for b in 0..<blocks {
            let (c, scale, offset) = W.headerScales ? W.decode(row + blockStride * b, 0) : W.decode(row, b)
            let magnitude = magnitudeOf(W.self, c)
            let pairWeights = W.pairWeights(row, b)
            let xb = codes + 256 * b
            @inline(__always) func partial(_ t: Int) -> SIMD8<Int32> {
                blockPartialSums(W.self, codes: c, magnitude: magnitude, pairWeights: pairWeights,
                                 x: xb.loadUnaligned(fromByteOffset: 32 * t, as: SIMD32<Int8>.self))
            }
            let isum: SIMD8<Int32>
            if W.fourBitCodes {
                @inline(__always) func pairs(_ t: Int) -> SIMD16<Int16> {
                    multiplyAddPairs(c, xb.loadUnaligned(fromByteOffset: 32 * t, as: SIMD32<Int8>.self))
                }
                isum = sumLanes(pairs(0), pairs(1), pairs(2), pairs(3), pairs(4), pairs(5), pairs(6), pairs(7))
            } else {
                isum = sumLanes(partial(0), partial(1), partial(2), partial(3), partial(4), partial(5), partial(6), partial(7))
            }
            acc.addProduct(SIMD8(repeating: scale) * scales.loadUnaligned(fromByteOffset: 32 * b, as: SIMD8<Float>.self), SIMD8<Float>(isum))
            if W.hasOffset { off.addProduct(SIMD8(repeating: offset), sums.loadUnaligned(fromByteOffset: 32 * b, as: SIMD8<Float>.self)) }
        }
        let result = acc + off
        for t in 0..<8 { output[t * outputStride] = result[t] }
    }

    /// The shape of a `tile`: `rows` x `tokens` outputs, 8 in all.
    protocol TileShape { static var rows: Int { get } }
    enum TwoRowsFourTokens: TileShape { static let rows = 2 }
    enum FourRowsTwoTokens: TileShape { static let rows = 4 }

    /// Outputs of `S.rows` rows (`firstRow ..< firstRow + S.rows`, rows past the matrix's end
    /// skipped) times `8 / S.rows` consecutive activation rows (2 x 4 or 4 x 2): per block, each
    /// row's codes are decoded once for all its tokens (batched decoding of 2-7 sequences).
    /// Lane `r * tokens + t` is output (row r, token t), computed with exactly the F32 operations of
    /// `rows8` and `tokens8` (`fma(scale_w * d_x, Float(isum), acc)`, `fma(offset_w, s_x, off)`,
    /// `acc + off`), so results are bit for bit the same.
    @inline(__always)
    static func tile<W: WeightBlocks, S: TileShape>(_: W.Type, _: S.Type, _ matrix: MatrixView, firstRow: Int,
                                                    activations: UnsafeRawPointer, rowBytes: Int,
                                                    output: UnsafeMutablePointer<Float>, outputStride: Int) {
        let four = S.rows == 4
        let last = matrix.rows - 1, columns = matrix.columns, blockStride = matrix.blockStride
        @inline(__always) func rowPointer(_ r: Int) -> UnsafeRawPointer { matrix.row(min(firstRow + r, last)) }
        let w0 = rowPointer(0), w1 = rowPointer(1), w2 = four ? rowPointer(2) : w0, w3 = four ? rowPointer(3) : w0
        @inline(__always) func x(_ t: Int) -> QuantizedRow { QuantizedRow(activations + t * rowBytes, columns: columns) }
        let x0 = x(0), x1 = x(1), x2 = four ? x0 : x(2), x3 = four ? x0 : x(3)
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        for b in 0..<(columns / 32) {
            @inline(__always) func decode(_ w: UnsafeRawPointer) -> (codes: SIMD32<UInt8>, scale: Float, offset: Float) {
                W.headerScales ? W.decode(w + blockStride * b, 0) : W.decode(w, b)
            }
            let d0 = decode(w0), d1 = decode(w1), d2 = four ? decode(w2) : d0, d3 = four ? decode(w3) : d0
            let m0 = magnitudeOf(W.self, d0.codes), m1 = magnitudeOf(W.self, d1.codes)
            let m2 = four ? magnitudeOf(W.self, d2.codes) : m0, m3 = four ? magnitudeOf(W.self, d3.codes) : m0
            let p0 = W.pairWeights(w0, b), p1 = W.pairWeights(w1, b)
            let p2 = four ? W.pairWeights(w2, b) : p0, p3 = four ? W.pairWeights(w3, b) : p0
            let b0 = x0.block(b), b1 = x1.block(b), b2 = four ? b0 : x2.block(b), b3 = four ? b0 : x3.block(b)
            let isum: SIMD8<Int32>
            if W.fourBitCodes {
                @inline(__always) func q(_ c: SIMD32<UInt8>, _ xb: SIMD32<Int8>) -> SIMD16<Int16> { multiplyAddPairs(c, xb) }
                isum = four
                    ? sumLanes(q(d0.codes, b0), q(d0.codes, b1), q(d1.codes, b0), q(d1.codes, b1),
                               q(d2.codes, b0), q(d2.codes, b1), q(d3.codes, b0), q(d3.codes, b1))
                    : sumLanes(q(d0.codes, b0), q(d0.codes, b1), q(d0.codes, b2), q(d0.codes, b3),
                               q(d1.codes, b0), q(d1.codes, b1), q(d1.codes, b2), q(d1.codes, b3))
            } else {
                @inline(__always) func q(_ c: SIMD32<UInt8>, _ m: SIMD32<UInt8>, _ p: SIMD16<Int16>, _ xb: SIMD32<Int8>) -> SIMD8<Int32> {
                    blockPartialSums(W.self, codes: c, magnitude: m, pairWeights: p, x: xb)
                }
                isum = four
                    ? sumLanes(q(d0.codes, m0, p0, b0), q(d0.codes, m0, p0, b1), q(d1.codes, m1, p1, b0), q(d1.codes, m1, p1, b1),
                               q(d2.codes, m2, p2, b0), q(d2.codes, m2, p2, b1), q(d3.codes, m3, p3, b0), q(d3.codes, m3, p3, b1))
                    : sumLanes(q(d0.codes, m0, p0, b0), q(d0.codes, m0, p0, b1), q(d0.codes, m0, p0, b2), q(d0.codes, m0, p0, b3),
                               q(d1.codes, m1, p1, b0), q(d1.codes, m1, p1, b1), q(d1.codes, m1, p1, b2), q(d1.codes, m1, p1, b3))
            }
            let scales = four
                ? SIMD8(d0.scale, d0.scale, d1.scale, d1.scale, d2.scale, d2.scale, d3.scale, d3.scale)
                : SIMD8(d0.scale, d0.scale, d0.scale, d0.scale, d1.scale, d1.scale, d1.scale, d1.scale)
            let s0 = x0.scales[b], s1 = x1.scales[b], s2 = four ? s0 : x2.scales[b], s3 = four ? s0 : x3.scales[b]
            let xScales = four ? SIMD8(s0, s1, s0, s1, s0, s1, s0, s1) : SIMD8(s0, s1, s2, s3, s0, s1, s2, s3)
            acc.addProduct(scales * xScales, SIMD8<Float>(isum))
            if W.hasOffset {
                let offsets = four
                    ? SIMD8(d0.offset, d0.offset, d1.offset, d1.offset, d2.offset, d2.offset, d3.offset, d3.offset)
                    : SIMD8(d0.offset, d0.offset, d0.offset, d0.offset, d1.offset, d1.offset, d1.offset, d1.offset)
                let u0 = x0.sums[b], u1 = x1.sums[b], u2 = four ? u0 : x2.sums[b], u3 = four ? u0 : x3.sums[b]
                off.addProduct(offsets, four ? SIMD8(u0, u1, u0, u1, u0, u1, u0, u1) : SIMD8(u0, u1, u2, u3, u0, u1, u2, u3))
            }
        }
        let result = acc + off
        let tokens = 8 / S.rows
        for i in 0..<8 where firstRow + i / tokens <= last {
            output[(i % tokens) * outputStride + i / tokens] = result[i]
        }
    }

    /// Which kernels a product takes: llama.cpp's orders (`KernelContext.ggmlOrder`), or the
    /// AVX-512 strips for the full token groups (`StripKernels`, with the activations' half-block
    /// sums when a product has signed codes); otherwise `tokens8` and the tail kernels.
    struct Choice {
        let ggmlOrder: Bool
        let strips: Bool
        let halfSums: UnsafePointer<Int32>?
        /// The AVX-512 matrix-vector kernels may run (`KernelContext.useAVX512`).
        var avx512 = false
    }

    /// Rows `range` of the product for one quantized format: activations already
    /// quantized (`tokens` rows of `rowBytes` at `activations`), token groups packed at `groups`.
    /// `range` starts at a multiple of 8.
    /// With `ggmlOrder`, the 32-element formats take `GGMLOrderKernels` (llama.cpp's exact
    /// summation order, slower) and Q4_K/Q6_K `GGMLOrderKernels.superblockRows`.
    static func rows<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer,
                                      rowBytes: Int, groups: UnsafeRawPointer, tokens: Int,
                                      output: UnsafeMutablePointer<Float>, outputStride: Int, kernels: Choice) {
        let ggmlOrder = kernels.ggmlOrder
        if ggmlOrder && (W.format == .q4_K || W.format == .q6_K) {
            GGMLOrderKernels.superblockRows(W.format, matrix, range, activations: activations, rowBytes: rowBytes,
                                            tokens: tokens, output: output, outputStride: outputStride)
            return
        }
        let groupCount = tokens / 8
        #if arch(x86_64)
        if kernels.strips {
            StripKernels.tokenGroups(W.self, matrix, range, activations: activations, rowBytes: rowBytes, halfSums: kernels.halfSums,
                                     groupCount: groupCount, output: output, outputStride: outputStride)
        } else {
            tokenGroups(W.self, matrix, range, groups: groups, groupCount: groupCount, output: output,
                        outputStride: outputStride, ggmlOrder: ggmlOrder)
        }
        #else
        tokenGroups(W.self, matrix, range, groups: groups, groupCount: groupCount, output: output,
                    outputStride: outputStride, ggmlOrder: ggmlOrder)
        #endif
        // The tokens after the last full group (a matrix-vector product; batched decoding of up
        // to 7 sequences): rows outermost, so each 8-row group is read from memory once and
        // stays in L1 while every token passes.
        let tail = 8 * groupCount..<tokens
        guard !tail.isEmpty else { return }
        // Tiles are not for Q4_0/Q4_1 (`rows8` pairs their rows in one vector: cheaper than a
        // tile's decoding) nor for interleaved rows (`rows8` streams them; measured slower with tiles).
        // 2 or 3 tokens of a matrix the AVX-512 matrix-vector kernels take go through them, token by token
        // over each 8-row group (Gemma 3, 2 sequences batched: 0.97x sequential with tiles, 1.10x so).
        let avx512Rows = kernels.avx512 && !ggmlOrder && avx512MatrixVector(matrix)
        if tail.count >= (avx512Rows ? 4 : 2) && !(W.headerScales && (ggmlOrder || W.fourBitCodes)) && !matrix.interleavedRows {
            tiledTail(W.self, matrix, range, activations: activations, rowBytes: rowBytes, tail: tail,
                      output: output, outputStride: outputStride)
        } else if avx512Rows {
            avx512Tail(matrix, range, activations: activations, rowBytes: rowBytes, tail: tail, output: output, outputStride: outputStride)
        } else if W.format == .q4_K || W.format == .q6_K {
            streamingSuperblockTail(W.self, matrix, range, activations: activations, rowBytes: rowBytes, tail: tail,
                                    output: output, outputStride: outputStride)
        } else if W.headerScales && !W.fourBitCodes && !ggmlOrder && !matrix.interleavedRows {
            streamingTail(W.self, matrix, range, activations: activations, rowBytes: rowBytes, tail: tail,
                          output: output, outputStride: outputStride)
        } else {
            sideBySideTail(W.self, matrix, range, activations: activations, rowBytes: rowBytes, tail: tail,
                           output: output, outputStride: outputStride, ggmlOrder: ggmlOrder)
        }
    }

    /// `rows`' full groups of 8 tokens through `tokens8`.
    @inline(never)
    private static func tokenGroups<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>,
                                                     groups: UnsafeRawPointer, groupCount: Int,
                                                     output: UnsafeMutablePointer<Float>, outputStride: Int, ggmlOrder: Bool) {
        let blocks = matrix.columns / 32
        let groupBytes = TokenGroup.bytes(blocks: blocks)
        // Token groups outermost: a group's activations stay in L1 while the chunk's rows pass.
        // Interleaved rows: `tokens8` reads one row's blocks, spread over its whole 8-row group,
        // which the hardware prefetcher does not follow; each row prefetches an eighth of the group after next.
        let lines = (matrix.format.rowBytes(columns: matrix.columns) + 63) / 64
        for g in 0..<groupCount {
            let group = TokenGroup(groups + g * groupBytes, blocks: blocks)
            for r in range {
                if matrix.interleavedRows && (r | 7) + 9 < range.upperBound {
                    let ahead = matrix.row((r | 7) + 9) + (r & 7) * matrix.rowStride
                    for line in 0..<lines { prefetch(ahead + 64 * line) }
                }
                if W.headerScales && ggmlOrder {
                    GGMLOrderKernels.tokens8(W.self, row: matrix.row(r), blocks: blocks, blockStride: matrix.blockStride, group: group,
                                             output: output + 8 * g * outputStride + r, outputStride: outputStride)
                } else {
                    tokens8(W.self, row: matrix.row(r), blocks: blocks, blockStride: matrix.blockStride, group: group,
                            output: output + 8 * g * outputStride + r, outputStride: outputStride)
                }
            }
        }
    }

    /// Batched decoding of 2-7 sequences: per 8-row group (read from memory once, then in L1),
    /// tiles of 2 rows x 4 tokens and 4 rows x 2 tokens decode each weight block once for
    /// several tokens; a last odd token takes `rows8`. The group two ahead is prefetched.
    @inline(never)
    private static func tiledTail<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer,
                                                   rowBytes: Int, tail: Range<Int>,
                                                   output: UnsafeMutablePointer<Float>, outputStride: Int) {
        let columns = matrix.columns
        let rowLines = (matrix.format.rowBytes(columns: columns) + 63) / 64
        var r = range.lowerBound
        while r < range.upperBound {
            if r + 24 <= range.upperBound {
                for i in 16..<24 {
                    let ahead = matrix.row(r + i)
                    for line in 0..<rowLines { prefetch(ahead + 64 * line) }
                }
            }
            var t = tail.lowerBound
            while t < tail.upperBound {
                let x = activations + t * rowBytes, out = output + t * outputStride + r
                if tail.upperBound - t >= 4 {
                    for pair in 0..<4 {
                        tile(W.self, TwoRowsFourTokens.self, matrix, firstRow: r + 2 * pair, activations: x, rowBytes: rowBytes,
                             output: out + 2 * pair, outputStride: outputStride)
                    }
                    t += 4
                } else if tail.upperBound - t >= 2 {
                    for quad in 0..<2 {
                        tile(W.self, FourRowsTwoTokens.self, matrix, firstRow: r + 4 * quad, activations: x, rowBytes: rowBytes,
                             output: out + 4 * quad, outputStride: outputStride)
                    }
                    t += 2
                } else {
                    rows8(W.self, matrix, firstRow: r, x: QuantizedRow(x, columns: columns), output: out)
                    t += 1
                }
            }
            r += 8
        }
    }

    /// The tail tokens of Q4_K/Q6_K through the streaming superblock kernels (Q6_K's activation
    /// half-block sums computed once per token).
    @inline(never)
    private static func streamingSuperblockTail<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>,
                                                                 activations: UnsafeRawPointer, rowBytes: Int, tail: Range<Int>,
                                                                 output: UnsafeMutablePointer<Float>, outputStride: Int) {
        let columns = matrix.columns
        withUnsafeTemporaryAllocation(byteCount: StreamingScratch.bytes(columns: columns, tokens: tail.count), alignment: 64) { memory in
            let scratch = StreamingScratch(memory.baseAddress!)
            if W.format == .q6_K {
                for t in tail {
                    let codes = (activations + t * rowBytes).assumingMemoryBound(to: Int8.self)
                    let sums = scratch.halfSums + (t - tail.lowerBound) * (columns / 16)
                    for h in 0..<(columns / 16) {
                        var sum: Int16 = 0
                        for k in 0..<16 { sum &+= Int16(codes[16 * h + k]) }
                        sums[h] = sum
                    }
                }
            }
            var r = range.lowerBound
            while r < range.upperBound {
                for t in tail {
                    let x = QuantizedRow(activations + t * rowBytes, columns: columns)
                    if W.format == .q4_K {
                        rows8StreamingQ4K(matrix, firstRow: r, x: x, scratch: scratch, output: output + t * outputStride + r)
                    } else {
                        rows8StreamingQ6K(matrix, firstRow: r, x: x, halfSums: scratch.halfSums + (t - tail.lowerBound) * (columns / 16),
                                          scratch: scratch, output: output + t * outputStride + r)
                    }
                }
                r += 8
            }
        }
    }

    /// The tail tokens of row-major Q8_0/Q5_0/Q5_1 through `rows8Streaming`.
    @inline(never)
    private static func streamingTail<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer,
                                                       rowBytes: Int, tail: Range<Int>,
                                                       output: UnsafeMutablePointer<Float>, outputStride: Int) {
        withUnsafeTemporaryAllocation(of: SIMD8<Int32>.self, capacity: 8 * streamingChunkBlocks) { partials in
            var r = range.lowerBound
            while r < range.upperBound {
                for t in tail {
                    rows8Streaming(W.self, matrix, firstRow: r, x: QuantizedRow(activations + t * rowBytes, columns: matrix.columns),
                                   partials: partials.baseAddress!, output: output + t * outputStride + r)
                }
                r += 8
            }
        }
    }

    /// Whether `avx512Tail` takes products of this matrix: Q5_0 (an even number of blocks), Q4_K and Q6_K, row-major.
    static func avx512MatrixVector(_ matrix: MatrixView) -> Bool {
        guard !matrix.interleavedRows else { return false }
        switch matrix.format {
        case .q5_0: return (matrix.columns / 32) % 2 == 0
        case .q4_K, .q6_K: return true
        default: return false
        }
    }

    /// Tail tokens through `KernelsAVX512.MatrixVectorProducts` (the same bits as `streamingTail` and
    /// `streamingSuperblockTail`), eight rows at a time, every tail token; while the first token passes a
    /// group, the next group is prefetched.
    @inline(never)
    private static func avx512Tail(_ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer, rowBytes: Int,
                                   tail: Range<Int>, output: UnsafeMutablePointer<Float>, outputStride: Int) {
        #if arch(x86_64)
        let blocks = matrix.columns / 32
        var r = range.lowerBound
        while r < range.upperBound {
            let rows = min(8, range.upperBound - r)
            let nextRows = min(8, max(0, range.upperBound - r - 8))
            for t in tail {
                let x = activations + t * rowBytes, out = output + t * outputStride + r
                let ahead = t == tail.lowerBound && nextRows > 0 ? matrix.row(r + 8) : nil, aheadBytes = nextRows * matrix.rowStride
                switch matrix.format {
                case .q5_0:
                    MatrixVectorProducts.q5_0(matrix.row(r), rowStride: matrix.rowStride, rows: rows, blocks: blocks, x: x, output: out,
                                              prefetch: ahead, prefetchBytes: aheadBytes)
                case .q4_K:
                    MatrixVectorProducts.q4_K(matrix.row(r), rowStride: matrix.rowStride, rows: rows, superblocks: blocks / 8, x: x,
                                              output: out, prefetch: ahead, prefetchBytes: aheadBytes)
                case .q6_K:
                    MatrixVectorProducts.q6_K(matrix.row(r), rowStride: matrix.rowStride, rows: rows, superblocks: blocks / 8, x: x,
                                              output: out, prefetch: ahead, prefetchBytes: aheadBytes)
                default:
                    preconditionFailure("avx512Tail: no AVX-512 matrix-vector kernel for \(matrix.format)")
                }
            }
            r += 8
        }
        #else
        preconditionFailure("avx512Tail: AVX-512 only")
        #endif
    }

    /// The remaining tail cases (Q4_0/Q4_1, interleaved rows, llama.cpp order): eight rows read
    /// side by side; the 8-row group two groups ahead is prefetched, so the loads of one group
    /// overlap the math of another (interleaved rows: `rows8` and `GGMLOrderKernels.rows8`
    /// prefetch as they go).
    @inline(never)
    private static func sideBySideTail<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer,
                                                        rowBytes: Int, tail: Range<Int>,
                                                        output: UnsafeMutablePointer<Float>, outputStride: Int, ggmlOrder: Bool) {
        let columns = matrix.columns
        let rowLines = (matrix.format.rowBytes(columns: columns) + 63) / 64
        var r = range.lowerBound
        while r < range.upperBound {
            if r + 24 <= range.upperBound && !matrix.interleavedRows {
                for i in 16..<24 {
                    let ahead = matrix.row(r + i)
                    for line in 0..<rowLines { prefetch(ahead + 64 * line) }
                }
            }
            for t in tail {
                let x = QuantizedRow(activations + t * rowBytes, columns: columns)
                if W.headerScales && ggmlOrder {
                    GGMLOrderKernels.rows8(W.self, matrix, firstRow: r, x: x, output: output + t * outputStride + r)
                } else {
                    rows8(W.self, matrix, firstRow: r, x: x, output: output + t * outputStride + r)
                }
            }
            r += 8
        }
    }
}
