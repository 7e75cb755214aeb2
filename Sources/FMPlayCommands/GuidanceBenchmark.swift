#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Guidance
import Schema

/// The measurement of the constrained-decoding anchors over `ReferenceWorkloads`: compile, then walk the
/// instance token by token, computing the mask before each token and accepting it. `fmplay bench-guidance`
/// prints it.
enum GuidanceBenchmark {
    typealias Workload = ReferenceWorkloads.Workload
    static var workloads: [Workload] { ReferenceWorkloads.workloads }
    static var itinerary: GenerationSchema { ReferenceWorkloads.itinerary }

    /// One workload's numbers (microseconds unless named otherwise).
    struct Result: Sendable {
        public var name: String
        public var steps: Int
        /// With the process's byte-machine cache warm (the usual case: number,
        /// pattern and enum machines seen before in this process).
        public var compileMilliseconds: Double
        /// With the byte-machine cache cleared first (a process's first schema).
        public var coldCompileMilliseconds: Double
        public var maskMedian: Double
        public var maskP99: Double
        public var maskMax: Double
        public var firstMask: Double
        public var advanceMedian: Double
        /// Tokens fed as forced batches instead of sampled, walking the instance.
        public var forcedTokens: Int
    }

    /// Forgets the process-wide byte-machine DFAs, so the next compile is cold.
    static func clearCompileCaches() { ByteGrammar.clearCompileCaches() }

    /// Thread CPU time in microseconds (robust on a shared machine; wall
    /// time includes waiting for a core).
    static func cpuMicroseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
    }

    /// Compiles and walks one workload `runs` times (fresh matcher each run,
    /// so first-visit costs count) and takes the median run of each statistic.
    static func measure(_ workload: Workload, vocabulary: VocabularyIndex, runs: Int,
                               tokenize: ([UInt8]) -> [Int]) throws -> Result {
        let tokens = tokenize(Array(workload.instance.utf8)) + [vocabulary.endOfSequenceTokens.first ?? 0]
        var compiles: [Double] = [], coldCompiles: [Double] = [], medians: [Double] = [], p99s: [Double] = [], maxima: [Double] = []
        var firsts: [Double] = [], advances: [Double] = []
        var forcedCount = 0
        for _ in 0..<max(1, runs) {
            clearCompileCaches()
            var start = cpuMicroseconds()
            _ = try workload.compile()
            coldCompiles.append((cpuMicroseconds() - start) / 1000)
            start = cpuMicroseconds()
            let grammar = try workload.compile()
            compiles.append((cpuMicroseconds() - start) / 1000)
            let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
            var mask = [UInt64](repeating: 0, count: matcher.maskWordCount)
            var maskTimes: [Double] = []
            var advanceTimes: [Double] = []
            forcedCount = 0
            var pendingForced = 0
            for token in tokens {
                if pendingForced == 0 {
                    let forced = matcher.forcedTokens(tokenize: tokenize)
                    pendingForced = forced.count
                    forcedCount += forced.count
                }
                start = cpuMicroseconds()
                mask.withUnsafeMutableBufferPointer { matcher.fillMask($0) }
                maskTimes.append(cpuMicroseconds() - start)
                guard mask[token >> 6] & (1 << UInt64(token & 63)) != 0 else {
                    throw GuidanceError(.invalidSchema, path: workload.name, "the instance token \(token) is masked")
                }
                start = cpuMicroseconds()
                matcher.accept(token: token)
                advanceTimes.append(cpuMicroseconds() - start)
                if pendingForced > 0 { pendingForced -= 1 }
            }
            firsts.append(maskTimes[0])
            let sorted = maskTimes.sorted()
            medians.append(sorted[sorted.count / 2])
            p99s.append(sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)])
            maxima.append(sorted.last!)
            advances.append(advanceTimes.sorted()[advanceTimes.count / 2])
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return Result(name: workload.name, steps: tokens.count, compileMilliseconds: median(compiles),
                      coldCompileMilliseconds: median(coldCompiles),
                      maskMedian: median(medians), maskP99: median(p99s), maskMax: median(maxima),
                      firstMask: median(firsts), advanceMedian: median(advances), forcedTokens: forcedCount)
    }

    /// Generates `instance` the way the decoder spends tokens: forced text is
    /// tokenized and fed as a batch; elsewhere one sampled step takes the first
    /// token of the rest's canonical tokenization; the end is one more step.
    static func forcedTokenWalk(_ grammar: ByteGrammar, vocabulary: VocabularyIndex, instance: String,
                                       tokenize: ([UInt8]) -> [Int]) -> (forced: Int, sampled: Int) {
        let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        let bytes = Array(instance.utf8)
        var position = 0
        var forced = 0, sampled = 1
        while position < bytes.count {
            let batch = matcher.forcedTokens(tokenize: tokenize)
            if !batch.isEmpty {
                for token in batch {
                    matcher.accept(token: token)
                    position += vocabulary.tokenBytes[token].count
                }
                forced += batch.count
                continue
            }
            guard let token = tokenize(Array(bytes[position...])).first, matcher.accept(token: token) else { break }
            position += vocabulary.tokenBytes[token].count
            sampled += 1
        }
        return (forced, sampled)
    }

    /// Mask times (µs, sorted) over `text` tokenized canonically, as the
    /// decoder computes them: only at steps where nothing is forced.
    static func maskTimes(_ grammar: ByteGrammar, vocabulary: VocabularyIndex, text: String,
                                 tokenize: ([UInt8]) -> [Int]) -> [Double] {
        let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        var mask = [UInt64](repeating: 0, count: matcher.maskWordCount)
        var times: [Double] = []
        var pendingForced = 0
        for token in tokenize(Array(text.utf8)) {
            if pendingForced == 0 { pendingForced = matcher.forcedTokens(tokenize: tokenize).count }
            if pendingForced > 0 {
                pendingForced -= 1
            } else {
                let start = cpuMicroseconds()
                mask.withUnsafeMutableBufferPointer { matcher.fillMask($0) }
                times.append(cpuMicroseconds() - start)
            }
            guard matcher.accept(token: token) else { break }
        }
        return times.sorted()
    }
}
