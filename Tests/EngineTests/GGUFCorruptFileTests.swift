import GGUF
import XCTest

/// Hand-made corruptions at known places: each must give the specific
/// GGUFError naming what is wrong and where, never a crash.
final class GGUFCorruptFileTests: XCTestCase {
    private func sample() throws -> [UInt8] { try GGUFTestSupport.sampleWriter().serialized() }

    private func expectError(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line,
                             _ check: (GGUFError) -> Void) {
        do {
            _ = try GGUFFile(bytes: bytes)
            XCTFail("expected a GGUFError", file: file, line: line)
        } catch let error as GGUFError {
            check(error)
            XCTAssertFalse(error.description.isEmpty)
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
        }
    }

    private func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for (i, b) in raw.enumerated() { bytes[offset + i] = b }
        }
    }

    /// Offset of the first occurrence of `needle` (a key or tensor name).
    private func find(_ needle: String, in bytes: [UInt8]) -> Int {
        let n = Array(needle.utf8)
        for i in 0...(bytes.count - n.count) where Array(bytes[i..<(i + n.count)]) == n { return i }
        fatalError("\(needle) not found")
    }

    func testEmptyAndShortFiles() {
        expectError([]) { XCTAssertEqual($0.kind, .truncated(needed: 4, available: 0)) }
        expectError(Array("GGUF".utf8)) { error in
            XCTAssertEqual(error.kind, .truncated(needed: 4, available: 0))
            XCTAssertEqual(error.offset, 4)
            XCTAssertEqual(error.context, "header")
        }
    }

    func testBadMagicAndVersion() throws {
        var bytes = try sample()
        bytes[0] = UInt8(ascii: "X")
        expectError(bytes) { error in
            guard case .badMagic = error.kind else { return XCTFail("\(error)") }
            XCTAssertTrue(error.description.contains("not a GGUF file"))
        }
        bytes = try sample()
        put(UInt32(1), at: 4, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .unsupportedVersion(1)) }
        put(UInt32(4), at: 4, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .unsupportedVersion(4)) }
    }

    func testEveryTruncationIsAnError() throws {
        let bytes = try sample()
        let file = try GGUFFile(bytes: bytes)
        // Any cut before the end of the last tensor's data must be reported.
        let end = file.dataOffset + file.tensors.map { $0.offset + $0.byteCount }.max()!
        for length in 0..<end {
            XCTAssertThrowsError(try GGUFFile(bytes: bytes[0..<length]), "length \(length)") { error in
                XCTAssertTrue(error is GGUFError)
            }
        }
    }

    func testHugeCounts() throws {
        var bytes = try sample()
        put(UInt64.max, at: 8, in: &bytes)
        expectError(bytes) { error in
            guard case .oversizedCount(what: "tensor", count: UInt64.max, available: _) = error.kind else { return XCTFail("\(error)") }
            XCTAssertEqual(error.offset, 8)
        }
        bytes = try sample()
        put(UInt64(1) << 40, at: 16, in: &bytes)
        expectError(bytes) { error in
            guard case .oversizedCount(what: "metadata", count: _, available: _) = error.kind else { return XCTFail("\(error)") }
        }
    }

    func testOversizedString() throws {
        var bytes = try sample()
        let key = find("general.name", in: bytes)
        // The value string's length follows the key, its type (u32 = 8).
        let valueLength = key + "general.name".utf8.count + 4
        put(UInt64(1) << 50, at: valueLength, in: &bytes)
        expectError(bytes) { error in
            guard case .oversizedString(length: 1 << 50, available: _) = error.kind else { return XCTFail("\(error)") }
            XCTAssertEqual(error.context, "metadata key 'general.name'")
            XCTAssertEqual(error.offset, valueLength)
        }
    }

    func testUnknownValueType() throws {
        var bytes = try sample()
        let key = find("test.u8", in: bytes)
        put(UInt32(99), at: key + 7, in: &bytes)
        expectError(bytes) { error in
            XCTAssertEqual(error.kind, .unknownValueType(99))
            XCTAssertEqual(error.context, "metadata key 'test.u8'")
        }
    }

    func testOversizedArrayAndDeepNesting() throws {
        var bytes = try sample()
        let key = find("test.ints", in: bytes)
        // key, value type (array), element type, count
        put(UInt64.max / 2, at: key + 9 + 4 + 4, in: &bytes)
        expectError(bytes) { error in
            guard case .oversizedArray = error.kind else { return XCTFail("\(error)") }
        }

        var array = try GGUFArray(elementType: .uint8, values: [.uint8(1)])
        for _ in 0..<12 { array = try GGUFArray(elementType: .array, values: [.array(array)]) }
        var writer = GGUFWriter()
        writer.set("deep", .array(array))
        expectError(try writer.serialized()) { error in
            XCTAssertEqual(error.kind, .nestingTooDeep(limit: 8))
        }
    }

    func testDuplicateKeysAndTensors() throws {
        var bytes = try sample()
        let i16 = find("test.i16", in: bytes)
        bytes[i16 + 5] = UInt8(ascii: "u") // "test.u16" twice
        expectError(bytes) { XCTAssertEqual($0.kind, .duplicateKey("test.u16")) }

        var writer = GGUFWriter()
        try writer.addTensor(name: "aa", dimensions: [1], float32s: [1])
        try writer.addTensor(name: "ab", dimensions: [1], float32s: [2])
        bytes = try writer.serialized()
        let ab = find("ab", in: bytes)
        bytes[ab + 1] = UInt8(ascii: "a")
        expectError(bytes) { XCTAssertEqual($0.kind, .duplicateTensor("aa")) }
    }

    /// Offset of the tensor info fields after `name`.
    private func tensorInfo(_ name: String, in bytes: [UInt8]) -> Int {
        // Tensor names are preceded by their u64 length; search for length+name.
        var pattern: [UInt8] = []
        withUnsafeBytes(of: UInt64(name.utf8.count).littleEndian) { pattern.append(contentsOf: $0) }
        pattern += Array(name.utf8)
        for i in stride(from: bytes.count - pattern.count, through: 0, by: -1)
        where Array(bytes[i..<(i + pattern.count)]) == pattern {
            return i + pattern.count
        }
        fatalError("tensor \(name) not found")
    }

    func testBadDimensionsAndTypes() throws {
        let original = try sample()
        let info = tensorInfo("q8", in: original) // n_dims u32, dims u64 x2, type u32, offset u64
        var bytes = original
        put(UInt32(5), at: info, in: &bytes)
        expectError(bytes) { error in
            XCTAssertEqual(error.kind, .tooManyDimensions(5, limit: 4))
            XCTAssertEqual(error.context, "tensor 'q8'")
        }
        bytes = original
        put(UInt64.max, at: info + 4, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .invalidDimension(index: 0, value: UInt64.max)) }
        bytes = original
        put(UInt64(1) << 40, at: info + 4, in: &bytes)
        put(UInt64(1) << 40, at: info + 12, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .overflowingDimensions) }
        bytes = original
        put(UInt64(1) << 20, at: info + 12, in: &bytes)
        expectError(bytes) { error in
            guard case .dataOutOfRange = error.kind else { return XCTFail("\(error)") }
            XCTAssertEqual(error.context, "tensor 'q8'")
        }
        bytes = original
        put(UInt64(33), at: info + 4, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .rowNotWholeBlocks(rowLength: 33, blockSize: 32, type: .q8_0)) }
        bytes = original
        put(UInt32(4), at: info + 20, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .unknownTensorType(4)) }
        bytes = original
        put(UInt32(1000), at: info + 20, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .unknownTensorType(1000)) }
    }

    func testMisalignedOverlappingAndOutOfRangeData() throws {
        let original = try sample()
        let info = tensorInfo("q8", in: original)
        let offsetField = info + 4 + 16 + 4
        var bytes = original
        put(UInt64(33), at: offsetField, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .misalignedData(offset: 33, alignment: 32)) }
        bytes = original
        put(UInt64(0), at: offsetField, in: &bytes)
        expectError(bytes) { XCTAssertEqual($0.kind, .overlappingTensors("norm", "q8")) }
        bytes = original
        put(UInt64(1) << 62, at: offsetField, in: &bytes)
        expectError(bytes) { error in
            guard case .dataOutOfRange(offset: 1 << 62, size: 68, dataSectionSize: _) = error.kind else { return XCTFail("\(error)") }
        }
    }

    func testBadAlignmentValue() throws {
        var writer = try GGUFTestSupport.sampleWriter()
        writer.set("general.alignment", .uint32(48))
        expectError(try writer.serialized()) { XCTAssertEqual($0.kind, .badAlignment(48)) }
        writer.set("general.alignment", .uint32(0))
        expectError(try writer.serialized()) { XCTAssertEqual($0.kind, .badAlignment(0)) }
        writer.set("general.alignment", .string("32"))
        expectError(try writer.serialized()) { error in
            XCTAssertEqual(error.kind, .wrongValueType(key: "general.alignment", expected: "uint32", found: "string"))
        }
    }

    func testMissingFileAndDirectory() {
        XCTAssertThrowsError(try GGUFFile(path: "/nonexistent/model.gguf")) { error in
            let e = error as? GGUFError
            XCTAssertEqual(e?.path, "/nonexistent/model.gguf")
            XCTAssertTrue("\(error)".contains("/nonexistent/model.gguf"))
        }
        XCTAssertThrowsError(try GGUFFile(path: "/tmp")) { error in
            XCTAssertEqual((error as? GGUFError)?.kind, .cannotOpen(reason: "a directory, not a regular model file"))
        }
    }
}
