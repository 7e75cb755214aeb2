import XCTest
import Foundation
@testable import Kernels

final class KernelTests: XCTestCase {
    static let formats = QuantFormat.allCases
    static let quantized = QuantFormat.allCases.filter(\.isQuantized)

    /// Quantizing random data and decoding it gives values within the format's step size.
    func testQuantizeThenDequantizeIsCloseToInput() {
        var rng = SeededGenerator(seed: 1)
        let columns = 512
        // Largest error allowed, relative to the row's max |x| (half a step of each format, with slack
        // for scales stored as F16 and the K-quants' 6-bit scales).
        let tolerance: [QuantFormat: Float] = [.f32: 0, .f16: 1e-3, .bf16: 4e-3, .q8_0: 1 / 127.0,
                                               .q4_0: 1 / 8.0, .q4_1: 1 / 15.0, .q5_0: 1 / 16.0, .q5_1: 1 / 31.0,
                                               .q4_K: 1 / 8.0, .q5_K: 1 / 16.0, .q6_K: 1 / 24.0]
        for format in Self.formats {
            let values = randomFloats(columns, scale: 2, using: &rng)
            let decoded = StoredMatrix(format: format, rows: 1, columns: columns, values: values).dequantized()
            let worst = zip(values, decoded).map { abs($0 - $1) }.max()!
            // max|x| is at most 2; 0.01 covers rounding the block scales to F16.
            XCTAssertLessThanOrEqual(worst, 2 * (tolerance[format]! + 0.005), "\(format)")
        }
    }

