import FoundationModelsRuntime
import XCTest

final class GeneratedContentTests: XCTestCase {
    func testCompleteJSONKeepsKeyOrder() throws {
        let content = try GeneratedContent(json: #"{"b": 1, "a": [true, null, "x"], "c": 2.5}"#)
        XCTAssertTrue(content.isComplete)
        XCTAssertEqual(content.orderedProperties.map(\.key), ["b", "a", "c"])
        XCTAssertEqual(content.jsonString, #"{"b":1,"a":[true,null,"x"],"c":2.5}"#)
    }

    func testPartialJSON() throws {
        let cases: [(String, String)] = [
            (#"{"title": "Par"#, #"{"title":"Par"}"#),
            (#"{"title": "Paris", "days": 1"#, #"{"title":"Paris"}"#),
            (#"{"title": "Paris", "days": 12,"#, #"{"title":"Paris","days":12}"#),
            (#"{"title": "Paris", "da"#, #"{"title":"Paris"}"#),
            (#"{"tags": ["a", "b"#, #"{"tags":["a","b"]}"#),
            (#"{"ok": tr"#, #"{}"#),
            (#"["\u00e9\n"#, "[\"é\\n\"]"),
        ]
        for (input, expected) in cases {
            let content = try GeneratedContent(json: input, partial: true)
            XCTAssertFalse(content.isComplete, input)
            XCTAssertEqual(content.jsonString, expected, input)
        }
    }

    /// A whole document's number ends with the text (`"42"` is 42); only a stream prefix leaves it out.
    func testANumberAtTheEndOfAWholeDocumentIsComplete() throws {
        XCTAssertEqual(try GeneratedContent(json: "42").jsonString, "42")
        XCTAssertTrue(try GeneratedContent(json: "-2.5").isComplete)
        XCTAssertEqual(try GeneratedContent(json: #"{"days": 1"#).jsonString, #"{"days":1}"#)
        XCTAssertThrowsError(try GeneratedContent(json: "42", partial: true))
    }

    func testInvalidJSONThrowsWithOffset() {
        XCTAssertThrowsError(try GeneratedContent(json: #"{"a" 1}"#)) { error in
            XCTAssertEqual("\(error)", "invalid JSON at byte 5: expected ':' after a property name")
        }
        XCTAssertThrowsError(try GeneratedContent(json: "  "))
        XCTAssertThrowsError(try GeneratedContent(json: "[1] x"))
    }
}
