import Guidance
import Schema

/// The schema described for the prompt in a compact, example-shaped form a
/// small model can follow, e.g.
///
///     {"destination": string, "days": integer 1...14, "kind": "relaxing" | "cultural",
///      "activities": [string, 4 items]}
///
/// Constraining happens in the grammar either way; this only tells the model
/// what is coming so its choices inside the constraints make sense.
enum SchemaPrompt {
    static func describe(_ schema: GenerationSchema) -> String {
        var visiting: [String] = []
        return describe(schema.root, in: schema, visiting: &visiting)
    }

    private static func describe(_ type: SchemaType, in schema: GenerationSchema, visiting: inout [String]) -> String {
        switch type {
        case .string(let guides):
            if let constant = guides.constant { return JSONText.quoted(constant) }
            if let anyOf = guides.anyOf { return anyOf.map(JSONText.quoted).joined(separator: " | ") }
            if let pattern = guides.pattern { return "string matching /\(pattern)/" }
            return "string"
        case .integer(let guides):
            return "integer" + range(guides)
        case .number(let guides):
            return "number" + range(guides)
        case .boolean:
            return "true | false"
        case .array(let element, let guides):
            var count = ""
            switch (guides.minimumCount, guides.maximumCount) {
            case let (minimum?, maximum?) where minimum == maximum: count = ", exactly \(minimum) items"
            case let (minimum?, maximum?): count = ", \(minimum) to \(maximum) items"
            case let (minimum?, nil): count = ", at least \(minimum) items"
            case let (nil, maximum?): count = ", at most \(maximum) items"
            default: break
            }
            return "[" + describe(element, in: schema, visiting: &visiting) + count + "]"
        case .any:
            return "any JSON value"
        case .reference(let name):
            guard let definition = schema.definition(named: name) else { return name }
            if visiting.contains(name) { return name }
            visiting.append(name)
            defer { visiting.removeLast() }
            switch definition.kind {
            case .object(let properties):
                return object(properties, in: schema, visiting: &visiting)
            case .enumeration(let cases):
                return cases.map { enumCase in
                    enumCase.associatedValues.isEmpty
                        ? JSONText.quoted(enumCase.name)
                        : "{" + JSONText.quoted(enumCase.name) + ": " + object(enumCase.associatedValues, in: schema, visiting: &visiting) + "}"
                }.joined(separator: " | ")
            }
        }
    }

    private static func object(_ properties: [Property], in schema: GenerationSchema, visiting: inout [String]) -> String {
        let members = properties.map { property in
            var text = JSONText.quoted(property.name) + (property.isOptional ? " (optional)" : "") + ": "
                + describe(property.type, in: schema, visiting: &visiting)
            if let description = property.description, !description.isEmpty { text += " // " + description }
            return text
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    private static func range(_ guides: NumberGuides) -> String {
        func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        }
        switch (guides.minimum, guides.maximum) {
        case let (minimum?, maximum?): return " \(format(minimum))...\(format(maximum))"
        case let (minimum?, nil): return " >= \(format(minimum))"
        case let (nil, maximum?): return " <= \(format(maximum))"
        default: return ""
        }
    }
}