    /// Dequantization follows the ggml formulas exactly, checked on random block bytes against
    /// an independent per-element transcription of the formulas.
    func testDequantizeMatchesBlockFormulas() {
        var rng = SeededGenerator(seed: 2)
        for format in Self.formats {
            let blocks = 3
            let count = blocks * format.blockElements
            var bytes = (0..<(blocks * format.blockBytes)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Keep scales finite: overwrite every F16 field with a random moderate value.
            for b in 0..<blocks {
                for offset in halfOffsets(format) {
                    let h = Float16(Float.random(in: -2...2, using: &rng))
                    withUnsafeBytes(of: h.bitPattern.littleEndian) { bytes[b * format.blockBytes + offset] = $0[0]; bytes[b * format.blockBytes + offset + 1] = $0[1] }
                }
            }
            if format == .f32 { for i in stride(from: 0, to: bytes.count, by: 4) { bytes[i + 3] = 0x3F } }
            if format == .bf16 { for i in stride(from: 0, to: bytes.count, by: 2) { bytes[i + 1] = 0x3F } }
            var decoded = [Float](repeating: 0, count: count)
            bytes.withUnsafeBytes { raw in Dequantize.row(format, from: raw.baseAddress!, to: &decoded, count: count) }
            for e in 0..<count {
                let expected = referenceElement(format, bytes, e)
                XCTAssertEqual(decoded[e], expected, "\(format) element \(e)")
                if decoded[e] != expected { break }
            }
        }
    }

    /// In both numerics modes (`ggmlOrder` includes llama.cpp's Q4_K gemm and gemv orders and
    /// its Q6_K order: 6 tokens are a group of four and two single tokens).
    func testQuantizedMatmulMatchesF32ReferenceWithinActivationRounding() {
        var rng = SeededGenerator(seed: 3)
        for ggmlOrder in [false, true] {
          let context = KernelContext(threads: 2)
          context.ggmlOrder = ggmlOrder
          for format in Self.formats {
            let rows = 37, columns = 512, tokens = 6
            let stored = StoredMatrix(format: format, rows: rows, columns: columns, values: randomFloats(rows * columns, using: &rng))
            let w = stored.dequantized()
            let x = randomFloats(tokens * columns, scale: 3, using: &rng)
            let reference = referenceMatmul(w, rows: rows, columns: columns, x, tokens: tokens)
            var y = [Float](repeating: .nan, count: rows * tokens)
            stored.withView { view in context.matmul(view, input: x, tokens: tokens, output: &y) }
            for t in 0..<tokens {
                for r in 0..<rows {
                    let bound = format.isQuantized
                        ? activationQuantizationBound(w, row: r, columns: columns, x, token: t, scheme: format.activationScheme!)
                        : 1e-5 * Float(columns) * 3
                    XCTAssertEqual(y[t * rows + r], reference[t * rows + r], accuracy: bound, "\(format) token \(t) row \(r) ggmlOrder \(ggmlOrder)")
                }
            }
          }
        }
    }

    /// Blocks whose codes are all at the extremes (every byte 0xFF or 0x80, scales 1) against
    /// activations at ±max: the integer sums must not saturate or wrap in any kernel.
    func testExtremeCodesDoNotOverflow() {
        let context = KernelContext(threads: 2)
        let columns = 256, rows = 9
        for format in Self.quantized {
            for pattern: UInt8 in [0xFF, 0x80] {
                let bytes = uniformBlocks(format, rows: rows, columns: columns, byte: pattern, scale: 1)
                var w = [Float](repeating: 0, count: rows * columns)
                bytes.withUnsafeBytes { raw in
                    for r in 0..<rows {
                        Dequantize.row(format, from: raw.baseAddress! + r * format.rowBytes(columns: columns), to: &w[r * columns], count: columns)
                    }
                }
                for sign: Float in [1, -1] {
                    let tokens = 9
                    let x = [Float](repeating: sign, count: tokens * columns)
                    let reference = referenceMatmul(w, rows: rows, columns: columns, x, tokens: tokens)
                    var y = [Float](repeating: .nan, count: rows * tokens)
                    bytes.withUnsafeBytes { raw in
                        context.matmul(MatrixView(format: format, rows: rows, columns: columns, base: raw.baseAddress!),
                                       input: x, tokens: tokens, output: &y)
                    }
                    for i in 0..<(rows * tokens) {
                        // Schemes with F16 activation scales (Q8_0, Q8_1) round max/127 to F16.
                        let scaleRounding: Float = format.activationScheme == .q8_K ? 1e-5 : 5e-4
                        XCTAssertEqual(y[i], reference[i], accuracy: scaleRounding * abs(reference[i]) + 1e-3,
                                       "\(format) pattern \(pattern) sign \(sign) output \(i)")
                    }
                }
            }
        }
    }

    /// A matrix-matrix product equals the matrix-vector products of its tokens, bit for bit,
    /// with strided input and output.
    func testMatmulEqualsMatvecPerToken() {
        var rng = SeededGenerator(seed: 4)
        let context = KernelContext(threads: 3)
        for format in Self.formats {
            let rows = 70, columns = 256, tokens = 5, inStride = columns + 32, outStride = rows + 3
            let stored = StoredMatrix(format: format, rows: rows, columns: columns, values: randomFloats(rows * columns, using: &rng))
            let x = randomFloats(tokens * inStride, using: &rng)
            var batched = [Float](repeating: 0, count: tokens * outStride)
            var single = [Float](repeating: 0, count: rows)
            stored.withView { view in
                context.matmul(view, input: x, tokens: tokens, output: &batched, inputStride: inStride, outputStride: outStride)
                for t in 0..<tokens {
                    x.withUnsafeBufferPointer { xp in context.matvec(view, input: xp.baseAddress! + t * inStride, output: &single) }
                    XCTAssertEqual(Array(batched[(t * outStride)..<(t * outStride + rows)]), single, "\(format) token \(t)")
                }
            }
        }
    }

    /// The quantized kernels agree bit for bit: tokens 0..<8 of a 9- or 15-token product go through
    /// `tokens8` (one row, eight tokens), token 8 and every matrix-vector product through the
    /// matrix-vector kernels (`rows8`, and `rows8Streaming` for Q8_0/Q5_0/Q5_1 with rows longer
    /// than one of its 32-block passes), the 2-7 tokens after the groups of eight (15, 6 and 3
    /// tokens) through `tile` (2 rows x 4 tokens, 4 x 2, then `rows8`), in every numerics mode.
    func testTokenGroupKernelEqualsMatrixVectorKernel() {
        var rng = SeededGenerator(seed: 9)
        for ggmlOrder in [false, true] {
            let context = KernelContext(threads: 2)
            context.ggmlOrder = ggmlOrder
            for format in Self.quantized {
              for tokens in [9, 15, 6, 3] {
                let rows = 37, columns = 1280
                let stored = StoredMatrix(format: format, rows: rows, columns: columns, values: randomFloats(rows * columns, using: &rng))
                let x = randomFloats(tokens * columns, scale: 2, using: &rng)
                var batched = [Float](repeating: .nan, count: tokens * rows)
                var single = [Float](repeating: .nan, count: rows)
                stored.withView { view in
                    context.matmul(view, input: x, tokens: tokens, output: &batched)
                    // llama.cpp's own orders depend on the batch: Q4_K's differs between a batch's groups
                    // of four and the rest, Q6_K's from 8 tokens on (`GGMLSuperblockKernels`).
                    let first = !ggmlOrder ? 0 : format == .q4_K ? tokens - tokens % 4 : format == .q6_K && tokens >= 8 ? tokens : 0
                    for t in first..<tokens {
                        x.withUnsafeBufferPointer { xp in context.matvec(view, input: xp.baseAddress! + t * columns, output: &single) }
                        XCTAssertEqual(Array(batched[(t * rows)..<((t + 1) * rows)]), single, "\(format) token \(t) of \(tokens) ggmlOrder \(ggmlOrder)")
                    }
                }
              }
            }
        }
    }

    /// A matrix with its rows interleaved in groups of eight (`MatrixView.interleavingRows`,
    /// the layout of a model's output matrix) gives the row-major matrix's products bit for
    /// bit, in every numerics mode, for 1 to 9 and 17 tokens (the matrix-vector kernel, up to
    /// seven tokens after the groups of eight, and `tokens8`), is within the activation
    /// rounding of a plain F32 reference, and dequantizes to the same rows.
    func testInterleavedRowsGiveTheRowMajorResults() {
        var rng = SeededGenerator(seed: 21)
        for format in Self.quantized {
            let rows = 48, columns = 1280
            let stored = StoredMatrix(format: format, rows: rows, columns: columns, values: randomFloats(rows * columns, using: &rng))
            let probe = stored.withView { $0 }
            guard probe.canInterleaveRows else {
                XCTAssertTrue(format.blockElements == 256, "\(format) should be interleavable")
                continue
            }
            let copy = UnsafeMutableRawPointer.allocate(byteCount: stored.bytes.count, alignment: 64)
            defer { copy.deallocate() }
            var reported: [Int] = []
            let interleaved = stored.withView { $0.interleavingRows(into: copy) { reported.append($0) } }
            XCTAssertTrue(interleaved.interleavedRows && !interleaved.canInterleaveRows)
            XCTAssertEqual(reported.last, rows, "\(format): the copy reports every row read")
            let w = stored.dequantized()
            var row = [Float](repeating: .nan, count: columns)
            for r in [0, 7, 8, 29, 47] {
                interleaved.dequantizeRow(r, into: &row)
                XCTAssertEqual(row, Array(w[(r * columns)..<((r + 1) * columns)]), "\(format) row \(r)")
            }
            for ggmlOrder in [false, true] {
                let context = KernelContext(threads: 2)
                context.ggmlOrder = ggmlOrder
                for tokens in Array(1...9) + [17] {
                    let x = randomFloats(tokens * columns, scale: 2, using: &rng)
                    var expected = [Float](repeating: .nan, count: tokens * rows)
                    var actual = [Float](repeating: .nan, count: tokens * rows)
                    stored.withView { view in context.matmul(view, input: x, tokens: tokens, output: &expected) }
                    context.matmul(interleaved, input: x, tokens: tokens, output: &actual)
                    XCTAssertEqual(actual, expected, "\(format) tokens \(tokens) ggmlOrder \(ggmlOrder)")
                    if tokens == 9 && !ggmlOrder {
                        let reference = referenceMatmul(w, rows: rows, columns: columns, x, tokens: tokens)
                        for t in 0..<tokens {
                            for r in 0..<rows {
                                let bound = activationQuantizationBound(w, row: r, columns: columns, x, token: t, scheme: format.activationScheme!)
                                XCTAssertEqual(actual[t * rows + r], reference[t * rows + r], accuracy: bound, "\(format) token \(t) row \(r)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// Prompt processing through the AVX-512 VNNI strips (`StripKernels`, 16 rows x 8 tokens)
    /// gives the AVX2 kernels' results bit for bit, for every quantized format, row-major and
    /// interleaved, row counts that are not multiples of 16, groups of eight plus a tail, at the
    /// codes' extremes, and for products sharing an input (formats with and without a zero point).
    func testAVX512StripsEqualTheAVX2Kernels() throws {
        try XCTSkipUnless(CPUFeatures.avx512VNNI, "this CPU has no AVX-512 VNNI")
        var rng = SeededGenerator(seed: 31)
        let fast = KernelContext(threads: 2), plain = KernelContext(threads: 2)
        XCTAssertTrue(fast.useAVX512)
        plain.useAVX512 = false
        func compare(_ view: MatrixView, tokens: Int, _ label: String, scale: Float = 2) {
            let x = randomFloats(tokens * view.columns, scale: scale, using: &rng)
            var expected = [Float](repeating: .nan, count: tokens * view.rows)
            var actual = [Float](repeating: .infinity, count: tokens * view.rows)
            plain.matmul(view, input: x, tokens: tokens, output: &expected)
            fast.matmul(view, input: x, tokens: tokens, output: &actual)
            let differing = actual.indices.filter { actual[$0].bitPattern != expected[$0].bitPattern }
            XCTAssertTrue(differing.isEmpty, "\(label): \(differing.count) outputs differ, first at \(differing.first ?? 0): "
                          + "\(differing.first.map { "\(actual[$0]) != \(expected[$0])" } ?? "")")
        }
        for format in Self.quantized {
            // Tokens 1, 2, 17 and 19: matrix-vector products (the AVX-512 Q5_0/Q4_K/Q6_K kernels, two blocks a vector: even
            // block counts, and the fallback for 19 blocks); 3 rows: a partial last row group only.
            for (rows, columns) in [(37, 512), (16, 256), (8, 1280), (45, 768), (3, 640), (13, 608)] where columns % format.blockElements == 0 {
                let stored = StoredMatrix(format: format, rows: rows, columns: columns, values: randomFloats(rows * columns, using: &rng))
                for tokens in [16, 19, 32, 8, 1, 17, 2] {
                    stored.withView { compare($0, tokens: tokens, "\(format) \(rows)x\(columns) tokens \(tokens)") }
                }
                let probe = stored.withView { $0 }
                if probe.canInterleaveRows {
                    let copy = UnsafeMutableRawPointer.allocate(byteCount: stored.bytes.count, alignment: 64)
                    defer { copy.deallocate() }
                    let interleaved = stored.withView { $0.interleavingRows(into: copy) }
                    for tokens in [17, 1, 3] {
                        compare(interleaved, tokens: tokens, "\(format) \(rows)x\(columns) interleaved, tokens \(tokens)")
                    }
                }
            }
            for pattern: UInt8 in [0xFF, 0x80, 0x00] {
                let rows = 21, columns = 512
                let bytes = uniformBlocks(format, rows: rows, columns: columns, byte: pattern, scale: 0.5)
                bytes.withUnsafeBytes { raw in
                    for tokens in [16, 1] {
                        compare(MatrixView(format: format, rows: rows, columns: columns, base: raw.baseAddress!), tokens: tokens,
                                "\(format) pattern \(pattern) tokens \(tokens)", scale: 100)
                    }
                }
            }
        }
        let columns = 512, tokens = 24
        let shapes: [(QuantFormat, Int)] = [(.q4_1, 40), (.q8_0, 24), (.q5_0, 17)]
        let matrices = shapes.map { StoredMatrix(format: $0.0, rows: $0.1, columns: columns, values: randomFloats($0.1 * columns, using: &rng)) }
        let x = randomFloats(tokens * columns, using: &rng)
        var results: [[[Float]]] = []
        for context in [plain, fast] {
            let outputs = matrices.map { UnsafeMutableBufferPointer<Float>.allocate(capacity: $0.rows * tokens) }
            defer { outputs.forEach { $0.deallocate() } }
            for o in outputs { o.initialize(repeating: .nan) }
            matrices[0].withView { v0 in matrices[1].withView { v1 in matrices[2].withView { v2 in
                context.matmul(MatmulTarget(v0, output: outputs[0].baseAddress!), MatmulTarget(v1, output: outputs[1].baseAddress!),
                               MatmulTarget(v2, output: outputs[2].baseAddress!), input: x, tokens: tokens)
            } } }
            results.append(outputs.map { Array($0) })
        }
        XCTAssertEqual(results[1], results[0], "shared input")
    }

    /// Products sharing an input (mixed formats and row counts) equal the separate products bit for bit.
    func testSharedInputProductsEqualSeparateProducts() {
        var rng = SeededGenerator(seed: 6)
        let context = KernelContext(threads: 3)
        let columns = 512, tokens = 11
        let shapes: [(QuantFormat, Int)] = [(.q4_K, 45), (.q6_K, 16), (.f16, 13)]
        let matrices = shapes.map { StoredMatrix(format: $0.0, rows: $0.1, columns: columns, values: randomFloats($0.1 * columns, using: &rng)) }
        let x = randomFloats(tokens * columns, using: &rng)
        var separate = matrices.map { [Float](repeating: 0, count: $0.rows * tokens) }
        let outputs = matrices.map { UnsafeMutableBufferPointer<Float>.allocate(capacity: $0.rows * tokens) }
        defer { outputs.forEach { $0.deallocate() } }
        for o in outputs { o.initialize(repeating: .nan) }
        for i in matrices.indices { matrices[i].withView { context.matmul($0, input: x, tokens: tokens, output: &separate[i]) } }
        matrices[0].withView { v0 in matrices[1].withView { v1 in matrices[2].withView { v2 in
            context.matmul(MatmulTarget(v0, output: outputs[0].baseAddress!), MatmulTarget(v1, output: outputs[1].baseAddress!),
                           MatmulTarget(v2, output: outputs[2].baseAddress!), input: x, tokens: tokens)
        } } }
        let shared = outputs.map { Array($0) }
        for i in matrices.indices { XCTAssertEqual(shared[i], separate[i], "\(matrices[i].format)") }
    }

    func testResultsDoNotDependOnThreadCount() {
        var rng = SeededGenerator(seed: 5)
        let contexts = [1, 2, 3, 5].map { KernelContext(threads: $0) }
        for format in [QuantFormat.q4_1, .q8_0, .q6_K, .f16] {
            let rows = 301, columns = 768, tokens = 7
            let stored = StoredMatrix(format: format, rows: rows, columns: columns, values: randomFloats(rows * columns, using: &rng))
            let x = randomFloats(tokens * columns, using: &rng)
            var outputs: [[Float]] = []
            for context in contexts {
                var y = [Float](repeating: 0, count: rows * tokens)
                stored.withView { context.matmul($0, input: x, tokens: tokens, output: &y) }
                outputs.append(y)
            }
            for y in outputs.dropFirst() { XCTAssertEqual(y, outputs[0], "\(format)") }
        }
    }

    func testThreadPoolRunsEveryIndexOnce() {
        let pool = ThreadPool(threadCount: 4)
        for (count, grain) in [(1, 1), (7, 1), (1000, 16), (1001, 3), (64, 64)] {
            let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
            hits.initialize(repeating: 0)
            for _ in 0..<50 {
                pool.parallelFor(count, grain: grain) { range in
                    XCTAssert(range.lowerBound % grain == 0)
                    for i in range { hits[i] += 1 }
                }
            }
            XCTAssertEqual(Set(hits), [50], "count \(count) grain \(grain)")
            hits.deallocate()
        }
    }

    /// Pools created and dropped at once (workers still starting) or after a few loops shut down
    /// cleanly; a worker that misses the shutdown would hang `deinit`'s join.
    func testThreadPoolsShutDownWhileWorkersStart() {
        for i in 0..<40 {
            let pool = ThreadPool(threadCount: 2 + i % 4)
            var total = 0
            for _ in 0..<(i % 3) {
                let sums = UnsafeMutableBufferPointer<Int>.allocate(capacity: 64)
                sums.initialize(repeating: 0)
                pool.parallelFor(64) { range in for j in range { sums[j] = j } }
                total += sums.reduce(0, +)
                sums.deallocate()
            }
            XCTAssertEqual(total, (i % 3) * 2016)
        }
    }

    /// Dropping a pool, used or not, ends its threads: `deinit` must run (no worker may keep
    /// the pool alive) and join every worker. Counted in /proc/self/task (Linux).
    func testDroppedPoolsJoinTheirThreads() throws {
        func threadCount() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        }
        guard FileManager.default.fileExists(atPath: "/proc/self/task") else { throw XCTSkip("needs /proc/self/task") }
        let before = try threadCount()
        for i in 0..<200 {
            let pool = ThreadPool(threadCount: 2 + i % 3)
            if i % 4 == 1 { pool.parallelFor(16) { _ in } }
        }
        // A small margin for threads the runtime may start meanwhile (Dispatch, Concurrency);
        // the pools hold 200-800 workers, of which the old pool leaked over a hundred.
        XCTAssertLessThanOrEqual(try threadCount(), before + 16, "every worker of the 200 dropped pools was joined")
    }

    // MARK: - Independent per-element transcription of the ggml block formulas

    /// A matrix whose every code byte is `byte` and every F16 scale field `scale`.
    private func uniformBlocks(_ format: QuantFormat, rows: Int, columns: Int, byte: UInt8, scale: Float16) -> [UInt8] {
        var bytes = [UInt8](repeating: byte, count: rows * format.rowBytes(columns: columns))
        let half = scale.bitPattern
        for b in 0..<(bytes.count / format.blockBytes) {
            for offset in halfOffsets(format) {
                bytes[b * format.blockBytes + offset] = UInt8(half & 0xFF)
                bytes[b * format.blockBytes + offset + 1] = UInt8(half >> 8)
            }
        }
        return bytes
    }

    private func halfOffsets(_ format: QuantFormat) -> [Int] {
        switch format {
        case .f16: return Array(stride(from: 0, to: 2, by: 2))
        case .q8_0, .q4_0, .q5_0: return [0]
        case .q4_1, .q5_1, .q4_K, .q5_K: return [0, 2]
        case .q6_K: return [208]
        case .f32, .bf16: return []
        }
    }

    private func referenceElement(_ format: QuantFormat, _ bytes: [UInt8], _ index: Int) -> Float {
        let b = index / format.blockElements, e = index % format.blockElements
        let base = b * format.blockBytes
        func u8(_ i: Int) -> Int { Int(bytes[base + i]) }
        func half(_ i: Int) -> Float { Float(Float16(bitPattern: UInt16(bytes[base + i]) | UInt16(bytes[base + i + 1]) << 8)) }
        func u32(_ i: Int) -> Int { u8(i) | u8(i + 1) << 8 | u8(i + 2) << 16 | u8(i + 3) << 24 }
        let nibble = e < 16 ? { (o: Int) in u8(o + e) & 15 } : { (o: Int) in u8(o + e - 16) >> 4 }
        switch format {
        case .f32: return Float(bitPattern: UInt32(u32(0)))
        case .f16: return half(0)
        case .bf16: return Float(bitPattern: UInt32(u8(0) | u8(1) << 8) << 16)
        case .q8_0: return Float(Int8(bitPattern: UInt8(u8(2 + e)))) * half(0)
        case .q4_0: return Float(nibble(2) - 8) * half(0)
        case .q4_1: return Float(nibble(4)) * half(0) + half(2)
        case .q5_0: return Float((nibble(6) | ((u32(2) >> e) & 1) << 4) - 16) * half(0)
        case .q5_1: return Float(nibble(8) | ((u32(4) >> e) & 1) << 4) * half(0) + half(2)
        case .q4_K, .q5_K:
            let sub = e / 32, l = e % 32
            let sc: Int, m: Int
            if sub < 4 { sc = u8(4 + sub) & 63; m = u8(8 + sub) & 63 } else {
                sc = (u8(4 + sub + 4) & 15) | (u8(4 + sub - 4) >> 6) << 4
                m = (u8(4 + sub + 4) >> 4) | (u8(4 + sub) >> 6) << 4
            }
            let qsOffset = format == .q5_K ? 48 : 16
            var q = (u8(qsOffset + 32 * (sub / 2) + l) >> (4 * (sub % 2))) & 15
            if format == .q5_K { q += ((u8(16 + l) >> sub) & 1) * 16 }
            return half(0) * Float(sc) * Float(q) - half(2) * Float(m)
        case .q6_K:
            // ggml: for n in (0, 128): for l < 32: q1..q4 at y[n+l], y[n+l+32], y[n+l+64], y[n+l+96]
            let n = e / 128, l = e % 32, quarter = (e % 128) / 32
            let ql = 64 * n, qh = 128 + 32 * n, sc = 192 + 8 * n
            let low = quarter % 2 == 0 ? u8(ql + l) : u8(ql + l + 32)
            let lowBits = quarter < 2 ? low & 15 : low >> 4
            let highBits = (u8(qh + l) >> (2 * quarter)) & 3
            let q = (lowBits | highBits << 4) - 32
            let scale = Int8(bitPattern: UInt8(u8(sc + l / 16 + 2 * quarter)))
            return half(208) * Float(scale) * Float(q)
        }
    }
}
