import Foundation
import JSON
import XCTest

/// Golden tests for `fmplay schema`. A missing golden is written and the
/// test fails once; `UPDATE_GOLDEN=1` rewrites them. The goldens are also
/// validated as JSON Schema by `validate_schemas.py` (run by `make test`).
final class SchemaCommandTests: XCTestCase {
    static var fixtures: URL { FMPlayProcess.packageRoot.appendingPathComponent("Tests/CLITests/Fixtures/schema") }

    func testSchemaGoldens() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path)
            .filter { $0.hasSuffix(".fmplay") }.sorted()
        XCTAssertEqual(names, ["enum.fmplay", "every-guide.fmplay", "flat.fmplay", "nested.fmplay", "recursive.fmplay"])
        let update = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1"
        for name in names {
            let output = try FMPlayProcess.run(["schema", Self.fixtures.appendingPathComponent(name).path])
            XCTAssertEqual(output.status, 0, "\(name): \(output.stderr)")
            XCTAssertNoThrow(try JSONValue.parse(output.stdout), name)
            let golden = Self.fixtures.appendingPathComponent(name.replacingOccurrences(of: ".fmplay", with: ".golden.json"))
            if update || !FileManager.default.fileExists(atPath: golden.path) {
                try output.stdout.write(to: golden, atomically: true, encoding: .utf8)
                if !update { XCTFail("wrote missing golden \(golden.lastPathComponent); check it and rerun") }
                continue
            }
            let expected = try String(contentsOf: golden, encoding: .utf8)
            XCTAssertEqual(output.stdout, expected, "\(name) differs from \(golden.lastPathComponent); rerun with UPDATE_GOLDEN=1 if the change is intended")
        }
    }

    func testTypeOptionPrintsOneSchema() throws {
        let file = Self.fixtures.appendingPathComponent("nested.fmplay").path
        let output = try FMPlayProcess.run(["schema", file, "--type", "Itinerary.DayPlan"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let schema = try JSONValue.parse(output.stdout)
        XCTAssertEqual(schema["title"], "Itinerary.DayPlan")
        XCTAssertEqual(schema["x-order"], ["title", "activities"])
        XCTAssertEqual(schema["additionalProperties"], false)
        XCTAssertEqual(schema["properties"]?["activities"]?["minItems"], 2)

        let byShortName = try FMPlayProcess.run(["schema", file, "--type", "Person"])
        XCTAssertEqual(try JSONValue.parse(byShortName.stdout)["description"], "Someone to call")
    }

    func testUnknownTypeAndInvalidTypesFail() throws {
        let file = Self.fixtures.appendingPathComponent("flat.fmplay").path
        let unknown = try FMPlayProcess.run(["schema", file, "--type", "Nope"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no @Generable type named 'Nope'; available: SearchSuggestions"), unknown.stderr)

        let directory = try FMPlayProcess.temporaryDirectory(self)
        let broken = directory.appendingPathComponent("broken.fmplay")
        try "@Generable\nstruct A {\n    @Guide(.count(2))\n    var name: String\n}\n".write(to: broken, atomically: true, encoding: .utf8)
        let output = try FMPlayProcess.run(["schema", broken.path])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.stdout, "")
        XCTAssertTrue(output.stderr.contains("broken.fmplay:3:12: error: .count applies to array properties"), output.stderr)
    }
}
