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
    @inline(__always)
    static func rows8<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, firstRow: Int, x: QuantizedRow,
                                       output: UnsafeMutablePointer<Float>) {
        let last = matrix.rows - 1
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { matrix.row(min(firstRow + i, last)) }
        let w0 = row(0), w1 = row(1), w2 = row(2), w3 = row(3), w4 = row(4), w5 = row(5), w6 = row(6), w7 = row(7)
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        for b in 0..<(matrix.columns / 32) {
            let xb = x.block(b)
            @inline(__always) func partial(_ w: UnsafeRawPointer, _ codes: SIMD32<UInt8>) -> SIMD8<Int32> {
                blockPartialSums(W.self, codes: codes, magnitude: magnitudeOf(W.self, codes),
                                 pairWeights: W.pairWeights(w, b), x: xb)
            }
            let scales: SIMD8<Float>, offsets: SIMD8<Float>, isum: SIMD8<Int32>
            if W.headerScales {
                let at = W.blockBytes * b
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
                    isum = sumLanes(partial(w0, W.codes(w0, b)), partial(w1, W.codes(w1, b)), partial(w2, W.codes(w2, b)),
                                    partial(w3, W.codes(w3, b)), partial(w4, W.codes(w4, b)), partial(w5, W.codes(w5, b)),
                                    partial(w6, W.codes(w6, b)), partial(w7, W.codes(w7, b)))
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
    /// How far ahead of its reads `rows8Streaming` prefetches (measured best of 0, 1, 2, 6 KiB).
    static let streamingPrefetchBytes = 2048

    /// `rows8` for the 32-element formats with 5- and 8-bit codes (Q8_0, Q5_0, Q5_1), reading
    /// memory in order: each row's blocks (up to `streamingChunkBlocks` of them) one after the
    /// other, the next row after that, so a matrix-vector product is one sequential stream
    /// that the hardware prefetcher follows (eight rows read side by side are eight short
    /// streams; measured on a 178 MB Q8_0 matrix, about half the bandwidth). The partial sums
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
                // The hardware prefetcher stops at 4 KiB pages (a file mapping has no huge
                // pages): ask for the lines 2 KiB ahead of this row's chunk as well.
                let ahead = w + W.blockBytes * start + streamingPrefetchBytes
                for line in 0..<((end - start) * W.blockBytes + 63) / 64 { prefetch(ahead + 64 * line) }
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

    /// `output[t * outputStride]` for the eight tokens of `group` times row `row`.
    @inline(__always)
    static func tokens8<W: WeightBlocks>(_: W.Type, row: UnsafeRawPointer, blocks: Int, group: TokenGroup,
                                         output: UnsafeMutablePointer<Float>, outputStride: Int) {
        var acc = SIMD8<Float>(), off = SIMD8<Float>()
        let codes = UnsafeRawPointer(group.codes), scales = UnsafeRawPointer(group.scales), sums = UnsafeRawPointer(group.sums)
        for b in 0..<blocks {
            let (c, scale, offset) = W.decode(row, b)
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

    /// Rows `range` of the product for one quantized format: activations already
    /// quantized (`tokens` rows of `rowBytes` at `activations`), token groups packed at `groups`.
    /// `range` starts at a multiple of 8.
    /// With `ggmlOrder`, the 32-element formats take `GGMLOrderKernels` (llama.cpp's exact
    /// summation order, slower); the K-quants always take `rows8`/`tokens8`.
    static func rows<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer,
                                      rowBytes: Int, groups: UnsafeRawPointer, tokens: Int,
                                      output: UnsafeMutablePointer<Float>, outputStride: Int, ggmlOrder: Bool) {
        let blocks = matrix.columns / 32
        let groupCount = tokens / 8
        let groupBytes = TokenGroup.bytes(blocks: blocks)
        // Token groups outermost: a group's activations stay in L1 while the chunk's rows pass.
        for g in 0..<groupCount {
            let group = TokenGroup(groups + g * groupBytes, blocks: blocks)
            for r in range {
                if W.headerScales && ggmlOrder {
                    GGMLOrderKernels.tokens8(W.self, row: matrix.row(r), blocks: blocks, group: group,
                                             output: output + 8 * g * outputStride + r, outputStride: outputStride)
                } else {
                    tokens8(W.self, row: matrix.row(r), blocks: blocks, group: group,
                            output: output + 8 * g * outputStride + r, outputStride: outputStride)
                }
            }
        }
        // Matrix-vector rows stream from memory: prefetch the 8-row group two groups ahead,
        // so the loads of one group overlap the math of another.
        let rowLines = (matrix.format.rowBytes(columns: matrix.columns) + 63) / 64
        if W.headerScales && !W.fourBitCodes && !ggmlOrder {
            withUnsafeTemporaryAllocation(of: SIMD8<Int32>.self, capacity: 8 * streamingChunkBlocks) { partials in
                for t in (8 * groupCount)..<tokens {
                    let x = QuantizedRow(activations + t * rowBytes, columns: matrix.columns)
                    var r = range.lowerBound
                    while r < range.upperBound {
                        rows8Streaming(W.self, matrix, firstRow: r, x: x, partials: partials.baseAddress!,
                                       output: output + t * outputStride + r)
                        r += 8
                    }
                }
            }
            return
        }
        for t in (8 * groupCount)..<tokens {
            let x = QuantizedRow(activations + t * rowBytes, columns: matrix.columns)
            var r = range.lowerBound
            while r < range.upperBound {
                if t == 8 * groupCount && r + 24 <= range.upperBound {
                    for i in 16..<24 {
                        let ahead = matrix.row(r + i)
                        for line in 0..<rowLines { prefetch(ahead + 64 * line) }
                    }
                }
                if W.headerScales && ggmlOrder {
                    GGMLOrderKernels.rows8(W.self, matrix, firstRow: r, x: x, output: output + t * outputStride + r)
                } else {
                    rows8(W.self, matrix, firstRow: r, x: x, output: output + t * outputStride + r)
                }
                r += 8
            }
        }
    }
}
