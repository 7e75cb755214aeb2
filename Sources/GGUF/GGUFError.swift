/// Why a GGUF file could not be read, and where.
///
/// `offset` is the byte offset in the file where the problem was found and
/// `context` names the item being read ("metadata key 'general.name'",
/// "tensor 'blk.0.attn_q.weight'"), so a message points at the exact spot.
public struct GGUFError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case cannotOpen(reason: String)
        case truncated(needed: Int, available: Int)
        case badMagic(found: UInt32)
        case unsupportedVersion(UInt32)
        case unknownValueType(UInt32)
        case unknownTensorType(UInt32)
        case oversizedString(length: UInt64, available: Int)
        case oversizedArray(count: UInt64, available: Int)
        case oversizedCount(what: String, count: UInt64, available: Int)
        case nestingTooDeep(limit: Int)
        case duplicateKey(String)
        case duplicateTensor(String)
        case tooManyDimensions(UInt32, limit: Int)
        case invalidDimension(index: Int, value: UInt64)
        case overflowingDimensions
        case rowNotWholeBlocks(rowLength: Int, blockSize: Int, type: GGMLType)
        case badAlignment(UInt64)
        case misalignedData(offset: UInt64, alignment: Int)
        case dataOutOfRange(offset: UInt64, size: Int, dataSectionSize: Int)
        case overlappingTensors(String, String)
        case wrongValueType(key: String, expected: String, found: String)
        case missingKey(String)
        case valueOutOfRange(key: String)
        case invalidWriterInput(String)
    }

    public var kind: Kind
    public var offset: Int?
    public var context: String?
    /// The file, when the error came from reading one.
    public var path: String?

    public init(_ kind: Kind, offset: Int? = nil, context: String? = nil, path: String? = nil) {
        self.kind = kind
        self.offset = offset
        self.context = context
        self.path = path
    }

    public var description: String {
        var where_: [String] = []
        if let path { where_.append(path) }
        if let offset { where_.append("byte \(offset)") }
        var text = where_.isEmpty ? "GGUF: " : "GGUF \(where_.joined(separator: ", ")): "
        if let context { text += "\(context): " }
        text += message
        return text
    }

    private var message: String {
        switch kind {
        case .cannotOpen(let reason):
            return "cannot open: \(reason)"
        case .truncated(let needed, let available):
            return "file is truncated: needed \(needed) more bytes but only \(available) remain"
        case .badMagic(let found):
            if found == 0x4755_4747 {
                return "big-endian GGUF files are not supported"
            }
            return "not a GGUF file (magic is 0x\(String(found, radix: 16)), expected \"GGUF\")"
        case .unsupportedVersion(let version):
            return "unsupported GGUF version \(version) (versions 2 and 3 are supported)"
        case .unknownValueType(let type):
            return "unknown metadata value type \(type)"
        case .unknownTensorType(let type):
            return "unknown or unsupported tensor type \(type)"
        case .oversizedString(let length, let available):
            return "string length \(length) exceeds the \(available) bytes left in the file"
        case .oversizedArray(let count, let available):
            return "array of \(count) elements cannot fit in the \(available) bytes left in the file"
        case .oversizedCount(let what, let count, let available):
            return "\(what) count \(count) cannot fit in the \(available) bytes left in the file"
        case .nestingTooDeep(let limit):
            return "arrays nested deeper than \(limit) levels"
        case .duplicateKey(let key):
            return "duplicate metadata key '\(key)'"
        case .duplicateTensor(let name):
            return "duplicate tensor name '\(name)'"
        case .tooManyDimensions(let count, let limit):
            return "\(count) dimensions (at most \(limit) are allowed)"
        case .invalidDimension(let index, let value):
            return "dimension \(index) has invalid size \(value)"
        case .overflowingDimensions:
            return "the product of the dimensions overflows"
        case .rowNotWholeBlocks(let rowLength, let blockSize, let type):
            return "row length \(rowLength) is not a multiple of the \(type) block size \(blockSize)"
        case .badAlignment(let value):
            return "general.alignment \(value) is not a power of two"
        case .misalignedData(let offset, let alignment):
            return "data offset \(offset) is not a multiple of the alignment \(alignment)"
        case .dataOutOfRange(let offset, let size, let dataSectionSize):
            return "data at offset \(offset) of \(size) bytes lies outside the \(dataSectionSize)-byte data section"
        case .overlappingTensors(let a, let b):
            return "tensor data of '\(a)' overlaps '\(b)'"
        case .wrongValueType(let key, let expected, let found):
            return "metadata key '\(key)' has type \(found), expected \(expected)"
        case .missingKey(let key):
            return "required metadata key '\(key)' is missing"
        case .valueOutOfRange(let key):
            return "metadata key '\(key)' has a value out of range"
        case .invalidWriterInput(let reason):
            return "cannot write: \(reason)"
        }
    }
}
