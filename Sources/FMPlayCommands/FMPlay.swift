import ArgumentParser
import Foundation

/// The `fmplay` command: one subcommand per job.
public struct FMPlay: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fmplay",
        abstract: "Check, run and serve FoundationModels prompt files on an embedded model.",
        subcommands: [
            LintCommand.self,
            SchemaCommand.self,
            ExplainCommand.self,
            LSPCommand.self,
            WorkerCommand.self,
            RunCommand.self,
            ReportCommand.self,
            TokenizeCommand.self,
            ModelsCommand.self,
            GenerateCommand.self,
            BenchCommand.self,
            BenchGuidanceCommand.self,
        ]
    )

    public init() {}

    /// Parses the command line and runs the chosen subcommand. (Calling
    /// `FMPlay.main()` from top-level code resolves to the synchronous
    /// overload, which refuses async commands.)
    public static func runFromCommandLine() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // ArgumentParser exits 64 (EX_USAGE) for usage errors; the README promises 2.
            if exitCode(for: error) == .validationFailure {
                let message = fullMessage(for: error)
                FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}
