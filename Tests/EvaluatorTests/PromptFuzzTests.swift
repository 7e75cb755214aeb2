import Foundation
import FoundationModelsRuntime
import Inference
import PlaygroundEvaluator
import PromptLanguage
import Schema
import XCTest

/// The prompt-language fuzzer: seeded random programs (edge values through every operator,
/// conversion and collection method the interpreter supports, loops, strings, a Generable
/// type and its schema), plus byte-level mutations of them, through lint, schema and a run on
/// the scripted model. A trap kills the test process, a hang trips the time-out; both are bugs.
/// Inputs that found bugs stay in `FuzzCorpus/` and run every time.
///
/// `PROMPT_FUZZ_ITERATIONS` (default 100) and `PROMPT_FUZZ_SEED` widen a local run.
final class PromptFuzzTests: XCTestCase {
    typealias Generator = SeededGenerator

    static let integers = ["0", "1", "-1", "2", "7", "Int.max", "Int.min", "(Int.max - 1)", "-9223372036854775808", "1_000_000", "n", "m"]
    static let doubles = ["0.0", "1.5", "-2.5", "1e300", "-1e300", "Double.infinity", "Double.nan", "Double.pi", "d"]
    static let strings = ["\"\"", "\"ab\"", "\"héllo\"", "s", "\"\\(n)\"", "String(repeating: \"x\", count: \(0))"]
    static let arrays = ["[]", "[1, 2, 3]", "a", "Array(0..<5)", "[n, m]", "Array(repeating: 1, count: 3)"]

    static func pick(_ options: [String], _ g: inout Generator) -> String { options[Int(g.next() % UInt64(options.count))] }

    static func integer(_ g: inout Generator, depth: Int = 0) -> String {
        if depth > 2 || g.next() % 3 == 0 { return pick(integers, &g) }
        switch g.next() % 8 {
        case 0: return "(\(integer(&g, depth: depth + 1)) \(pick(["+", "-", "*", "/", "%"], &g)) \(integer(&g, depth: depth + 1)))"
        case 1: return "-\(pick(integers, &g))"
        case 2: return "Int(\(pick(doubles, &g)))"
        case 3: return "\(array(&g)).count"
        case 4: return "\(string(&g)).count"
        case 5: return "(\(integer(&g, depth: depth + 1)) > 0 ? \(integer(&g, depth: depth + 1)) : \(integer(&g, depth: depth + 1)))"
        case 6: return "\(array(&g))[\(pick(integers, &g))]"
        default: return "Int(\"\(pick(["12", "x", "99999999999999999999", "-0"], &g))\") ?? 0"
        }
    }

    static func string(_ g: inout Generator) -> String {
        switch g.next() % 5 {
        case 0: return "String(repeating: \(pick(strings, &g)), count: \(integer(&g, depth: 2)))"
        case 1: return "\"\\(\(integer(&g)))-\\(\(pick(doubles, &g)))\""
        case 2: return "(\(pick(strings, &g)) + \(pick(strings, &g)))"
        case 3: return "\(array(&g)).map { \"\\($0)\" }.joined(separator: \",\")"
        default: return pick(strings, &g)
        }
    }

    static func array(_ g: inout Generator) -> String {
        switch g.next() % 8 {
        case 0: return "\(pick(arrays, &g)).\(pick(["prefix", "suffix", "dropFirst", "dropLast"], &g))(\(pick(integers, &g)))"
        case 1: return "Array(repeating: 0, count: \(pick(integers, &g)))"
        case 2: return "Array(\(pick(integers, &g))\(pick(["...", "..<"], &g))\(pick(integers, &g)))"
        case 3: return "\(pick(arrays, &g)).sorted()"
        case 4: return "(\(pick(arrays, &g)) + \(pick(arrays, &g)))"
        case 5: return "\(pick(arrays, &g)).filter { $0 > \(pick(integers, &g)) }"
        default: return pick(arrays, &g)
        }
    }

