import ArgumentParser
import EmbeddedModel
import Foundation
import FoundationModelsRuntime
import GGUF
import Guidance
import Inference
import ModelDiscovery
import JSON
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
        printTokenAccounting(vocabulary: vocabulary, tokenize: tokenize)
        print("")
        print("compile: byte-only machines (numbers, patterns, enum names) cached in the process; cold: that cache cleared first")
        print("targets: compile <= 1 ms, mask median <= 5 µs, p99 <= 50 µs; hard limit 5% of a ~6.8 ms decode step = 340 µs")
        if generate { try await compareGeneration(path: path, vocabulary: vocabulary, tokenize: tokenize) }
    }

    /// Tokens a value costs: the reference instances as compact JSON under the
    /// model's own (free) tokenization, which is what guided output spends
    /// (forced text is tokenized canonically too), split into tokens fed as
    /// forced batches and tokens sampled; next to the same value pretty-printed
    /// (the newlines and indentation a whitespace-allowing JSON grammar such as
    /// llama.cpp's lets a small model pad with).
    private func printTokenAccounting(vocabulary: VocabularyIndex, tokenize: ([UInt8]) -> [Int]) {
        print("| schema | compact JSON, free tokenization | guided: forced + sampled steps (+ end) | pretty-printed JSON tokens |")
        print("|---|---:|---:|---:|")
        for workload in GuidanceBenchmark.workloads {
            let compact = tokenize(Array(workload.instance.utf8)).count
            let pretty = (try? JSONValue.parse(workload.instance)).map { tokenize(Array($0.serialized(pretty: true).utf8)).count } ?? 0
            guard let grammar = try? workload.compile() else { continue }
            let walk = GuidanceBenchmark.forcedTokenWalk(grammar, vocabulary: vocabulary, instance: workload.instance,
                                                         tokenize: tokenize)
            print("| \(workload.name) | \(compact) | \(walk.forced) + \(walk.sampled) | \(pretty) |")
        }
    }

    /// The same prompt free and guided (itinerary schema), greedy, on the
    /// embedded model; then the guided output replayed through a matcher to
    /// time its masks against the decode step.
    private func compareGeneration(path: String, vocabulary: VocabularyIndex, tokenize: @escaping ([UInt8]) -> [Int]) async throws {
        let model = try EmbeddedLanguageModel(path: path)
        let transcript = Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Plan a five-day trip to Kyoto."))]))])
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 160)
        print("")
        print("| run | response tokens | tokens/s | time to first token (s) |")
        print("|---|---:|---:|---:|")
        var freeRate = 0.0
        var guidedText = ""
        for (label, schema) in [("free text", nil), ("guided (itinerary)", GuidanceBenchmark.itinerary)] as [(String, GenerationSchema?)] {
            for _ in 0..<2 {  // the second run has the prompt cached
                var statistics = GenerationStatistics()
                var text = ""
                for try await event in model.generate(GenerationRequest(transcript: transcript, schema: schema, options: options)) {
                    switch event {
                    case .finished(let finished): statistics = finished
                    case .text(let piece, _): text += piece
                    case .toolCalls, .reasoning: break
                    }
                }
                if schema == nil { freeRate = statistics.tokensPerSecond } else { guidedText = text }
                print(String(format: "| %@ | %d | %.1f | %.3f |", label, statistics.usage.responseTokens,
                             statistics.tokensPerSecond, statistics.timeToFirstToken))
            }
        }
        let grammar = try ByteGrammar.compile(GuidanceBenchmark.itinerary)
        let times = GuidanceBenchmark.maskTimes(grammar, vocabulary: vocabulary, text: guidedText, tokenize: tokenize)
        guard !times.isEmpty, freeRate > 0 else { return }
        let step = 1e6 / freeRate
        let median = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)]
        let total = times.reduce(0, +)
        print(String(format: "masks over the guided output (%d masked steps): median %.1f µs, p99 %.1f µs = %.3f%% / %.2f%% of a %.0f µs free-text decode step (target < 5%%); all masks %.2f ms",
                     times.count, median, p99, 100 * median / step, 100 * p99 / step, step, total / 1000))
    }
}
