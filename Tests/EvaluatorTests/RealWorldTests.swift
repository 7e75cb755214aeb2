import Foundation
import FoundationModelsRuntime
import PlaygroundEvaluator
import PromptLanguage
import XCTest

/// Issue 19's real-world set: FoundationModels playgrounds from public
/// repositories (`RealWorld/*.fmplay`, each naming its source and adaptation)
/// lint clean and run on the scripted backend.
final class RealWorldTests: XCTestCase {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("RealWorld")

    func testRealWorldFilesLintCleanAndRun() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".fmplay") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 20)
        var blocks = 0
        var toolFailures: [String] = []
        for name in names {
            let source = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
            XCTAssertTrue(source.hasPrefix("// Source: https://github.com/"), "\(name) does not name its source")
            let errors = PromptAnalyzer.analyze(source).diagnostics.filter { $0.severity == .error }
            XCTAssertEqual(errors.map { "\($0.range.start.line): \($0.message)" }, [], "\(name) does not lint clean")
            let result = await evaluate(source, model: ScriptedLanguageModel())
            XCTAssertFalse(result.blocks.isEmpty, "\(name) has no block")
            for block in result.blocks {
                blocks += 1
                if block.status == .ok { continue }
                // The scripted model makes up tool arguments from the prompt's words; a tool of the
                // file that throws on them fails its block the way the code says it should.
                if let error = block.error, error.contains("uncaught ToolCallError") {
                    toolFailures.append("\(name): \(error)")
                    continue
                }
                XCTFail("\(name): block at line \(block.line) failed: \(block.error ?? "")")
            }
        }
        XCTAssertLessThanOrEqual(toolFailures.count, 2, toolFailures.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(blocks, names.count)
    }
}
