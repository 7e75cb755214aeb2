/// FM2xx: tools.
struct ToolChecks {
    let file: PromptFile
    func run() -> [Diagnostic] { [] }
}
