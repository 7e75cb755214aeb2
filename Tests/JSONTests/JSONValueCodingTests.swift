import JSON
import XCTest

private struct Position: Codable, Equatable {
    var line: Int
    var character: Int
}

private struct Range: Codable, Equatable {
    var start: Position
    var end: Position
}

private enum Severity: Int, Codable, Equatable {
    case error = 1, warning = 2
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case polygon([Position])
    case none
}

private struct Diagnostic: Codable, Equatable {
    var range: Range
    var severity: Severity?
    var message: String
    var tags: [Int]?
    var data: JSONValue?
    var shape: Shape
    var small: UInt8
    var ratio: Float
}

private class Base: Codable {
    var id: Int
    init(id: Int) { self.id = id }
}

private final class Derived: Base {
    var name: String
    init(id: Int, name: String) {
        self.name = name
        super.init(id: id)
    }
    enum CodingKeys: String, CodingKey { case name }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

final class JSONValueCodingTests: XCTestCase {
    private let sample = Diagnostic(
        range: Range(start: Position(line: 1, character: 2), end: Position(line: 3, character: 4)),
        severity: .warning, message: "café ☕", tags: nil,
        data: ["fix": ["a", 1, nil, 2.5]], shape: .polygon([Position(line: 0, character: 0)]),
        small: 200, ratio: 0.5)

    func testEncodeKeepsDeclarationOrderAndOmitsNilOptionals() throws {
        let value = try JSONValueEncoder().encode(sample)
        XCTAssertEqual(value.objectValue?.keys, ["range", "severity", "message", "data", "shape", "small", "ratio"])
        XCTAssertEqual(value["range"]?["end"]?["character"], 4)
        XCTAssertEqual(value["severity"], 2)
        XCTAssertEqual(value["data"], ["fix": ["a", 1, nil, 2.5]])
        XCTAssertEqual(value.serialized(),
            #"{"range":{"start":{"line":1,"character":2},"end":{"line":3,"character":4}},"severity":2,"#
            + #""message":"café ☕","data":{"fix":["a",1,null,2.5]},"shape":{"polygon":{"_0":[{"line":0,"character":0}]}},"#
            + #""small":200,"ratio":0.5}"#)
    }

    func testRoundTrip() throws {
        let value = try JSONValueEncoder().encode(sample)
        XCTAssertEqual(try JSONValueDecoder().decode(Diagnostic.self, from: value), sample)
        let text = value.serialized()
        XCTAssertEqual(try JSONValueDecoder().decode(Diagnostic.self, from: JSONValue.parse(text)), sample)
        for shape in [Shape.circle(radius: 2), .none] {
            XCTAssertEqual(try JSONValueDecoder().decode(Shape.self, from: JSONValueEncoder().encode(shape)), shape)
        }
    }

    func testScalarsArraysAndDictionaries() throws {
        XCTAssertEqual(try JSONValueEncoder().encode(42), 42)
        XCTAssertEqual(try JSONValueEncoder().encode("x"), "x")
        XCTAssertEqual(try JSONValueEncoder().encode([1, 2]), [1, 2])
        XCTAssertEqual(try JSONValueEncoder().encode(Optional<Int>.none), nil)
        XCTAssertEqual(try JSONValueEncoder().encode(["k": true]), ["k": true])
        XCTAssertEqual(try JSONValueDecoder().decode([String: Int].self, from: ["a": 1, "b": 2]), ["a": 1, "b": 2])
        XCTAssertEqual(try JSONValueDecoder().decode([Int?].self, from: [1, nil]), [1, nil])
        // Integral doubles decode as integers; integers decode as doubles.
        XCTAssertEqual(try JSONValueDecoder().decode(Int.self, from: .double(3)), 3)
        XCTAssertEqual(try JSONValueDecoder().decode(Double.self, from: 3), 3.0)
        XCTAssertEqual(try JSONValueDecoder().decode(JSONValue.self, from: ["z": 1, "a": 2]).objectValue?.keys, ["z", "a"])
    }

    func testSuperEncoderAndDecoder() throws {
        let value = try JSONValueEncoder().encode(Derived(id: 7, name: "n"))
        XCTAssertEqual(value, ["name": "n", "super": ["id": 7]])
        let decoded = try JSONValueDecoder().decode(Derived.self, from: value)
        XCTAssertEqual(decoded.id, 7)
        XCTAssertEqual(decoded.name, "n")
    }

    func testDecodingErrorsNameTheCodingPath() throws {
        var value = try JSONValueEncoder().encode(sample)
        func failure(_ value: JSONValue) -> String {
            do {
                _ = try JSONValueDecoder().decode(Diagnostic.self, from: value)
                return "no error"
            } catch {
                return error.description
            }
        }
        var range = value["range"]!.objectValue!
        var start = range["start"]!.objectValue!
        start["line"] = "one"
        range["start"] = .object(start)
        var object = value.objectValue!
        object["range"] = .object(range)
        XCTAssertEqual(failure(.object(object)), #"range.start.line: expected an integer, found string "one""#)

        object = value.objectValue!
        object["message"] = nil
        XCTAssertEqual(failure(.object(object)), "message: required key is missing")

        object = value.objectValue!
        object["severity"] = 9
        XCTAssertTrue(failure(.object(object)).hasPrefix("severity: "), failure(.object(object)))

        object = value.objectValue!
        object["shape"] = ["polygon": ["_0": [["line": 0, "character": nil]]]]
        XCTAssertEqual(failure(.object(object)), "shape.polygon._0[0].character: expected an integer, found null")

        object = value.objectValue!
        object["small"] = 300
        XCTAssertEqual(failure(.object(object)), "small: 300 is out of range for UInt8")

        value = [1, 2]
        XCTAssertEqual(failure(value), "(root): expected an object, found an array of 2")
    }

    func testEncodingNonFiniteNumberNamesThePath() {
        var broken = sample
        broken.ratio = .infinity
        XCTAssertThrowsError(try JSONValueEncoder().encode(broken)) { error in
            XCTAssertEqual((error as? JSONCodingError)?.path, "ratio")
        }
        XCTAssertThrowsError(try JSONValueEncoder().encode([1.0, .nan])) { error in
            XCTAssertEqual((error as? JSONCodingError)?.path, "[1]")
        }
    }
}
