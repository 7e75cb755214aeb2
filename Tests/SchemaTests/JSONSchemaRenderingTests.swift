import JSON
import Schema
import XCTest

final class JSONSchemaRenderingTests: XCTestCase {
    func testObjectKeepsDeclarationOrderRequiredAndClosedShape() {
        let schema = GenerationSchema(root: .reference("Trip"), definitions: [
            Definition(name: "Trip", description: "A trip", kind: .object([
                Property(name: "zeta", type: .string(.none)),
                Property(name: "alpha", description: "Days", type: .integer(NumberGuides(minimum: 1, maximum: 7))),
                Property(name: "notes", type: .string(.none), isOptional: true),
            ])),
        ])
        let json = schema.jsonSchema()
        XCTAssertEqual(json.objectValue?.keys, ["title", "description", "type", "properties", "required", "x-order", "additionalProperties"])
        XCTAssertEqual(json["properties"]?.objectValue?.keys, ["zeta", "alpha", "notes"])
        XCTAssertEqual(json["x-order"], ["zeta", "alpha", "notes"])
        XCTAssertEqual(json["required"], ["zeta", "alpha"])
        XCTAssertEqual(json["additionalProperties"], false)
        XCTAssertEqual(json["properties"]?["alpha"], ["type": "integer", "minimum": 1, "maximum": 7, "description": "Days"])
    }

    func testRecursiveAndNestedTypesUseRefs() {
        let schema = GenerationSchema(root: .reference("Node"), definitions: [
            Definition(name: "Node", kind: .object([
                Property(name: "children", type: .array(element: .reference("Node"), guides: ArrayGuides(maximumCount: 2))),
                Property(name: "tag", type: .reference("Tag")),
            ])),
            Definition(name: "Tag", kind: .enumeration([EnumCase(name: "a"), EnumCase(name: "b")])),
        ])
        let json = schema.jsonSchema(title: "Tree", includeDialect: true)
        XCTAssertEqual(json["$schema"], .string(GenerationSchema.jsonSchemaDialect))
        XCTAssertEqual(json["title"], "Tree")
        XCTAssertEqual(json["properties"]?["children"], ["type": "array", "items": ["$ref": "#"], "maxItems": 2])
        XCTAssertEqual(json["properties"]?["tag"], ["$ref": "#/$defs/Tag"])
        XCTAssertEqual(json["$defs"]?["Tag"], ["title": "Tag", "type": "string", "enum": ["a", "b"]])
    }

    func testEnumWithAssociatedValuesIsAnyOfOneKeyObjects() {
        let schema = GenerationSchema(root: .reference("Encounter"), definitions: [
            Definition(name: "Encounter", kind: .enumeration([
                EnumCase(name: "order", associatedValues: [Property(name: "_0", type: .string(.none))]),
                EnumCase(name: "browsing", description: "Just looking"),
            ])),
        ])
        let branches = schema.jsonSchema()["anyOf"]?.arrayValue
        XCTAssertEqual(branches?.count, 2)
        XCTAssertEqual(branches?[0]["required"], ["order"])
        XCTAssertEqual(branches?[0]["properties"]?["order"]?["required"], ["_0"])
        XCTAssertEqual(branches?[1], ["description": "Just looking", "type": "string", "const": "browsing"])
    }

    func testStringGuidesAndAnchoredPatterns() {
        let schema = GenerationSchema(root: .string(StringGuides(anyOf: ["x"], constant: "x", pattern: "[a-z]+")))
        XCTAssertEqual(schema.jsonSchema(), ["type": "string", "enum": ["x"], "const": "x", "pattern": "^(?:[a-z]+)$"])
        XCTAssertEqual(GenerationSchema.anchoredPattern("^a$"), "^a$")
        XCTAssertEqual(GenerationSchema.anchoredPattern("a|b"), "^(?:a|b)$")
        XCTAssertEqual(GenerationSchema.anchoredPattern("a\\$"), "^(?:a\\$)$")
    }

    func testNumbersAndAny() {
        let schema = GenerationSchema(root: .array(element: .number(NumberGuides(minimum: 0.5)), guides: ArrayGuides(minimumCount: 1, maximumCount: 3)))
        XCTAssertEqual(schema.jsonSchema(), ["type": "array", "items": ["type": "number", "minimum": 0.5], "minItems": 1, "maxItems": 3])
        XCTAssertEqual(GenerationSchema(root: .any).jsonSchema(), [:])
    }
}
