import Foundation

// A plain dequantize-to-F32 path used until the Kernels target lands.
// It is deliberately simple: correct first, replaced by Kernels' SIMD code.

/// GGML tensor type codes (the values stored in GGUF tensor infos).
enum InterimTensorType: UInt32, Sendable {
    case f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q8_0 = 8, bf16 = 30

    var blockSize: Int {
        switch self {
        case .f32, .f16, .bf16: 1
        case .q4_0, .q4_1, .q8_0: 32
        }
    }

    var bytesPerBlock: Int {
        switch self {
        case .f32: 4
        case .f16, .bf16: 2
        case .q4_0: 18
        case .q4_1: 20
        case .q8_0: 34
        }
    }
}

@inline(__always) func halfToFloat(_ raw: UnsafeRawPointer, _ byteOffset: Int) -> Float {
    Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: byteOffset, as: UInt16.self)))
}

/// Dequantizes `count` elements starting at the beginning of a row.
func interimDequantizeRow(type: InterimTensorType, row: UnsafeRawPointer, count: Int, into output: UnsafeMutablePointer<Float>) {
    switch type {
    case .f32:
        output.update(from: row.assumingMemoryBound(to: Float.self), count: count)
    case .f16:
        for i in 0..<count { output[i] = halfToFloat(row, 2 * i) }
    case .bf16:
        for i in 0..<count {
            output[i] = Float(bitPattern: UInt32(row.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) << 16)
        }
    case .q8_0:
        for block in 0..<count / 32 {
            let base = block * 34
            let scale = halfToFloat(row, base)
            for j in 0..<32 {
                output[block * 32 + j] = scale * Float(row.load(fromByteOffset: base + 2 + j, as: Int8.self))
            }
        }
    case .q4_0:
        for block in 0..<count / 32 {
            let base = block * 18
            let scale = halfToFloat(row, base)
            for j in 0..<16 {
                let byte = row.load(fromByteOffset: base + 2 + j, as: UInt8.self)
                output[block * 32 + j] = scale * Float(Int(byte & 0x0F) - 8)
                output[block * 32 + j + 16] = scale * Float(Int(byte >> 4) - 8)
            }
        }
    case .q4_1:
        for block in 0..<count / 32 {
            let base = block * 20
            let scale = halfToFloat(row, base)
            let minimum = halfToFloat(row, base + 2)
            for j in 0..<16 {
                let byte = row.load(fromByteOffset: base + 4 + j, as: UInt8.self)
                output[block * 32 + j] = scale * Float(byte & 0x0F) + minimum
                output[block * 32 + j + 16] = scale * Float(byte >> 4) + minimum
            }
        }
    }
}
