import Foundation
import PromptLanguage
import XCTest

/// Every diagnostic code has a fixture that triggers it (`FMnnn.fmplay`,
/// with `// expect: FMnnn` on each line where a diagnostic starts) and one
/// that must stay clean (`FMnnn-clean.fmplay`, no diagnostics at all).
final class DiagnosticFixtureTests: XCTestCase {
    /// Codes reported outside `PromptAnalyzer` (input problems) or tested by
    /// generated input (nesting).
    static let codesWithoutFileFixtures: Set<DiagnosticCode> = [.unreadableFile, .nestingTooDeep]

    static var fixtureDirectory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/diagnostics")
    }

    static func fixtures() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: fixtureDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "fmplay" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// `// expect: FM101 FM105` annotations as (line, code) pairs.
    static func expectations(in text: String) -> [String] {
        var result: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard let marker = line.range(of: "// expect:") else { continue }
            for code in line[marker.upperBound...].split(separator: " ") where code.hasPrefix("FM") {
                result.append("\(index + 1): \(code)")
            }
        }
        return result.sorted()
    }

    func testEveryFixtureProducesExactlyItsExpectedDiagnostics() throws {
        let fixtures = try Self.fixtures()
        XCTAssertGreaterThan(fixtures.count, 10)
        for fixture in fixtures { try check(fixture) }
    }

    /// Code from the WWDC seeds, verbatim: clean where it is prompt-file
    /// code, with the expected diagnostics where it is app code.
    func testSeedSnippetsLintAsExpected() throws {
        let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/seeds")
        let seeds = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "fmplay" }
        XCTAssertEqual(seeds.count, 4)
        for seed in seeds { try check(seed) }
    }

    func testEveryCodeHasATriggeringAndACleanFixture() throws {
        let names = Set(try Self.fixtures().map { $0.deletingPathExtension().lastPathComponent })
        for code in DiagnosticCode.allCases where !Self.codesWithoutFileFixtures.contains(code) {
            XCTAssertTrue(names.contains(code.rawValue), "missing fixture \(code.rawValue).fmplay")
            XCTAssertTrue(names.contains(code.rawValue + "-clean"), "missing fixture \(code.rawValue)-clean.fmplay")
            if let text = try? String(contentsOf: Self.fixtureDirectory.appendingPathComponent(code.rawValue + ".fmplay"), encoding: .utf8) {
                XCTAssertTrue(Self.expectations(in: text).contains { $0.hasSuffix(code.rawValue) }, "\(code.rawValue).fmplay does not expect \(code.rawValue)")
            }
        }
    }

    /// Applying a fix-it removes one occurrence of the diagnostic it fixes
    /// and introduces no syntax error.
    func testFixItsFixWhatTheyClaim() throws {
        var applied = 0
        for fixture in try Self.fixtures() where !fixture.lastPathComponent.contains("clean") {
            let text = try String(contentsOf: fixture, encoding: .utf8)
            let analysis = PromptAnalyzer.analyze(text)
            for diagnostic in analysis.diagnostics where diagnostic.code != .syntaxError {
                for fixIt in diagnostic.fixIts {
                    let fixed = Self.apply(fixIt.edits, to: text)
                    let after = PromptAnalyzer.analyze(fixed).diagnostics
                    let before = analysis.diagnostics.filter { $0.code == diagnostic.code }.count
                    XCTAssertLessThan(after.filter { $0.code == diagnostic.code }.count, before, "\(fixture.lastPathComponent): fix-it '\(fixIt.title)' did not fix \(diagnostic.code.rawValue)\n\(fixed)")
                    XCTAssertFalse(after.contains { $0.code == .syntaxError }, "\(fixture.lastPathComponent): fix-it '\(fixIt.title)' broke the syntax\n\(fixed)")
                    applied += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(applied, 10)
    }

    static func apply(_ edits: [TextEdit], to text: String) -> String {
        var bytes = Array(text.utf8)
        for edit in edits.sorted(by: { $0.range.start.offset > $1.range.start.offset }) {
            bytes.replaceSubrange(edit.range.offsets, with: Array(edit.newText.utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testSummaryFixItMovesThePropertyLast() throws {
        let text = "@Generable\nstruct Review {\n    var summary: String\n    var pros: [String]\n}\n"
        let diagnostic = try XCTUnwrap(PromptAnalyzer.analyze(text).diagnostics.first { $0.code == .summaryPropertyNotLast })
        XCTAssertEqual(diagnostic.severity, .info)
        let fixed = Self.apply(try XCTUnwrap(diagnostic.fixIts.first).edits, to: text)
        XCTAssertEqual(fixed, "@Generable\nstruct Review {\n    var pros: [String]\n    var summary: String\n}\n")
    }

    func testTenThousandNestedBracketsGiveOneDiagnostic() {
        let text = "let deep = " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        let analysis = PromptAnalyzer.analyze(text)
        XCTAssertEqual(analysis.diagnostics.filter { $0.code == .nestingTooDeep }.count, 1)
        XCTAssertTrue(analysis.hasErrors)
    }

    func testRangesAreExactByteOffsetsAndColumns() throws {
        let text = "@Generable\nstruct Café {\n    var quand: Date\n}\n"
        let diagnostic = try XCTUnwrap(PromptAnalyzer.analyze(text).diagnostics.first)
        XCTAssertEqual(diagnostic.code, .unsupportedPropertyType)
        XCTAssertEqual(diagnostic.range.start.line, 3)
        XCTAssertEqual(diagnostic.range.start.column, 16)
        let bytes = Array(text.utf8)
        XCTAssertEqual(String(decoding: bytes[diagnostic.range.offsets], as: UTF8.self), "Date")
    }

    func testAnalysisNeverTrapsOnTruncatedInput() throws {
        // Every prefix of a realistic file still analyses (error tolerance).
        let text = try String(contentsOf: Self.fixtureDirectory.appendingPathComponent("FM306-clean.fmplay"), encoding: .utf8)
        let bytes = Array(text.utf8)
        for end in stride(from: 0, to: bytes.count, by: 31) {
            let prefix = String(decoding: bytes[..<end], as: UTF8.self)
            _ = PromptAnalyzer.analyze(prefix)
        }
    }
}

extension XCTestCase {
    /// Analyses a fixture and compares its diagnostics with its `// expect:` lines.
    func check(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        let analysis = PromptAnalyzer.analyze(text)
        let actual = analysis.diagnostics.map { "\($0.range.start.line): \($0.code.rawValue)" }.sorted()
        let expected = DiagnosticFixtureTests.expectations(in: text)
        if actual != expected {
            let details = analysis.diagnostics.map { "  \($0.range.start.line):\($0.range.start.column) \($0.code.rawValue) \($0.message)" }
            XCTFail("\(url.lastPathComponent): expected \(expected), got \(actual)\n" + details.joined(separator: "\n"), file: file, line: line)
        }
    }
}
