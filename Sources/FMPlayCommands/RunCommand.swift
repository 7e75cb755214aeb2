import ArgumentParser
import Evaluations
import Foundation
import Inference
import ModelDiscovery
import FoundationModelsRuntime
import JSON
import PlaygroundEvaluator
import PlaygroundResults

/// `fmplay run PATH...`: evaluates `#Playground` blocks headlessly.
/// Exit codes: 0 everything ran, 1 a block failed, 2 usage or I/O problems.
public struct RunCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Evaluate the #Playground blocks of prompt files.",
        discussion: """
            Each block runs in order on the configured model; results are cached by content in \
            $XDG_CACHE_HOME/fmplay (or ~/.cache/fmplay). Exit status: 0 when every block ran, 1 when a \
            block failed, 2 for usage or I/O problems.
            """)

    public enum Format: String, ExpressibleByArgument, CaseIterable, Sendable { case text, json, jsonl, junit, html }

    @Argument(help: "Prompt files (*.fmplay) or directories to search for them.")
    var paths: [String]

    @OptionGroup(title: "Run options (also taken by fmplay report)")
    var options: RunOptions

    @Option(help: "Run only the block containing this 1-based line.")
    var line: Int?

    @Option(help: "Output format: text, json, jsonl, junit or html (the page of `fmplay report`).")
    var format: Format = .text

    @Option(help: "Record each block's outputs and metrics in this directory; on the next run, show what changed (text diff, metric deltas).")
    var baseline: String?

    @Option(name: .customLong("min-pass-rate"), help: "Exit 1 when a block's pass rate is below this (0...1): the share of passed evaluation metrics, else of runs without error.")
    var minPassRate: Double?

    /// A small model may never emit its end token; without a limit it would
    /// generate until the context is full (minutes on the default model).
    static let defaultMaximumTokens = 512

    @Option(name: .customLong("memory-limit"), help: "Megabytes of memory a block may add while it runs (default 1024).")
    var memoryLimit: Int?

    @Option(name: .customLong("string-limit"), help: "Megabytes of one string value (default 16).")
    var stringLimit: Int?

    @Option(name: .customLong("element-limit"), help: "Elements of one array or dictionary (default 1000000).")
    var elementLimit: Int?

    @Option(name: .customLong("output-limit"), help: "Megabytes a block may print (default 16; also 10000 results x this/16).")
    var outputLimit: Int?

    @Flag(name: .shortAndLong, help: "Show how each answer came about: the prompt as the model read it (chat template applied), the stop reason, tool calls and token counts.")
    var verbose = false

    @Option(help: ArgumentHelp("The OpenAI-compatible endpoint serving PrivateCloudComputeLanguageModel (default: $FMPLAY_SERVER_URL).",
                               discussion: "For example http://127.0.0.1:8080/v1. $FMPLAY_SERVER_MODEL names the model; the API key comes "
                                   + "from $FMPLAY_SERVER_API_KEY or the file $FMPLAY_SERVER_API_KEY_FILE, never from the command line.",
                               valueName: "url"))
    var server: String?

    @Option(help: "How many blocks run at once (default 1). Output is printed in file and block order whatever the value.")
    var jobs: Int = 1

    @Option(help: .hidden)
    var backend: String?

    public init() {}

    public func run() async throws {
        let (block, model, temperature, maxTokens, timeout, noCache) =
            (options.block, options.model, options.temperature, options.maxTokens, options.timeout, options.noCache)
        let seed = options.seed ?? GenerationOptions.defaultSeed
        let environment = ProcessInfo.processInfo.environment
        let backend = try checkedBackend(environment)
        try checkOptions()
        let files: [String]
        do { files = try PromptFiles.expand(paths) } catch { throw usage("\(error)") }
        let models = try loadModels(model, backend: backend)
        let serverModel: PrivateCloudComputeLanguageModel
        do { serverModel = try ServerModelFactory.make(url: server) } catch { throw usage("\(error)") }

        let selection: PlaygroundEvaluator.Selection = block.map { .named($0) } ?? line.map { .line($0) } ?? .all
        // Each file is read and analysed once; every model, seed and block below runs over that analysis.
        let inputs = files.map { path in PromptFileLoading.loadAndAnalyse(path).mapError { RunInputError(problem: $0) } }
        let printer = RunPrinter(format: format, isTerminal: isatty(STDOUT_FILENO) == 1 && format == .text, verbose: verbose)
        let seeds = RunSampling.seeds(base: seed, count: options.samples ?? 1)
        let several = models.count > 1 || seeds.count > 1

        var runs: [RunSampling.Run] = []
        for (label, languageModel) in models {
            for (index, runSeed) in seeds.enumerated() {
                if several { printer.runStarted(model: label, sample: index + 1, of: seeds.count, seed: runSeed) }
                var configuration = EvaluationConfiguration(
                    model: languageModel, serverModel: serverModel, seed: runSeed, temperature: temperature,
                    maximumResponseTokens: maxTokens ?? Self.defaultMaximumTokens,
                    timeout: timeout, cache: noCache ? nil : ResultCache(directory: ResultCache.defaultDirectory(environment: environment)))
                configuration.limits = limits
                let evaluator = PlaygroundEvaluator(configuration: configuration)
                let results: [FileResult]
                if jobs > 1 {
                    results = await RunScheduler(evaluator: evaluator, selection: selection, jobs: jobs).run(inputs, printer: printer)
                } else {
                    results = await runInOrder(inputs, evaluator: evaluator, selection: selection, printer: printer)
                }
                runs.append(RunSampling.Run(model: label, seed: runSeed, files: results))
            }
        }
        let summaries = RunSampling.summarize(runs)
        var baselineEntries: [BaselineStore.Entry]?
        if let baseline {
            do { baselineEntries = try BaselineStore(directory: baseline).compareAndRecord(runs, modelCount: models.count) }
            catch { throw usage("cannot record the baseline in \(baseline): \(error)") }
        }
        printer.finish(runs, summaries: several || minPassRate != nil ? summaries : nil, models: models.map(\.label), samples: seeds.count,
                       baseline: baselineEntries)
        try checkExitStatus(runs.flatMap(\.files), summaries: summaries)
    }

    /// `--backend` / `$FMPLAY_BACKEND` (hidden; the embedded engine by default).
    private func checkedBackend(_ environment: [String: String]) throws -> ModelFactory.Backend {
        let backendName = backend ?? environment["FMPLAY_BACKEND"] ?? ModelFactory.Backend.embedded.rawValue
        guard let backend = ModelFactory.Backend(rawValue: backendName) else {
            throw usage("unknown backend '\(backendName)'; use one of \(ModelFactory.Backend.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return backend
    }

    /// Every numeric option in range and no contradicting pair, before anything runs.
    private func checkOptions() throws {
        if options.block != nil, line != nil { throw usage("use either --block or --line, not both") }
        if let problem = OptionChecks.timeout(options.timeout) ?? OptionChecks.temperature(options.temperature)
            ?? OptionChecks.integer(options.maxTokens, "--max-tokens", 1...OptionChecks.maximumTokens) ?? OptionChecks.integer(line, "--line", 1...Int(Int32.max))
            ?? OptionChecks.integer(memoryLimit, "--memory-limit", 1...(1 << 20)) ?? OptionChecks.integer(stringLimit, "--string-limit", 1...4096)
            ?? OptionChecks.integer(elementLimit, "--element-limit", 1...(1 << 30)) ?? OptionChecks.integer(outputLimit, "--output-limit", 1...4096)
        {
            throw usage(problem)
        }
        if jobs < 1 || jobs > 64 { throw usage("--jobs must be from 1 to 64") }
        if (options.samples ?? 1) < 1 { throw usage("--samples must be at least 1") }
        if let minPassRate, !(0...1).contains(minPassRate) { throw usage("--min-pass-rate must be between 0 and 1 (for example 0.8)") }
    }

    /// One model per `--model` (the default model when none), labelled by file name; warns up front about
    /// a base model or a file without a chat template, which rarely answer prompts usefully.
    private func loadModels(_ paths: [String], backend: ModelFactory.Backend) throws -> [(label: String, model: (any LanguageModel)?)] {
        var models: [(label: String, model: (any LanguageModel)?)] = []
        for path in paths.isEmpty ? [nil] : paths.map(Optional.some) {
            do { models.append((path.map { ($0 as NSString).lastPathComponent } ?? "default", try ModelFactory.makeModel(backend: backend, modelPath: path))) }
            catch { throw usage("\(error)") }
            if backend == .embedded, models.last?.model != nil, let located = try? ModelLocator.resolve(explicitPath: path),
               let summary = try? ModelSummary(located) {
                for warning in summary.warnings {
                    FileHandle.standardError.write(Data("fmplay run: warning: \(summary.name): \(warning)\n".utf8))
                }
            }
        }
        return models
    }

    /// The exit status: 2 for an unreadable file, a usage error when the selection matched nothing, 1 when a
    /// pass rate is below `--min-pass-rate` (with it) or a block failed (without it).
    private func checkExitStatus(_ results: [FileResult], summaries: [RunSampling.BlockSummary]) throws {
        if results.contains(where: { $0.error != nil }) { throw ExitCode(2) }
        if (options.block != nil || line != nil), results.allSatisfy({ $0.blocks.isEmpty }) {
            throw usage("no block matches \(options.block.map { "--block \($0)" } ?? "--line \(line!)")")
        }
        if let minPassRate {
            let below = summaries.filter { $0.passRate < minPassRate }
            for summary in below {
                FileHandle.standardError.write(Data("fmplay run: \(summary.path) \(summary.block) [\(summary.model)]: pass rate \(percent(summary.passRate)) is below --min-pass-rate \(percent(minPassRate))\n".utf8))
            }
            if !below.isEmpty { throw ExitCode(1) }
            return
        }
        if !results.allSatisfy(\.succeeded) { throw ExitCode(1) }
    }

    /// One block after the other, printing as results arrive.
    private func runInOrder(_ inputs: [Result<AnalysedPromptFile, RunInputError>], evaluator: PlaygroundEvaluator,
                            selection: PlaygroundEvaluator.Selection, printer: RunPrinter) async -> [FileResult] {
        var results: [FileResult] = []
        for input in inputs {
            switch input {
            case .failure(let error):
                printer.fileFailed(error.result)
                results.append(error.result)
            case .success(let file):
                printer.fileStarted(file.path, source: file.analysis.file.source)
                results.append(await evaluator.evaluate(analysis: file.analysis, path: file.path, selection: selection) { printer.handle($0) })
            }
        }
        return results
    }

    /// `EvaluationLimits` with the options given.
    var limits: EvaluationLimits {
        .overriding(memoryMB: memoryLimit, stringMB: stringLimit, elements: elementLimit, outputMB: outputLimit)
    }

    func usage(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("fmplay run: \(message)\n".utf8))
        return ExitCode(2)
    }
}

/// A file `fmplay run` could not read (missing, binary, not UTF-8, too large): reported as that file's result.
struct RunInputError: Error {
    var problem: InputProblem

    var result: FileResult {
        FileResult(path: problem.path, blocks: [], error: (problem.position.map { "line \($0.line), column \($0.column): " } ?? "") + problem.message)
    }
}

/// Finds prompt files under the given paths.
enum PromptFiles {
    struct NotFound: Error, CustomStringConvertible {
        var path: String
        var description: String { "no such file or directory: \(path)" }
    }

    static func expand(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw NotFound(path: path) }
            if isDirectory.boolValue {
                let base = path.hasSuffix("/") ? String(path.dropLast()) : path
                let found = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
                    .filter { $0.hasSuffix(".fmplay") }.sorted().map { base + "/" + $0 }
                files += found
            } else {
                files.append(path)
            }
        }
        return files
    }
}
