import Foundation
import XCTest

/// Runs the built `fmplay` with the server settings only from the arguments
/// and `environment` (never the caller's FMPLAY_SERVER_*), and a private result cache.
enum FMPlayRunner {
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let executable = Bundle.main.bundleURL.appendingPathComponent("fmplay")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw XCTSkip("fmplay is not built at \(executable.path); run `swift build` first")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FMPLAY_SERVER") }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-server-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        env["XDG_CACHE_HOME"] = cache.path
        process.environment = env.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so a large output cannot fill the pipe and block.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}
