import GGUF
import Inference
import XCTest

/// The engine's forward pass against `ReferenceTransformer` on tiny
/// seeded-random models that the tests write as GGUF files, for every
/// architecture and weight type.
///
/// Tolerance: |engine - reference| <= tolerance * (1 + max |reference logit|)
/// per logit, where tolerance is 1e-3 for float weights (F32 accumulation
/// order differs from the Double reference) and 0.03 for block-quantized
/// weights (the kernels quantize activations to 8 bits, as llama.cpp does;
/// the reference multiplies the dequantized weights with F32 activations).
final class InferenceTinyModelTests: XCTestCase {
    static let architectures = ["llama", "qwen2", "qwen3", "gemma3"]
    static let tokens: [Int32] = [3, 17, 5, 88, 42, 9, 61, 0, 33, 70, 12]

    func check(architecture: String, type: GGMLType, tolerance: Float, file: StaticString = #filePath, line: UInt = #line) throws {
        let tiny = try TinyModel(spec: .forType(architecture, type),
                                 encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
        let expected = ReferenceTransformer(tiny).logits(Self.tokens)
        let model = try tiny.load()
        let label = "\(architecture) \(type)"

        // Both KV cache types: F32 (plain softmax) and F16 (ggml's flash-attention numerics,
        // whose F16 rounding stays well inside these tolerances on the tiny models).
        for cacheType in KVCacheType.allCases {
            // Batched prompt processing in chunks of 4 tokens: last position's logits.
            let batched = model.makeSession(contextSize: 32, maxBatch: 4, cacheType: cacheType)
            try batched.prefill(Self.tokens)
            assertClose(try batched.logits, expected.last!, tolerance: tolerance, "\(label) \(cacheType) batched", file: file, line: line)

            // Token-by-token decoding: every position's logits.
            let decoding = model.makeSession(contextSize: 32, maxBatch: 1, cacheType: cacheType)
            for (position, token) in Self.tokens.enumerated() {
                try decoding.evaluate([token])
                assertClose(try decoding.logits, expected[position], tolerance: tolerance,
                            "\(label) \(cacheType) position \(position)", file: file, line: line)
            }
        }
    }

    /// Batches of 64 or more tokens take the F32 tile path of llama.cpp's flash attention
    /// over the F16 cache (shorter ones the F16-accumulator path): both stay within the
    /// float tolerance of the reference, for every position of a 70-token prompt.
    func testLongBatchesOverHalfCacheMatchReference() throws {
        let tokens: [Int32] = (0..<70).map { Int32(($0 * 37 + 11) % 96) }
        for architecture in ["llama", "gemma3"] {
            let tiny = try TinyModel(spec: .forType(architecture, .f32),
                                     encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
            let expected = ReferenceTransformer(tiny).logits(tokens)
            let model = try tiny.load()
            for maxBatch in [70, 64, 8] {
                let session = model.makeSession(contextSize: 80, maxBatch: maxBatch, cacheType: .f16)
                try session.prefill(tokens)
                assertClose(try session.logits, expected.last!, tolerance: 1e-3, "\(architecture) F16 cache, batches of \(maxBatch)")
            }
        }
    }

    func assertClose(_ actual: [Float], _ expected: [Float], tolerance: Float, _ label: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.count, expected.count, label, file: file, line: line)
        let bound = tolerance * (1 + expected.map(abs).max()!)
        var worst: (index: Int, difference: Float) = (0, 0)
        for i in expected.indices where abs(actual[i] - expected[i]) > worst.difference {
            worst = (i, abs(actual[i] - expected[i]))
        }
        XCTAssertLessThanOrEqual(worst.difference, bound,
                                 "\(label): logit \(worst.index) is \(actual[worst.index]), reference \(expected[worst.index])",
                                 file: file, line: line)
    }

    func testFloatWeightsMatchReference() throws {
        for architecture in Self.architectures {
            for type in [GGMLType.f32, .f16, .bf16] {
                try check(architecture: architecture, type: type, tolerance: 1e-3)
            }
        }
    }

    func testQuantizedWeightsMatchReference() throws {
        for architecture in Self.architectures {
            for type in [GGMLType.q8_0, .q4_0, .q4_1, .q5_0, .q5_1, .q4_K, .q5_K, .q6_K] {
                try check(architecture: architecture, type: type, tolerance: 0.03)
            }
        }
    }

    func testUnknownArchitectureIsAClearError() throws {
        var spec = TinyModelSpec.forType("llama", .f32)
        spec.architecture = "mamba"
        let tiny = try TinyModel(spec: spec, encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
        XCTAssertThrowsError(try tiny.load()) { error in
            XCTAssertEqual(error as? InferenceError, .unsupportedArchitecture("mamba", path: "<tiny mamba F32>"))
            XCTAssertTrue("\(error)".contains("supported: llama"), "\(error)")
        }
    }

    func testMissingTensorIsAClearError() throws {
        let tiny = try TinyModel(spec: .forType("qwen2", .f32), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
        // Rewrite the file without one bias tensor.
        let original = try GGUFFile(bytes: tiny.file)
        var writer = GGUFWriter()
        for entry in original.metadata.entries { writer.set(entry.key, entry.value) }
        for info in original.tensors where info.name != "blk.1.attn_k.bias" {
            try writer.addTensor(name: info.name, type: info.type, dimensions: info.dimensions, data: Array(original.data(for: info)))
        }
        XCTAssertThrowsError(try InferenceModel(file: try GGUFFile(bytes: try writer.serialized()), path: "tiny.gguf")) { error in
            XCTAssertEqual(error as? InferenceError, .missingTensor(name: "blk.1.attn_k.bias", path: "tiny.gguf"))
        }
    }

    /// Crafted header sizes (2^31 layers, a 2^31 embedding length, ...) are refused, naming the key,
    /// before anything is allocated by them.
    func testCraftedHeaderSizesAreRefusedBeforeAllocating() throws {
        let tiny = try TinyModel(spec: .forType("llama", .f32), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
        let original = try GGUFFile(bytes: tiny.file)
        let cases: [(key: String, value: UInt32)] = [
            ("llama.block_count", 1 << 31), ("llama.block_count", 1000), ("llama.embedding_length", 1 << 31),
            ("llama.embedding_length", 32), ("llama.feed_forward_length", 1 << 31), ("llama.context_length", 1 << 31),
            ("llama.attention.head_count", 1 << 31), ("llama.attention.key_length", 1 << 31),
        ]
        for (key, value) in cases {
            var writer = GGUFWriter()
            for entry in original.metadata.entries where entry.key != key { writer.set(entry.key, entry.value) }
            writer.set(key, uint32: value)
            for info in original.tensors {
                try writer.addTensor(name: info.name, type: info.type, dimensions: info.dimensions, data: Array(original.data(for: info)))
            }
            XCTAssertThrowsError(try InferenceModel(file: try GGUFFile(bytes: try writer.serialized()), path: "crafted.gguf"), "\(key) = \(value)") { error in
                guard case .invalidMetadata(let named, _, let path)? = error as? InferenceError else { return XCTFail("\(key): \(error)") }
                XCTAssertEqual(path, "crafted.gguf")
                XCTAssertTrue(named.hasPrefix("llama."), "\(key): \(error)")
            }
        }
    }

    /// A FIFO (or a directory) as the model path is refused at once instead of waiting for a writer.
    func testPathsThatAreNotRegularFilesAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-fifo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/model.gguf"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try GGUFFile(path: fifo)) { XCTAssertTrue("\($0)".contains("a FIFO, not a regular model file"), "\($0)") }
        XCTAssertThrowsError(try GGUFFile(path: directory)) { XCTAssertTrue("\($0)".contains("a directory"), "\($0)") }
    }

    func testInvalidTokenAndFullContextAreErrors() throws {
        let tiny = try TinyModel(spec: .forType("llama", .f32), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
        let session = try tiny.load().makeSession(contextSize: 4)
        XCTAssertThrowsError(try session.evaluate([96])) { XCTAssertEqual($0 as? InferenceError, .invalidToken(96, vocabularySize: 96)) }
        XCTAssertThrowsError(try session.evaluate([1, 2, 3, 4, 5])) { XCTAssertEqual($0 as? InferenceError, .contextFull(capacity: 4, requested: 5)) }
        XCTAssertThrowsError(try session.logits) { XCTAssertEqual($0 as? InferenceError, .noLogits) }
        XCTAssertEqual(session.count, 0, "a failed evaluation leaves the cache unchanged")
    }
}

/// The GGUF header fuzzer for model loading: every hyperparameter of a tiny model (block count,
/// lengths, head counts, context, epsilon, RoPE base) replaced by edge values, alone and several
/// at once. Loading must succeed or throw an `InferenceError` naming a key or tensor: never trap,
/// never try an allocation sized by a crafted value. `GGUF_FUZZ_ITERATIONS` raises the count.
final class ModelHeaderFuzzTests: XCTestCase {
    static let edgeValues: [UInt32] = [0, 1, 2, 3, 4, 7, 16, 63, 64, 65, 96, 255, 4096, 65_535, 1 << 20, 1 << 24, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF]

    func testHyperparameterMutationsNeverTrap() throws {
        for architecture in ["llama", "gemma3"] {
            let tiny = try TinyModel(spec: .forType(architecture, .f32), encode: TinyModelEncoding.encode, decode: TinyModelEncoding.decode)
            let original = try GGUFFile(bytes: tiny.file)
            let keys = original.metadata.entries.map(\.key).filter { $0.hasPrefix(architecture + ".") }
            var rng = SeededGenerator(seed: 2026)
            let iterations = ProcessInfo.processInfo.environment["GGUF_FUZZ_ITERATIONS"].flatMap(Int.init).map { $0 / 50 } ?? 120
            for iteration in 0..<iterations {
                // One key through every edge value first, then random combinations.
                var replaced: [String: GGUFValue] = [:]
                if iteration < keys.count * 2 {
                    let key = keys[iteration % keys.count]
                    replaced[key] = iteration < keys.count ? .uint32(Self.edgeValues.randomElement(using: &rng)!) : .float32(.nan)
                } else {
                    for _ in 0..<Int.random(in: 1...4, using: &rng) {
                        let key = keys.randomElement(using: &rng)!
                        replaced[key] = Bool.random(using: &rng) ? .uint32(Self.edgeValues.randomElement(using: &rng)!)
                            : .float32([Float.nan, .infinity, -1, 0, 1e-30, 3e38].randomElement(using: &rng)!)
                    }
                }
                var writer = GGUFWriter()
                for entry in original.metadata.entries { writer.set(entry.key, replaced[entry.key] ?? entry.value) }
                for info in original.tensors {
                    try writer.addTensor(name: info.name, type: info.type, dimensions: info.dimensions, data: Array(original.data(for: info)))
                }
                do {
                    let model = try InferenceModel(file: try GGUFFile(bytes: try writer.serialized()), path: "fuzz.gguf")
                    // A model that loads must also run a token (its sizes were consistent).
                    let session = model.makeSession(contextSize: 8, threads: 1)
                    _ = try? session.evaluate([1])
                } catch let error as InferenceError {
                    XCTAssertTrue("\(error)".contains("fuzz.gguf"), "\(replaced): \(error)")
                } catch {
                    XCTAssertTrue(error is GGUFError, "\(replaced): \(error)")
                }
            }
        }
    }
}
