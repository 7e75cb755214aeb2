import ArgumentParser
import Foundation
import PromptLanguage

/// `fmplay lint PATH...`: check schemas, tools, sessions and the supported
/// Swift subset without running anything.
struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check prompt files: schemas, guides, tools, sessions and supported Swift.",
        discussion: """
            Directories are searched recursively for *.fmplay files; .swift files containing #Playground \
            are accepted when named explicitly. Exit status: 0 clean, 1 errors (or warnings with --strict), \
            2 usage or input problems (missing, unreadable, binary, non-UTF-8 or oversized files).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, sarif
    }

    @Argument(help: "Prompt files or directories.")
    var paths: [String]

    @Option(help: "Output format: text, json or sarif (SARIF 2.1.0).")
    var format: Format = .text

    @Flag(help: "Treat warnings as errors for the exit status.")
    var strict = false

    @Flag(help: .hidden)
    var timing = false

    func run() async throws {
        let clock = ContinuousClock()
        var analysisTime = Duration.zero
        let (paths, expandProblems) = PromptFileLoading.expand(paths)
        var problems = expandProblems
        var files: [LintReport.FileResult] = []
        for path in paths {
            switch PromptFileLoading.load(path) {
            case .failure(let problem):
                problems.append(problem)
            case .success(let loaded):
                let start = clock.now
                let analysed = AnalysedPromptFile(loaded)
                analysisTime += clock.now - start
                files.append(LintReport.FileResult(path: path, source: analysed.analysis.file.source, diagnostics: analysed.analysis.diagnostics))
            }
        }
        files.sort { $0.path < $1.path }
        problems.sort { $0.path < $1.path }
        let report = LintReport(files: files, problems: problems)
        switch format {
        case .text: FileHandle.standardOutput.write(Data(report.text().utf8))
        case .json: print(report.json().serialized(pretty: true))
        case .sarif: print(report.sarif(toolVersion: FMPlayVersion.current).serialized(pretty: true))
        }
        if timing {
            let lines = files.reduce(0) { $0 + $1.source.lineCount }
            let milliseconds = BenchLintCommand.milliseconds(analysisTime)
            FileHandle.standardError.write(Data("analysed \(lines) lines in \(String(format: "%.1f", milliseconds)) ms\n".utf8))
        }
        let code = report.exitCode(strict: strict)
        if code != 0 { throw ExitCode(code) }
    }
}

enum FMPlayVersion {
    static let current = "0.1.0"
}
