import Kernels

/// A 2-D weight tensor in the memory-mapped model file: `rows` output
/// features, each a row of `columns` input features. GGUF lists the
/// dimensions innermost first, so `columns` is ne[0].
struct WeightMatrix: @unchecked Sendable {
    let name: String
    let view: MatrixView

    var rows: Int { view.rows }
    var columns: Int { view.columns }

    func dequantizeRow(_ row: Int, into output: UnsafeMutablePointer<Float>) {
        view.dequantizeRow(row, into: output)
    }
}

extension KernelContext {
    /// `output[b][r] = sum_c weight[r][c] * input[b][c]` for b in 0..<batch.
    @inline(__always)
    func multiply(_ weight: WeightMatrix, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batch: Int) {
        matmul(weight.view, input: input, tokens: batch, output: output)
    }
}
