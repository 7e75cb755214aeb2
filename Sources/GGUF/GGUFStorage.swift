#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of a GGUF file: a read-only memory mapping of the file, or an
/// owned copy of in-memory bytes. Immutable after creation, so it is safe to
/// share between threads. Pointers into it stay valid while it is alive.
public final class GGUFStorage: @unchecked Sendable {
    public let base: UnsafeRawPointer
    public let count: Int
    /// Whether the bytes are a mapping of the file (`releasePages` then frees memory), not an owned copy.
    public let isMapped: Bool

    /// Maps `path` read-only.
    public init(mapping path: String) throws {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below as not a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw GGUFError(.cannotOpen(reason: String(cString: strerror(errno))), path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw GGUFError(.cannotOpen(reason: String(cString: strerror(errno))), path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let kind = switch info.st_mode & S_IFMT {
            case S_IFIFO: "a FIFO"
            case S_IFDIR: "a directory"
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
            throw GGUFError(.cannotOpen(reason: "\(kind), not a regular model file"), path: path)
        }
        let size = Int(info.st_size)
        guard size > 0 else {
            throw GGUFError(.truncated(needed: 4, available: 0), offset: 0, context: "header", path: path)
        }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let address, address != MAP_FAILED else {
            throw GGUFError(.cannotOpen(reason: "mmap failed: \(String(cString: strerror(errno)))"), path: path)
        }
        base = UnsafeRawPointer(address)
        count = size
        isMapped = true
    }

    /// Copies `bytes` into owned memory.
    public init(bytes: some Collection<UInt8>) {
        let size = max(bytes.count, 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        let typed = UnsafeMutableRawBufferPointer(start: buffer, count: size)
        typed.copyBytes(from: bytes)
        base = UnsafeRawPointer(buffer)
        count = bytes.count
        isMapped = false
    }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Drops the mapped pages that lie wholly inside `start ..< start + count` from this
    /// process's resident memory (`madvise(MADV_DONTNEED)`); they stay valid and are read
    /// from the file again if touched. For a loader that has copied those bytes elsewhere.
    /// Does nothing for an owned copy.
    public func releasePages(_ start: UnsafeRawPointer, count: Int) {
        guard isMapped, count > 0 else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let lower = max(Int(bitPattern: start), Int(bitPattern: base))
        let upper = min(Int(bitPattern: start) + count, Int(bitPattern: base) + self.count)
        let first = (lower + page - 1) / page * page, end = upper / page * page
        guard end > first else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_DONTNEED)
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            base.deallocate()
        }
    }
}

/// A bounds-checked little-endian reader over a storage range. Every read
/// checks the remaining length first and throws `.truncated` instead of
/// reading past the end.
struct GGUFCursor {
    let storage: GGUFStorage
    var position: Int
    let end: Int
    var context: String? = nil

    static let maximumNesting = 8

    init(storage: GGUFStorage, position: Int = 0, end: Int? = nil) {
        self.storage = storage
        self.position = position
        self.end = end ?? storage.count
    }

    var remaining: Int { end - position }

    func error(_ kind: GGUFError.Kind, at offset: Int? = nil) -> GGUFError {
        GGUFError(kind, offset: offset ?? position, context: context)
    }

    mutating func need(_ n: Int) throws {
        guard n <= remaining else { throw error(.truncated(needed: n, available: remaining)) }
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try need(MemoryLayout<T>.size)
        let value = storage.base.loadUnaligned(fromByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
        return T(littleEndian: value)
    }

    /// Reads a u64 length and checks that that many bytes remain.
    mutating func readStringBytes() throws -> UnsafeRawBufferPointer {
        let start = position
        let length = try read(UInt64.self)
        guard length <= UInt64(remaining) else {
            throw error(.oversizedString(length: length, available: remaining), at: start)
        }
        let bytes = UnsafeRawBufferPointer(start: storage.base + position, count: Int(length))
        position += Int(length)
        return bytes
    }

    mutating func readString() throws -> String {
        String(decoding: try readStringBytes(), as: UTF8.self)
    }

    mutating func readValueType() throws -> GGUFValueType {
        let start = position
        let raw = try read(UInt32.self)
        guard let type = GGUFValueType(rawValue: raw) else { throw error(.unknownValueType(raw), at: start) }
        return type
    }

    mutating func readValue(type: GGUFValueType, depth: Int) throws -> GGUFValue {
        switch type {
        case .uint8: return .uint8(try read(UInt8.self))
        case .int8: return .int8(try read(Int8.self))
        case .uint16: return .uint16(try read(UInt16.self))
        case .int16: return .int16(try read(Int16.self))
        case .uint32: return .uint32(try read(UInt32.self))
        case .int32: return .int32(try read(Int32.self))
        case .float32: return .float32(Float(bitPattern: try read(UInt32.self)))
        case .bool: return .bool(try read(UInt8.self) != 0)
        case .string: return .string(try readString())
        case .uint64: return .uint64(try read(UInt64.self))
        case .int64: return .int64(try read(Int64.self))
        case .float64: return .float64(Double(bitPattern: try read(UInt64.self)))
        case .array: return .array(try readArray(depth: depth))
        }
    }

    /// Reads an array header, walks (and so validates) its elements, and
    /// returns a lazy view of them.
    mutating func readArray(depth: Int) throws -> GGUFArray {
        guard depth < Self.maximumNesting else { throw error(.nestingTooDeep(limit: Self.maximumNesting)) }
        let elementType = try readValueType()
        let countOffset = position
        let rawCount = try read(UInt64.self)
        // Every element takes at least one byte (strings and arrays at least 8+),
        // so a count above the remaining bytes is corrupt; this also bounds memory.
        let minimumElementSize = elementType.fixedSize ?? (elementType == .string ? 8 : 12)
        guard rawCount <= UInt64(remaining / minimumElementSize) else {
            throw error(.oversizedArray(count: rawCount, available: remaining), at: countOffset)
        }
        let count = Int(rawCount)
        let start = position
        if let size = elementType.fixedSize {
            position += size * count
        } else if elementType == .string {
            for _ in 0..<count { _ = try readStringBytes() }
        } else {
            for _ in 0..<count { _ = try readArray(depth: depth + 1) }
        }
        return GGUFArray(mapped: storage, elementType: elementType, count: count, offset: start, byteCount: position - start)
    }
}
