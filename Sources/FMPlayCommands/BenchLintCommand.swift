import ArgumentParser
import Foundation
import JSON
import PromptLanguage

/// `fmplay bench lint`: how long the front end takes to analyse a generated
/// prompt file (issue 2 target: 10,000 lines in under 200 ms, release build).
struct BenchLintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Measure how long linting a generated prompt file takes (parse, model, schemas, every check).",
        discussion: """
            The file repeats a block of Generable types with guides, an enum, a tool, a constant and a \
            #Playground block until it has --lines lines (the tail may be cut mid-block, like half-typed code). \
            The first run starts with empty caches, as `fmplay lint` does; the median and p95 are over all runs. \
            Phases are the medians of each analysis phase. Benchmarks/lint-bench.py also times the whole \
            `fmplay lint` process. JSON fields: lines, bytes, runs, diagnostics, first_ms, median_ms, p95_ms, \
            min_ms, phases_ms, target_ms (with --format json, which `fmplay bench` takes before or after `lint`).
            """)

    @Option(help: "Lines of the generated file.")
    var lines = 10_000

    @Option(help: "Analyses to time.")
    var runs = 10

    /// `--format text|json` is `fmplay bench`'s option (a same-named option here would never be
    /// reached: the parent command claims it wherever it appears).
    @ParentCommand var bench: BenchCommand
    var format: GenerateCommand.OutputFormat { bench.format }

    @Option(help: ArgumentHelp("Write the generated file here and exit (used by Benchmarks/lint-bench.py).", visibility: .hidden))
    var writeFile: String?

    static let targetMilliseconds = 200.0

    func validate() throws {
        if let problem = OptionChecks.integer(lines, "--lines", 1...10_000_000) ?? OptionChecks.integer(runs, "--runs", 1...100_000) {
            throw ValidationError(problem)
        }
    }

    func run() async throws {
        let text = Self.generate(lines: lines)
        if let writeFile {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: writeFile))
            } catch {
                FileHandle.standardError.write(Data("fmplay bench lint: cannot write \(writeFile): \(error.localizedDescription)\n".utf8))
                throw ExitCode(2)
            }
            return
        }
        var totals: [Double] = []
        var phaseRuns: [String: [Double]] = [:]
        var phaseOrder: [String] = []
        var diagnostics = 0
        var lineCount = 0
        for _ in 0..<runs {
            var phases = PromptAnalyzer.PhaseTimes()
            let start = ContinuousClock.now
            let analysis = PromptAnalyzer.analyze(text, phases: &phases)
            totals.append(Self.milliseconds(ContinuousClock.now - start))
            diagnostics = analysis.diagnostics.count
            lineCount = analysis.file.source.lineCount
            for (name, duration) in phases.phases {
                if phaseRuns[name] == nil { phaseOrder.append(name) }
                phaseRuns[name, default: []].append(Self.milliseconds(duration))
            }
        }
        let sorted = totals.sorted()
        let median = Self.percentile(sorted, 0.5)
        let p95 = Self.percentile(sorted, 0.95)
        let phaseMedians = phaseOrder.map { ($0, Self.percentile(phaseRuns[$0]!.sorted(), 0.5)) }
        switch format {
        case .json:
            var phasesObject = JSONObject()
            for (name, value) in phaseMedians { phasesObject[name] = .double(Self.rounded(value)) }
            let result: JSONObject = [
                "lines": .int(lineCount),
                "bytes": .int(text.utf8.count),
                "runs": .int(runs),
                "diagnostics": .int(diagnostics),
                "first_ms": .double(Self.rounded(totals[0])),
                "median_ms": .double(Self.rounded(median)),
                "p95_ms": .double(Self.rounded(p95)),
                "min_ms": .double(Self.rounded(sorted[0])),
                "phases_ms": .object(phasesObject),
                "target_ms": .double(Self.targetMilliseconds),
            ]
            print(JSONValue.object(result).serialized(pretty: true))
        case .text:
            print("lint \(lineCount) lines (\(text.utf8.count) bytes, \(diagnostics) diagnostics), \(runs) runs")
            print(String(format: "first %.1f ms  median %.1f ms  p95 %.1f ms  min %.1f ms  (target < %.0f ms)",
                         totals[0], median, p95, sorted[0], Self.targetMilliseconds))
            print("phases (median): " + phaseMedians.map { "\($0.0) " + String(format: "%.1f ms", $0.1) }.joined(separator: ", "))
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) * 1e-15
    }

    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    /// Nearest-rank percentile of sorted values.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count - 1)).rounded())))
        return sorted[index]
    }

    /// The benchmark file: `lines` lines of repeated realistic blocks.
    static func generate(lines: Int) -> String {
        var out = ["import FoundationModels", "import Playgrounds", ""]
        var index = 0
        while out.count < lines {
            out += block(index).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            index += 1
        }
        return out.prefix(lines).joined(separator: "\n") + "\n"
    }

    private static func block(_ i: Int) -> String {
        #"""

        @Generable(description: "Plan number \#(i)")
        struct Plan\#(i) {
            @Guide(description: "A catchy name", .pattern(/[A-Z][a-z]+( [A-Z][a-z]+)*/))
            var name: String
            @Guide(.range(1...14))
            var days: Int
            @Guide(.anyOf(["relaxed", "busy", "mixed"]))
            var pace: String
            @Guide(.count(2...5), .element(.range(1...5)))
            var ratings: [Int]
            var stops: [Stop\#(i)]
            var backup: Plan\#(i)?
            @Guide(description: "A brief summary")
            var summary: String
        }

        @Generable
        enum Stop\#(i) {
            case museum(name: String)
            case park
            case restaurant(String, stars: Int)
        }

        struct Lookup\#(i): Tool {
            let name = "lookup\#(i)"
            let description = "Looks up facts about stop \#(i)"
            @Generable
            struct Arguments {
                @Guide(description: "The stop to look up")
                var stop: String
            }
            func call(arguments: Arguments) async throws -> String {
                if arguments.stop == "park" {
                    return "Open from 6 to 22."
                }
                return "No data for \(arguments.stop)."
            }
        }

        let cities\#(i) = ["Tokyo", "Kyoto", "Osaka"]

        #Playground("plan \#(i)") {
            let session = LanguageModelSession(tools: [Lookup\#(i)()], instructions: "Plan short trips.")
            for city in cities\#(i) {
                let response = try await session.respond(to: "Plan a trip to \(city).", generating: Plan\#(i).self)
                print(response.content.name)
            }
        }
        """#
    }
}
