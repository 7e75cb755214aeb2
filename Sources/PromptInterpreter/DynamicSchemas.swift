import FoundationModelsRuntime
import PromptLanguage
import Schema
import SwiftSyntax

/// A `DynamicGenerationSchema` under construction: its type, plus the named
/// definitions it introduced (objects and string enumerations).
package struct DynamicSchema: Sendable {
    var type: SchemaType
    var definitions: [Definition]
}

extension Interpreter {
    /// `DynamicGenerationSchema(...)` in its documented forms.
    package func makeDynamicSchema(_ args: Arguments, _ node: some SyntaxProtocol) throws -> Value {
        if let name = args.value("referenceTo")?.stringValue {
            return .dynamicSchema(DynamicSchema(type: .reference(name), definitions: []))
        }
        if case .dynamicSchema(let element)? = args.value("arrayOf") {
            func bound(_ label: String) throws -> Int? {
                guard let given = args.value(label), !given.isNull else { return nil }
                let n = try intArgument(given, "\(label):", node)
                guard n >= 0 else { throw error("\(label): must not be negative (\(n))", node) }
                return n
            }
            let guides = ArrayGuides(minimumCount: try bound("minimumElements"), maximumCount: try bound("maximumElements"))
            return .dynamicSchema(DynamicSchema(type: .array(element: element.type, guides: guides), definitions: element.definitions))
        }
        if case .type(let typeName)? = args.value("type") {
            let type: SchemaType
            switch typeName {
            case "String": type = .string(.none)
            case "Int": type = .integer(.none)
            case "Double", "Float", "Decimal": type = .number(.none)
            case "Bool": type = .boolean
            case "GeneratedContent": type = .any
            default:
                guard let schema = context.schema(forType: typeName) else { throw error("'\(typeName)' is not a Generable type", node) }
                return .dynamicSchema(DynamicSchema(type: schema.root, definitions: schema.definitions))
            }
            return .dynamicSchema(DynamicSchema(type: type, definitions: []))
        }
        guard let name = args.value("name")?.stringValue else {
            throw error("DynamicGenerationSchema needs name:, type:, arrayOf: or referenceTo:", node)
        }
        let description = args.value("description")?.stringValue
        if case .array(let choices)? = args.value("anyOf") {
            let strings = choices.compactMap(\.stringValue)
            if strings.count == choices.count, !choices.isEmpty {
                let definition = Definition(name: name, description: description, kind: .enumeration(strings.map { EnumCase(name: $0) }))
                return .dynamicSchema(DynamicSchema(type: .reference(name), definitions: [definition]))
            }
            return .dynamicSchema(try makeUnion(name: name, description: description, choices: choices, node))
        }
        guard case .array(let items)? = args.value("properties") else {
            throw error("DynamicGenerationSchema(name:) needs properties: or anyOf:", node)
        }
        var properties: [Property] = []
        var definitions: [Definition] = []
        for item in items {
            guard case .dynamicProperty(let property, let nested) = item else {
                throw error("properties: must list DynamicGenerationSchema.Property values", node)
            }
            properties.append(property)
            definitions += nested
        }
        var definition = Definition(name: name, description: description, kind: .object(properties))
        if case .bool(true)? = args.value("representNilExplicitlyInGeneratedContent") { definition.representsNilExplicitly = true }
        return .dynamicSchema(DynamicSchema(type: .reference(name), definitions: [definition] + definitions))
    }

    /// `DynamicGenerationSchema(name:description:anyOf: [DynamicGenerationSchema])`: a union of
    /// object schemas, represented like an enum whose cases carry associated values: one case per
    /// member, named after it, with the member's properties. Generation picks exactly one member
    /// and writes it under its name, `{"Cat":{"name":"Tom","lives":9}}` (JSON Schema: an `anyOf`
    /// of one-key objects). Members that are not object schemas are refused with FM309's message.
    func makeUnion(name: String, description: String?, choices: [Value], _ node: some SyntaxProtocol) throws -> DynamicSchema {
        // No choices, or a member listed twice: GenerationSchema(root:dependencies:) throws the SchemaError
        // (emptyTypeChoices, duplicateType), as Apple's does; the description itself is accepted.
        var cases: [EnumCase] = []
        var definitions: [Definition] = []
        for choice in choices {
            switch choice {
            case .dynamicSchema(let member):
                guard case .reference(let memberName) = member.type,
                      let definition = member.definitions.first(where: { $0.name == memberName }),
                      case .object(let properties) = definition.kind
                else {
                    let kind: String
                    switch member.type {
                    case .array: kind = "an array schema (arrayOf:)"
                    case .reference: kind = member.definitions.isEmpty ? "a reference (referenceTo:)" : "a choice (anyOf:)"
                    default: kind = "a type schema (type:)"
                    }
                    throw error(DynamicSchemaSupport.anyOfMemberMessage(kind), node)
                }
                cases.append(EnumCase(name: memberName, description: definition.description, associatedValues: properties))
                definitions += member.definitions.filter { $0.name != memberName }
            case .enumCase(_, "null", _):
                throw error(DynamicSchemaSupport.nullMessage, node)
            default:
                throw error(DynamicSchemaSupport.anyOfMemberMessage(choice.stringValue != nil ? "a string (strings and schemas cannot be mixed)" : "not a DynamicGenerationSchema"), node)
            }
        }
        let union = Definition(name: name, description: description, kind: .enumeration(cases))
        return DynamicSchema(type: .reference(name), definitions: [union] + definitions)
    }

