import GGUF
import Kernels

/// Encodes test weights in any GGUF type the kernels support (with the
/// Kernels reference quantizers) and decodes them back to the F32 values
/// the reference implementation uses.
enum TinyModelEncoding {
    static func format(_ type: GGMLType) throws -> QuantFormat {
        guard let format = QuantFormat(rawValue: type.name) else { throw EncodingUnsupported(type: type) }
        return format
    }

    static func encode(_ type: GGMLType, _ values: [Float], _ columns: Int) throws -> [UInt8] {
        let format = try format(type)
        let rowBytes = format.rowBytes(columns: columns)
        let rows = values.count / columns
        var bytes = [UInt8](repeating: 0, count: rows * rowBytes)
        values.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBytes { destination in
                for row in 0..<rows {
                    Quantize.row(format, from: source.baseAddress! + row * columns,
                                 to: destination.baseAddress! + row * rowBytes, count: columns)
                }
            }
        }
        return bytes
    }

    static func decode(_ type: GGMLType, _ bytes: [UInt8], _ columns: Int) throws -> [Float] {
        let format = try format(type)
        let rowBytes = format.rowBytes(columns: columns)
        let rows = bytes.count / rowBytes
        var values = [Float](repeating: 0, count: rows * columns)
        bytes.withUnsafeBytes { source in
            values.withUnsafeMutableBufferPointer { destination in
                for row in 0..<rows {
                    Dequantize.row(format, from: source.baseAddress! + row * rowBytes,
                                   to: destination.baseAddress! + row * columns, count: columns)
                }
            }
        }
        return values
    }

    struct EncodingUnsupported: Error { let type: GGMLType }
}
