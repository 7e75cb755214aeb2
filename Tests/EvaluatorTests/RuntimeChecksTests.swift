import FoundationModelsRuntime
import PlaygroundEvaluator
import PlaygroundResults
import XCTest

/// Swift's run-time checks as errors: every integer operator at its limits, every conversion,
/// every collection method with a bad count or index, sampling arguments. Each case is one
/// `#Playground` block; it must fail with the message Swift stops on, at the right line and column,
/// and never trap in this process.
final class RuntimeChecksTests: XCTestCase {
    /// (statements, expected error text)
    static let failing: [(String, String)] = [
        // + - * / % and their compound forms at Int's limits
        ("let x = Int.max + 1", "arithmetic overflow: 9223372036854775807 + 1"),
        ("let x = Int.min + -1", "arithmetic overflow"),
        ("let x = Int.min - 1", "arithmetic overflow: -9223372036854775808 - 1"),
        ("let x = Int.max - -1", "arithmetic overflow"),
        ("let x = Int.max * 2", "arithmetic overflow: 9223372036854775807 * 2"),
        ("let x = Int.min * -1", "arithmetic overflow"),
        ("let x = -Int.min", "arithmetic overflow: -(-9223372036854775808)"),
        ("let x = Int.min / -1", "division results in an overflow"),
        ("let x = Int.min % -1", "overflow in remainder operation"),
        ("let x = 1 / 0", "division by zero (1 / 0)"),
        ("let x = 1 % 0", "division by zero in remainder operation"),
        ("var x = Int.max\n    x += 1", "arithmetic overflow"),
        ("var x = Int.min\n    x -= 1", "arithmetic overflow"),
        ("var x = Int.max\n    x *= 2", "arithmetic overflow"),
        ("var x = 5\n    x /= 0", "division by zero"),
        ("let x = 9223372036854775808", "overflows when stored into 'Int'"),
        // conversions
        ("let x = Int(1e300)", "greater than Int.max"),
        ("let x = Int(-1e300)", "less than Int.min"),
        ("let x = Int(9223372036854775807.0)", "greater than Int.max"),
        ("let x = Int(Double.infinity)", "either infinite or NaN"),
        ("let x = Int(-Double.infinity)", "either infinite or NaN"),
        ("let x = Int(Double.nan)", "either infinite or NaN"),
        ("let x = String(contentsOfFile: \"/etc/hostname\")", "String has no argument label 'contentsOfFile:' in prompt files"),
        // ranges
        ("let r = 5...1", "range requires lowerBound <= upperBound (5...1)"),
        ("let r = 5..<1", "range requires lowerBound <= upperBound (5..<1)"),
        ("let a = Array(0...Int.max)", "more than Int.max elements"),
        ("let a = Array(Int.min..<Int.max)", "more than Int.max elements"),
        // indices
        ("let x = [1][1]", "index out of range (index 1, count 1)"),
        ("let x = [1][-1]", "index out of range (index -1, count 1)"),
        ("var a = [1]\n    a[5] = 2", "index out of range (index 5, count 1)"),
        ("var a = [1]\n    a.insert(2, at: 5)", "index out of range (index 5"),
        ("var a = [1]\n    a.insert(2, at: -1)", "index out of range (index -1"),
        ("var a = [1]\n    _ = a.remove(at: 1)", "index out of range (index 1, count 1)"),
        ("var a: [Int] = []\n    _ = a.removeLast()", "can't remove last element from an empty collection"),
        ("var a: [Int] = []\n    _ = a.removeFirst()", "can't remove first element from an empty collection"),
        // negative counts
        ("let x = [1].prefix(-1)", "can't take a prefix of negative length"),
        ("let x = [1].suffix(-1)", "can't take a suffix of negative length"),
        ("let x = [1].dropFirst(-1)", "can't drop a negative number of elements"),
        ("let x = [1].dropLast(-1)", "can't drop a negative number of elements"),
        ("let x = [1].prefix(1.5)", "prefix(_:) needs an Int"),
        ("let x = Array(repeating: 0, count: -1)", "can't construct Array with count < 0"),
        ("let x = String(repeating: \"a\", count: -1)", "negative count not allowed"),
        // sampling and options
        ("let o = GenerationOptions(sampling: .random(top: 1e300))", "random(top:) needs an Int"),
        ("let o = GenerationOptions(sampling: .random(top: 0))", "random(top:) needs at least 1 token"),
        ("let o = GenerationOptions(sampling: .random(top: 3, seed: -1))", "seed must not be negative"),
        ("let o = GenerationOptions(sampling: .random(probabilityThreshold: 2))", "needs a number from 0 to 1"),
        ("let o = GenerationOptions(temperature: Double.nan)", "temperature must be a finite number"),
        ("let o = GenerationOptions(temperature: -1)", "temperature must be a finite number"),
        ("let o = GenerationOptions(maximumResponseTokens: -5)", "FM308: maximumResponseTokens must be positive"),
        ("let n = -5\n    let o = GenerationOptions(maximumResponseTokens: n)", "maximumResponseTokens must be at least 1"),
        // budgets
        ("let s = String(repeating: \"ab\", count: 2_000_000_000)", "exceeds the limit of 16 MB per string"),
        ("var s = \"ab\"\n    while true { s = s + s }", "exceeds the limit of 16 MB per string"),
        ("var a = [1]\n    while true { a = a + a }", "exceeds the limit of 1000000"),
        ("var a = [1]\n    while true { a.append(contentsOf: a) }", "exceeds the limit of 1000000"),
        ("let a = Array(0..<2_000_000)", "exceeds the limit of 1000000"),
        ("for _ in 0..<1_000_000_000 { print(\"x\") }", "recorded more than 10000 results"),
        ("var s = \"x\"\n    for _ in 0..<40 { s = \"\\(s)\\(s)\" }", "exceeds the limit of 16 MB per string"),
    ]

