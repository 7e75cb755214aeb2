import XCTest
import Foundation
@testable import Kernels

/// `HalfAttention` (F16 keys/values, ggml's flash-attention numerics) against a plain
/// F32/Double softmax attention, and against a scalar transcription of ggml's steps.
final class KernelHalfAttentionTests: XCTestCase {
    /// Softmax attention in Double over the unrounded F32 keys and values.
    func referenceAttention(query: [Float], keys: [Float], values: [Float], count: Int, dimension d: Int, scale: Float) -> [Double] {
        var scores = (0..<count).map { p in
            (0..<d).reduce(0.0) { $0 + Double(query[$1]) * Double(keys[p * d + $1]) } * Double(scale)
        }
        let maximum = scores.max()!
        scores = scores.map { exp($0 - maximum) }
        let total = scores.reduce(0, +)
        return (0..<d).map { i in (0..<count).reduce(0.0) { $0 + scores[$1] * Double(values[$1 * d + i]) } / total }
    }

    /// Tolerance: |out - reference| <= 5e-3 * max|v| per element. F16 keys, values and query
    /// move each score by about 2^-11 relative (scores here stay within +-4), and the F16
    /// accumulator adds at most 2^-11 relative error per update that does not cancel.
    func testMatchesF32ReferenceWithinHalfPrecision() {
        var rng = SeededGenerator(seed: 21)
        for (d, count, heads) in [(64, 1, 3), (64, 37, 3), (256, 130, 4), (40, 9, 2)] {
            let keys = randomFloats(count * d, scale: 1, using: &rng)
            let values = randomFloats(count * d, scale: 2, using: &rng)
            let queries = randomFloats(heads * d, scale: 1, using: &rng)
            let keys16 = keys.map { Float16($0) }, values16 = values.map { Float16($0) }
            let scale = 1 / Float(d).squareRoot()
            var output = [Float](repeating: .nan, count: heads * d)
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: HalfAttention.scratchBytes(heads: heads, headDimension: d), alignment: 64)
            defer { scratch.deallocate() }
            HalfAttention.attend(queries: queries, heads: heads, headDimension: d, keys: keys16, values: values16, count: count,
                                 queryScale: 1, scoreScale: scale, output: &output, scratch: scratch)
            let vmax = Double(values.map(abs).max()!)
            for h in 0..<heads {
                let expected = referenceAttention(query: Array(queries[h * d..<(h + 1) * d]), keys: keys, values: values,
                                                  count: count, dimension: d, scale: scale)
                for i in 0..<d {
                    XCTAssertEqual(Double(output[h * d + i]), expected[i], accuracy: 5e-3 * vmax, "d \(d) count \(count) head \(h) element \(i)")
                }
            }
        }
    }

    /// Bit-exact against a scalar transcription of ggml's one-row flash attention for F16 K/V.
    func testFollowsGGMLStepsExactly() {
        var rng = SeededGenerator(seed: 22)
        let d = 64, count = 50, heads = 2
        let keys16 = randomFloats(count * d, scale: 3, using: &rng).map { Float16($0) }
        let values16 = randomFloats(count * d, scale: 2, using: &rng).map { Float16($0) }
        let queries = randomFloats(heads * d, scale: 1, using: &rng)
        let queryScale: Float = 0.125
        var output = [Float](repeating: .nan, count: heads * d)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: HalfAttention.scratchBytes(heads: heads, headDimension: d), alignment: 64)
        defer { scratch.deallocate() }
        HalfAttention.attend(queries: queries, heads: heads, headDimension: d, keys: keys16, values: values16, count: count,
                             queryScale: queryScale, scoreScale: 1, output: &output, scratch: scratch)
        for h in 0..<heads {
            let q16 = (0..<d).map { Float16(queries[h * d + $0] * queryScale) }
            var accumulator = [Float16](repeating: 0, count: d)
            var maximum = -Float.infinity, sum: Float = 0
            for p in 0..<count {
                // ggml_vec_dot_f16: four 8-lane accumulators over 32-element steps.
                var lanes = [Float](repeating: 0, count: 32)
                for step in stride(from: 0, to: d, by: 32) {
                    for j in 0..<32 {
                        lanes[j] = lanes[j].addingProduct(Float(keys16[p * d + step + j]), Float(q16[step + j]))
                    }
                }
                var r = [Float](repeating: 0, count: 8)
                for k in 0..<8 { r[k] = (lanes[k] + lanes[16 + k]) + (lanes[8 + k] + lanes[24 + k]) }
                let t = (0..<4).map { r[$0] + r[4 + $0] }
                let s = (t[0] + t[1]) + (t[2] + t[3])
                var ms: Float = 1, vs: Float = 1
                if s > maximum {
                    ms = expf(maximum - s)
                    maximum = s
                    accumulator = accumulator.map { Float16(Float($0) * ms) }
                } else {
                    vs = expf(s - maximum)
                }
                for i in 0..<d { accumulator[i] = Float16(Float(accumulator[i]).addingProduct(Float(values16[p * d + i]), vs)) }
                sum = sum * ms + vs
            }
            for i in 0..<d {
                XCTAssertEqual(output[h * d + i], Float(accumulator[i]) * (1 / sum), "head \(h) element \(i)")
            }
        }
    }
}
