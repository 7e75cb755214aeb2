import Kernels

/// SplitMix64: a small seeded generator so kernel tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
/// half a step (max|x| over the 32-block / 254) per element, plus F32 rounding.
func activationQuantizationBound(_ w: [Float], row: Int, columns: Int, _ x: [Float], token: Int) -> Float {
    var bound: Double = 0, magnitude: Double = 0
    for b in 0..<(columns / 32) {
        var amax: Float = 0
        for c in 0..<32 { amax = max(amax, abs(x[token * columns + 32 * b + c])) }
        for c in 0..<32 {
            let wc = Double(abs(w[row * columns + 32 * b + c]))
            bound += wc * Double(amax) / 254
            magnitude += wc * Double(abs(x[token * columns + 32 * b + c]))
        }
    }
    return Float(bound * 1.001 + magnitude * 1e-5 + 1e-6)
}
