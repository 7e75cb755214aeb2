/// FM1xx: Generable types, properties and guides.
struct SchemaChecks {
    let file: PromptFile
    func run() -> [Diagnostic] { [] }
}