    /// `DynamicGenerationSchema.Property(name:description:schema:isOptional:)`.
    package func makeDynamicProperty(_ args: Arguments, _ node: some SyntaxProtocol) throws -> Value {
        if case .enumCase(_, "null", _)? = args.value("schema") { throw error(DynamicSchemaSupport.nullMessage, node) }
        guard let name = args.value("name")?.stringValue, case .dynamicSchema(let schema)? = args.value("schema") else {
            throw error("DynamicGenerationSchema.Property needs name: and schema:", node)
        }
        var isOptional = false
        if case .bool(let b)? = args.value("isOptional") { isOptional = b }
        return .dynamicProperty(Property(name: name, description: args.value("description")?.stringValue, type: schema.type,
                                         isOptional: isOptional), schema.definitions)
    }

    /// `GenerationSchema(root:dependencies:)`: every reference must be defined.
    package func makeGenerationSchema(_ args: Arguments, _ node: some SyntaxProtocol) throws -> Value {
        guard case .dynamicSchema(let root)? = args.value("root") else { throw error("GenerationSchema needs root:", node) }
        var definitions = root.definitions
        if case .array(let dependencies)? = args.value("dependencies") {
            for dependency in dependencies {
                guard case .dynamicSchema(let schema) = dependency else { throw error("dependencies: must list DynamicGenerationSchema values", node) }
                definitions += schema.definitions
            }
        }
        var unique: [Definition] = []
        for definition in definitions {
            guard let existing = unique.first(where: { $0.name == definition.name }) else {
                unique.append(definition)
                continue
            }
            if existing != definition {
                throw Self.schemaError("duplicateType", [("schema", rootName(root)), ("type", .string(definition.name))],
                                       "two different schemas are named '\(definition.name)'; give each its own name")
            }
        }
        try Self.checkDefinitions(unique)
        let schema = GenerationSchema(root: root.type, definitions: unique)
        let missing = Self.references(in: schema).filter { schema.definition(named: $0) == nil }.sorted()
        if !missing.isEmpty {
            throw Self.schemaError("undefinedReferences", [("schema", rootName(root)), ("references", .array(missing.map(Value.string)))],
                                   "\(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") not defined; pass \(missing.count == 1 ? "it" : "them") in dependencies:")
        }
        return .schema(schema)
    }

    private func rootName(_ root: DynamicSchema) -> Value {
        if case .reference(let name) = root.type { return .string(name) }
        return .null
    }

    /// Each object's property names and each choice's member names are unique, and a choice has members.
    static func checkDefinitions(_ definitions: [Definition]) throws {
        for definition in definitions {
            switch definition.kind {
            case .object(let properties):
                if let repeated = firstRepeated(properties.map(\.name)) {
                    throw schemaError("duplicateProperty", [("schema", .string(definition.name)), ("property", .string(repeated))],
                                      "'\(definition.name)' has two properties named '\(repeated)'")
                }
            case .enumeration(let cases):
                if cases.isEmpty {
                    throw schemaError("emptyTypeChoices", [("schema", .string(definition.name))],
                                      "'\(definition.name)' has no choices: anyOf: needs at least one")
                }
                if let repeated = firstRepeated(cases.map(\.name)) {
                    throw schemaError("duplicateType", [("schema", .string(definition.name)), ("type", .string(repeated))],
                                      "'\(definition.name)' lists '\(repeated)' twice in anyOf:")
                }
            }
        }
    }

    private static func firstRepeated(_ names: [String]) -> String? {
        var seen = Set<String>()
        return names.first { !seen.insert($0).inserted }
    }

    /// A thrown `GenerationSchema.SchemaError` case with its payload and a context (catchable in prompt code).
    static func schemaError(_ name: String, _ payload: [(String, Value)], _ description: String) -> ThrownValue {
        let context = Value.structure(type: "GenerationSchema.SchemaError.Context", fields: [("debugDescription", .string(description))])
        return ThrownValue(value: .enumCase(type: "GenerationSchema.SchemaError", name: name,
                                            payload: payload.map { (label: $0.0, value: $0.1) } + [(label: "context", value: context)]))
    }

    static func references(in schema: GenerationSchema) -> Set<String> {
        var names = Set<String>()
        func visit(_ type: SchemaType) {
            switch type {
            case .reference(let name): names.insert(name)
            case .array(let element, _): visit(element)
            default: break
            }
        }
        visit(schema.root)
        for definition in schema.definitions {
            switch definition.kind {
            case .object(let properties): properties.forEach { visit($0.type) }
            case .enumeration(let cases): cases.forEach { $0.associatedValues.forEach { visit($0.type) } }
            }
        }
        return names
    }
}
