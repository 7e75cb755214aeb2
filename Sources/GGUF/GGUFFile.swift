/// One tensor's description from the GGUF header.
public struct GGUFTensorInfo: Sendable, Equatable {
    public let name: String
    /// ggml order: `dimensions[0]` is the row length (contiguous).
    public let dimensions: [Int]
    public let type: GGMLType
    /// Offset of the data from the start of the data section.
    public let offset: Int
    public let elementCount: Int
    public let byteCount: Int

    public var rowLength: Int { dimensions.first ?? 1 }
    public var rowCount: Int { dimensions.count <= 1 ? 1 : elementCount / max(rowLength, 1) }
}

/// A metadata key and its value, in file order.
public struct GGUFMetadataEntry: Sendable, Equatable {
    public let key: String
    public let value: GGUFValue
}

/// A parsed GGUF (version 2 or 3) file.
///
/// Opening validates everything up front: header, every metadata value,
/// every tensor info, the alignment, and that every tensor's data lies
/// aligned inside the file. After that, accessors cannot fail or read out of
/// bounds. Tensor data is handed out as pointers into the mapping (zero copy),
/// valid while this object is alive.
public final class GGUFFile: Sendable {
    public static let magic: UInt32 = 0x4655_4747 // "GGUF" little-endian
    public static let defaultAlignment = 32
    public static let maximumDimensions = 4

    public let storage: GGUFStorage
    public let path: String?
    public let version: UInt32
    public let metadata: GGUFMetadata
    public let tensors: [GGUFTensorInfo]
    public let alignment: Int
    /// Absolute byte offset of the data section.
    public let dataOffset: Int
    private let tensorIndex: [String: Int]

    /// Memory-maps and validates the file at `path`.
    public convenience init(path: String) throws {
        let storage = try GGUFStorage(mapping: path)
        try self.init(storage: storage, path: path)
    }

    /// Validates in-memory GGUF bytes (copied).
    public convenience init(bytes: some Collection<UInt8>) throws {
        try self.init(storage: GGUFStorage(bytes: bytes), path: nil)
    }

    public init(storage: GGUFStorage, path: String?) throws {
        self.storage = storage
        self.path = path
        do {
            var cursor = GGUFCursor(storage: storage)
            cursor.context = "header"
            let magic = try cursor.read(UInt32.self)
            guard magic == Self.magic else { throw cursor.error(.badMagic(found: magic), at: 0) }
            let version = try cursor.read(UInt32.self)
            guard version == 2 || version == 3 else { throw cursor.error(.unsupportedVersion(version), at: 4) }
            self.version = version
            let tensorCountOffset = cursor.position
            let tensorCount = try cursor.read(UInt64.self)
            let kvCountOffset = cursor.position
            let kvCount = try cursor.read(UInt64.self)
            // A tensor info needs at least 8+4+4+8 bytes, a key/value 8+4+1.
            guard tensorCount <= UInt64(cursor.remaining / 24) else {
                throw cursor.error(.oversizedCount(what: "tensor", count: tensorCount, available: cursor.remaining), at: tensorCountOffset)
            }
            guard kvCount <= UInt64(cursor.remaining / 13) else {
                throw cursor.error(.oversizedCount(what: "metadata", count: kvCount, available: cursor.remaining), at: kvCountOffset)
            }

            let metadata = try Self.readMetadata(&cursor, count: Int(kvCount))
            self.metadata = metadata

            let alignment = try Self.alignment(metadata)
            self.alignment = alignment

            var raw: [RawTensor] = []
            raw.reserveCapacity(Int(tensorCount))
            var names: [String: Int] = [:]
            for i in 0..<Int(tensorCount) {
                cursor.context = "tensor info \(i)"
                let tensor = try Self.readTensorInfo(&cursor, alignment: alignment, known: names)
                names[tensor.name] = raw.count
                raw.append(tensor)
            }

            // The data section starts at the next multiple of the alignment.
            cursor.context = "data section"
            let headerEnd = cursor.position
            let dataOffset = (headerEnd + alignment - 1) / alignment * alignment
            if raw.isEmpty {
                self.dataOffset = min(dataOffset, storage.count)
            } else {
                guard dataOffset <= storage.count else {
                    throw cursor.error(.truncated(needed: dataOffset - headerEnd, available: storage.count - headerEnd), at: headerEnd)
                }
                self.dataOffset = dataOffset
            }
            try Self.checkRanges(raw, dataSize: storage.count - self.dataOffset)
            tensors = raw.map {
                GGUFTensorInfo(name: $0.name, dimensions: $0.dims, type: $0.type, offset: Int($0.offset),
                               elementCount: $0.elements, byteCount: $0.bytes)
            }
            tensorIndex = names
        } catch var error as GGUFError {
            error.path = path
            throw error
        }
    }

    /// A tensor info as read, before the data section is known.
    private struct RawTensor { let name: String; let dims: [Int]; let type: GGMLType; let offset: UInt64; let elements: Int; let bytes: Int; let infoOffset: Int }

