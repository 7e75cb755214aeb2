/// The on-disk metadata value type ids (gguf.h `enum gguf_type`).
public enum GGUFValueType: UInt32, Sendable, CustomStringConvertible {
    case uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5
    case float32 = 6, bool = 7, string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12

    /// Size of one value, or nil for strings and arrays (variable size).
    public var fixedSize: Int? {
        switch self {
        case .uint8, .int8, .bool: 1
        case .uint16, .int16: 2
        case .uint32, .int32, .float32: 4
        case .uint64, .int64, .float64: 8
        case .string, .array: nil
        }
    }

    public var description: String {
        switch self {
        case .uint8: "uint8"
        case .int8: "int8"
        case .uint16: "uint16"
        case .int16: "int16"
        case .uint32: "uint32"
        case .int32: "int32"
        case .float32: "float32"
        case .bool: "bool"
        case .string: "string"
        case .array: "array"
        case .uint64: "uint64"
        case .int64: "int64"
        case .float64: "float64"
        }
    }
}

/// One metadata value.
public enum GGUFValue: Sendable, Equatable, CustomStringConvertible {
    case uint8(UInt8)
    case int8(Int8)
    case uint16(UInt16)
    case int16(Int16)
    case uint32(UInt32)
    case int32(Int32)
    case float32(Float)
    case bool(Bool)
    case string(String)
    case array(GGUFArray)
    case uint64(UInt64)
    case int64(Int64)
    case float64(Double)

    public var type: GGUFValueType {
        switch self {
        case .uint8: .uint8
        case .int8: .int8
        case .uint16: .uint16
        case .int16: .int16
        case .uint32: .uint32
        case .int32: .int32
        case .float32: .float32
        case .bool: .bool
        case .string: .string
        case .array: .array
        case .uint64: .uint64
        case .int64: .int64
        case .float64: .float64
        }
    }

