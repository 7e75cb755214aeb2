import ArgumentParser
import LanguageServer

/// `fmplay worker` (hidden): the evaluation worker `fmplay lsp` starts and supervises.
/// It speaks `WorkerProtocol` on stdin/stdout and evaluates blocks with the same
/// models, settings and result cache as the server would in process.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Evaluate #Playground blocks for fmplay lsp over stdin/stdout (started by the server; not for direct use).",
        shouldDisplay: false
    )

    func run() async throws {
        throw ExitCode(await EvaluationWorker.serve(runner: LanguageServerBackend.makeRunner()))
    }
}