    func testEveryCheckIsARuntimeErrorAtItsLine() async {
        let source = Self.failing.map { "#Playground {\n    \($0.0)\n    print(\"unreachable\")\n}\n" }.joined(separator: "\n")
        let result = await evaluate(source)
        XCTAssertEqual(result.blocks.count, Self.failing.count)
        for (block, (code, expected)) in zip(result.blocks, Self.failing) {
            XCTAssertEqual(block.status, .error, "\(code) should fail")
            let error = block.error ?? ""
            XCTAssertTrue(error.contains(expected), "\(code): expected '\(expected)', got '\(error)'")
            XCTAssertFalse(block.results.contains { $0.kind == .print && $0.text == "unreachable" }, "\(code) went on after the error")
            // The error names the file, the line of the failing statement (the block's line + 1 or + 2) and a column.
            let firstLine = block.line
            XCTAssertTrue((1...2).contains { error.hasPrefix("test.fmplay:\(firstLine + $0):") }, "\(code): \(error)")
            XCTAssertEqual(block.results.last?.kind, .error)
        }
    }

    func testValuesAtTheLimitsStillWork() async {
        let result = await evaluate("""
            #Playground {
                print(Int.max - 1 + 1, Int.min + 0, -Int.max, Int.min / 1, 7 % -3, -7 / 2, -9223372036854775808)
                print(Int(9.9), Int(-9.9), Int(9223372036854774784.0), Int("99999999999999999999") == nil)
                print(1.0 / 0, Double.nan, 0...Int.max)
                for i in (Int.max - 2)...Int.max { print(i) }
                for i in Int.min..<(Int.min + 1) { print(i) }
                switch Int.max { case 0...Int.max: print("in") default: print("out") }
                print([1, 2, 3].prefix(5), [1, 2, 3].suffix(0), [1, 2, 3].dropFirst(9), Array(repeating: "a", count: 0))
                print(String(repeating: "ab", count: 3), Array(3...5), [1].prefix(0))
                let o = GenerationOptions(sampling: .random(top: 3, seed: 7), temperature: 0)
                print(o.temperature!)
            }
            """)
        XCTAssertEqual(prints(result), [
            "9223372036854775807 -9223372036854775808 -9223372036854775807 -9223372036854775808 1 -3 -9223372036854775808",
            "9 -9 9223372036854774784 true",
            "inf nan 0...9223372036854775807",
            "9223372036854775805", "9223372036854775806", "9223372036854775807",
            "-9223372036854775808",
            "in",
            "[1, 2, 3] [] [] []",
            "ababab [3, 4, 5] []",
            "0.0",
        ])
    }

    /// A limit crossed is not cached: raising the limit may let the block finish.
    func testLimitErrorsAreNotCached() async throws {
        let cache = ResultCache(directory: try temporaryDirectory())
        let source = "#Playground {\n    let a = Array(0..<2_000_000)\n    print(a.count)\n}\n"
        let first = await evaluate(source, cache: cache)
        XCTAssertEqual(first.blocks.first?.status, .error)
        let second = await evaluate(source, cache: cache)
        XCTAssertEqual(second.blocks.first?.cached, false)
    }

    /// A tool that opens another session, cancelled by the time-out in the middle of the inner
    /// request: the block fails with "timed out", nothing traps, and the next run works.
    func testToolOpeningASessionSurvivesTimeout() async {
        let source = """
            struct Helper: Tool {
                let name = "helper"
                let description = "Asks again"
                @Generable
                struct Arguments {
                    var question: String
                }
                func call(arguments: Arguments) async throws -> String {
                    let inner = LanguageModelSession()
                    let answer = try await inner.respond(to: arguments.question)
                    return answer.content
                }
            }

            #Playground {
                let session = LanguageModelSession(tools: [Helper()])
                let response = try await session.respond(to: "Use the helper", options: GenerationOptions(toolCallingMode: .required))
                print(response.content)
            }
            """
        let model = ScriptedLanguageModel(tokenDelay: .milliseconds(30))
        for timeout in [0.05, 0.15, 0.4] {
            let result = await evaluate(source, model: model, timeout: timeout)
            XCTAssertTrue(result.blocks.first?.error?.contains("timed out") == true, "\(timeout): \(result.blocks.first?.error ?? "")")
            XCTAssertEqual(result.blocks.first?.results.last?.stopReason, "cancelled", "the error result says why generation stopped")
        }
        let finished = await evaluate(source, model: ScriptedLanguageModel())
        XCTAssertEqual(finished.blocks.first?.status, .error)  // .required keeps calling tools: the round bound ends it
        XCTAssertTrue(finished.blocks.first?.error?.contains("kept calling tools") == true, finished.blocks.first?.error ?? "")
        XCTAssertEqual(finished.blocks.first?.results.last?.stopReason, "toolRoundLimit")
    }

    /// Cancellation (and so --timeout) stops a block whatever it does, within one evaluation step.
    func testTimeoutStopsTightLoops() async {
        for code in ["var n = 0\n    for i in 0..<Int.max { n = i }", "var n = 0\n    for i in 0...Int.max { n = i }",
                     "var s: [Int] = []\n    for i in 0..<Int.max { if s.count < 100 { s.append(i) } }"] {
            let start = ContinuousClock.now
            let result = await evaluate("#Playground {\n    \(code)\n}\n", timeout: 0.3)
            let elapsed = ContinuousClock.now - start
            XCTAssertTrue(result.blocks.first?.error?.contains("timed out") == true, "\(code): \(result.blocks.first?.error ?? "")")
            XCTAssertLessThan(elapsed, .seconds(5), code)
        }
    }
}
