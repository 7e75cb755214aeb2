import JSON

/// `GenerationSchema` as fmplay saves it (Apple's `GenerationSchema` is `Codable`): every definition, property, case
/// and guide, so a decoded schema is equal to the encoded one. This is fmplay's own shape, not JSON Schema
/// (`jsonSchema()` renders that, and it cannot be read back without loss):
///
///     {"root": TYPE, "definitions": [DEFINITION...]}
///     TYPE        {"type": "string", "anyOf"?: [..], "constant"?: "..", "pattern"?: ".."}
///                 {"type": "integer" | "number", "minimum"?: n, "maximum"?: n}
///                 {"type": "boolean"} | {"type": "any"} | {"$ref": "Name"}
///                 {"type": "array", "items": TYPE, "minimumCount"?: n, "maximumCount"?: n}
///     DEFINITION  {"name", "description"?, "representsNilExplicitly"?: true, "properties": [PROPERTY...]}
///                 {"name", "description"?, "cases": [{"name", "description"?, "associatedValues": [PROPERTY...]}]}
///     PROPERTY    {"name", "description"?, "type": TYPE, "isOptional"?: true}
extension GenerationSchema {
    public var codingJSON: JSONValue {
        .object(["root": Self.encode(root), "definitions": .array(definitions.map(Self.encode))])
    }

    public init(codingJSON json: JSONValue) throws(SchemaCodingError) {
        guard let root = json["root"] else { throw SchemaCodingError("a GenerationSchema needs \"root\"") }
        var definitions: [Definition] = []
        for item in json["definitions"]?.arrayValue ?? [] { definitions.append(try Self.decodeDefinition(item)) }
        self.init(root: try Self.decodeType(root), definitions: definitions)
    }

    private static func encode(_ type: SchemaType) -> JSONValue {
        var fields: [(String, JSONValue)]
        switch type {
        case .string(let g):
            fields = [("type", "string")]
            if let anyOf = g.anyOf { fields.append(("anyOf", .array(anyOf.map(JSONValue.string)))) }
            if let constant = g.constant { fields.append(("constant", .string(constant))) }
            if let pattern = g.pattern { fields.append(("pattern", .string(pattern))) }
        case .integer(let g), .number(let g):
            if case .integer = type { fields = [("type", "integer")] } else { fields = [("type", "number")] }
            if let minimum = g.minimum { fields.append(("minimum", .double(minimum))) }
            if let maximum = g.maximum { fields.append(("maximum", .double(maximum))) }
        case .boolean: fields = [("type", "boolean")]
        case .any: fields = [("type", "any")]
        case .reference(let name): fields = [("$ref", .string(name))]
        case .array(let element, let g):
            fields = [("type", "array"), ("items", encode(element))]
            if let minimum = g.minimumCount { fields.append(("minimumCount", .int(minimum))) }
            if let maximum = g.maximumCount { fields.append(("maximumCount", .int(maximum))) }
        }
        return .object(JSONObject(fields))
    }

    private static func encode(_ property: Property) -> JSONValue {
        var fields: [(String, JSONValue)] = [("name", .string(property.name))]
        if let description = property.description { fields.append(("description", .string(description))) }
        fields.append(("type", encode(property.type)))
        if property.isOptional { fields.append(("isOptional", true)) }
        return .object(JSONObject(fields))
    }

    private static func encode(_ definition: Definition) -> JSONValue {
        var fields: [(String, JSONValue)] = [("name", .string(definition.name))]
        if let description = definition.description { fields.append(("description", .string(description))) }
        if definition.representsNilExplicitly { fields.append(("representsNilExplicitly", true)) }
        switch definition.kind {
        case .object(let properties): fields.append(("properties", .array(properties.map(encode))))
        case .enumeration(let cases):
            fields.append(("cases", .array(cases.map { item in
                var caseFields: [(String, JSONValue)] = [("name", .string(item.name))]
                if let description = item.description { caseFields.append(("description", .string(description))) }
                caseFields.append(("associatedValues", .array(item.associatedValues.map(encode))))
                return .object(JSONObject(caseFields))
            })))
        }
        return .object(JSONObject(fields))
    }

    private static func decodeType(_ json: JSONValue) throws(SchemaCodingError) -> SchemaType {
        if let name = json["$ref"]?.stringValue { return .reference(name) }
        switch json["type"]?.stringValue {
        case "string":
            var anyOf: [String]?
            if let given = json["anyOf"] {
                guard let items = given.arrayValue?.compactMap(\.stringValue) else { throw SchemaCodingError("\"anyOf\" lists strings") }
                anyOf = items
            }
            return .string(StringGuides(anyOf: anyOf, constant: json["constant"]?.stringValue, pattern: json["pattern"]?.stringValue))
        case "integer": return .integer(NumberGuides(minimum: json["minimum"]?.doubleValue, maximum: json["maximum"]?.doubleValue))
        case "number": return .number(NumberGuides(minimum: json["minimum"]?.doubleValue, maximum: json["maximum"]?.doubleValue))
        case "boolean": return .boolean
        case "any": return .any
        case "array":
            guard let items = json["items"] else { throw SchemaCodingError("an array type needs \"items\"") }
            return .array(element: try decodeType(items),
                          guides: ArrayGuides(minimumCount: json["minimumCount"]?.intValue, maximumCount: json["maximumCount"]?.intValue))
        default:
            throw SchemaCodingError("unknown schema type \(json.serialized().prefix(60))")
        }
    }

    private static func decodeProperty(_ json: JSONValue) throws(SchemaCodingError) -> Property {
        guard let name = json["name"]?.stringValue, let type = json["type"] else { throw SchemaCodingError("a property needs \"name\" and \"type\"") }
        return Property(name: name, description: json["description"]?.stringValue, type: try decodeType(type),
                        isOptional: json["isOptional"]?.boolValue ?? false)
    }

    private static func decodeProperties(_ json: JSONValue?) throws(SchemaCodingError) -> [Property] {
        var properties: [Property] = []
        for item in json?.arrayValue ?? [] { properties.append(try decodeProperty(item)) }
        return properties
    }

    private static func decodeDefinition(_ json: JSONValue) throws(SchemaCodingError) -> Definition {
        guard let name = json["name"]?.stringValue else { throw SchemaCodingError("a definition needs \"name\"") }
        let kind: Definition.Kind
        if let cases = json["cases"]?.arrayValue {
            var decoded: [EnumCase] = []
            for item in cases {
                guard let caseName = item["name"]?.stringValue else { throw SchemaCodingError("an enum case needs \"name\"") }
                decoded.append(EnumCase(name: caseName, description: item["description"]?.stringValue,
                                        associatedValues: try decodeProperties(item["associatedValues"])))
            }
            kind = .enumeration(decoded)
        } else {
            kind = .object(try decodeProperties(json["properties"]))
        }
        var definition = Definition(name: name, description: json["description"]?.stringValue, kind: kind)
        definition.representsNilExplicitly = json["representsNilExplicitly"]?.boolValue ?? false
        return definition
    }
}

/// Saved JSON that is not a schema, transcript or other saved value of the shape fmplay writes.
public struct SchemaCodingError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
