import PromptLanguage
import XCTest

/// The catalogue has an entry for every code, and its examples are true:
/// each example triggers its code, each fixed example does not.
final class DiagnosticCatalogueTests: XCTestCase {
    func testEveryCodeHasAnEntryWithExplanation() {
        XCTAssertEqual(DiagnosticCatalogue.all.map(\.code), DiagnosticCode.allCases)
        for entry in DiagnosticCatalogue.all {
            XCTAssertGreaterThan(entry.explanation.count, 40, entry.code.rawValue)
            XCTAssertEqual(entry.code.name, entry.name)
            XCTAssertTrue(entry.rendered.hasPrefix("\(entry.code.rawValue) \(entry.name) (\(entry.severity.rawValue)): "))
        }
        XCTAssertEqual(DiagnosticCatalogue.entry(named: "fm101")?.code, .unsupportedPropertyType)
        XCTAssertEqual(DiagnosticCatalogue.entry(named: "310")?.code, .unknownMember)
        XCTAssertNil(DiagnosticCatalogue.entry(named: "FM999"))
    }

    /// The ranges `fmplay explain` names for an unknown code cover every code and nothing else.
    func testCodeRangesCoverExactlyTheCatalogue() throws {
        let ranges = DiagnosticCatalogue.codeRanges
        var covered = Set<String>()
        for part in ranges.replacingOccurrences(of: " and ", with: ", ").split(separator: ", ") {
            let ends = part.split(separator: "-").map { Int($0.dropFirst(2))! }
            for number in ends[0]...ends[ends.count - 1] { covered.insert("FM" + String(repeating: "0", count: 3 - "\(number)".count) + "\(number)") }
        }
        XCTAssertEqual(covered, Set(DiagnosticCode.allCases.map(\.rawValue)), ranges)
        XCTAssertTrue(ranges.hasPrefix("FM001-FM003, FM101-"), ranges)
        XCTAssertTrue(ranges.hasSuffix(" and FM301-" + DiagnosticCode.allCases.last!.rawValue), ranges)
    }

    func testExamplesTriggerTheirCodeAndFixedExamplesDoNot() {
        for entry in DiagnosticCatalogue.all where entry.code != .unreadableFile {
            let codes = PromptAnalyzer.analyze(entry.example).diagnostics.map(\.code)
            XCTAssertTrue(codes.contains(entry.code), "\(entry.code.rawValue) example gives \(codes.map(\.rawValue))")
            let fixed = PromptAnalyzer.analyze(entry.fixed).diagnostics
            XCTAssertFalse(fixed.contains { $0.code == entry.code }, "\(entry.code.rawValue) fixed example still gives it")
            XCTAssertFalse(fixed.contains { $0.severity == .error }, "\(entry.code.rawValue) fixed example: \(fixed.map(\.message))")
        }
    }
}
