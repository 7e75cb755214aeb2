import Guidance
import JSON
import Schema

/// A corpus of schemas covering every type and guide, for random masked
/// sampling checked by two independent validators (Swift below, Python
/// `jsonschema` via Benchmarks/validate_guidance_corpus.py).
enum SchemaCorpus {
    static func object(_ name: String, _ properties: [Property], extra: [Definition] = []) -> GenerationSchema {
        GenerationSchema(root: .reference(name), definitions: [Definition(name: name, kind: .object(properties))] + extra)
    }

    static let schemas: [(name: String, schema: GenerationSchema)] = {
        let string = SchemaType.string(.none)
        let color = Definition(name: "Color", kind: .enumeration([EnumCase(name: "red"), EnumCase(name: "green"), EnumCase(name: "blue")]))
        let shape = Definition(name: "Shape", kind: .enumeration([
            EnumCase(name: "point"),
            EnumCase(name: "circle", associatedValues: [Property(name: "radius", type: .number(NumberGuides(minimum: 0, maximum: 10)))]),
            EnumCase(name: "rect", associatedValues: [Property(name: "w", type: .integer(.none)), Property(name: "h", type: .integer(.none))]),
        ]))
        let contact = Definition(name: "Contact", kind: .object([Property(name: "name", type: string), Property(name: "phone", type: string, isOptional: true)]))
        let node = Definition(name: "Node", kind: .object([
            Property(name: "label", type: .string(StringGuides(pattern: "[a-z]{1,4}"))),
            Property(name: "children", type: .array(element: .reference("Node"), guides: ArrayGuides(maximumCount: 2))),
        ]))
        let expression = Definition(name: "Expr", kind: .enumeration([
            EnumCase(name: "number", associatedValues: [Property(name: "_0", type: .integer(NumberGuides(minimum: 0, maximum: 99)))]),
            EnumCase(name: "sum", associatedValues: [Property(name: "lhs", type: .reference("Expr")), Property(name: "rhs", type: .reference("Expr"))]),
        ]))
        let person = Definition(name: "Person", kind: .object([
            Property(name: "name", type: string),
            Property(name: "friend", type: .reference("Person"), isOptional: true),
        ]))
        return [
            ("search_suggestions", ReferenceSchemas.searchSuggestions),
            ("itinerary", ReferenceSchemas.itinerary),
            ("single_string", object("S", [Property(name: "text", type: string)])),
            ("string_constant", object("S", [Property(name: "kind", type: .string(StringGuides(constant: "fixed \"quoted\"")))])),
            ("string_any_of", object("S", [Property(name: "size", type: .string(StringGuides(anyOf: ["small", "smaller", "large"])))])),
            ("pattern_code", object("S", [Property(name: "code", type: .string(StringGuides(pattern: #"[A-Z]{3}-\d{2,4}"#)))])),
            ("pattern_email", object("S", [Property(name: "email", type: .string(StringGuides(pattern: #"[a-z]{1,8}@[a-z]{1,8}\.(com|org)"#)))])),
            ("pattern_alternation", object("S", [Property(name: "answer", type: .string(StringGuides(pattern: "(yes|no|maybe)( really)?")))])),
            ("pattern_any_char", object("S", [Property(name: "line", type: .string(StringGuides(pattern: ".{0,12}")))])),
            ("pattern_negated", object("S", [Property(name: "word", type: .string(StringGuides(pattern: #"[^"\\ ]+"#)))])),
            ("integer_plain", object("S", [Property(name: "n", type: .integer(.none))])),
            ("integer_range", object("S", [Property(name: "age", type: .integer(NumberGuides(minimum: 18, maximum: 65)))])),
            ("integer_negative", object("S", [Property(name: "t", type: .integer(NumberGuides(minimum: -40, maximum: -3)))])),
            ("integer_min_only", object("S", [Property(name: "n", type: .integer(NumberGuides(minimum: 1000)))])),
            ("integer_max_only", object("S", [Property(name: "n", type: .integer(NumberGuides(maximum: 7)))])),
            ("number_plain", object("S", [Property(name: "x", type: .number(.none))])),
            ("number_range", object("S", [Property(name: "rating", type: .number(NumberGuides(minimum: 1, maximum: 5)))])),
            ("number_fraction_range", object("S", [Property(name: "p", type: .number(NumberGuides(minimum: 0.25, maximum: 0.75)))])),
            ("number_negative_range", object("S", [Property(name: "x", type: .number(NumberGuides(minimum: -1.5, maximum: 2.5)))])),
            ("boolean", object("S", [Property(name: "ok", type: .boolean)])),
            ("array_count", object("S", [Property(name: "tags", type: .array(element: string, guides: ArrayGuides(minimumCount: 3, maximumCount: 3)))])),
            ("array_bounds", object("S", [Property(name: "xs", type: .array(element: .integer(NumberGuides(minimum: 0, maximum: 9)), guides: ArrayGuides(minimumCount: 1, maximumCount: 4)))])),
            ("array_of_booleans", object("S", [Property(name: "bits", type: .array(element: .boolean, guides: ArrayGuides(maximumCount: 5)))])),
            ("array_of_arrays", object("S", [Property(name: "grid", type: .array(element: .array(element: .integer(NumberGuides(minimum: 0, maximum: 3)), guides: ArrayGuides(minimumCount: 2, maximumCount: 2)), guides: ArrayGuides(minimumCount: 1, maximumCount: 2)))])),
            ("array_element_enum", object("S", [Property(name: "colors", type: .array(element: .reference("Color"), guides: ArrayGuides(minimumCount: 1, maximumCount: 3)))], extra: [color])),
            ("string_enum", object("S", [Property(name: "color", type: .reference("Color"))], extra: [color])),
            ("enum_associated", object("S", [Property(name: "shape", type: .reference("Shape"))], extra: [shape])),
            ("optionals", object("S", [
                Property(name: "a", type: .integer(.none), isOptional: true), Property(name: "b", type: string),
                Property(name: "c", type: .boolean, isOptional: true), Property(name: "d", type: .reference("Color"), isOptional: true),
            ], extra: [color])),
            ("all_optional", object("S", [Property(name: "x", type: string, isOptional: true), Property(name: "y", type: .number(.none), isOptional: true)])),
            ("nested", object("S", [Property(name: "owner", type: .reference("Contact")), Property(name: "others", type: .array(element: .reference("Contact"), guides: ArrayGuides(maximumCount: 2)))], extra: [contact])),
            ("recursive_tree", GenerationSchema(root: .reference("Node"), definitions: [node])),
            ("recursive_enum", GenerationSchema(root: .reference("Expr"), definitions: [expression])),
            ("recursive_optional", GenerationSchema(root: .reference("Person"), definitions: [person])),
            ("any_value", object("S", [Property(name: "payload", type: .any)])),
            ("root_array", GenerationSchema(root: .array(element: .string(StringGuides(anyOf: ["a", "b"])), guides: ArrayGuides(minimumCount: 2, maximumCount: 3)))),
            ("root_integer", GenerationSchema(root: .integer(NumberGuides(minimum: 1, maximum: 12)))),
            ("mixed", object("Trip", [
                Property(name: "title", type: .string(.none)),
                Property(name: "days", type: .integer(NumberGuides(minimum: 1, maximum: 14))),
                Property(name: "budget", type: .number(NumberGuides(minimum: 0, maximum: 10000)), isOptional: true),
                Property(name: "color", type: .reference("Color")),
                Property(name: "stops", type: .array(element: .reference("Contact"), guides: ArrayGuides(minimumCount: 1, maximumCount: 2))),
                Property(name: "shape", type: .reference("Shape")),
            ], extra: [color, shape, contact])),
        ]
    }()

    // MARK: JSON Schema (for the Python validator)

    /// The JSON Schema of a typed schema, written here independently of the grammar compiler.
    static func jsonSchema(_ schema: GenerationSchema) -> JSONValue {
        var definitions = JSONObject()
        for definition in schema.definitions {
            switch definition.kind {
            case .object(let properties):
                definitions[definition.name] = objectSchema(properties)
            case .enumeration(let cases):
                var alternatives: [JSONValue] = []
                let simple = cases.filter { $0.associatedValues.isEmpty }.map { JSONValue.string($0.name) }
                if !simple.isEmpty { alternatives.append(["type": "string", "enum": .array(simple)]) }
                for enumCase in cases where !enumCase.associatedValues.isEmpty {
                    alternatives.append(objectSchema([Property(name: enumCase.name, type: .reference("__case_\(definition.name)_\(enumCase.name)"))]))
                    definitions["__case_\(definition.name)_\(enumCase.name)"] = objectSchema(enumCase.associatedValues)
                }
                definitions[definition.name] = ["anyOf": .array(alternatives)]
            }
        }
        var root = typeSchema(schema.root)
        if case .object(var object) = root {
            object["$defs"] = .object(definitions)
            root = .object(object)
        }
        return root
    }

    private static func objectSchema(_ properties: [Property]) -> JSONValue {
        var members = JSONObject()
        for property in properties { members[property.name] = typeSchema(property.type) }
        return ["type": "object", "properties": .object(members),
                "required": .array(properties.filter { !$0.isOptional }.map { .string($0.name) }),
                "additionalProperties": false]
    }

    private static func typeSchema(_ type: SchemaType) -> JSONValue {
        switch type {
        case .string(let guides):
            var object: JSONObject = ["type": "string"]
            if let constant = guides.constant { object["const"] = .string(constant) }
            if let anyOf = guides.anyOf { object["enum"] = .array(anyOf.map { .string($0) }) }
            if let pattern = guides.pattern { object["pattern"] = .string("^(?:\(pattern))$") }
            return .object(object)
        case .integer(let guides), .number(let guides):
            var object: JSONObject = ["type": type == .integer(guides) ? "integer" : "number"]
            if let minimum = guides.minimum { object["minimum"] = .double(minimum) }
            if let maximum = guides.maximum { object["maximum"] = .double(maximum) }
            return .object(object)
        case .boolean:
            return ["type": "boolean"]
        case .array(let element, let guides):
            var object: JSONObject = ["type": "array", "items": typeSchema(element)]
            if let minimum = guides.minimumCount { object["minItems"] = .int(minimum) }
            if let maximum = guides.maximumCount { object["maxItems"] = .int(maximum) }
            return .object(object)
        case .reference(let name):
            return ["$ref": .string("#/$defs/\(name)")]
        case .any:
            return [:]
        }
    }

    // MARK: Swift validator

    /// Whether `value` satisfies `type` and all its guides.
    static func validate(_ value: JSONValue, _ type: SchemaType, in schema: GenerationSchema) -> Bool {
        switch type {
        case .string(let guides):
            guard let string = value.stringValue else { return false }
            if let constant = guides.constant, string != constant { return false }
            if let anyOf = guides.anyOf, !anyOf.contains(string) { return false }
            if let pattern = guides.pattern {
                guard let regex = try? Regex(pattern), (try? regex.wholeMatch(in: string)) != nil else { return false }
            }
            return true
        case .integer(let guides):
            guard case .int(let integer) = value else { return false }
            return inRange(Double(integer), guides)
        case .number(let guides):
            guard let number = value.doubleValue else { return false }
            return inRange(number, guides)
        case .boolean:
            return value.boolValue != nil
        case .array(let element, let guides):
            guard let elements = value.arrayValue else { return false }
            if let minimum = guides.minimumCount, elements.count < minimum { return false }
            if let maximum = guides.maximumCount, elements.count > maximum { return false }
            return elements.allSatisfy { validate($0, element, in: schema) }
        case .any:
            return true
        case .reference(let name):
            guard let definition = schema.definition(named: name) else { return false }
            switch definition.kind {
            case .object(let properties):
                return validateObject(value, properties, in: schema)
            case .enumeration(let cases):
                if let string = value.stringValue { return cases.contains { $0.name == string && $0.associatedValues.isEmpty } }
                guard let object = value.objectValue, object.count == 1, let key = object.keys.first,
                      let enumCase = cases.first(where: { $0.name == key && !$0.associatedValues.isEmpty }) else { return false }
                return validateObject(object[key]!, enumCase.associatedValues, in: schema)
            }
        }
    }

    private static func validateObject(_ value: JSONValue, _ properties: [Property], in schema: GenerationSchema) -> Bool {
        guard let object = value.objectValue else { return false }
        let order = properties.map(\.name)
        var last = -1
        for key in object.keys {
            guard let position = order.firstIndex(of: key), position > last else { return false }
            last = position
        }
        for property in properties {
            if let member = object[property.name] {
                if !validate(member, property.type, in: schema) { return false }
            } else if !property.isOptional {
                return false
            }
        }
        return true
    }

    private static func inRange(_ number: Double, _ guides: NumberGuides) -> Bool {
        if let minimum = guides.minimum, number < minimum { return false }
        if let maximum = guides.maximum, number > maximum { return false }
        return true
    }
}
