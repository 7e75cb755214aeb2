import Foundation

/// A 2-D weight tensor in the memory-mapped model file: `rows` output
/// features, each a row of `columns` input features stored in `type`'s blocks.
/// GGUF lists the dimensions innermost first, so `columns` is ne[0].
struct WeightMatrix: @unchecked Sendable {
    let name: String
    let type: InterimTensorType
    let rows: Int
    let columns: Int
    let data: UnsafeRawPointer

    var rowBytes: Int { columns / type.blockSize * type.bytesPerBlock }

    func dequantizeRow(_ row: Int, into output: UnsafeMutablePointer<Float>) {
        interimDequantizeRow(type: type, row: data + row * rowBytes, count: columns, into: output)
    }
}

/// Splits work over the compute threads.
struct ParallelRunner: Sendable {
    let threadCount: Int

    /// Calls `body(chunk)` for chunk in 0..<chunks, spread over the threads.
    func run(chunks: Int, _ body: (Int) -> Void) {
        if chunks <= 1 || threadCount <= 1 {
            for chunk in 0..<chunks { body(chunk) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let box = UnsafeSendableBox(body)
            DispatchQueue.concurrentPerform(iterations: chunks) { box.value($0) }
        }
    }
}

struct UnsafeSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// `output[b][r] = sum_c weight[r][c] * input[b][c]` for b in 0..<batch.
/// `input` rows are `weight.columns` long, `output` rows `weight.rows` long.
func matmul(_ weight: WeightMatrix, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batch: Int, runner: ParallelRunner) {
    let rowsPerChunk = 16
    let chunks = (weight.rows + rowsPerChunk - 1) / rowsPerChunk
    let columns = weight.columns
    runner.run(chunks: chunks) { chunk in
        withUnsafeTemporaryAllocation(of: Float.self, capacity: columns) { rowBuffer in
            let rowValues = rowBuffer.baseAddress!
            let end = min(weight.rows, (chunk + 1) * rowsPerChunk)
            for row in chunk * rowsPerChunk..<end {
                weight.dequantizeRow(row, into: rowValues)
                for b in 0..<batch {
                    output[b * weight.rows + row] = dot(rowValues, input + b * columns, columns)
                }
            }
        }
    }
}
