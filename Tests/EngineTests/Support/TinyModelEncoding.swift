import GGUF

/// Encodes/decodes test weights for the GGUF types the test support can
/// write without the Kernels quantizers (plain float formats).
enum TinyModelEncoding {
    static func encode(_ type: GGMLType, _ values: [Float], _ columns: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        switch type {
        case .f32:
            for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        case .f16:
            for value in values { withUnsafeBytes(of: Float16(value).bitPattern.littleEndian) { bytes += $0 } }
        case .bf16:
            // Round to nearest even, as ggml does.
            for value in values {
                let bits = value.bitPattern
                let rounded = UInt16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)
                withUnsafeBytes(of: rounded.littleEndian) { bytes += $0 }
            }
        default:
            throw EncodingUnsupported(type: type)
        }
        return bytes
    }

    static func decode(_ type: GGMLType, _ bytes: [UInt8], _ columns: Int) throws -> [Float] {
        switch type {
        case .f32:
            return stride(from: 0, to: bytes.count, by: 4).map { i in
                Float(bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
            }
        case .f16:
            return stride(from: 0, to: bytes.count, by: 2).map { i in
                Float(Float16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8))
            }
        case .bf16:
            return stride(from: 0, to: bytes.count, by: 2).map { i in
                Float(bitPattern: (UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8) << 16)
            }
        default:
            throw EncodingUnsupported(type: type)
        }
    }

    struct EncodingUnsupported: Error { let type: GGMLType }
}
