#if arch(x86_64)
import KernelsAVX512

/// Prompt processing on AVX-512 VNNI: the full groups of 8 tokens of a quantized product
/// go through `StripProducts` (module KernelsAVX512), 16 rows at a time. Each strip of
/// 16 rows is decoded once into the kernel's layout (`DecodedStrip`: the codes as 16 rows
/// x 4 columns per 64 bytes, F32 scales and offsets as the formats' `decode` gives them),
/// then every token group passes over it; the decoding is paid once per 16 rows for all
/// tokens. Outputs are bit for bit those of `TiledKernels.tokens8` (the same exact block
/// sums and the same F32 operations), so the AVX2 machines and this one agree.
enum StripKernels {
    /// Token groups from which the strips pay: decoding a strip costs about twice its products for
    /// one group of 8, so a lone group (batched decoding of 8 sequences) stays with `tokens8`
    /// (SmolLM2, 8 sequences, 1 thread: 1.90x sequential with `tokens8`, 1.50x with strips).
    static let minimumGroups = 2

    /// Bytes of one strip's decoded form for `columns` (one per thread, reused strip after strip).
    static func stripBytes(columns: Int) -> Int { columns / 32 * (512 + 64 + 64 + 128) }

    /// Per token and block, the sums of the block's first and last 16 activation codes
    /// (`TokenRows.halfSums`), which the formats with signed codes (Q8_0, Q6_K) need.
    static func halfSums(_ activations: UnsafeRawPointer, rowBytes: Int, tokens: Range<Int>, blocks: Int,
                         into sums: UnsafeMutablePointer<Int32>) {
        for t in tokens {
            let codes = activations + t * rowBytes
            for b in 0..<blocks {
                let low = widenSigned(codes.loadUnaligned(fromByteOffset: 32 * b, as: SIMD16<Int8>.self))
                let high = widenSigned(codes.loadUnaligned(fromByteOffset: 32 * b + 16, as: SIMD16<Int8>.self))
                sums[t * 2 * blocks + 2 * b] = Int32(low.wrappedSum())
                sums[t * 2 * blocks + 2 * b + 1] = Int32(high.wrappedSum())
            }
        }
    }

    /// Rows `range` of the product for tokens `0 ..< 8 * groupCount`: `TiledKernels.tokenGroups`'s job.
    static func tokenGroups<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, _ range: Range<Int>, activations: UnsafeRawPointer,
                                             rowBytes: Int, halfSums: UnsafePointer<Int32>?, groupCount: Int,
                                             output: UnsafeMutablePointer<Float>, outputStride: Int) {
        let blocks = matrix.columns / 32
        withUnsafeTemporaryAllocation(byteCount: stripBytes(columns: matrix.columns), alignment: 64) { memory in
            var r = range.lowerBound
            while r < range.upperBound {
                let rows = min(16, range.upperBound - r)
                let strip = decode(W.self, matrix, firstRow: r, blocks: blocks, into: memory.baseAddress!)
                for g in 0..<groupCount {
                    let x = TokenRows(base: activations + 8 * g * rowBytes, rowBytes: rowBytes,
                                      halfSums: halfSums.map { $0 + 8 * g * 2 * blocks }, halfSumStride: 2 * blocks)
                    StripProducts.multiply(strip, x, output: output + 8 * g * outputStride + r, outputStride: outputStride, rows: rows)
                }
                r += rows
            }
        }
    }

    /// Rows `firstRow ..< firstRow + 16` (past the matrix's end: its last row again) in the kernel's layout.
    /// Signed codes are stored plus 128 (Q8_0) or 32 (Q6_K, whose codes are 6-bit), which the kernel takes back.
    @inline(__always)
    static func decode<W: WeightBlocks>(_: W.Type, _ matrix: MatrixView, firstRow: Int, blocks: Int,
                                        into memory: UnsafeMutableRawPointer) -> DecodedStrip {
        let scales = (memory + 512 * blocks).assumingMemoryBound(to: Float.self)
        let offsets = scales + 16 * blocks
        let pairWeights = UnsafeMutableRawPointer(offsets + 16 * blocks).assumingMemoryBound(to: Int32.self)
        let zeroShift = W.signedCodes ? (W.hasPairWeights ? 5 : 7) : 0
        let bias = SIMD32<UInt8>(repeating: W.signedCodes ? UInt8(1 << zeroShift) : 0)
        let last = matrix.rows - 1, blockStride = matrix.blockStride
        for i in 0..<16 {
            let row = matrix.row(min(firstRow + i, last))
            for b in 0..<blocks {
                let d = W.headerScales ? W.decode(row + blockStride * b, 0) : W.decode(row, b)
                let words = unsafeBitCast(W.signedCodes ? d.codes &+ bias : d.codes, to: SIMD8<UInt32>.self)
                let destination = memory + 512 * b + 4 * i
                for k in 0..<8 { destination.storeBytes(of: words[k], toByteOffset: 64 * k, as: UInt32.self) }
                scales[16 * b + i] = d.scale
                offsets[16 * b + i] = d.offset
                if W.hasPairWeights {
                    let p = W.pairWeights(row, b)
                    pairWeights[32 * b + i] = Int32(p[0])
                    pairWeights[32 * b + 16 + i] = Int32(p[8])
                }
            }
        }
        return DecodedStrip(codes: UnsafeRawPointer(memory), scales: scales, offsets: W.hasOffset ? UnsafePointer(offsets) : nil,
                            pairWeights: W.hasPairWeights ? UnsafePointer(pairWeights) : nil, blocks: blocks, zeroShift: zeroShift)
    }
}
#endif
