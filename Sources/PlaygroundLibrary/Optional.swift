import PromptInterpreter

/// Optional's own members (`Surface/Table/Foundation.swift`). `Interpreter.method` dispatches to them
/// when the front end's inference says the receiver is a `T?` (values carry no Optional wrapper).
extension Builtins {
    static let optionalBuiltins: [String: Builtin] = [
        "Optional.map(_:)": { i, c in try await i.optionalMap(c.base, c.callNode) },
        "Optional.flatMap(_:)": { i, c in try await i.optionalMap(c.base, c.callNode) },
    ]
}
