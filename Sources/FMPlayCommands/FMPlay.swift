import ArgumentParser

/// The `fmplay` command: one subcommand per job.
public struct FMPlay: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fmplay",
        abstract: "Check, run and serve FoundationModels prompt files on an embedded model.",
        subcommands: []
    )

    public init() {}
}
