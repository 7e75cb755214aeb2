import Foundation
import PlaygroundEvaluator
import PromptLanguage
import XCTest

/// The differential test of issue 19: small pure-Swift programs in
/// `Differential/*.fmplay` print the same under fmplay as compiled by the
/// Swift toolchain. Each program's output is in `NAME.expected`:
/// `testFmplayMatchesExpected` runs every program in the evaluator (lint
/// clean first), `testSwiftcMatchesExpected` compiles and runs each with
/// `swiftc` (the `#Playground {` lines become `do {`), so together they show
/// both print the same. `UPDATE_EXPECTED=1` rewrites the expected files from swiftc.
final class SwiftDifferentialTests: XCTestCase {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Differential")

    static func programs() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".fmplay") }.sorted()
    }

    func testFmplayMatchesExpected() async throws {
        let names = try Self.programs()
        XCTAssertGreaterThanOrEqual(names.count, 150)
        for name in names {
            let source = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
            let errors = PromptAnalyzer.analyze(source).diagnostics.filter { $0.severity == .error }
            XCTAssertEqual(errors.map { "\($0.range.start.line): \($0.message)" }, [], "\(name) does not lint clean")
            let result = await evaluate(source, model: nil)
            var output = ""
            for block in result.blocks {
                XCTAssertEqual(block.status, .ok, "\(name): \(block.error ?? "")")
                for item in block.results where item.kind == .print { output += item.text + "\n" }
            }
            let expectedPath = Self.directory.appendingPathComponent(name.replacingOccurrences(of: ".fmplay", with: ".expected"))
            guard let expected = try? String(contentsOf: expectedPath, encoding: .utf8) else {
                XCTFail("\(name): no .expected file (UPDATE_EXPECTED=1 swift test --filter testSwiftcMatchesExpected writes it)")
                continue
            }
            XCTAssertEqual(output, expected, "\(name): fmplay prints differently from swiftc")
        }
    }

    /// The program as a Swift file: `#Playground {` (and `#Playground("name") {`) become `do {`.
    static func swiftSource(_ source: String) -> String {
        source.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#Playground"), trimmed.hasSuffix("{") { return "do {" }
            return String(line)
        }.joined(separator: "\n")
    }

    func testSwiftcMatchesExpected() async throws {
        let swiftc = ProcessInfo.processInfo.environment["SWIFTC"] ?? "swiftc"
        let names = try Self.programs()
        let work = try temporaryDirectory()
        let update = ProcessInfo.processInfo.environment["UPDATE_EXPECTED"] == "1"
        let start = Date()
        // Two compilations at a time (CI machines have two cores).
        let outputs = try await withThrowingTaskGroup(of: (String, String).self) { group in
            var results: [String: String] = [:]
            var pending = names[...]
            func launch(_ group: inout ThrowingTaskGroup<(String, String), any Error>) throws {
                guard let name = pending.popFirst() else { return }
                let source = Self.swiftSource(try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8))
                group.addTask { (name, try Self.compileAndRun(source, name: name, swiftc: swiftc, in: work)) }
            }
            try launch(&group)
            try launch(&group)
            while let (name, output) = try await group.next() {
                results[name] = output
                try launch(&group)
            }
            return results
        }
        print("compiled and ran \(names.count) programs with swiftc in \(Int(Date().timeIntervalSince(start))) s")
        for name in names {
            let expectedPath = Self.directory.appendingPathComponent(name.replacingOccurrences(of: ".fmplay", with: ".expected"))
            let output = outputs[name] ?? ""
            if update {
                try output.write(to: expectedPath, atomically: true, encoding: .utf8)
                continue
            }
            let expected = try? String(contentsOf: expectedPath, encoding: .utf8)
            XCTAssertEqual(output, expected, "\(name): swiftc's output differs from \(expectedPath.lastPathComponent)")
        }
    }

    static func compileAndRun(_ source: String, name: String, swiftc: String, in directory: String) throws -> String {
        let base = directory + "/" + name.replacingOccurrences(of: ".fmplay", with: "")
        try source.write(toFile: base + ".swift", atomically: true, encoding: .utf8)
        let (compileStatus, compileOutput) = try run(["/usr/bin/env", swiftc, "-Onone", "-module-name", "main", base + ".swift", "-o", base])
        guard compileStatus == 0 else { return "swiftc failed:\n" + compileOutput }
        let (status, output) = try run([base])
        return status == 0 ? output : output + "exit status \(status)\n"
    }

    static func run(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
