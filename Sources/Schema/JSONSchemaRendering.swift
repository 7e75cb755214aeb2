import JSON

/// JSON Schema (draft 2020-12) rendering of a `GenerationSchema`: the shape
/// `fmplay schema` prints and the contract guided generation enforces.
///
/// - Objects: `title`, `description`, `type: object`, `properties` in
///   declaration order, `required` (every non-optional property), `x-order`
///   (declaration order, because JSON objects are unordered for most
///   readers) and `additionalProperties: false`.
/// - Enums without associated values: `type: string` with `enum` of case
///   names. With associated values: `anyOf`, one branch per case; a plain
///   case is `{"type": "string", "const": name}`, a case with values is an
///   object with the single required key `name` (see `Definition.Kind`).
/// - Guides: `.anyOf` -> `enum`, `.constant` -> `const`, `.pattern` ->
///   `pattern` (anchored as `^(?:…)$`, because a guide constrains the whole
///   string while JSON Schema patterns search), `.minimum`/`.maximum`/
///   `.range` -> `minimum`/`maximum`, counts -> `minItems`/`maxItems`.
/// - Named types other than the root live in `$defs` and are referenced
///   with `$ref`; references to the root are `{"$ref": "#"}`.
/// - `GeneratedContent` is `{}` (any JSON value).
extension GenerationSchema {
    public static let jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

    /// The JSON Schema document. `title` overrides the root's title;
    /// `includeDialect` adds `$schema`.
    public func jsonSchema(title: String? = nil, includeDialect: Bool = false) -> JSONValue {
        let rootName: String?
        if case .reference(let name) = root { rootName = name } else { rootName = nil }
        var document = JSONObject()
        if includeDialect { document["$schema"] = .string(Self.jsonSchemaDialect) }
        if let rootName, let definition = definition(named: rootName) {
            for (key, value) in render(definition, rootName: rootName) { document[key] = value }
        } else {
            for (key, value) in render(root, rootName: rootName) { document[key] = value }
        }
        if let title { document["title"] = .string(title) }
        var defs = JSONObject()
        for definition in definitions where definition.name != rootName {
            defs[definition.name] = .object(render(definition, rootName: rootName))
        }
        if !defs.isEmpty { document["$defs"] = .object(defs) }
        return .object(document)
    }

    /// The JSON pattern for a guide pattern: anchored to the whole string.
    public static func anchoredPattern(_ pattern: String) -> String {
        let anchoredStart = pattern.hasPrefix("^")
        let anchoredEnd = pattern.hasSuffix("$") && !pattern.hasSuffix("\\$")
        if anchoredStart && anchoredEnd { return pattern }
        return "^(?:\(pattern))$"
    }

    private func render(_ definition: Definition, rootName: String?) -> JSONObject {
        var object = JSONObject()
        object["title"] = .string(definition.name)
        if let description = definition.description { object["description"] = .string(description) }
        switch definition.kind {
        case .object(let properties):
            for (key, value) in renderObject(properties, rootName: rootName) { object[key] = value }
        case .enumeration(let cases):
            if cases.allSatisfy({ $0.associatedValues.isEmpty }) {
                object["type"] = "string"
                object["enum"] = .array(cases.map { .string($0.name) })
            } else {
                object["anyOf"] = .array(cases.map { enumCase in
                    var branch = JSONObject()
                    if let description = enumCase.description { branch["description"] = .string(description) }
                    if enumCase.associatedValues.isEmpty {
                        branch["type"] = "string"
                        branch["const"] = .string(enumCase.name)
                    } else {
                        branch["type"] = "object"
                        branch["properties"] = .object([enumCase.name: .object(renderObject(enumCase.associatedValues, rootName: rootName))])
                        branch["required"] = [.string(enumCase.name)]
                        branch["additionalProperties"] = false
                    }
                    return .object(branch)
                })
            }
        }
        return object
    }

    private func renderObject(_ properties: [Property], rootName: String?) -> JSONObject {
        var object = JSONObject()
        object["type"] = "object"
        var rendered = JSONObject()
        for property in properties {
            var schema = render(property.type, rootName: rootName)
            if let description = property.description { schema["description"] = .string(description) }
            rendered[property.name] = .object(schema)
        }
        object["properties"] = .object(rendered)
        object["required"] = .array(properties.filter { !$0.isOptional }.map { .string($0.name) })
        object["x-order"] = .array(properties.map { .string($0.name) })
        object["additionalProperties"] = false
        return object
    }

    private func render(_ type: SchemaType, rootName: String?) -> JSONObject {
        var object = JSONObject()
        switch type {
        case .string(let guides):
            object["type"] = "string"
            if let anyOf = guides.anyOf { object["enum"] = .array(anyOf.map { .string($0) }) }
            if let constant = guides.constant { object["const"] = .string(constant) }
            if let pattern = guides.pattern { object["pattern"] = .string(Self.anchoredPattern(pattern)) }
        case .integer(let guides):
            object["type"] = "integer"
            if let minimum = guides.minimum { object["minimum"] = Self.integerJSON(minimum) }
            if let maximum = guides.maximum { object["maximum"] = Self.integerJSON(maximum) }
        case .number(let guides):
            object["type"] = "number"
            if let minimum = guides.minimum { object["minimum"] = .double(minimum) }
            if let maximum = guides.maximum { object["maximum"] = .double(maximum) }
        case .boolean:
            object["type"] = "boolean"
        case .array(let element, let guides):
            object["type"] = "array"
            object["items"] = .object(render(element, rootName: rootName))
            if let minimum = guides.minimumCount { object["minItems"] = .int(minimum) }
            if let maximum = guides.maximumCount { object["maxItems"] = .int(maximum) }
        case .reference(let name):
            object["$ref"] = .string(name == rootName ? "#" : "#/$defs/" + Self.escapeJSONPointer(name))
        case .any:
            break
        }
        return object
    }

    private static func integerJSON(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 9.0e15 ? .int(Int(value)) : .double(value)
    }

    private static func escapeJSONPointer(_ token: String) -> String {
        var out = ""
        for character in token {
            switch character {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(character)
            }
        }
        return out
    }
}
