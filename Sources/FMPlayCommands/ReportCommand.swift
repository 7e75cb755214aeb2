import ArgumentParser
import Foundation
import JSON
import PlaygroundEvaluator
import Report

/// `fmplay report`: one self-contained HTML page from the JSON of `fmplay run --format json`,
/// or from running prompt files (through `fmplay run --format json` in a child process).
/// Exit codes: 0 written, 1 written but the run had failing blocks, 2 usage or input problems.
public struct ReportCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write one self-contained HTML report of runs, evaluations and model comparisons.",
        discussion: """
            INPUT is either JSON written by `fmplay run --format json` (several files are shown together), \
            or prompt files and directories, which are run first with the run options below. The page needs \
            no network: open it in a browser or keep it as a CI artifact. Exit status: 0 when the report was \
            written, 1 when it was written but a block of the run failed, 2 for usage or input problems.
            """)

    @Argument(help: "JSON files from `fmplay run --format json`, or prompt files (*.fmplay) and directories to run.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "The HTML file to write (default fmplay-report.html; - for standard output).")
    var output: String = "fmplay-report.html"

    @Option(help: "A JSON file of an earlier `fmplay run --format json`: show changed outputs (text diff) and metric deltas, regressions first.")
    var baseline: String?

    @Option(help: "The page title.")
    var title: String = "fmplay report"

    @Option(name: .customLong("link-base"), help: "Prefix of the file:line links (e.g. https://github.com/OWNER/REPO/blob/COMMIT/); default file:// URLs.")
    var linkBase: String?

    @OptionGroup(title: "Run options (when prompt files are given; as fmplay run takes them)")
    var options: RunOptions

    public init() {}

    public func run() async throws {
        let jsonInputs = inputs.filter { $0.hasSuffix(".json") }
        if !jsonInputs.isEmpty, jsonInputs.count != inputs.count {
            throw usage("give either JSON files from `fmplay run --format json` or prompt files to run, not both")
        }
        var runExit: Int32 = 0
        var input: ReportInput
        let source: String
        if jsonInputs.isEmpty {
            let arguments = ["run", "--format", "json"] + options.arguments + ["--"] + inputs
            let (status, data) = try runSelf(arguments)
            runExit = status
            do {
                input = try ReportInput.parse(Array(data), file: "the output of fmplay run")
            } catch {
                throw usage("fmplay run did not produce results (exit status \(status)); see its message above")
            }
            source = "fmplay run " + inputs.joined(separator: " ")
        } else {
            if !options.isEmpty {
                throw usage("run options (--model, --samples, ...) apply only when prompt files are given; the JSON inputs have already run")
            }
            input = ReportInput(runs: [])
            for path in jsonInputs {
                let part = try load(path)
                var counts: [String: Int] = [:]
                for run in input.runs { counts[run.model, default: 0] += 1 }
                for var run in part.runs {
                    counts[run.model, default: 0] += 1
                    run.sample = counts[run.model]!
                    input.runs.append(run)
                }
                input.baseline += part.baseline
            }
            source = jsonInputs.joined(separator: ", ")
        }
        if let baseline {
            let old = try load(baseline)
            input.baseline = input.compared(with: old)
        }
        let formatter = ISO8601DateFormatter()
        let page = ReportPage.render(input, options: ReportPage.Options(title: title, source: source, linkBase: linkBase,
                                                                         generated: "written " + formatter.string(from: Date())))
        if output == "-" {
            FileHandle.standardOutput.write(Data(page.utf8))
        } else {
            guard FileManager.default.createFile(atPath: output, contents: Data(page.utf8)) else {
                throw usage("cannot write \(output): check that its directory exists and is writable, or choose another with --output")
            }
            FileHandle.standardError.write(Data("fmplay report: wrote \(output) (\(page.utf8.count / 1024) KB)\n".utf8))
        }
        if runExit != 0 { throw ExitCode(runExit == 1 ? 1 : 2) }
    }

    func load(_ path: String) throws -> ReportInput {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw usage("\(path): no such file; write it with `fmplay run --format json PATHS > \(path)`")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw usage("\(path): cannot be read; check its permissions")
        }
        do {
            return try ReportInput.parse(Array(data), file: path)
        } catch {
            throw usage(error.description)
        }
    }

    /// Runs this executable with `arguments`; standard error passes through, standard output is returned.
    func runSelf(_ arguments: [String]) throws -> (Int32, Data) {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { throw usage("cannot start \(executable): \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    func usage(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("fmplay report: \(message)\n".utf8))
        return ExitCode(2)
    }
}
