import Foundation
import FoundationModelsRuntime
import PlaygroundEvaluator
import PromptLanguage
import XCTest

/// FM306 agrees with the evaluator: per construct, `NAME.fmplay` marks every
/// line the checker must reject (`// expect: FM306`), and `NAME-clean.fmplay`
/// uses the supported forms, lints clean and really runs in the evaluator.
final class SupportedSwiftTests: XCTestCase {
    static var directory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/supported-swift")
    }

    static func fixtures(clean: Bool) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "fmplay" && $0.deletingPathExtension().lastPathComponent.hasSuffix("-clean") == clean }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    func testEveryConstructHasATriggeringAndACleanFixture() throws {
        let triggering = Set(try Self.fixtures(clean: false).map { $0.deletingPathExtension().lastPathComponent })
        let clean = Set(try Self.fixtures(clean: true).map { String($0.deletingPathExtension().lastPathComponent.dropLast("-clean".count)) })
        XCTAssertGreaterThanOrEqual(triggering.count, 5)
        // casts, catch patterns, switch values and loops have no unsupported form left; every other construct has both.
        XCTAssertEqual(clean.subtracting(triggering), ["casts", "catch", "switch-value", "while"])
        XCTAssertEqual(triggering.subtracting(clean), [])
    }

    func testTriggeringFixturesReportExactlyTheMarkedLines() throws {
        for fixture in try Self.fixtures(clean: false) {
            let text = try String(contentsOf: fixture, encoding: .utf8)
            XCTAssertFalse(DiagnosticFixtureTests.expectations(in: text).isEmpty, fixture.lastPathComponent)
            try check(fixture)
        }
    }

    func testCleanFixturesLintCleanAndRunInTheEvaluator() async throws {
        for fixture in try Self.fixtures(clean: true) {
            try check(fixture)
            let text = try String(contentsOf: fixture, encoding: .utf8)
            let evaluator = PlaygroundEvaluator(configuration: EvaluationConfiguration(model: ScriptedLanguageModel()))
            let result = await evaluator.evaluate(source: text, path: fixture.lastPathComponent, selection: .all) { _ in }
            XCTAssertFalse(result.blocks.isEmpty, fixture.lastPathComponent)
            for block in result.blocks {
                XCTAssertEqual(block.status, .ok, "\(fixture.lastPathComponent) block \(block.name ?? "?"): \(block.error ?? "")")
                XCTAssertFalse(block.results.isEmpty, "\(fixture.lastPathComponent): nothing printed")
            }
        }
    }

    /// What the evaluator prints for the new constructs (so "runs" means "runs correctly").
    func testCleanFixturesComputeTheExpectedValues() async throws {
        let expected: [String: [String]] = [
            "guard-clean.fmplay": ["fuji", "kyoto", "26.4 API", "done"],
            "while-clean.fmplay": ["1", "3", "a", "a", "2"],
            "for-tuple-clean.fmplay": ["1 kyoto", "2 nara", "Tokyo", "Paris", "(1, 2) fuji 3776"],
            "closures-clean.fmplay": ["fuji", "kyoto", "nara", #"["FUJI", "KYOTO", "NARA"] ["kyoto"] [4, 5]"#],
            "catch-clean.fmplay": ["problem: tooLong", "other: empty"],
            "casts-clean.fmplay": ["2", "true"],
            "switch-value-clean.fmplay": ["few plural"],
            "functions-clean.fmplay": ["3 park 45 0.75"],
        ]
        for (name, lines) in expected {
            let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
            let evaluator = PlaygroundEvaluator(configuration: EvaluationConfiguration(model: ScriptedLanguageModel()))
            let result = await evaluator.evaluate(source: text, path: name, selection: .all) { _ in }
            let printed = result.blocks.first?.results.filter { $0.kind == .print }.map(\.text) ?? []
            XCTAssertEqual(Array(printed.prefix(lines.count)), lines, name)
        }
    }
}
