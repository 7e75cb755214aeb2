import Guidance
import Schema
import XCTest

/// Every guide kind: one value that must be accepted and one that must be
/// rejected, checked on whole outputs with `ByteGrammar.matches`.
final class GuideTests: XCTestCase {
    private func schema(_ type: SchemaType, definitions: [Definition] = []) -> GenerationSchema {
        GenerationSchema(root: .reference("Root"),
                         definitions: [Definition(name: "Root", kind: .object([Property(name: "v", type: type)]))] + definitions)
    }

    private func check(_ type: SchemaType, definitions: [Definition] = [], accepts: [String], rejects: [String],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let grammar = try ByteGrammar.compile(schema(type, definitions: definitions))
        for value in accepts {
            XCTAssertTrue(grammar.matches(Array("{\"v\":\(value)}".utf8)), "should accept \(value)", file: file, line: line)
        }
        for value in rejects {
            XCTAssertFalse(grammar.matches(Array("{\"v\":\(value)}".utf8)), "should reject \(value)", file: file, line: line)
        }
    }

    func testStringConstant() throws {
        try check(.string(StringGuides(constant: "fixed")), accepts: [#""fixed""#], rejects: [#""fixe""#, #""fixed!""#])
    }

    func testStringAnyOf() throws {
        try check(.string(StringGuides(anyOf: ["red", "green", "greenish"])),
                  accepts: [#""red""#, #""green""#, #""greenish""#], rejects: [#""blue""#, #""gree""#, #""Red""#])
    }

    func testStringAnyOfWithEscapes() throws {
        try check(.string(StringGuides(anyOf: ["say \"hi\"", "a\\b"])),
                  accepts: [#""say \"hi\"""#, #""a\\b""#], rejects: [#""say "hi"""#])
    }

    func testStringPattern() throws {
        try check(.string(StringGuides(pattern: #"[A-Z]{3}-\d{2,4}"#)),
                  accepts: [#""ABC-12""#, #""XYZ-1234""#], rejects: [#""AB-12""#, #""ABC-1""#, #""ABC-12345""#, #""abc-12""#])
    }

    func testPatternCombinedWithAnyOfFilters() throws {
        try check(.string(StringGuides(anyOf: ["a1", "b2", "cc"], pattern: #"\w\d"#)),
                  accepts: [#""a1""#, #""b2""#], rejects: [#""cc""#])
    }

    func testIntegerRange() throws {
        try check(.integer(NumberGuides(minimum: -15, maximum: 120)),
                  accepts: ["-15", "-1", "0", "7", "99", "120"], rejects: ["-16", "121", "1000", "-0.5", "1.0", "007"])
    }

    func testIntegerMinimumOnly() throws {
        try check(.integer(NumberGuides(minimum: 18)), accepts: ["18", "19", "100", "123456789"], rejects: ["17", "9", "-20"])
    }

    func testIntegerMaximumOnly() throws {
        try check(.integer(NumberGuides(maximum: 3)), accepts: ["3", "0", "-5", "-123"], rejects: ["4", "10"])
    }

    func testNumberRange() throws {
        try check(.number(NumberGuides(minimum: 1.5, maximum: 4.25)),
                  accepts: ["1.5", "1.50", "2", "3.999", "4.25", "4.2", "4.250"],
                  rejects: ["1.49", "1", "4.26", "4.251", "5", "-2", "1e1"])
    }

    func testNegativeNumberRange() throws {
        try check(.number(NumberGuides(minimum: -2.5, maximum: -0.75)),
                  accepts: ["-2.5", "-1", "-0.75", "-0.8"], rejects: ["-0.7", "-2.6", "0", "1"])
    }

    func testNumberFractionBounds() throws {
        try check(.number(NumberGuides(minimum: 0.05, maximum: 0.1)),
                  accepts: ["0.05", "0.07", "0.1", "0.099"], rejects: ["0.04", "0.11", "0.049", "0"])
    }

    func testArrayCount() throws {
        try check(.array(element: .string(.none), guides: ArrayGuides(minimumCount: 2, maximumCount: 2)),
                  accepts: [#"["a","b"]"#], rejects: [#"["a"]"#, #"["a","b","c"]"#, "[]"])
    }

    func testArrayMinimumAndMaximumCount() throws {
        try check(.array(element: .integer(.none), guides: ArrayGuides(minimumCount: 1, maximumCount: 3)),
                  accepts: ["[1]", "[1,2]", "[1,2,3]"], rejects: ["[]", "[1,2,3,4]", "[1,]"])
        try check(.array(element: .boolean, guides: ArrayGuides(minimumCount: 2)),
                  accepts: ["[true,false]", "[true,true,false,true]"], rejects: ["[true]", "[]"])
        try check(.array(element: .boolean, guides: ArrayGuides(maximumCount: 1)),
                  accepts: ["[]", "[false]"], rejects: ["[true,false]"])
    }

    func testElementGuides() throws {
        try check(.array(element: .integer(NumberGuides(minimum: 1, maximum: 6)), guides: ArrayGuides(maximumCount: 3)),
                  accepts: ["[1,6,3]", "[]"], rejects: ["[0]", "[7]", "[1,2,3,4]"])
    }

    func testStringEnum() throws {
        let kind = Definition(name: "Kind", kind: .enumeration([EnumCase(name: "small"), EnumCase(name: "smaller")]))
        try check(.reference("Kind"), definitions: [kind],
                  accepts: [#""small""#, #""smaller""#], rejects: [#""smallest""#, #""big""#])
    }

    func testEnumWithAssociatedValues() throws {
        let booking = Definition(name: "Booking", kind: .enumeration([
            EnumCase(name: "none"),
            EnumCase(name: "flight", associatedValues: [
                Property(name: "number", type: .string(.none)),
                Property(name: "seats", type: .integer(NumberGuides(minimum: 1, maximum: 9))),
            ]),
            EnumCase(name: "hotel", associatedValues: [Property(name: "_0", type: .string(.none))]),
        ]))
        try check(.reference("Booking"), definitions: [booking],
                  accepts: [#""none""#, #"{"flight":{"number":"UA1","seats":2}}"#, #"{"hotel":{"_0":"Ritz"}}"#],
                  rejects: [#""flight""#, #"{"flight":{"number":"UA1","seats":0}}"#, #"{"hotel":{}}"#, #"{"none":{}}"#])
    }

    func testOptionalProperties() throws {
        let grammar = try ByteGrammar.compile(GenerationSchema(root: .reference("R"), definitions: [
            Definition(name: "R", kind: .object([
                Property(name: "a", type: .integer(.none), isOptional: true),
                Property(name: "b", type: .string(.none)),
                Property(name: "c", type: .boolean, isOptional: true),
                Property(name: "d", type: .boolean, isOptional: true),
            ])),
        ]))
        for accepted in [#"{"b":"x"}"#, #"{"a":1,"b":"x"}"#, #"{"b":"x","c":true}"#, #"{"b":"x","d":false}"#,
                         #"{"a":1,"b":"x","c":true,"d":false}"#] {
            XCTAssertTrue(grammar.matches(Array(accepted.utf8)), accepted)
        }
        for rejected in [#"{}"#, #"{"a":1}"#, #"{"b":"x","a":1}"#, #"{"b":"x","d":true,"c":true}"#, #"{"a":null,"b":"x"}"#,
                         #"{,"b":"x"}"#] {
            XCTAssertFalse(grammar.matches(Array(rejected.utf8)), rejected)
        }
        let allOptional = try ByteGrammar.compile(GenerationSchema(root: .reference("R"), definitions: [
            Definition(name: "R", kind: .object([Property(name: "a", type: .integer(.none), isOptional: true)])),
        ]))
        XCTAssertTrue(allOptional.matches(Array("{}".utf8)))
        XCTAssertTrue(allOptional.matches(Array(#"{"a":3}"#.utf8)))
    }

    func testRecursiveTypeIsBoundedByDepth() throws {
        let node = GenerationSchema(root: .reference("Node"), definitions: [
            Definition(name: "Node", kind: .object([
                Property(name: "name", type: .string(.none)),
                Property(name: "children", type: .array(element: .reference("Node"), guides: .none)),
            ])),
        ])
        let grammar = try ByteGrammar.compile(node, options: GrammarOptions(maximumRecursionDepth: 3))
        let leaf = #"{"name":"c","children":[]}"#
        let depth2 = #"{"name":"b","children":[\#(leaf),\#(leaf)]}"#
        let depth3 = #"{"name":"a","children":[\#(depth2)]}"#
        XCTAssertTrue(grammar.matches(Array(leaf.utf8)))
        XCTAssertTrue(grammar.matches(Array(depth3.utf8)))
        XCTAssertFalse(grammar.matches(Array(#"{"name":"z","children":[\#(depth3)]}"#.utf8)), "depth 4 is beyond the bound")
    }

    func testRecursiveRequiredPropertyWithoutBaseCaseIsAnError() {
        let endless = GenerationSchema(root: .reference("Loop"), definitions: [
            Definition(name: "Loop", kind: .object([Property(name: "next", type: .reference("Loop"))])),
        ])
        XCTAssertThrowsError(try ByteGrammar.compile(endless)) { error in
            XCTAssertEqual((error as? GuidanceError)?.kind, .invalidSchema)
        }
    }

    func testAnyIsAnyJSONUpToTheDepthBound() throws {
        let grammar = try ByteGrammar.compile(schema(.any), options: GrammarOptions(maximumAnyDepth: 2))
        for accepted in ["1", "-2.5", "null", "true", #""s""#, "[]", "{}", #"{"k":[1,"x",true]}"#, #"[[1],{"a":null}]"#] {
            XCTAssertTrue(grammar.matches(Array("{\"v\":\(accepted)}".utf8)), accepted)
        }
        for rejected in ["[[[1]]]", #"{"k":[{}]}"#, "{\"a\":{\"b\":{}}}", "[1,]", "{\"a\"}", "nul", "01"] {
            XCTAssertFalse(grammar.matches(Array("{\"v\":\(rejected)}".utf8)), rejected)
        }
    }

    func testStringEscapingRules() throws {
        try check(.string(.none),
                  accepts: [#""a\"b""#, #""\\""#, #""\n\t\r\b\f\/""#, #""\u00e9\u20AC""#, #""日本""#, #""\ud83d""#.replacingOccurrences(of: "ud83d", with: "u0041")],
                  rejects: ["\"a\"b\"", "\"\\x\"", "\"\\ud800\"", "\"line\nbreak\"", "\"\u{01}\"", "\"\\u12\""])
        // Invalid UTF-8 never passes.
        let grammar = try ByteGrammar.compile(schema(.string(.none)))
        XCTAssertFalse(grammar.matches([0x7B, 0x22, 0x76, 0x22, 0x3A, 0x22, 0xC3, 0x22, 0x7D]))
        XCTAssertFalse(grammar.matches([0x7B, 0x22, 0x76, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D]), "UTF-8 surrogate")
        XCTAssertTrue(grammar.matches([0x7B, 0x22, 0x76, 0x22, 0x3A, 0x22, 0xC3, 0xA9, 0x22, 0x7D]))
    }

    func testImpossibleGuidesAreReported() {
        let cases: [(SchemaType, String)] = [
            (.integer(NumberGuides(minimum: 5, maximum: 4)), "no integer"),
            (.integer(NumberGuides(minimum: 1.2, maximum: 1.8)), "no integer"),
            (.array(element: .string(.none), guides: ArrayGuides(minimumCount: 3, maximumCount: 2)), "minimumCount"),
            (.string(StringGuides(anyOf: [])), "anyOf lists no values"),
            (.string(StringGuides(anyOf: ["a"], constant: "b")), "not one of anyOf"),
            (.string(StringGuides(pattern: #"(?=x)x"#)), "lookaround"),
            (.number(NumberGuides(maximum: 1e300)), "beyond the supported magnitude"),
        ]
        for (type, message) in cases {
            XCTAssertThrowsError(try ByteGrammar.compile(schema(type)), "\(type)") { error in
                guard let error = error as? GuidanceError else { return XCTFail("not a GuidanceError: \(error)") }
                XCTAssertEqual(error.kind, .unsupportedGuide, "\(type)")
                XCTAssertTrue(error.message.contains(message), "\(error.message) should mention \(message)")
                XCTAssertEqual(error.path, "Root.v")
            }
        }
    }

    func testUnknownReferenceIsAnError() {
        XCTAssertThrowsError(try ByteGrammar.compile(schema(.reference("Missing")))) { error in
            XCTAssertEqual((error as? GuidanceError)?.kind, .invalidSchema)
        }
    }
}
