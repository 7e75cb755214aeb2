import XCTest
import Foundation
@testable import Kernels

/// Vector helpers against plain scalar formulas on seeded random data.
final class KernelVectorOpsTests: XCTestCase {
    func testExpAndActivationsMatchScalarMath() {
        var rng = SeededGenerator(seed: 11)
        var x = randomFloats(1003, scale: 20, using: &rng)
        x += [-100, -87, 0, 88, 100]
        let n = x.count
        // exp: relative error 1e-6 (polynomial), exact limits outside the float range.
        var softmaxInput = x
        let maximum = VectorOps.softmax(&softmaxInput, count: n)
        XCTAssertEqual(maximum, x.max()!)
        let total = x.reduce(0.0) { $0 + exp(Double($1 - maximum)) }
        for i in 0..<n {
            let expected = exp(Double(x[i] - maximum)) / total
            XCTAssertEqual(Double(softmaxInput[i]), expected, accuracy: 1e-6 * expected + 1e-12, "softmax \(i)")
        }
        var silu = x
        VectorOps.silu(&silu, count: n)
        var gelu = x
        VectorOps.gelu(&gelu, count: n)
        let up = randomFloats(n, using: &rng)
        var swiglu = [Float](repeating: 0, count: n), geglu = [Float](repeating: 0, count: n)
        VectorOps.swiGLU(gate: x, up: up, into: &swiglu, count: n)
        VectorOps.geGLU(gate: x, up: up, into: &geglu, count: n)
        for i in 0..<n {
            let v = Double(x[i])
            let s = v / (1 + exp(-v))
            let g = 0.5 * v * (1 + tanh(0.7978845608 * (v + 0.044715 * v * v * v)))
            XCTAssertEqual(Double(silu[i]), s, accuracy: 2e-6 * abs(s) + 1e-6, "silu \(x[i])")
            XCTAssertEqual(Double(gelu[i]), g, accuracy: 2e-6 * abs(g) + 1e-6, "gelu \(x[i])")
            XCTAssertEqual(Double(swiglu[i]), s * Double(up[i]), accuracy: 2e-6 * abs(s) + 1e-6, "swiglu \(x[i])")
            // GeGLU follows ggml: GELU looked up over F16 inputs and stored as F16 (so within
            // one F16 step of GELU at the F16-rounded gate), 0 below -10, the gate above 10.
            let gate16 = Double(Float16(x[i]))
            let g16 = x[i] <= -10 ? 0 : (x[i] >= 10 ? v : 0.5 * gate16 * (1 + tanh(0.7978845608 * (gate16 + 0.044715 * gate16 * gate16 * gate16))))
            XCTAssertEqual(Double(geglu[i]), g16 * Double(up[i]), accuracy: (abs(g16) * 1e-3 + 1e-7) * abs(Double(up[i])) + 1e-7, "geglu \(x[i])")
        }
    }

    /// `weightedSum` equals repeated `addScaled` from zero bit for bit (F32 and F16 values,
    /// 1 to 6 heads, a dimension with a scalar tail).
    func testWeightedSumEqualsRepeatedAddScaled() {
        var rng = SeededGenerator(seed: 12)
        for (dimension, count, heads) in [(64, 37, 3), (20, 5, 6), (256, 9, 1)] {
            let values = randomFloats(count * dimension, scale: 2, using: &rng)
            let halves = values.map { Float16($0) }
            let stride = count + 3
            let weights = randomFloats(heads * stride, using: &rng)
            var expected32 = [Float](repeating: 0, count: heads * dimension), expected16 = expected32
            for h in 0..<heads {
                for p in 0..<count {
                    values.withUnsafeBufferPointer { v in
                        expected32.withUnsafeMutableBufferPointer { y in
                            VectorOps.addScaled(v.baseAddress! + p * dimension, scale: weights[h * stride + p],
                                                into: y.baseAddress! + h * dimension, count: dimension)
                        }
                    }
                    halves.withUnsafeBufferPointer { v in
                        expected16.withUnsafeMutableBufferPointer { y in
                            VectorOps.addScaled(v.baseAddress! + p * dimension, scale: weights[h * stride + p],
                                                into: y.baseAddress! + h * dimension, count: dimension)
                        }
                    }
                }
            }
            var got32 = [Float](repeating: .nan, count: heads * dimension), got16 = got32
            VectorOps.weightedSum(values: values, count: count, dimension: dimension, heads: heads, weights: weights, weightStride: stride, into: &got32)
            VectorOps.weightedSum(values: halves, count: count, dimension: dimension, heads: heads, weights: weights, weightStride: stride, into: &got16)
            XCTAssertEqual(got32, expected32, "F32 d \(dimension) heads \(heads)")
            XCTAssertEqual(got16, expected16, "F16 d \(dimension) heads \(heads)")
        }
    }

