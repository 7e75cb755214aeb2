/// FM3xx: sessions and model calls.
struct SessionChecks {
    let file: PromptFile
    func run() -> [Diagnostic] { [] }
}