    /// Any integer type as Int (nil when not an integer or out of Int's range).
    public var intValue: Int? {
        switch self {
        case .uint8(let v): Int(v)
        case .int8(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        case .int64(let v): Int(v)
        default: nil
        }
    }

    /// Any float or integer type as Double.
    public var doubleValue: Double? {
        switch self {
        case .float32(let v): Double(v)
        case .float64(let v): v
        default: intValue.map(Double.init)
        }
    }

    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var arrayValue: GGUFArray? { if case .array(let a) = self { a } else { nil } }

    public var description: String {
        switch self {
        case .uint8(let v): "\(v)"
        case .int8(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .float32(let v): "\(v)"
        case .bool(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .array(let a): "[\(a.elementType) x \(a.count)]"
        case .uint64(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .float64(let v): "\(v)"
        }
    }
}

/// A metadata array. Arrays read from a file stay in the mapping and are
/// decoded on demand, so a 262k-entry vocabulary costs nothing until used;
/// arrays built in memory (for `GGUFWriter`) hold their values.
public struct GGUFArray: Sendable, Equatable {
    public let elementType: GGUFValueType
    public let count: Int
    let storage: Storage

    enum Storage: Sendable {
        /// Validated bytes in a mapping: the elements start at `offset`.
        case mapped(GGUFStorage, offset: Int, byteCount: Int)
        case values([GGUFValue])
    }

    init(mapped storage: GGUFStorage, elementType: GGUFValueType, count: Int, offset: Int, byteCount: Int) {
        self.elementType = elementType
        self.count = count
        self.storage = .mapped(storage, offset: offset, byteCount: byteCount)
    }

    /// An in-memory array. Every value must have `elementType`.
    public init(elementType: GGUFValueType, values: [GGUFValue]) throws {
        for value in values where value.type != elementType {
            throw GGUFError(.invalidWriterInput("array of \(elementType) holds a \(value.type) value"))
        }
        self.elementType = elementType
        self.count = values.count
        self.storage = .values(values)
    }

    public init(strings: [String]) {
        elementType = .string
        count = strings.count
        storage = .values(strings.map(GGUFValue.string))
    }

    public init(int32s: [Int32]) {
        elementType = .int32
        count = int32s.count
        storage = .values(int32s.map(GGUFValue.int32))
    }

    public init(float32s: [Float]) {
        elementType = .float32
        count = float32s.count
        storage = .values(float32s.map(GGUFValue.float32))
    }

    /// All elements decoded.
    public var values: [GGUFValue] {
        switch storage {
        case .values(let values):
            return values
        case .mapped(let storage, let offset, let byteCount):
            var cursor = GGUFCursor(storage: storage, position: offset, end: offset + byteCount)
            var result: [GGUFValue] = []
            result.reserveCapacity(count)
            for _ in 0..<count {
                // Validated when the file was opened, so this cannot fail.
                guard let value = try? cursor.readValue(type: elementType, depth: 1) else { break }
                result.append(value)
            }
            return result
        }
    }

    /// Calls `body` with the raw UTF-8 bytes of each string element, in order,
    /// without creating Strings. Does nothing for non-string arrays.
    public func forEachStringBytes(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard elementType == .string else { return }
        switch storage {
        case .values(let values):
            for (index, value) in values.enumerated() {
                guard case .string(var text) = value else { continue }
                try text.withUTF8 { try body(index, UnsafeRawBufferPointer($0)) }
            }
        case .mapped(let storage, let offset, _):
            var position = offset
            let base = storage.base
            for index in 0..<count {
                let length = Int(base.loadUnaligned(fromByteOffset: position, as: UInt64.self).littleEndian)
                position += 8
                try body(index, UnsafeRawBufferPointer(start: base + position, count: length))
                position += length
            }
        }
    }

    /// String elements (nil when the array is not of strings).
    public var strings: [String]? {
        guard elementType == .string else { return nil }
        var result: [String] = []
        result.reserveCapacity(count)
        forEachStringBytes { _, bytes in result.append(String(decoding: bytes, as: UTF8.self)) }
        return result
    }

    /// Integer elements of any integer type as Int (nil otherwise).
    public var ints: [Int]? {
        switch elementType {
        case .uint8, .int8, .uint16, .int16, .uint32, .int32, .uint64, .int64: break
        default: return nil
        }
        if case .mapped(let storage, let offset, _) = storage {
            let base = storage.base + offset
            var result = [Int](repeating: 0, count: count)
            for i in 0..<count {
                switch elementType {
                case .uint8: result[i] = Int(base.load(fromByteOffset: i, as: UInt8.self))
                case .int8: result[i] = Int(base.load(fromByteOffset: i, as: Int8.self))
                case .uint16: result[i] = Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
                case .int16: result[i] = Int(Int16(littleEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self)))
                case .uint32: result[i] = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                case .int32: result[i] = Int(Int32(littleEndian: base.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)))
                case .uint64:
                    let v = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))
                    guard let exact = Int(exactly: v) else { return nil }
                    result[i] = exact
                case .int64: result[i] = Int(Int64(littleEndian: base.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self)))
                default: return nil
                }
            }
            return result
        }
        var result: [Int] = []
        result.reserveCapacity(count)
        for value in values {
            guard let v = value.intValue else { return nil }
            result.append(v)
        }
        return result
    }

    /// Float32/float64 elements as Float (nil otherwise).
    public var floats: [Float]? {
        switch elementType {
        case .float32:
            if case .mapped(let storage, let offset, _) = storage {
                let base = storage.base + offset
                return (0..<count).map {
                    Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
                }
            }
            return values.map { if case .float32(let f) = $0 { f } else { 0 } }
        case .float64:
            return values.map { Float($0.doubleValue ?? 0) }
        default:
            return nil
        }
    }

    public static func == (lhs: GGUFArray, rhs: GGUFArray) -> Bool {
        lhs.elementType == rhs.elementType && lhs.count == rhs.count && lhs.values == rhs.values
    }
}
