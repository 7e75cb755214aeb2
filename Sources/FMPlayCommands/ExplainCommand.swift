import ArgumentParser
import Foundation
import PromptLanguage

/// `fmplay explain FM101`: a diagnostic's explanation and example (like `rustc --explain`).
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain a diagnostic code: what it means, an example and the fix.",
        discussion: "Without a code, lists every code with its summary. Exit status: 0, or 2 for an unknown code.")

    @Argument(help: "A diagnostic code such as FM101 (case-insensitive; the FM may be left out).")
    var code: String?

    func run() throws {
        guard let code else {
            for entry in DiagnosticCatalogue.all {
                print("\(entry.code.rawValue)  \(entry.name.padding(toLength: 38, withPad: " ", startingAt: 0)) \(entry.summary)")
            }
            return
        }
        guard let entry = DiagnosticCatalogue.entry(named: code) else {
            FileHandle.standardError.write(Data("""
                error: '\(code)' is not a diagnostic code of fmplay; codes are \(DiagnosticCatalogue.codeRanges) \
                (run 'fmplay explain' for the list)\n
                """.utf8))
            throw ExitCode(2)
        }
        print(entry.rendered, terminator: "")
    }
}