    /// `scores` equals one `dot` per head times the scale, bit for bit (F32 and F16 keys,
    /// 1 to 6 heads, dimensions with and without a tail).
    func testScoresEqualDotPerHead() {
        var rng = SeededGenerator(seed: 13)
        for (dimension, heads) in [(64, 3), (20, 6), (256, 1), (40, 5)] {
            let key = randomFloats(dimension, scale: 2, using: &rng)
            let key16 = key.map { Float16($0) }
            let queries = randomFloats(heads * dimension, using: &rng)
            let scale: Float = 0.37
            var got32 = [Float](repeating: .nan, count: 2 * heads), got16 = got32
            VectorOps.scores(key: key, queries: queries, heads: heads, dimension: dimension, scale: scale, into: &got32, scoreStride: 2)
            VectorOps.scores(key: key16, queries: queries, heads: heads, dimension: dimension, scale: scale, into: &got16, scoreStride: 2)
            for h in 0..<heads {
                queries.withUnsafeBufferPointer { q in
                    let row = q.baseAddress! + h * dimension
                    XCTAssertEqual(got32[2 * h], VectorOps.dot(row, key, count: dimension) * scale, "F32 d \(dimension) head \(h)")
                    XCTAssertEqual(got16[2 * h], VectorOps.dot(key16, row, count: dimension) * scale, "F16 d \(dimension) head \(h)")
                }
            }
        }
    }

