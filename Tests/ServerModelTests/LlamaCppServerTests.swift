import Foundation
import FoundationModelsRuntime
import JSON
import Schema
import XCTest
@testable import ServerModel

/// End to end against a real OpenAI-compatible server: llama-cpp-python with
/// the default model. The prompt files in PromptFiles/ are seed 004's code,
/// completed; `fmplay run` runs them as a user would.
final class LlamaCppServerTests: XCTestCase {
    static let promptFiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PromptFiles")

    func fmplay(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try FMPlayRunner.run(arguments, environment: environment)
    }

    /// Results of `fmplay run --format json`, by block name: (prints, responses).
    func blocks(_ stdout: String) throws -> [String: (prints: [String], responses: [JSONValue], status: String)] {
        var blocks: [String: (prints: [String], responses: [JSONValue], status: String)] = [:]
        for file in try JSONValue.parse(stdout)["files"]?.arrayValue ?? [] {
            for block in file["blocks"]?.arrayValue ?? [] {
                let results = block["results"]?.arrayValue ?? []
                blocks[block["name"]?.stringValue ?? "?"] = (
                    results.filter { $0["kind"] == "print" }.compactMap { $0["text"]?.stringValue },
                    results.filter { $0["kind"] == "response" || $0["kind"] == "stream" },
                    (block["status"]?.stringValue ?? "?") + " " + (block["error"]?.stringValue ?? ""))
            }
        }
        return blocks
    }

    func testSeed004PromptFilesRunAgainstTheServer() throws {
        let server = try LlamaCppServer.start(self)
        let run = try fmplay(["run", Self.promptFiles.path, "--server", server.baseURL, "--format", "json", "--no-cache"])
        let blocks = try blocks(run.stdout)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)