    static func statement(_ g: inout Generator, depth: Int = 0) -> String {
        switch g.next() % 12 {
        case 0: return "n = \(integer(&g))"
        case 1: return "n \(pick(["+=", "-=", "*=", "/="], &g)) \(pick(integers, &g))"
        case 2: return "s = \(string(&g))"
        case 3: return "a = \(array(&g))"
        case 4: return "a.\(pick(["append(n)", "insert(m, at: n)", "remove(at: m)", "removeLast()", "removeFirst()", "append(contentsOf: a)"], &g))"
        case 5: return "d = \(pick(doubles, &g)) \(pick(["+", "-", "*", "/"], &g)) \(pick(doubles, &g))"
        case 6:
            guard depth < 2 else { return "print(n)" }
            return "for i in \(pick(integers, &g))\(pick(["...", "..<"], &g))\(pick(integers, &g)) {\n        m = i\n        \(statement(&g, depth: depth + 1))\n        if m > 3 || m < -3 { break }\n    }"
        case 7:
            guard depth < 2 else { return "print(s)" }
            return "if \(integer(&g)) \(pick(["<", "==", ">="], &g)) \(integer(&g)) {\n        \(statement(&g, depth: depth + 1))\n    } else {\n        \(statement(&g, depth: depth + 1))\n    }"
        case 8: return "let o = GenerationOptions(sampling: .random(top: \(pick(integers + doubles, &g))), temperature: \(pick(doubles, &g)))"
        case 9: return "switch n { case \(pick(integers, &g))...\(pick(integers, &g)): print(\"in\") default: print(\"out\") }"
        case 10: return "print(\(pick([integer(&g), string(&g), array(&g)], &g)))"
        default: return "m = \(integer(&g))"
        }
    }

    static func program(_ g: inout Generator) -> String {
        var body = ["var n = \(pick(["0", "3", "-7", "Int.max"], &g))", "var m = 2", "var s = \"x\"", "var a = [1, 2]", "var d = 0.5"]
        for _ in 0..<(2 + Int(g.next() % 6)) { body.append(statement(&g)) }
        body.append("print(n, m, s, a, d)")
        return """
            @Generable
            struct Item {
                @Guide(description: "a count", .range(\(pick(["0...10", "1...1", "-5...5"], &g))))
                var count: Int
                @Guide(.count(\(pick(["0...3", "2", "1...1"], &g))))
                var tags: [String]
            }

            #Playground {
                \(body.joined(separator: "\n    "))
            }

            """
    }

    /// Lint, schema and (unless lint found errors that stop it) a run: must return, never trap or hang.
    func exercise(_ source: String, label: String) async {
        let analysis = PromptAnalyzer.analyze(source)
        for type in analysis.file.types { _ = analysis.file.schemas[type.qualifiedName]?.jsonSchema(title: type.name, includeDialect: true) }
        let start = ContinuousClock.now
        let result = await evaluate(source, timeout: 2)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(30), "\(label) took too long:\n\(source)")
        for block in result.blocks where block.status == .error {
            XCTAssertFalse((block.error ?? "").isEmpty, "\(label): an error without a message")
        }
    }

    func testGeneratedPrograms() async {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["PROMPT_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 100
        var g = Generator(seed: environment["PROMPT_FUZZ_SEED"].flatMap(UInt64.init) ?? 17)
        for iteration in 0..<iterations {
            let source = Self.program(&g)
            await exercise(source, label: "program \(iteration)")
            // Byte-level mutations of the same program through lint only (cheap, finds parser and checker crashes).
            var bytes = Array(source.utf8)
            for _ in 0..<4 {
                let position = Int(g.next() % UInt64(bytes.count))
                switch g.next() % 4 {
                case 0: bytes.remove(at: position)
                case 1:
                    let punctuation = Array("({[\"\\?.:<>!".utf8)
                    bytes.insert(punctuation[Int(g.next() % UInt64(punctuation.count))], at: position)
                case 2: bytes.insert(contentsOf: bytes[position..<min(bytes.count, position + Int(g.next() % 40))], at: position)
                default: bytes[position] = UInt8(truncatingIfNeeded: g.next())
                }
                _ = PromptAnalyzer.analyze(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// Every input that once found a bug (and the deep-nesting examples of issue 17).
    func testCorpus() async throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".fmplay") }.sorted()
        XCTAssertFalse(files.isEmpty)
        for name in files {
            await exercise(try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8), label: name)
        }
        // Generated deep inputs (too big to keep as files).
        for source in [
            "#Playground {\n    let x = " + String(repeating: "true ? 1 : ", count: 2000) + "0\n}\n",
            "#Playground {\n    let x = \"a\"" + String(repeating: ".uppercased()", count: 5000) + "\n}\n",
            "#Playground {\n    let x = " + String(repeating: "try ", count: 5000) + "1\n}\n",
            "struct A {\n    let x: " + String(repeating: "Array<", count: 3000) + "Int" + String(repeating: ">", count: 3000) + "\n}\n",
            "#Playground {\n    let x = \"" + String(repeating: "\\(\"", count: 10000) + "x" + String(repeating: "\")", count: 10000) + "\"\n}\n",
        ] {
            let analysis = PromptAnalyzer.analyze(source)
            XCTAssertTrue(analysis.diagnostics.contains { $0.code == .nestingTooDeep }, String(source.prefix(60)))
            await exercise(source, label: String(source.prefix(40)))
        }
    }
}
