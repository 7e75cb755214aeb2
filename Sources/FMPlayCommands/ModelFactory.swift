import Foundation
import FoundationModelsRuntime
import Inference
import ModelDiscovery

/// Chooses the `LanguageModel` behind `SystemLanguageModel.default` for
/// `fmplay run` (and later the language server).
///
/// Backends: `embedded` (the default: a GGUF file, found by `ModelLocator`,
/// run by the pure-Swift engine) and `scripted` (the deterministic test
/// model; hidden option `--backend scripted` or `FMPLAY_BACKEND=scripted`,
/// used by golden tests and benchmarks of the evaluator itself).
public enum ModelFactory {
    public enum Backend: String, CaseIterable, Sendable {
        case embedded, scripted
    }

    /// Makes the model for a backend. Returns nil when the default model is
    /// not installed (then `SystemLanguageModel.default` reads
    /// `.unavailable(.modelNotReady)`); throws when `--model`/`FMPLAY_MODEL`
    /// names a file that does not exist or cannot be loaded.
    public static func makeModel(backend: Backend, modelPath explicit: String?,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (any LanguageModel)? {
        switch backend {
        case .scripted:
            return ScriptedLanguageModel()
        case .embedded:
            if explicit == nil, environment["FMPLAY_MODEL"]?.isEmpty ?? true,
               ModelLocator.defaultModelPath(environment: environment) == nil {
                return nil
            }
            let located = try ModelLocator.resolve(explicitPath: explicit, environment: environment)
            // Loaded on first use: a run served from the cache never reads the weights.
            let path = located.path
            return DeferredLanguageModel(name: located.name, identity: fileIdentity(path) + "|engine " + engineIdentity) {
                try makeEmbeddedModel(path: path)
            }
        }
    }
}

extension ModelFactory {
    /// The build of the engine that runs the weights (this executable's size
    /// and modification time): results depend on its numerics, prompt
    /// rendering and decoding too, so a rebuilt fmplay recomputes them while
    /// runs of the same binary (and its language server) share the cache.
    static let engineIdentity: String = {
        guard let executable = Bundle.main.executablePath else { return "unknown" }
        let attributes = (try? FileManager.default.attributesOfItem(atPath: executable)) ?? [:]
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(size)#\(Int(modified))"
    }()

    /// Path, size and modification time: changes whenever the weights do.
    static func fileIdentity(_ path: String) -> String {
        let attributes = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(path)#\(size)#\(Int(modified))"
    }
}

public enum ModelFactoryError: Error, CustomStringConvertible {
    case engineUnavailable(String)

    public var description: String {
        switch self {
        case .engineUnavailable(let why): why
        }
    }
}