        XCTAssertEqual(blocks["Availability"]?.prints, ["server model available", "isAvailable", "context size 32768"],
                       "llama-cpp-python reports no context size: PCC's documented 32768")
        for name in ["Session", "Streaming", "Guided", "Tool"] {
            let response = try XCTUnwrap(blocks[name]?.responses.last, "\(name): \(blocks[name]?.status ?? "missing")")
            XCTAssertTrue(response["model"]?.stringValue?.hasPrefix("Private Cloud Compute (") ?? false, "\(name): \(response)")
            XCTAssertGreaterThan(response["usage"]?["responseTokens"]?.intValue ?? 0, 0, name)
            XCTAssertFalse(blocks[name]?.prints.first?.isEmpty ?? true, name)
        }
        XCTAssertGreaterThan(blocks["Session"]?.responses.last?["usage"]?["promptTokens"]?.intValue ?? 0, 0, "respond: usage from the server")
        // The loop records the stream with its snapshots; the later collect() of the finished stream records none.
        XCTAssertGreaterThan(blocks["Streaming"]?.responses.compactMap { $0["snapshots"]?.intValue }.max() ?? 0, 1, "streamed into snapshots")
        XCTAssertEqual(blocks["Guided"]?.prints, ["2"])
        let validated = blocks["Validated"]?.prints ?? []
        XCTAssertTrue(validated == ["in range"] || validated == ["rejected: not in 1...5"], "\(validated)")
        XCTAssertEqual(blocks["Tool"]?.responses.last?["toolCalls"]?[0]?["name"], "findRelatedArticles")
        XCTAssertEqual(blocks["Quota"]?.prints, ["Below the usage limit.", "No upgrade offered."])
        XCTAssertEqual(blocks["Fallback"]?.prints, ["answered by the server model", "got an answer"])
        // Seed 003: `.model(...)` in a dynamic profile moves one session between the server and the embedded model.
        let models = blocks["Profiles"]?.responses.map { $0["model"]?.stringValue ?? "" } ?? []
        XCTAssertEqual(models.count, 3, blocks["Profiles"]?.status ?? "no Profiles block")
        if models.count == 3 {
            XCTAssertTrue(models[0].hasPrefix("Private Cloud Compute ("), models[0])
            XCTAssertFalse(models[1].contains("Private Cloud Compute"), models[1])
            XCTAssertTrue(models[2].hasPrefix("Private Cloud Compute ("), "reasoning level passed to the server: \(models[2])")
        }
        XCTAssertEqual(blocks["Profiles"]?.prints, ["7"], "the instructions, three prompts and three responses in one transcript")
    }

    func testQuotaLimitReachedFallsBackToTheOnDeviceModel() throws {
        let server = try LlamaCppServer.start(self)
        let files = ["quota.fmplay", "fallback.fmplay"].map { Self.promptFiles.appendingPathComponent($0).path }
        let run = try fmplay(["run"] + files + ["--server", server.baseURL, "--format", "json"],
                             environment: ["FMPLAY_SERVER_SIMULATE_QUOTA": "limitReached"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let blocks = try blocks(run.stdout)
        XCTAssertEqual(blocks["Quota"]?.prints, ["Usage limit exceeded.", "No upgrade offered."])
        XCTAssertEqual(blocks["Fallback"]?.prints, ["server model not available", "answered by the on-device model", "got an answer"])
        let approaching = try fmplay(["run", files[0], "--server", server.baseURL, "--format", "json"],
                                     environment: ["FMPLAY_SERVER_SIMULATE_QUOTA": "nearingLimit"])
        XCTAssertEqual(try self.blocks(approaching.stdout)["Quota"]?.prints, ["Nearing usage limit.", "No upgrade offered."])
    }

    func testFallbackWithTheServerStopped() throws {
        let server = try LlamaCppServer.start(self)
        server.stop()
        let files = ["availability.fmplay", "fallback.fmplay"].map { Self.promptFiles.appendingPathComponent($0).path }
        let run = try fmplay(["run"] + files + ["--format", "json"], environment: ["FMPLAY_SERVER_URL": server.baseURL])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let blocks = try blocks(run.stdout)
        XCTAssertEqual(blocks["Availability"]?.prints, ["server model not reachable", "fall back to the on-device model", "context size 32768"])
        XCTAssertEqual(blocks["Fallback"]?.prints, ["server model not available", "answered by the on-device model", "got an answer"])
        XCTAssertFalse(blocks["Fallback"]?.responses.last?["model"]?.stringValue?.contains("Private Cloud Compute") ?? true)
    }

    func testNotConfiguredSaysHowToConfigure() throws {
        let run = try fmplay(["run", Self.promptFiles.appendingPathComponent("session.fmplay").path, "--block", "Session", "--format", "json"])
        XCTAssertEqual(run.status, 1)
        let status = try blocks(run.stdout)["Session"]?.status ?? ""
        XCTAssertTrue(status.contains("FMPLAY_SERVER_URL") && status.contains("--server"), status)
    }

    /// The session API directly: streaming, tools executed by fmplay, usage.
    func testSessionAgainstTheServer() async throws {
        let server = try LlamaCppServer.start(self)
        let model = PrivateCloudComputeLanguageModel(backend: OpenAICompatibleModel(settings: ServerSettings(baseURL: server.baseURL)))
        let availability = await model.currentAvailability()
        XCTAssertEqual(availability.0, .available)

        let session = LanguageModelSession(model: model, instructions: "Answer briefly.")
        let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 16)
        let response = try await session.respond(to: Prompt("Say hello."), options: options)
        XCTAssertFalse(response.content.isEmpty)
        XCTAssertGreaterThan(response.usage.promptTokens, 0)

        var snapshots = 0
        let stream = session.streamResponse(to: Prompt("Say goodbye."), options: options)
        for try await _ in stream { snapshots += 1 }
        XCTAssertGreaterThan(snapshots, 1)
        XCTAssertEqual(session.transcript.entries.filter { $0.kindName == "response" }.count, 2)
    }
}
