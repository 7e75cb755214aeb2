import FoundationModelsRuntime
import PromptInterpreter

/// `GeneratedContent.kind`, the `GeneratedContent.Kind` cases and `init(kind:)` / `init(elements:)`
/// (Surface/Table/Content.swift). A kind is a `GeneratedContent.Kind` enum case, so `switch content.kind`
/// matches as in Swift.
extension Builtins {
    static let generatedContentKindBuiltins: [String: Builtin] = [
        "GeneratedContent.kind": on(content) { _, g, _ in
            // Partially generated values answer their properties by name (fmplay's dynamic members): a
            // property named `kind` keeps answering as the value's field.
            if !g.isComplete, let property = g["kind"] { return .content(property) }
            return kindValue(g.kind)
        },
        "GeneratedContent.init(kind:id:)": { i, c in
            let args = try await c.arguments(i)
            let given = args.value("kind") ?? .null
            guard let kind = kind(from: given) else {
                throw i.error("GeneratedContent(kind:) needs a GeneratedContent.Kind (.string(\"Hi\"), .number(1), .structure(properties:orderedKeys:)...;"
                              + " a structure's orderedKeys must list every property once), not \(given.description.prefix(60))", c.node)
            }
            return try identified(GeneratedContent(kind: kind), args, i, c)
        },
        "GeneratedContent.init(elements:id:)": { i, c in
            let args = try await c.arguments(i)
            let items = try args.value("elements").map { try i.sequenceElements($0, c.node) } ?? []
            return try identified(GeneratedContent(elements: items.map(\.generatedContent)), args, i, c)
        },
        "GeneratedContent.Kind.null": constant(kindValue(.null)),
        "GeneratedContent.Kind.bool(_:)": kindCase("bool"),
        "GeneratedContent.Kind.number(_:)": kindCase("number"),
        "GeneratedContent.Kind.string(_:)": kindCase("string"),
        "GeneratedContent.Kind.array(_:)": kindCase("array"),
        "GeneratedContent.Kind.structure(properties:orderedKeys:)": kindCase("structure"),
    ]

    static func kindValue(_ kind: GeneratedContent.Kind) -> Value {
        let type = "GeneratedContent.Kind"
        switch kind {
        case .null: return .enumCase(type: type, name: "null", payload: [])
        case .bool(let b): return .enumCase(type: type, name: "bool", payload: [(nil, .bool(b))])
        case .number(let n): return .enumCase(type: type, name: "number", payload: [(nil, .double(n))])
        case .string(let s): return .enumCase(type: type, name: "string", payload: [(nil, .string(s))])
        case .array(let items): return .enumCase(type: type, name: "array", payload: [(nil, .array(items.map(Value.content)))])
        case .structure(let properties, let keys):
            let dictionary = Value.dictionary(keys.compactMap { key in properties[key].map { (key: Value.string(key), value: Value.content($0)) } })
            return .enumCase(type: type, name: "structure", payload: [("properties", dictionary), ("orderedKeys", .array(keys.map(Value.string)))])
        }
    }

    /// A `GeneratedContent.Kind` value (written `.string("x")` or `GeneratedContent.Kind.number(2)`), or nil.
    static func kind(from value: Value) -> GeneratedContent.Kind? {
        guard case .enumCase(_, let name, let payload) = value else { return nil }
        let first = payload.first?.value
        switch (name, first) {
        case ("null", nil): return .null
        case ("bool", .bool(let b)?): return .bool(b)
        case ("number", let n?) where n.number != nil: return .number(n.number!)
        case ("string", .string(let s)?): return .string(s)
        case ("array", .array(let items)?): return .array(items.map(\.generatedContent))
        case ("structure", .dictionary(let pairs)?):
            var properties: [String: GeneratedContent] = [:]
            for pair in pairs {
                guard let key = pair.key.stringValue else { return nil }
                properties[key] = pair.value.generatedContent
            }
            let written = payload.first { $0.label == "orderedKeys" }?.value
            guard case .array(let keys)? = written else { return nil }
            let ordered = keys.compactMap(\.stringValue)
            guard ordered.count == keys.count, Set(ordered) == Set(properties.keys) else { return nil }
            return .structure(properties: properties, orderedKeys: ordered)
        default: return nil
        }
    }

    /// `GeneratedContent.Kind.string("x")` and its siblings, checked.
    static func kindCase(_ name: String) -> Builtin {
        { i, c in
            let args = try await c.arguments(i)
            let value = Value.enumCase(type: "GeneratedContent.Kind", name: name, payload: args.items.map { ($0.label, $0.value) })
            guard kind(from: value) != nil else {
                throw i.error("GeneratedContent.Kind.\(c.entry.selector) needs \(c.entry.parameters?.map(\.type).joined(separator: ", ") ?? "its values")"
                              + " (a structure's orderedKeys must list every property once)", c.node)
            }
            return value
        }
    }
}
