import ArgumentParser
import Foundation
import LanguageServer

/// `fmplay lsp`: the language server over stdin/stdout.
struct LSPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "Run the fmplay language server on stdin/stdout (LSP 3.17).",
        discussion: """
            \(EditorSetupHelp.text)
            Settings (initializationOptions or the `fmplay` section of workspace/didChangeConfiguration):
            \(ServerConfiguration.documentation.map { "  \($0.key): \($0.meaning)" }.joined(separator: "\n"))
            Commands (workspace/executeCommand): \(LanguageServer.commands.joined(separator: ", ")).
            Results also arrive as the `fmplay/results` notification, for clients without inlay hint refresh.
            """
    )

    @Option(name: .customLong("max-message-size"), help: "The largest message accepted, in bytes; larger ones are skipped.")
    var maximumMessageSize = MessageFramer.defaultMaximumMessageSize

    func validate() throws {
        guard maximumMessageSize >= 1024 else {
            throw ValidationError("--max-message-size must be at least 1024 bytes")
        }
    }

    func run() throws {
        let code = LanguageServer.serve(runner: LanguageServerBackend.makeRunner(), maximumMessageSize: maximumMessageSize)
        throw ExitCode(code)
    }
}

/// Chooses what evaluates blocks for the language server.
enum LanguageServerBackend {
    static func makeRunner() -> any PlaygroundRunner {
        UnavailableRunner(reason: "evaluation is not available in this build of fmplay yet; diagnostics, hover and completion work")
    }
}
