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

/// A matrix of `rows` x `columns` elements in some `QuantFormat`, viewed in memory
/// that someone else owns (typically a memory-mapped model): row-major, or with its
/// rows interleaved in groups of eight (`interleavedRows`, see `interleavingRows`).
public struct MatrixView: @unchecked Sendable {
    public let format: QuantFormat
    public let rows: Int
    public let columns: Int
    public let base: UnsafeRawPointer
    /// Bytes from one row to the next (row-major), or the bytes of one row (interleaved).
    public let rowStride: Int
    /// Rows stored in groups of eight, block by block: group `g` (rows `8g ..< 8g + 8`)
    /// holds block 0 of its eight rows, one after the other, then block 1 of the eight, and
    /// so on, each block unchanged. A matrix-vector product then reads one sequential stream
    /// and finds the eight blocks it combines side by side. Only for the 32-element formats
    /// (their blocks carry their own scales) and a multiple of 8 rows.
    public let interleavedRows: Bool
    /// Bytes from a row's 32-element block to its next: `format.blockBytes`, or eight
    /// times that when rows are interleaved (the 32-element formats only).
    public let blockStride: Int

    public init(format: QuantFormat, rows: Int, columns: Int, base: UnsafeRawPointer, rowStride: Int? = nil) {
        precondition(rows >= 0 && format.canStoreRow(columns: columns),
                     "\(format) matrix needs a positive multiple of \(format.blockElements) columns, got \(columns)")
        self.format = format
        self.rows = rows
        self.columns = columns
        self.base = base
        self.rowStride = rowStride ?? format.rowBytes(columns: columns)
        interleavedRows = false
        blockStride = format.blockBytes
    }

    private init(interleaving matrix: MatrixView, base: UnsafeRawPointer) {
        format = matrix.format
        rows = matrix.rows
        columns = matrix.columns
        self.base = base
        rowStride = matrix.format.rowBytes(columns: matrix.columns)
        interleavedRows = true
        blockStride = 8 * matrix.format.blockBytes
    }

    /// Where row `index` starts: its first block. With `interleavedRows` its block `b` is
    /// `blockStride * b` bytes further (so it is for every 32-element format).
    @inline(__always)
    public func row(_ index: Int) -> UnsafeRawPointer {
        interleavedRows ? base + (index >> 3) * (8 * rowStride) + (index & 7) * format.blockBytes : base + index * rowStride
    }

    /// Whether `interleavingRows` can copy this matrix: row-major, a 32-element quantized
    /// format, a positive multiple of 8 rows.
    public var canInterleaveRows: Bool {
        guard !interleavedRows, rows > 0, rows % 8 == 0 else { return false }
        switch format {
        case .q8_0, .q4_0, .q4_1, .q5_0, .q5_1: return true
        default: return false
        }
    }

    /// Copies the matrix into `destination` (`rows * rowStride` bytes, no padding) with its
    /// rows interleaved and returns the view of the copy. `copied(rows)` is called after
    /// each stretch of rows, with how many rows have been read so far (the caller may release
    /// the source's memory up to there). Requires `canInterleaveRows`.
    public func interleavingRows(into destination: UnsafeMutableRawPointer, copied: (Int) -> Void = { _ in }) -> MatrixView {
        precondition(canInterleaveRows, "interleavingRows: \(format) matrix of \(rows) rows cannot be interleaved")
        let blockBytes = format.blockBytes, blocks = columns / 32
        let groupBytes = 8 * rowStride
        var group = 0
        while group < rows / 8 {
            let end = min(group + 256, rows / 8)
            for g in group..<end {
                for k in 0..<8 {
                    let source = base + (8 * g + k) * rowStride
                    let target = destination + g * groupBytes + k * blockBytes
                    for b in 0..<blocks { copyBlock(from: source + blockBytes * b, to: target + 8 * blockBytes * b, bytes: blockBytes) }
                }
            }
            group = end
            copied(8 * group)
        }
        return MatrixView(interleaving: self, base: UnsafeRawPointer(destination))
    }

    /// Copies `bytes` (16 to 48) bytes in 16-byte pieces, the last one overlapping.
    @inline(__always)
    private func copyBlock(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, bytes: Int) {
        var at = 0
        while at + 16 < bytes {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self), toByteOffset: at, as: SIMD16<UInt8>.self)
            at += 16
        }
        target.storeBytes(of: source.loadUnaligned(fromByteOffset: bytes - 16, as: SIMD16<UInt8>.self), toByteOffset: bytes - 16, as: SIMD16<UInt8>.self)
    }

    /// Row `index` as F32 (`columns` values), whatever the layout.
    public func dequantizeRow(_ index: Int, into destination: UnsafeMutablePointer<Float>) {
        guard interleavedRows else {
            Dequantize.row(format, from: row(index), to: destination, count: columns)
            return
        }
        let start = row(index)
        for b in 0..<(columns / 32) { Dequantize.row(format, from: start + blockStride * b, to: destination + 32 * b, count: 32) }
    }
}
