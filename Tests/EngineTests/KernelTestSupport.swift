import Inference
import Kernels

/// The engine's seeded generator (xoshiro256**), the one every test target uses, so kernel tests are reproducible.
typealias SeededGenerator = Inference.SeededGenerator

/// Uniform values in -scale...scale.
func randomFloats(_ count: Int, scale: Float = 1, using rng: inout SeededGenerator) -> [Float] {
    (0..<count).map { _ in Float.random(in: -scale...scale, using: &rng) }
}

/// A matrix stored in `format`, quantized from random floats.
struct StoredMatrix {
    let format: QuantFormat
    let rows: Int
    let columns: Int
    let bytes: [UInt8]

    init(format: QuantFormat, rows: Int, columns: Int, values: [Float]) {
        self.format = format
        self.rows = rows
        self.columns = columns
        let rowBytes = format.rowBytes(columns: columns)
        var bytes = [UInt8](repeating: 0, count: rowBytes * rows)
        bytes.withUnsafeMutableBytes { out in
            values.withUnsafeBufferPointer { v in
                for r in 0..<rows {
                    Quantize.row(format, from: v.baseAddress! + r * columns, to: out.baseAddress! + r * rowBytes, count: columns)
                }
            }
        }
        self.bytes = bytes
    }

    /// The stored values decoded to F32.
    func dequantized() -> [Float] {
        var out = [Float](repeating: 0, count: rows * columns)
        let rowBytes = format.rowBytes(columns: columns)
        bytes.withUnsafeBytes { raw in
            out.withUnsafeMutableBufferPointer { o in
                for r in 0..<rows {
                    Dequantize.row(format, from: raw.baseAddress! + r * rowBytes, to: o.baseAddress! + r * columns, count: columns)
                }
            }
        }
        return out
    }

    func withView<R>(_ body: (MatrixView) -> R) -> R {
        bytes.withUnsafeBytes { raw in
            body(MatrixView(format: format, rows: rows, columns: columns, base: raw.baseAddress!))
        }
    }
}

/// Plain F32 reference: y[t][r] = sum_c w[r][c] * x[t][c], accumulated in Double.
func referenceMatmul(_ w: [Float], rows: Int, columns: Int, _ x: [Float], tokens: Int) -> [Float] {
    var y = [Float](repeating: 0, count: rows * tokens)
    for t in 0..<tokens {
        for r in 0..<rows {
            var s: Double = 0
            for c in 0..<columns { s += Double(w[r * columns + c]) * Double(x[t * columns + c]) }
            y[t * rows + r] = Float(s)
        }
    }
    return y
}

/// Bound on |kernel - reference| for one output: the 8-bit activations are off by at most
/// half a step (max|x| over the block / 254, the block being 32 values, or 256 for Q8_K) per
/// element, plus the F16 rounding of the scale for Q8_0/Q8_1 (2^-11 relative), plus F32 rounding.
func activationQuantizationBound(_ w: [Float], row: Int, columns: Int, _ x: [Float], token: Int,
                                 scheme: ActivationScheme) -> Float {
    let blockLength = scheme == .q8_K ? 256 : 32
    var bound: Double = 0, magnitude: Double = 0
    for b in 0..<(columns / blockLength) {
        var amax: Float = 0
        for c in 0..<blockLength { amax = max(amax, abs(x[token * columns + blockLength * b + c])) }
        for c in 0..<blockLength {
            let wc = Double(abs(w[row * columns + blockLength * b + c]))
            bound += wc * Double(amax) / 254
            magnitude += wc * Double(abs(x[token * columns + blockLength * b + c]))
        }
    }
    let scaleRounding = scheme == .q8_K ? 0 : 1.0 / 2048
    return Float(bound * 1.001 + magnitude * (1e-5 + scaleRounding) + 1e-6)
}
