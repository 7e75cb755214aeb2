import FoundationModelsRuntime
import PromptInterpreter
import Surface
import SwiftSyntax

/// Every implementation, keyed by its `Surface.table` entry id. Each file in
/// this directory registers the entries of its types; `SurfaceParityTests`
/// checks that the keys are exactly the table's ids. A property that prompt
/// code may assign on a value type also registers a setter under `id + "="`:
/// it gets the receiver as `base` and the assigned value as `newValue`, and
/// returns the changed receiver.
package enum Builtins {
    package static let all: [String: Builtin] = {
        var all: [String: Builtin] = [:]
        for group in [swiftBuiltins, systemLanguageModelBuiltins, serverModelBuiltins, sessionBuiltins, optionsBuiltins, contentBuiltins,
                      agenticBuiltins, skillsBuiltins, evaluationsBuiltins, foundationBuiltins, optionalBuiltins, transcriptPartBuiltins, transcriptMutations,
                      transcriptFieldBuiltins, collectionIndexBuiltins, generatedContentKindBuiltins,
                      tableCases(of: "GenerationSchema.SchemaError"), tableCases(of: "RollingWindowSize")] {
            all.merge(group) { _, _ in preconditionFailure("a builtin is registered twice") }
        }
        return all
    }()

    /// The ids of every implementation (for the parity test).
    package static var ids: Set<String> { Set(all.keys.filter { !$0.hasSuffix("=") }) }

    /// The ids of the properties that have a setter.
    package static var settableIDs: Set<String> { Set(all.keys.filter { $0.hasSuffix("=") }.map { String($0.dropLast()) }) }

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

