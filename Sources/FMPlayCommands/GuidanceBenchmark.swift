#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Guidance
import Schema

/// The reference workloads of the constrained-decoding anchors (three
/// schemas and a valid instance of each) and the measurement the anchors
/// use: compile, then walk the instance token by token, computing the mask
/// before each token and accepting it. `fmplay bench-guidance` prints it;
/// the tests walk the same instances. (Benchmark code lives with the bench
/// command, not in the Guidance target it measures.)
public enum GuidanceBenchmark {
    public struct Workload: Sendable {
        public var name: String
        public var instance: String
        public var compile: @Sendable () throws -> ByteGrammar
    }

    public static let searchSuggestions = GenerationSchema(
        root: .reference("SearchSuggestions"),
        definitions: [Definition(name: "SearchSuggestions", kind: .object([
            Property(name: "searchTerms", type: .array(element: .string(.none), guides: ArrayGuides(minimumCount: 4, maximumCount: 4))),
        ]))])

    public static let itinerary = GenerationSchema(
        root: .reference("Itinerary"),
        definitions: [
            Definition(name: "Itinerary", kind: .object([
                Property(name: "destination", type: .string(.none)),
                Property(name: "days", type: .integer(.none)),
                Property(name: "budget", type: .number(.none)),
                Property(name: "rating", type: .number(.none)),
                Property(name: "requiresVisa", type: .boolean),
                Property(name: "activities", type: .array(element: .string(.none), guides: .none)),
                Property(name: "emergencyContact", type: .reference("Contact")),
                Property(name: "kind", type: .reference("Kind")),
            ])),
            Definition(name: "Contact", kind: .object([
                Property(name: "name", type: .string(.none)),
                Property(name: "phone", type: .string(.none)),
            ])),
            Definition(name: "Kind", kind: .enumeration([
                EnumCase(name: "relaxing"), EnumCase(name: "adventure"), EnumCase(name: "cultural"),
            ])),
        ])

    public static let tools: [ToolSignature] = [
        ToolSignature(name: "getWeather", arguments: GenerationSchema(
            root: .reference("GetWeatherArguments"),
            definitions: [Definition(name: "GetWeatherArguments", kind: .object([Property(name: "city", type: .string(.none))]))])),
        ToolSignature(name: "findRestaurants", arguments: GenerationSchema(
            root: .reference("FindRestaurantsArguments"),
            definitions: [Definition(name: "FindRestaurantsArguments", kind: .object([
                Property(name: "city", type: .string(.none)), Property(name: "cuisine", type: .string(.none)),
            ]))])),
    ]

    public static let workloads: [Workload] = [
        Workload(name: "search_suggestions",
                 instance: #"{"searchTerms":["best hiking trails near Zürich","Swiss Alps weather in October","affordable hotels in Interlaken","Swiss Travel Pass price 2025"]}"#,
                 compile: { try ByteGrammar.compile(searchSuggestions) }),
        Workload(name: "itinerary",
                 instance: #"{"destination":"Kyoto, Japan","days":5,"budget":2500.5,"rating":4.7,"requiresVisa":false,"activities":["Visit Fushimi Inari shrine at sunrise","Tea ceremony in Gion","Day trip to the deer park in Nara"],"emergencyContact":{"name":"Aiko Tanaka","phone":"+81 75-123-4567"},"kind":"cultural"}"#,
                 compile: { try ByteGrammar.compile(itinerary) }),
        Workload(name: "tool_call",
                 instance: #"{"name":"findRestaurants","arguments":{"city":"San Francisco","cuisine":"Vietnamese"}}"#,
                 compile: { try ByteGrammar.toolCallObject(tools) }),
    ]

    /// One workload's numbers (microseconds unless named otherwise).
    public struct Result: Sendable {
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
    public static func clearCompileCaches() { ByteGrammar.clearCompileCaches() }

    /// Thread CPU time in microseconds (robust on a shared machine; wall
    /// time includes waiting for a core).
    public static func cpuMicroseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
    }

    /// Compiles and walks one workload `runs` times (fresh matcher each run,
    /// so first-visit costs count) and takes the median run of each statistic.
    public static func measure(_ workload: Workload, vocabulary: VocabularyIndex, runs: Int,
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
    public static func forcedTokenWalk(_ grammar: ByteGrammar, vocabulary: VocabularyIndex, instance: String,
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
    public static func maskTimes(_ grammar: ByteGrammar, vocabulary: VocabularyIndex, text: String,
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
