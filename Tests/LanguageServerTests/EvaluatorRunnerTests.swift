import Foundation
import JSON
@testable import LanguageServer
import PlaygroundEvaluator
import PromptLanguage
import XCTest

/// The in-process runner evaluates the analysis the request carries (the server's analysis of
/// that document version) and places results by the UTF-8 offsets the evaluator recorded.
final class EvaluatorRunnerTests: XCTestCase {
    private final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [BlockEvent] = []
        func append(_ event: BlockEvent) { lock.lock(); events.append(event); lock.unlock() }
        var results: [CallResult] {
            lock.lock(); defer { lock.unlock() }
            return events.compactMap { if case .result(let result) = $0 { result } else { nil } }
        }
    }

    private func runner() -> EvaluatorRunner {
        EvaluatorRunner(configuration: { _ in EvaluationConfiguration(model: nil) },
                        tokenCounter: { _, _ in .failure(EvaluatorRunner.TokenizerUnavailable("no model")) })
    }

    func testRunsTheRequestedBlockOfTheRequestsAnalysis() async {
        let text = "let greeting = \"h\u{E9}llo\"\n\n#Playground(\"one\") {\n    print(1)\n}\n\n#Playground(\"two\") {\n    print(greeting) ; print(\"\u{1F600}\")\n}\n"
        let analysis = PromptAnalyzer.analyze(text)
        let events = Events()
        let request = BlockRunRequest(analysis: analysis, blockIndex: 1, configuration: ServerConfiguration(), ignoreCache: true)
        let outcome = await runner().run(request) { events.append($0) }
        XCTAssertNil(outcome.error)
        let bytes = Array(text.utf8)
        XCTAssertEqual(events.results.map { String(decoding: bytes[$0.range], as: UTF8.self) }, ["print(greeting)", "print(\"\u{1F600}\")"])
        XCTAssertEqual(events.results.map(\.content), [.string("h\u{E9}llo"), .string("\u{1F600}")])
    }

    func testAFailureIsPlacedAtItsStatement() async {
        let text = "#Playground {\n    let values = [1]\n    print(values[3])\n}\n"
        let request = BlockRunRequest(analysis: PromptAnalyzer.analyze(text), blockIndex: 0, configuration: ServerConfiguration(), ignoreCache: true)
        let outcome = await runner().run(request) { _ in }
        let range = try? XCTUnwrap(outcome.errorRange)
        XCTAssertNotNil(outcome.error)
        XCTAssertEqual(range.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) }, "values[3]")
    }
}
