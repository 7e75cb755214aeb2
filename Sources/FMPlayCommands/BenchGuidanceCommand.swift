import ArgumentParser
import EmbeddedModel
import Foundation
import FoundationModelsRuntime
import GGUF
import Guidance
import Inference
import Schema
import Tokenizer

/// `fmplay bench-guidance`: guided-generation overhead with a real vocabulary
/// on the three reference workloads, next to the anchors in
/// reference/constrained-decoding (xgrammar, llguidance, outlines-core).
struct BenchGuidanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-guidance",
        abstract: "Measure vocabulary index, grammar compile and per-token mask times on the reference schemas.")

    @Option(help: "The GGUF model whose vocabulary to use (default: the installed SmolLM2-135M-Instruct).")
    var model: String?

    @Option(help: "Runs per measurement; the median run is reported.")
    var runs: Int = 5

    @Flag(help: "Also generate with the model: guided vs free tokens/s on the same prompt, and mask time per step.")
    var generate = false

    @Option(help: ArgumentHelp("Only compile the reference schemas this many times (for profilers).", visibility: .hidden))
    var compileOnly: Int?

    @Option(help: ArgumentHelp("With --compile-only: only this workload.", visibility: .hidden))
    var workload: String?

    @Flag(help: ArgumentHelp("With --compile-only: clear the byte-machine cache before each compile.", visibility: .hidden))
    var cold = false

    func run() async throws {
        if let compileOnly {
            let selected = GuidanceBenchmark.workloads.filter { workload == nil || $0.name == workload }
            for _ in 0..<compileOnly {
                for workload in selected {
                    if cold { GuidanceBenchmark.clearCompileCaches() }
                    _ = try workload.compile()
                }
            }
            return
        }
        let path: String
        do { path = try ModelLocator.resolve(explicitPath: model).path } catch { throw ValidationError("\(error)") }
        let tokenizer = try Tokenizer(gguf: try GGUFFile(path: path))
        let tokens = tokenizer.allTokenBytes()
        var special = Set<Int>()
        for id in 0..<tokenizer.vocabularySize where tokenizer.isControl(TokenID(id)) { special.insert(id) }
        let endings = tokenizer.endOfGenerationIDs.map { Int($0) }.sorted()

        var indexTimes: [Double] = []
        var vocabulary: VocabularyIndex!
        for _ in 0..<max(1, runs) {
            let start = GuidanceBenchmark.cpuMicroseconds()
            vocabulary = VocabularyIndex(tokens: tokens, specialTokens: special.union(endings), endOfSequence: endings)
            indexTimes.append((GuidanceBenchmark.cpuMicroseconds() - start) / 1000)
        }
        let tokenize: ([UInt8]) -> [Int] = { bytes in
            tokenizer.tokenize(bytes: bytes, addSpecial: false, parseSpecial: false).map(Int.init)
        }
        print("vocabulary: \(tokens.count) tokens (\(URL(fileURLWithPath: path).lastPathComponent)); thread CPU time, median of \(runs) runs")
        print(String(format: "vocabulary index: %.1f ms (anchor: at most 20 ms; xgrammar 22, llguidance 119)", indexTimes.sorted()[indexTimes.count / 2]))
        print("")
        print("| schema (steps) | compile (ms) | cold compile (ms) | mask median / p99 / max (µs) | first mask (µs) | advance (µs) | forced tokens |")
        print("|---|---:|---:|---|---:|---:|---:|")
        for workload in GuidanceBenchmark.workloads {
            let result = try GuidanceBenchmark.measure(workload, vocabulary: vocabulary, runs: runs, tokenize: tokenize)
            print(String(format: "| %@ (%d) | %.2f | %.2f | %.1f / %.1f / %.1f | %.1f | %.2f | %d |",
                         result.name, result.steps, result.compileMilliseconds, result.coldCompileMilliseconds, result.maskMedian, result.maskP99,
                         result.maskMax, result.firstMask, result.advanceMedian, result.forcedTokens))
        }
        print("")
        print("compile: byte-only machines (numbers, patterns, enum names) cached in the process; cold: that cache cleared first")
        print("targets: compile <= 1 ms, mask median <= 5 µs, p99 <= 50 µs; hard limit 5% of a ~6.8 ms decode step = 340 µs")
        if generate { try await compareGeneration(path: path) }
    }

    /// The same prompt free and guided (itinerary schema), greedy, on the embedded model.
    private func compareGeneration(path: String) async throws {
        let model = try EmbeddedLanguageModel(path: path)
        let transcript = Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Plan a five-day trip to Kyoto."))]))])
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 160)
        print("")
        print("| run | response tokens | tokens/s | time to first token (s) |")
        print("|---|---:|---:|---:|")
        for (label, schema) in [("free text", nil), ("guided (itinerary)", GuidanceBenchmark.itinerary)] as [(String, GenerationSchema?)] {
            for _ in 0..<2 {  // the second run has the prompt cached
                var statistics = GenerationStatistics()
                for try await event in model.generate(GenerationRequest(transcript: transcript, schema: schema, options: options)) {
                    if case .finished(let finished) = event { statistics = finished }
                }
                print(String(format: "| %@ | %d | %.1f | %.3f |", label, statistics.usage.responseTokens,
                             statistics.tokensPerSecond, statistics.timeToFirstToken))
            }
        }
    }
}
