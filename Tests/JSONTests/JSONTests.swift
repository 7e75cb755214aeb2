import JSON
import XCTest

final class JSONTests: XCTestCase {
    /// A `null` document is JSON (json-c answers it with a NULL object, which is not an error).
    func testNullDocument() throws {
        XCTAssertEqual(try JSONValue.parse("null"), .null)
        XCTAssertEqual(try JSONValue.parse(" null\n"), .null)
        XCTAssertThrowsError(try JSONValue.parse("nul"))
        XCTAssertThrowsError(try JSONValue.parse("null x"))
    }

    func testRoundTripKeepsKeyOrder() throws {
        let text = #"{"zeta":1,"alpha":[true,false,null],"mid":{"b":"x","a":2.5}}"#
        let value = try JSONValue.parse(text)
        XCTAssertEqual(value.objectValue?.keys, ["zeta", "alpha", "mid"])
        XCTAssertEqual(value["mid"]?.objectValue?.keys, ["b", "a"])
        XCTAssertEqual(value.serialized(), text)
    }

    func testScalars() throws {
        XCTAssertEqual(try JSONValue.parse("42"), .int(42))
        XCTAssertEqual(try JSONValue.parse("-1.5e3"), .double(-1500))
        XCTAssertEqual(try JSONValue.parse(#""caf\u00e9 ☕""#), .string("café ☕"))
        XCTAssertEqual(try JSONValue.parse(" true "), .bool(true))
        XCTAssertEqual(JSONValue.double(0.1).serialized(), "0.1")
        XCTAssertEqual(JSONValue.string("a/b\n\"q\"").serialized(), #""a/b\n\"q\"""#)
    }

    func testEmbeddedNulSurvives() throws {
        let value = try JSONValue.parse(#""a\u0000b""#)
        XCTAssertEqual(value.stringValue?.utf8.count, 3)
        XCTAssertEqual(try JSONValue.parse(value.serialized()), value)
    }

    func testErrorsCarryLineAndColumn() {
        XCTAssertThrowsError(try JSONValue.parse("{\n  \"a\": 1,\n  \"b\": ]\n}")) { error in
            let error = error as! JSONParseError
            XCTAssertEqual(error.line, 3)
            XCTAssertEqual(error.column, 8)
        }
        XCTAssertThrowsError(try JSONValue.parse("{\"a\": 1} x")) { error in
            XCTAssertEqual((error as! JSONParseError).column, 10)
        }
        // The column is that of the offending character itself.
        XCTAssertThrowsError(try JSONValue.parse("[1, @]")) { error in
            XCTAssertEqual((error as! JSONParseError).column, 5)
        }
        XCTAssertThrowsError(try JSONValue.parse([0x31, 0x00, 0x32])) { error in
            XCTAssertEqual((error as! JSONParseError).column, 2)
        }
        XCTAssertThrowsError(try JSONValue.parse("")) { error in
            XCTAssertEqual((error as! JSONParseError).message, "empty document")
        }
        XCTAssertThrowsError(try JSONValue.parse("[1, 2")) { error in
            XCTAssertEqual((error as! JSONParseError).message, "unexpected end of input")
        }
    }

    func testRejectsInvalidUTF8AndDeepNesting() {
        XCTAssertThrowsError(try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]))
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertThrowsError(try JSONValue.parse(deep))
    }

    func testPrettyUsesTwoSpaces() {
        let value: JSONValue = ["a": [1, 2], "b": ["c": nil]]
        let pretty = value.serialized(pretty: true)
        XCTAssertFalse(pretty.contains("\t"))
        XCTAssertEqual(try JSONValue.parse(pretty), value)
        XCTAssertTrue(pretty.contains("\n  \"a\""))
    }

    func testObjectReplaceAndRemoveKeepOrder() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = 20
        object["a"] = nil
        XCTAssertEqual(object.keys, ["b", "c"])
        XCTAssertEqual(object["b"], 20)
    }
}
