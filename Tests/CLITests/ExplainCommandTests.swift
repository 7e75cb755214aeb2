import XCTest

final class ExplainCommandTests: XCTestCase {
    func testExplainPrintsTheCatalogueEntry() throws {
        let output = try FMPlayProcess.run(["explain", "FM101"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.hasPrefix("FM101 unsupported-property-type (error): Generable properties must have generable types.\n"), output.stdout)
        XCTAssertTrue(output.stdout.contains("Example:\n") && output.stdout.contains("    var start: Date") && output.stdout.contains("Fixed:\n"), output.stdout)
        let lower = try FMPlayProcess.run(["explain", "fm310"])
        XCTAssertEqual(lower.status, 0, lower.stderr)
        XCTAssertTrue(lower.stdout.hasPrefix("FM310 unknown-member"), lower.stdout)
    }

    /// FM201 is an error about an empty name only: Apple documents that a tool without `name` is named after its type.
    func testFM201IsAboutEmptyNames() throws {
        let output = try FMPlayProcess.run(["explain", "FM201"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.hasPrefix("FM201 empty-tool-name (error): A tool's name must not be empty.\n"), output.stdout)
        XCTAssertTrue(output.stdout.contains("    let name = \"\""), output.stdout)
        XCTAssertTrue(output.stdout.contains("the framework then uses the type name"), output.stdout)
    }

    func testUnknownCodeIsAUsageError() throws {
        let output = try FMPlayProcess.run(["explain", "FM999"])
        XCTAssertEqual(output.status, 2)
        XCTAssertTrue(output.stderr.contains("'FM999' is not a diagnostic code of fmplay"), output.stderr)
        XCTAssertEqual(output.stdout, "")
        // The message names the codes there are: its last range ends at the last code `fmplay explain` lists.
        let listed = try FMPlayProcess.run(["explain"]).stdout.split(separator: "\n").map { String($0.prefix(5)) }
        let last = try XCTUnwrap(listed.last)
        XCTAssertTrue(output.stderr.contains("FM001-FM003, ") && output.stderr.contains("-\(last) (run 'fmplay explain'"), output.stderr)
    }

    func testListingWithoutACode() throws {
        let output = try FMPlayProcess.run(["explain"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let lines = output.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 43, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FM311  unknown-import") }, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FM312  missing-try-await") }, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FM313  unsupported-evaluations") }, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FM314  unimplemented-api") }, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FM315  dynamic-builder") }, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FM316  not-in-apple-api") }, output.stdout)
    }
}
