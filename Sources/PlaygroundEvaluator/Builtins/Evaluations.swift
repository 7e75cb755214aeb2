import Surface

/// The Evaluations entries of `Surface.table` (Table/Evaluations.swift). Their semantics are in
/// `EvaluationsValues.swift`/`EvaluationsRun.swift` (and the `Evaluations` target); each entry
/// dispatches there by its kind: initializers, methods, properties, static members and cases.
extension Builtins {
    static let evaluationsBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [:]
        let owners = Set(Surface.table.types.filter { $0.module == "Evaluations" }.map(\.name))
        for type in Surface.table.types where owners.contains(type.name) {
            for entry in type.members { all[entry.id] = implementation(entry) }
        }
        all["Transcript.structuredTranscript"] = { i, c in
            guard let value = try await i.evaluationsMember("structuredTranscript", of: c.base, c.node) else {
                throw i.error("structuredTranscript needs a session's transcript", c.node)
            }
            return value
        }
        return all
    }()

    static func implementation(_ entry: SurfaceMember) -> Builtin {
        { interpreter, call in
            let value: Value?
            switch entry.kind {
            case .initializer:
                value = try await interpreter.evaluationsInitializer(entry.owner, call.callNode)
            case .method:
                value = try await interpreter.evaluationsMethod(entry.name, of: call.base, call.callNode)
            case .staticMethod:
                value = try await interpreter.evaluationsMethod(entry.name, of: .type(entry.owner), call.callNode)
            case .property:
                value = try await interpreter.evaluationsMember(entry.name, of: call.base, call.node)
            case .staticProperty:
                value = try interpreter.evaluationsStaticMember(entry.name, of: entry.owner, call.node)
            case .enumCase:
                let arguments = try await call.arguments(interpreter)
                value = .enumCase(type: entry.owner, name: entry.name, payload: arguments.items.map { ($0.label, $0.value) })
            case .function:
                value = nil
            }
            guard let value else { throw interpreter.error("'\(entry.id)' is not available on this value", call.node) }
            return value
        }
    }
}
