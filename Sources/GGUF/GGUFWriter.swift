#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds a GGUF file in memory: metadata in insertion order, then tensor
/// infos, then aligned tensor data. Used by tests to write tiny models and
/// corrupt variants of them.
public struct GGUFWriter: Sendable {
    public var version: UInt32
    public var alignment: Int
    public private(set) var metadata: [GGUFMetadataEntry] = []
    public private(set) var tensors: [(info: GGUFTensorInfo, data: [UInt8])] = []

    public init(version: UInt32 = 3, alignment: Int = GGUFFile.defaultAlignment) {
        self.version = version
        self.alignment = alignment
    }

    /// Sets `key`, replacing an existing value in place.
    public mutating func set(_ key: String, _ value: GGUFValue) {
        if let i = metadata.firstIndex(where: { $0.key == key }) {
            metadata[i] = GGUFMetadataEntry(key: key, value: value)
        } else {
            metadata.append(GGUFMetadataEntry(key: key, value: value))
        }
    }

    public mutating func set(_ key: String, _ value: String) { set(key, .string(value)) }
    public mutating func set(_ key: String, uint32 value: UInt32) { set(key, .uint32(value)) }
    public mutating func set(_ key: String, float32 value: Float) { set(key, .float32(value)) }
    public mutating func set(_ key: String, bool value: Bool) { set(key, .bool(value)) }
    public mutating func set(_ key: String, strings: [String]) { set(key, .array(GGUFArray(strings: strings))) }

    /// Adds a tensor whose `data` is already in `type`'s layout.
    /// `dimensions[0]` is the row length, as in ggml.
    public mutating func addTensor(name: String, type: GGMLType, dimensions: [Int], data: [UInt8]) throws {
        guard !tensors.contains(where: { $0.info.name == name }) else {
            throw GGUFError(.invalidWriterInput("duplicate tensor '\(name)'"))
        }
        guard (1...GGUFFile.maximumDimensions).contains(dimensions.count), dimensions.allSatisfy({ $0 > 0 }) else {
            throw GGUFError(.invalidWriterInput("tensor '\(name)' has dimensions \(dimensions)"))
        }
        let elements = dimensions.reduce(1, *)
        guard let rowBytes = type.rowByteCount(elements: dimensions[0]) else {
            throw GGUFError(.invalidWriterInput("tensor '\(name)': row length \(dimensions[0]) is not a multiple of \(type.blockSize)"))
        }
        let bytes = rowBytes * (elements / dimensions[0])
        guard data.count == bytes else {
            throw GGUFError(.invalidWriterInput("tensor '\(name)' of type \(type) and dimensions \(dimensions) needs \(bytes) bytes, got \(data.count)"))
        }
        // The offset is assigned when serializing (it depends on the alignment).
        let info = GGUFTensorInfo(name: name, dimensions: dimensions, type: type, offset: 0, elementCount: elements, byteCount: bytes)
        tensors.append((info, data))
    }

    /// Adds an F32 tensor.
    public mutating func addTensor(name: String, dimensions: [Int], float32s: [Float]) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(float32s.count * 4)
        for value in float32s { Self.append(value.bitPattern, to: &bytes) }
        try addTensor(name: name, type: .f32, dimensions: dimensions, data: bytes)
    }

    static func padded(_ n: Int, to alignment: Int) -> Int { (n + alignment - 1) / alignment * alignment }

    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func append(string: String, to bytes: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        append(UInt64(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    static func append(value: GGUFValue, to bytes: inout [UInt8]) {
        switch value {
        case .uint8(let v): append(v, to: &bytes)
        case .int8(let v): append(v, to: &bytes)
        case .uint16(let v): append(v, to: &bytes)
        case .int16(let v): append(v, to: &bytes)
        case .uint32(let v): append(v, to: &bytes)
        case .int32(let v): append(v, to: &bytes)
        case .float32(let v): append(v.bitPattern, to: &bytes)
        case .bool(let v): append(UInt8(v ? 1 : 0), to: &bytes)
        case .string(let v): append(string: v, to: &bytes)
        case .uint64(let v): append(v, to: &bytes)
        case .int64(let v): append(v, to: &bytes)
        case .float64(let v): append(v.bitPattern, to: &bytes)
        case .array(let array):
            append(array.elementType.rawValue, to: &bytes)
            append(UInt64(array.count), to: &bytes)
            for element in array.values { append(value: element, to: &bytes) }
        }
    }

    /// The complete file.
    public func serialized() throws -> [UInt8] {
        guard alignment > 0, alignment & (alignment - 1) == 0 else {
            throw GGUFError(.invalidWriterInput("alignment \(alignment) is not a power of two"))
        }
        var entries = metadata
        if alignment != GGUFFile.defaultAlignment, !entries.contains(where: { $0.key == "general.alignment" }) {
            entries.append(GGUFMetadataEntry(key: "general.alignment", value: .uint32(UInt32(alignment))))
        }
        var bytes: [UInt8] = []
        Self.append(GGUFFile.magic, to: &bytes)
        Self.append(version, to: &bytes)
        Self.append(UInt64(tensors.count), to: &bytes)
        Self.append(UInt64(entries.count), to: &bytes)
        for entry in entries {
            Self.append(string: entry.key, to: &bytes)
            Self.append(entry.value.type.rawValue, to: &bytes)
            Self.append(value: entry.value, to: &bytes)
        }
        var offset = 0
        for (info, data) in tensors {
            Self.append(string: info.name, to: &bytes)
            Self.append(UInt32(info.dimensions.count), to: &bytes)
            for d in info.dimensions { Self.append(UInt64(d), to: &bytes) }
            Self.append(info.type.rawValue, to: &bytes)
            Self.append(UInt64(offset), to: &bytes)
            offset += Self.padded(data.count, to: alignment)
        }
        if !tensors.isEmpty {
            bytes.append(contentsOf: repeatElement(0, count: Self.padded(bytes.count, to: alignment) - bytes.count))
            for (index, tensor) in tensors.enumerated() {
                bytes.append(contentsOf: tensor.data)
                if index < tensors.count - 1 {
                    let pad = Self.padded(tensor.data.count, to: alignment) - tensor.data.count
                    bytes.append(contentsOf: repeatElement(0, count: pad))
                }
            }
        }
        return bytes
    }

    /// Writes the file to `path`.
    public func write(to path: String) throws {
        let bytes = try serialized()
        guard let file = fopen(path, "wb") else {
            throw GGUFError(.cannotOpen(reason: String(cString: strerror(errno))), path: path)
        }
        defer { fclose(file) }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == bytes.count else {
            throw GGUFError(.cannotOpen(reason: "short write: \(String(cString: strerror(errno)))"), path: path)
        }
    }
}