    /// The 16-lane AVX-512 attention kernels (`KernelsAVX512.AttentionProducts`) give the eight-lane
    /// kernels' results bit for bit: scores of many keys against 1-6 heads (each equal to `dot` times
    /// the scale) and weighted sums, for head dimensions 64 and 256 (SmolLM2's and Gemma 3's), 16 and 48.
    func testAVX512AttentionEqualsEightLaneKernels() throws {
        try XCTSkipUnless(CPUFeatures.avx512VNNI, "this CPU has no AVX-512")
        var rng = SeededGenerator(seed: 17)
        for (dimension, heads, count) in [(64, 3, 37), (256, 4, 20), (16, 6, 9), (48, 5, 11), (64, 1, 1), (256, 4, 83), (64, 9, 50), (32, 2, 64)] {
            let keys = randomFloats(count * dimension, scale: 2, using: &rng).map { Float16($0) }
            let queries = randomFloats(heads * dimension, using: &rng)
            let stride = count + 3, scale: Float = 0.125
            var wide = [Float](repeating: .nan, count: heads * stride), narrow = wide
            VectorOps.scores(keys: keys, count: count, queries: queries, heads: heads, dimension: dimension, scale: scale,
                             into: &wide, scoreStride: stride, avx512: true)
            VectorOps.scores(keys: keys, count: count, queries: queries, heads: heads, dimension: dimension, scale: scale,
                             into: &narrow, scoreStride: stride, avx512: false)
            for h in 0..<heads {
                for p in 0..<count {
                    XCTAssertEqual(wide[h * stride + p].bitPattern, narrow[h * stride + p].bitPattern, "scores d \(dimension) head \(h) key \(p)")
                    keys.withUnsafeBufferPointer { k in queries.withUnsafeBufferPointer { q in
                        XCTAssertEqual(wide[h * stride + p], VectorOps.dot(k.baseAddress! + p * dimension, q.baseAddress! + h * dimension,
                                                                          count: dimension) * scale)
                    } }
                }
            }
            // Keys as F32 columns (`transposeKeys`), 16 at a time, from a first key that is not a multiple of 16.
            let columns = ForwardColumns(keys: keys, count: count, dimension: dimension)
            for first in Set([0, 3, 17, 33].map { min($0, count - 1) }) {
                var fromColumns = [Float](repeating: .nan, count: heads * stride)
                VectorOps.scores(transposedKeys: columns.values, first: first, count: count - first,
                                 queries: queries, heads: heads, dimension: dimension, scale: scale, into: &fromColumns, scoreStride: stride)
                for h in 0..<heads {
                    for p in first..<count {
                        XCTAssertEqual(fromColumns[h * stride + p - first].bitPattern, narrow[h * stride + p].bitPattern,
                                       "transposed scores d \(dimension) head \(h) key \(p) first \(first)")
                    }
                }
            }
            let weights = randomFloats(heads * stride, using: &rng)
            var wideSum = [Float](repeating: .nan, count: heads * dimension), narrowSum = wideSum
            VectorOps.weightedSum(values: keys, count: count, dimension: dimension, heads: heads, weights: weights, weightStride: stride,
                                  into: &wideSum, avx512: true)
            VectorOps.weightedSum(values: keys, count: count, dimension: dimension, heads: heads, weights: weights, weightStride: stride,
                                  into: &narrowSum, avx512: false)
            XCTAssertEqual(wideSum.map(\.bitPattern), narrowSum.map(\.bitPattern), "weighted sum d \(dimension) heads \(heads)")
        }
    }

    /// GeGLU eight at a time equals its one-at-a-time path (a count of 1 takes only that) bit for bit,
    /// at the cut-offs, at and past the F16 range, for infinities and NaN.
    func testVectorGeGLUEqualsScalarBits() {
        var rng = SeededGenerator(seed: 29)
        var gate = randomFloats(203, scale: 14, using: &rng)
        gate += [-10, 10, -10.000001, 9.999999, -9.999999, 10.000001, .nan, .infinity, -.infinity, 0, -0.0, 65504, 70000, -70000, 1e-8, 6e-8]
        let up = randomFloats(gate.count, scale: 3, using: &rng)
        var vector = [Float](repeating: .nan, count: gate.count)
        VectorOps.geGLU(gate: gate, up: up, into: &vector, count: gate.count)
        for i in gate.indices {
            var one: Float = .nan
            gate.withUnsafeBufferPointer { g in up.withUnsafeBufferPointer { u in
                VectorOps.geGLU(gate: g.baseAddress! + i, up: u.baseAddress! + i, into: &one, count: 1)
            } }
            XCTAssertEqual(vector[i].bitPattern, one.bitPattern, "geGLU gate \(gate[i]) up \(up[i]): \(vector[i]) != \(one)")
        }
    }

