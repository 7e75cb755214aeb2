/// The element formats the kernels understand, with the block layouts of
/// ggml/llama.cpp (ggml-common.h). The kernels know nothing of GGUF: the
/// inference code maps GGUF tensor types to these cases.
public enum QuantFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case f32 = "F32"
    case f16 = "F16"
    case bf16 = "BF16"
    case q8_0 = "Q8_0"
    case q4_0 = "Q4_0"
    case q4_1 = "Q4_1"
    case q5_0 = "Q5_0"
    case q5_1 = "Q5_1"
    case q4_K = "Q4_K"
    case q5_K = "Q5_K"
    case q6_K = "Q6_K"

    public var description: String { rawValue }

    /// Elements in one block (1 for the float formats).
    public var blockElements: Int {
        switch self {
        case .f32, .f16, .bf16: return 1
        case .q8_0, .q4_0, .q4_1, .q5_0, .q5_1: return 32
        case .q4_K, .q5_K, .q6_K: return 256
        }
    }

    /// Bytes in one block.
    public var blockBytes: Int {
        switch self {
        case .f32: return 4
        case .f16, .bf16: return 2
        case .q8_0: return 34   // f16 d, 32 x i8
        case .q4_0: return 18   // f16 d, 16 bytes of nibbles
        case .q4_1: return 20   // f16 d, f16 m, 16 bytes of nibbles
        case .q5_0: return 22   // f16 d, u32 high bits, 16 bytes of nibbles
        case .q5_1: return 24   // f16 d, f16 m, u32 high bits, 16 bytes of nibbles
        case .q4_K: return 144  // f16 d, f16 dmin, 12 bytes scales, 128 bytes nibbles
        case .q5_K: return 176  // f16 d, f16 dmin, 12 bytes scales, 32 bytes high bits, 128 bytes nibbles
        case .q6_K: return 210  // 128 bytes low nibbles, 64 bytes high bits, 16 x i8 scales, f16 d
        }
    }

    /// True for the block-quantized formats (their matrix products quantize
    /// the activations to 8 bits and use integer dot products).
    public var isQuantized: Bool {
        switch self {
        case .f32, .f16, .bf16: return false
        default: return true
        }
    }

    /// Whether a row of `columns` elements can be stored in this format.
    public func canStoreRow(columns: Int) -> Bool {
        columns > 0 && columns % blockElements == 0
    }

    /// Bytes of one row of `columns` elements. `columns` must be a multiple of `blockElements`.
    public func rowBytes(columns: Int) -> Int {
        precondition(columns % blockElements == 0, "\(self) rows need a multiple of \(blockElements) elements, got \(columns)")
        return columns / blockElements * blockBytes
    }
}

/// A row-major matrix of `rows` x `columns` elements in some `QuantFormat`,
/// viewed in memory that someone else owns (typically a memory-mapped model).
public struct MatrixView: @unchecked Sendable {
    public let format: QuantFormat
    public let rows: Int
    public let columns: Int
    public let base: UnsafeRawPointer
    /// Bytes from one row to the next.
    public let rowStride: Int

    public init(format: QuantFormat, rows: Int, columns: Int, base: UnsafeRawPointer, rowStride: Int? = nil) {
        precondition(rows >= 0 && format.canStoreRow(columns: columns),
                     "\(format) matrix needs a positive multiple of \(format.blockElements) columns, got \(columns)")
        self.format = format
        self.rows = rows
        self.columns = columns
        self.base = base
        self.rowStride = rowStride ?? format.rowBytes(columns: columns)
    }

    @inline(__always)
    public func row(_ index: Int) -> UnsafeRawPointer { base + index * rowStride }
}
