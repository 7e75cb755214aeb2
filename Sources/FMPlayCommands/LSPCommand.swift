import ArgumentParser
import Foundation
import FoundationModelsRuntime
import GGUF
import Inference
import ModelDiscovery
import LanguageServer
import PlaygroundEvaluator
import PlaygroundResults
import Tokenizer

/// `fmplay lsp`: the language server over stdin/stdout.
struct LSPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "Run the fmplay language server on stdin/stdout (LSP 3.17).",
        discussion: """
            \(EditorSetupHelp.text)
            Settings (initializationOptions or the `fmplay` section of workspace/didChangeConfiguration):
            \(ServerConfiguration.documentation.map { "  \($0.key): \($0.meaning)" }.joined(separator: "\n"))
            Commands (workspace/executeCommand): \(LanguageServer.commands.joined(separator: ", ")).
            Results also arrive as the `fmplay/results` notification, for clients without inlay hint refresh.
            """
    )

    @Option(name: .customLong("max-message-size"), help: "The largest message accepted, in bytes; larger ones are skipped.")
    var maximumMessageSize = MessageFramer.defaultMaximumMessageSize

    @Flag(name: .customLong("in-process"), help: """
        Evaluate blocks inside the server process instead of the supervised worker process \
        (for benchmarks and debugging: a crash in evaluation then ends the server).
        """)
    var inProcess = false

    func validate() throws {
        if let problem = OptionChecks.integer(maximumMessageSize, "--max-message-size", 1024...(1 << 30)) {
            throw ValidationError(problem + " (bytes)")
        }
    }

    func run() async throws {
        let local = LanguageServerBackend.makeRunner()
        let runner: any PlaygroundRunner
        if inProcess {
            runner = local
        } else {
            // The worker is this executable (`fmplay worker`), with the same environment.
            let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
            runner = WorkerRunner(launch: .init(executable: executable, arguments: ["worker"]), local: local)
        }
        let code = await LanguageServer.serveOnOwnThread(runner: runner, maximumMessageSize: maximumMessageSize)
        throw ExitCode(code)
    }
}

/// Chooses what evaluates blocks for the language server: the
/// `PlaygroundEvaluator` on the model `ModelFactory` makes (the embedded
/// engine by default; `FMPLAY_BACKEND=scripted` selects the deterministic
/// test model), with the result cache `fmplay run` uses.
enum LanguageServerBackend {
    static func makeRunner(environment: [String: String] = ProcessInfo.processInfo.environment) -> any PlaygroundRunner {
        let backendName = environment["FMPLAY_BACKEND"] ?? ModelFactory.Backend.embedded.rawValue
        guard let backend = ModelFactory.Backend(rawValue: backendName) else {
            return UnavailableRunner(reason: "unknown FMPLAY_BACKEND '\(backendName)'; use one of "
                + ModelFactory.Backend.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let models = LoadedModels(backend: backend)
        let cache = ResultCache(directory: ResultCache.defaultDirectory(environment: environment))
        return EvaluatorRunner(
            configuration: { settings in
                var configuration = EvaluationConfiguration(
                    model: try models.model(path: settings.modelPath),
                    serverModel: try ServerModelFactory.make(url: settings.serverURL, model: settings.serverModel,
                                                             apiKeyFile: settings.serverAPIKeyFile, environment: environment),
                    seed: settings.seed ?? GenerationOptions.defaultSeed,
                    maximumResponseTokens: settings.maximumTokens, timeout: settings.timeoutSeconds, cache: cache)
                configuration.limits = .overriding(memoryMB: settings.memoryLimitMB, stringMB: settings.stringLimitMB,
                                                   elements: settings.elementLimit, outputMB: settings.outputLimitMB)
                return configuration
            },
            tokenCounter: { text, settings in models.tokenizer(path: settings.modelPath).map { $0.tokenize(text, addSpecial: false).count } })
    }
}

/// Models and tokenizers loaded once per model path, so the engine keeps its
/// prompt cache from one run to the next.
private final class LoadedModels: @unchecked Sendable {
    private let backend: ModelFactory.Backend
    private let lock = NSLock()
    private var models: [String: (any LanguageModel)?] = [:]
    private var tokenizers: [String: Result<Tokenizer, EvaluatorRunner.TokenizerUnavailable>] = [:]

    init(backend: ModelFactory.Backend) {
        self.backend = backend
    }

    func model(path: String?) throws -> (any LanguageModel)? {
        lock.lock()
        defer { lock.unlock() }
        let key = path ?? ""
        if let model = models[key] { return model }
        let model = try ModelFactory.makeModel(backend: backend, modelPath: path)
        models[key] = model
        return model
    }

    /// The tokenizer of the model the settings select (the same file `model(path:)` loads),
    /// or why there is none. The scripted test model has no tokenizer.
    func tokenizer(path: String?) -> Result<Tokenizer, EvaluatorRunner.TokenizerUnavailable> {
        lock.lock()
        defer { lock.unlock() }
        let key = path ?? ""
        if let tokenizer = tokenizers[key] { return tokenizer }
        let tokenizer: Result<Tokenizer, EvaluatorRunner.TokenizerUnavailable>
        if backend == .scripted {
            tokenizer = .failure(.init("the scripted test model (FMPLAY_BACKEND=scripted) has no tokenizer"))
        } else {
            do {
                let located = try ModelLocator.resolve(explicitPath: path)
                tokenizer = .success(try Tokenizer(gguf: try GGUFFile(path: located.path)))
            } catch {
                tokenizer = .failure(.init("\(error)"))
            }
        }
        tokenizers[key] = tokenizer
        return tokenizer
    }
}