    private static func readMetadata(_ cursor: inout GGUFCursor, count: Int) throws -> GGUFMetadata {
        var entries: [GGUFMetadataEntry] = []
        entries.reserveCapacity(count)
        var keyIndex: [String: Int] = [:]
        for i in 0..<count {
            cursor.context = "metadata entry \(i)"
            let keyOffset = cursor.position
            let key = try cursor.readString()
            cursor.context = "metadata key '\(key)'"
            guard keyIndex[key] == nil else { throw cursor.error(.duplicateKey(key), at: keyOffset) }
            let type = try cursor.readValueType()
            let value = try cursor.readValue(type: type, depth: 0)
            keyIndex[key] = entries.count
            entries.append(GGUFMetadataEntry(key: key, value: value))
        }
        return GGUFMetadata(entries: entries, index: keyIndex)
    }

    /// `general.alignment` (a power of two), else the default 32.
    private static func alignment(_ metadata: GGUFMetadata) throws -> Int {
        guard let value = metadata["general.alignment"] else { return defaultAlignment }
        guard case .uint32(let a) = value else {
            throw GGUFError(.wrongValueType(key: "general.alignment", expected: "uint32", found: "\(value.type)"))
        }
        guard a != 0, a & (a - 1) == 0 else { throw GGUFError(.badAlignment(UInt64(a)), context: "metadata key 'general.alignment'") }
        return Int(a)
    }

    /// One tensor info: name (unique), dimensions (no overflow), type (whole blocks per row), aligned offset.
    private static func readTensorInfo(_ cursor: inout GGUFCursor, alignment: Int, known names: [String: Int]) throws -> RawTensor {
        let infoOffset = cursor.position
        let name = try cursor.readString()
        cursor.context = "tensor '\(name)'"
        guard names[name] == nil else { throw cursor.error(.duplicateTensor(name), at: infoOffset) }
        let dimsOffset = cursor.position
        let dimCount = try cursor.read(UInt32.self)
        guard dimCount <= UInt32(maximumDimensions) else {
            throw cursor.error(.tooManyDimensions(dimCount, limit: maximumDimensions), at: dimsOffset)
        }
        var dims: [Int] = []
        var elements = 1
        for d in 0..<Int(dimCount) {
            let dimOffset = cursor.position
            let value = try cursor.read(UInt64.self)
            guard value <= UInt64(Int64.max) else { throw cursor.error(.invalidDimension(index: d, value: value), at: dimOffset) }
            let (product, overflow) = elements.multipliedReportingOverflow(by: Int(value))
            guard !overflow else { throw cursor.error(.overflowingDimensions, at: dimOffset) }
            elements = product
            dims.append(Int(value))
        }
        let typeOffset = cursor.position
        let rawType = try cursor.read(UInt32.self)
        guard let type = GGMLType(rawValue: rawType) else { throw cursor.error(.unknownTensorType(rawType), at: typeOffset) }
        let rowLength = dims.first ?? 1
        guard rowLength % type.blockSize == 0 else {
            throw cursor.error(.rowNotWholeBlocks(rowLength: rowLength, blockSize: type.blockSize, type: type), at: typeOffset)
        }
        let bytes: Int
        if elements == 0 {
            bytes = 0
        } else {
            guard let rowBytes = type.rowByteCount(elements: rowLength) else {
                throw cursor.error(.overflowingDimensions, at: dimsOffset)
            }
            let (total, overflow) = rowBytes.multipliedReportingOverflow(by: elements / rowLength)
            guard !overflow else { throw cursor.error(.overflowingDimensions, at: dimsOffset) }
            bytes = total
        }
        let offsetPosition = cursor.position
        let offset = try cursor.read(UInt64.self)
        guard offset % UInt64(alignment) == 0 else {
            throw cursor.error(.misalignedData(offset: offset, alignment: alignment), at: offsetPosition)
        }
        return RawTensor(name: name, dims: dims, type: type, offset: offset, elements: elements, bytes: bytes, infoOffset: offsetPosition)
    }

    /// Every tensor lies inside the data section and no two overlap.
    private static func checkRanges(_ raw: [RawTensor], dataSize: Int) throws {
        for tensor in raw {
            guard tensor.offset <= UInt64(dataSize), tensor.bytes <= dataSize - Int(tensor.offset) else {
                throw GGUFError(.dataOutOfRange(offset: tensor.offset, size: tensor.bytes, dataSectionSize: dataSize),
                                offset: tensor.infoOffset, context: "tensor '\(tensor.name)'")
            }
        }
        let byStart = raw.filter { $0.bytes > 0 }.sorted { $0.offset < $1.offset }
        if byStart.count > 1 {
            for i in 1..<byStart.count where byStart[i].offset < byStart[i - 1].offset + UInt64(byStart[i - 1].bytes) {
                throw GGUFError(.overlappingTensors(byStart[i - 1].name, byStart[i].name),
                                offset: byStart[i].infoOffset, context: "tensor '\(byStart[i].name)'")
            }
        }
    }

    /// `general.architecture`, when present.
    public var architecture: String? { metadata["general.architecture"]?.stringValue }

    public func tensor(named name: String) -> GGUFTensorInfo? {
        tensorIndex[name].map { tensors[$0] }
    }

    /// The tensor's bytes inside the mapping (validated in range at open).
    /// Valid while this `GGUFFile` is alive.
    public func data(for tensor: GGUFTensorInfo) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage.base + dataOffset + tensor.offset, count: tensor.byteCount)
    }

    /// The named tensor's bytes, or nil when there is no such tensor.
    public func data(named name: String) -> UnsafeRawBufferPointer? {
        tensor(named: name).map(data(for:))
    }

    public var fileSize: Int { storage.count }
}
