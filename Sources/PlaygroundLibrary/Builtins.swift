import FoundationModelsRuntime
import PromptInterpreter
import Surface
import SwiftSyntax

/// Every implementation, keyed by its `Surface.table` entry id. Each file in
/// this directory registers the entries of its types; `SurfaceParityTests`
/// checks that the keys are exactly the table's ids.
package enum Builtins {
    package static let all: [String: Builtin] = {
        var all: [String: Builtin] = [:]
        for group in [swiftBuiltins, systemLanguageModelBuiltins, serverModelBuiltins, sessionBuiltins, optionsBuiltins, contentBuiltins,
                      agenticBuiltins, skillsBuiltins, evaluationsBuiltins, foundationBuiltins, optionalBuiltins] {
            all.merge(group) { _, _ in preconditionFailure("a builtin is registered twice") }
        }
        return all
    }()

    /// The ids of every implementation (for the parity test).
    package static var ids: Set<String> { Set(all.keys) }

    /// A property or method of a value: `{ i, c in ... }` with the receiver unwrapped.
    static func on<T>(_ unwrap: @escaping @Sendable (Value) -> T?, _ body: @escaping @Sendable (Interpreter, T, BuiltinCall) async throws -> Value) -> Builtin {
        { interpreter, call in
            guard let value = unwrap(call.base) else {
                throw interpreter.error("'\(call.entry.selector)' is not available on \(call.base.description.prefix(40))", call.node)
            }
            return try await body(interpreter, value, call)
        }
    }

    /// A constant (static values, enum cases without payload).
    static func constant(_ value: Value) -> Builtin { { _, _ in value } }
}

