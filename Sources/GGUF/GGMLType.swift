/// The ggml tensor element types a GGUF file can name, with their storage
/// layout. Quantized types store `blockSize` elements in `typeSize` bytes.
///
/// Raw values are the on-disk ids (ggml.h `enum ggml_type`). Ids 4, 5 and
/// 31-33, 36-38 were removed from ggml and are rejected as unknown.
public enum GGMLType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case f32 = 0
    case f16 = 1
    case q4_0 = 2
    case q4_1 = 3
    case q5_0 = 6
    case q5_1 = 7
    case q8_0 = 8
    case q8_1 = 9
    case q2_K = 10
    case q3_K = 11
    case q4_K = 12
    case q5_K = 13
    case q6_K = 14
    case q8_K = 15
    case iq2_xxs = 16
    case iq2_xs = 17
    case iq3_xxs = 18
    case iq1_s = 19
    case iq4_nl = 20
    case iq3_s = 21
    case iq2_s = 22
    case iq4_xs = 23
    case i8 = 24
    case i16 = 25
    case i32 = 26
    case i64 = 27
    case f64 = 28
    case iq1_m = 29
    case bf16 = 30
    case tq1_0 = 34
    case tq2_0 = 35
    case mxfp4 = 39

    /// Elements per block (1 for plain scalar types).
    public var blockSize: Int {
        switch self {
        case .f32, .f16, .bf16, .f64, .i8, .i16, .i32, .i64: 1
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1, .iq4_nl, .mxfp4: 32
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .q8_K, .iq2_xxs, .iq2_xs, .iq3_xxs, .iq1_s,
             .iq3_s, .iq2_s, .iq4_xs, .iq1_m, .tq1_0, .tq2_0: 256
        }
    }

    /// Bytes per block.
    public var typeSize: Int {
        switch self {
        case .f32: 4
        case .f16, .bf16: 2
        case .f64: 8
        case .i8: 1
        case .i16: 2
        case .i32: 4
        case .i64: 8
        case .q4_0: 18     // f16 d + 16 bytes of nibbles
        case .q4_1: 20     // f16 d, f16 m + 16
        case .q5_0: 22     // f16 d + 4 qh + 16
        case .q5_1: 24     // f16 d, f16 m + 4 qh + 16
        case .q8_0: 34     // f16 d + 32
        case .q8_1: 36     // f16 d, f16 s + 32
        case .q2_K: 84     // 16 scales + 64 qs + 2 f16
        case .q3_K: 110    // 32 hmask + 64 qs + 12 scales + f16
        case .q4_K: 144    // 2 f16 + 12 scales + 128 qs
        case .q5_K: 176    // 2 f16 + 12 scales + 32 qh + 128 qs
        case .q6_K: 210    // 128 ql + 64 qh + 16 scales + f16
        case .q8_K: 292    // f32 d + 256 qs + 16 i16 bsums
        case .iq2_xxs: 66
        case .iq2_xs: 74
        case .iq3_xxs: 98
        case .iq1_s: 50
        case .iq4_nl: 18
        case .iq3_s: 110
        case .iq2_s: 82
        case .iq4_xs: 136
        case .iq1_m: 56
        case .tq1_0: 54
        case .tq2_0: 66
        case .mxfp4: 17
        }
    }

    public var isQuantized: Bool { blockSize > 1 }

    /// The name ggml uses ("Q4_K", "F16", ...).
    public var name: String {
        switch self {
        case .f32: "F32"
        case .f16: "F16"
        case .bf16: "BF16"
        case .f64: "F64"
        case .i8: "I8"
        case .i16: "I16"
        case .i32: "I32"
        case .i64: "I64"
        case .q4_0: "Q4_0"
        case .q4_1: "Q4_1"
        case .q5_0: "Q5_0"
        case .q5_1: "Q5_1"
        case .q8_0: "Q8_0"
        case .q8_1: "Q8_1"
        case .q2_K: "Q2_K"
        case .q3_K: "Q3_K"
        case .q4_K: "Q4_K"
        case .q5_K: "Q5_K"
        case .q6_K: "Q6_K"
        case .q8_K: "Q8_K"
        case .iq2_xxs: "IQ2_XXS"
        case .iq2_xs: "IQ2_XS"
        case .iq3_xxs: "IQ3_XXS"
        case .iq1_s: "IQ1_S"
        case .iq4_nl: "IQ4_NL"
        case .iq3_s: "IQ3_S"
        case .iq2_s: "IQ2_S"
        case .iq4_xs: "IQ4_XS"
        case .iq1_m: "IQ1_M"
        case .tq1_0: "TQ1_0"
        case .tq2_0: "TQ2_0"
        case .mxfp4: "MXFP4"
        }
    }

    public var description: String { name }

    /// Bytes needed for one row of `elements` elements, or nil when the row
    /// length is not a whole number of blocks or the size overflows.
    public func rowByteCount(elements: Int) -> Int? {
        guard elements >= 0, elements % blockSize == 0 else { return nil }
        let (bytes, overflow) = (elements / blockSize).multipliedReportingOverflow(by: typeSize)
        return overflow ? nil : bytes
    }
}