    /// `rmsNorm(rows:)` (eight rows' sums side by side: transposed AVX-512 vectors, or scalar chains) gives
    /// each row `rmsNorm`'s bits, for row counts below, at and above a group of eight, in place and not,
    /// with rows further apart than they are long.
    func testRowGroupRMSNormEqualsOneRowAtATime() {
        var rng = SeededGenerator(seed: 23)
        for (rows, count, stride) in [(1, 640, 640), (3, 256, 256), (8, 64, 70), (13, 579, 600), (20, 256, 256)] {
            let x = randomFloats(rows * stride, scale: 3, using: &rng), w = randomFloats(count, using: &rng)
            var expected = [Float](repeating: .nan, count: rows * stride), grouped = expected
            for r in 0..<rows {
                x.withUnsafeBufferPointer { xs in expected.withUnsafeMutableBufferPointer { ys in
                    VectorOps.rmsNorm(xs.baseAddress! + r * stride, weight: w, epsilon: 1e-6, into: ys.baseAddress! + r * stride, count: count)
                } }
            }
            VectorOps.rmsNorm(rows: rows, x, stride: stride, weight: w, epsilon: 1e-6, into: &grouped, count: count)
            var inPlace = x
            inPlace.withUnsafeMutableBufferPointer { p in
                VectorOps.rmsNorm(rows: rows, p.baseAddress!, stride: stride, weight: w, epsilon: 1e-6, into: p.baseAddress!, count: count)
            }
            // Without AVX-512: eight scalar chains.
            var chains = [Float](repeating: .nan, count: rows * stride)
            VectorOps.rmsNorm(rows: rows, x, stride: stride, weight: w, epsilon: 1e-6, into: &chains, count: count, avx512: false)
            XCTAssertEqual(chains.map(\.bitPattern), expected.map(\.bitPattern), "scalar chains: rows \(rows)")
            for r in 0..<rows {
                for i in 0..<count {
                    XCTAssertEqual(grouped[r * stride + i].bitPattern, expected[r * stride + i].bitPattern, "rows \(rows) row \(r) value \(i)")
                    XCTAssertEqual(inPlace[r * stride + i].bitPattern, expected[r * stride + i].bitPattern, "in place: rows \(rows) row \(r) value \(i)")
                }
                // The gap between rows is not written.
                for i in count..<stride { XCTAssertTrue(grouped[r * stride + i].isNaN, "rows \(rows): gap after row \(r) written") }
            }
        }
    }

    func testNormsDotsAndAxpy() {
        var rng = SeededGenerator(seed: 12)
        let n = 579
        let x = randomFloats(n, scale: 3, using: &rng), w = randomFloats(n, using: &rng)
        var y = [Float](repeating: 0, count: n)
        VectorOps.rmsNorm(x, weight: w, epsilon: 1e-5, into: &y, count: n)
        let rms = (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(n) + 1e-5).squareRoot()
        for i in 0..<n { XCTAssertEqual(Double(y[i]), Double(x[i]) * Double(w[i]) / rms, accuracy: 1e-5) }

        let exact = zip(x, w).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        XCTAssertEqual(Double(VectorOps.dot(x, w, count: n)), exact, accuracy: 1e-4)
        var half = [Float16](repeating: 0, count: n)
        VectorOps.convert(x, to: &half, count: n)
        for i in 0..<n { XCTAssertEqual(half[i], Float16(x[i])) }
        let halfExact = zip(half, w).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        XCTAssertEqual(Double(VectorOps.dot(half, w, count: n)), halfExact, accuracy: 1e-4)

        var acc = w
        VectorOps.addScaled(x, scale: 0.5, into: &acc, count: n)
        for i in 0..<n { XCTAssertEqual(acc[i], w[i] + 0.5 * x[i], accuracy: 1e-6) }
        acc = w
        VectorOps.addScaled(half, scale: -2, into: &acc, count: n)
        for i in 0..<n { XCTAssertEqual(acc[i], w[i] - 2 * Float(half[i]), accuracy: 1e-5) }
    }
}

/// Keys transposed by `VectorOps.transposeKeys` into blocks of 16, whose unused lanes are NaN, which
/// must never reach a score.
final class ForwardColumns {
    let values: UnsafeMutablePointer<Float>

    init(keys: [Float16], count: Int, dimension: Int) {
        let total = VectorOps.transposedKeyCount(keys: count, dimension: dimension)
        values = .allocate(capacity: total)
        values.initialize(repeating: .nan, count: total)
        keys.withUnsafeBufferPointer { VectorOps.transposeKeys($0.baseAddress!, count: count, dimension: dimension, into: values) }
        for d in 0..<dimension {
            for p in 0..<count {
                XCTAssertEqual(values[(p / 16 * dimension + d) * 16 + p % 16], Float(keys[p * dimension + d]), "transposeKeys: value \(d) of key \(p)")
            }
        }
    }

    deinit { values.deallocate() }
}
