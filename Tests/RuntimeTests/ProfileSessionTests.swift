import FoundationModelsRuntime
import Schema
import XCTest

/// Mechanics of 27's dynamic profiles on the scripted model: which profile is
/// active per inference, which callbacks fire in which order, what the model
/// sees after history transforms, option precedence and error policies.
final class ProfileSessionTests: XCTestCase {
    /// A log shared with callbacks.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
    }

    /// App state a profile reads (a class, as an orchestrator would be).
    final class Mode: @unchecked Sendable {
        var value = "brainstorm"
    }

    func testProfileIsEvaluatedBeforeEveryRequestAndTranscriptCarriesOver() async throws {
        let mode = Mode()
        let model = ScriptedLanguageModel()
        let session = LanguageModelSession(model: model) {
            mode.value == "brainstorm" ? makeProfile("B", instructions: "Brainstorm.") : makeProfile("T", instructions: "Write a tutorial.")
        }
        _ = try await session.respond(to: "Ideas for a crane")
        XCTAssertEqual(session.activeProfileName, "B")
        mode.value = "tutorial"
        _ = try await session.respond(to: "Now the steps")
        XCTAssertEqual(session.activeProfileName, "T")
        XCTAssertEqual(session.transcript.map(\.kindName), ["instructions", "prompt", "response", "prompt", "response"])
        guard case .instructions(let instructions) = session.transcript.entries[0] else { return XCTFail("no instructions entry") }
        XCTAssertEqual(Transcript.Segment.text(of: instructions.segments), "Write a tutorial.")
        // The first request saw the brainstorm instructions.
        guard case .instructions(let first)? = model.receivedRequests.first?.transcript.entries.first else { return XCTFail() }
        XCTAssertEqual(Transcript.Segment.text(of: first.segments), "Brainstorm.")
    }

    func testBatonPassSwitchesProfileBetweenToolRounds() async throws {
        let mode = Mode()
        let log = Log()
        let model = ScriptedLanguageModel()
        let session = LanguageModelSession(model: model) {
            if mode.value == "brainstorm" {
                return makeProfile("B", instructions: "Brainstorm.", tools: [weatherTool], [
                    .onToolCall { _ in log.add("B.onToolCall"); mode.value = "tutorial" },
                    .onActivate(owner: "B") { log.add("B.onActivate") },
                    .onDeactivate(owner: "B") { log.add("B.onDeactivate") },
                ])
            }
            return makeProfile("T", instructions: "Tutorial.", [
                .onActivate(owner: "T") { log.add("T.onActivate") },
                .onResponse { _ in log.add("T.onResponse") },
            ])
        }
        let response = try await session.respond(to: "Weather in Paris?")
        XCTAssertEqual(log.all, ["B.onActivate", "B.onToolCall", "B.onDeactivate", "T.onActivate", "T.onResponse"])
        XCTAssertEqual(response.lifecycle.map(\.kind), [.profile, .onActivate, .toolCall, .onToolCall, .toolOutput, .profile,
                                                        .onDeactivate, .onActivate, .onResponse])
        // The second inference had the tutorial instructions and no tools.
        let second = model.receivedRequests[1]
        XCTAssertTrue(second.tools.isEmpty)
        guard case .instructions(let instructions)? = second.transcript.entries.first else { return XCTFail() }
        XCTAssertEqual(Transcript.Segment.text(of: instructions.segments), "Tutorial.")
    }

    func testLifecycleOrderWithToolsAndCallbacksAccumulate() async throws {
        let log = Log()
        let session = LanguageModelSession(model: ScriptedLanguageModel()) {
            // Inner (nearest the Profile) first, then the enclosing profile's callbacks.
            makeProfile("P", instructions: "Help.", tools: [weatherTool], [
                .onPrompt { p in log.add("inner.onPrompt \(Transcript.Segment.text(of: p.segments))") },
                .onToolCall { call in log.add("inner.onToolCall \(call.toolName)") },
                .onToolOutput { call, output in log.add("inner.onToolOutput \(output.toolName)") },
                .onResponse { _ in log.add("inner.onResponse") },
                .onPrompt { _ in log.add("outer.onPrompt") },
                .onResponse { _ in log.add("outer.onResponse") },
            ])
        }
        _ = try await session.respond(to: "Weather?")
        XCTAssertEqual(log.all, ["inner.onPrompt Weather?", "outer.onPrompt", "inner.onToolCall getWeather",
                                 "inner.onToolOutput getWeather", "inner.onResponse", "outer.onResponse"])
    }

    func testNearestValueModifierWinsAndCallSiteFieldsWinOverAll() async throws {
        let model = ScriptedLanguageModel()
        let session = LanguageModelSession(model: model) {
            makeProfile("P", instructions: "x", [.temperature(1), .maximumResponseTokens(nil), .temperature(0.5), .maximumResponseTokens(3)])
        }
        let response = try await session.respond(to: "one two three four five six", options: GenerationOptions())
        XCTAssertEqual(model.receivedRequests[0].options.temperature, 1)
        XCTAssertEqual(model.receivedRequests[0].options.maximumResponseTokens, 3, "nil is not set: the outer value applies")
        XCTAssertEqual(response.usage.responseTokens, 3, "the token limit is honoured")
        _ = try await session.respond(to: "again", options: GenerationOptions(temperature: 0.2))
        XCTAssertEqual(model.receivedRequests[1].options.temperature, 0.2)
        XCTAssertEqual(model.receivedRequests[1].options.maximumResponseTokens, 3, "only the fields the caller set win")
    }

    func testHistoryTransformChangesWhatTheModelSeesNotTheTranscript() async throws {
        let model = ScriptedLanguageModel()
        let log = Log()
        let session = LanguageModelSession(model: model) {
            makeProfile("P", instructions: "Be brief.", [
                // Inner transform: keep the last entry only. Outer: drop tool entries. Outer runs first.
                .historyTransform { entries in log.add("inner \(entries.count)"); return Array(entries.suffix(1)) },
                .historyTransform { entries in
                    log.add("outer \(entries.count)")
                    return entries.filter { if case .toolCalls = $0 { false } else if case .toolOutput = $0 { false } else { true } }
                },
            ])
        }
        _ = try await session.respond(to: "first")
        _ = try await session.respond(to: "second")
        XCTAssertEqual(log.all, ["outer 2", "inner 2", "outer 4", "inner 4"], "outermost first, instructions entry included")
        XCTAssertEqual(model.receivedRequests[1].transcript.map(\.kindName), ["prompt"])
        XCTAssertEqual(session.transcript.map(\.kindName), ["instructions", "prompt", "response", "prompt", "response"])
    }

    func testRequiredModeExitsWhenOnToolCallChangesTheMode() async throws {
        final class State: @unchecked Sendable { var queried = false }
        let state = State()
        let session = LanguageModelSession(model: ScriptedLanguageModel()) {
            makeProfile("Origami", instructions: "Answer questions about origami.", tools: [weatherTool], [
                .toolCallingMode(state.queried ? .disallowed : .required),
                .onToolCall { _ in state.queried = true },
            ])
        }
        let response = try await session.respond(to: "How do I fold a crane?")
        XCTAssertEqual(response.transcriptEntries.map(\.kindName), ["prompt", "toolCalls", "toolOutput", "response"])
    }

    func testRequiredModeEndsWhenAToolThrowsAndPreserveKeepsTheTranscript() async throws {
        let finalAnswer = ClosureTool(name: "finalAnswer", description: "Give the answer",
                                      parameters: GenerationSchema(root: .reference("A"), definitions: [
                                          Definition(name: "A", kind: .object([Property(name: "answer", type: .string(.none))]))])) { _ in
            throw CancellationError()
        }
        let session = LanguageModelSession(model: ScriptedLanguageModel()) {
            makeProfile("P", instructions: "Answer with finalAnswer.", tools: [finalAnswer], [
                .toolCallingMode(.required), .transcriptErrorHandlingPolicy(.preserveTranscript),
            ])
        }
        do {
            _ = try await session.respond(to: "Fold a crane")
            XCTFail("expected the tool's error")
        } catch let error as ToolCallError {
            XCTAssertEqual(error.toolName, "finalAnswer")
            XCTAssertTrue(error.underlyingError is CancellationError)
        }
        XCTAssertEqual(session.transcript.map(\.kindName), ["instructions", "prompt", "toolCalls"], "preserved, the call without output")
    }

    func testDefaultPolicyRevertsTheTranscriptOnError() async throws {
        let failing = ClosureTool(name: "fail", description: "Fails", parameters: GenerationSchema(root: .any)) { _ in throw Failure() }
        let session = LanguageModelSession(model: ScriptedLanguageModel(), tools: [failing])
        await XCTAssertThrowsErrorAsync(try await session.respond(to: "hi"))
        XCTAssertEqual(session.transcript.count, 1, "only the instructions entry")
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        await XCTAssertThrowsErrorAsync(try await session.respond(to: "hi"))
        XCTAssertEqual(session.transcript.map(\.kindName), ["instructions", "prompt", "toolCalls"])
    }

    func testSettingTheTranscriptWhileRespondingFailsTheRequest() async throws {
        final class Box: @unchecked Sendable { var session: LanguageModelSession? }
        let box = Box()
        let meddling = ClosureTool(name: "meddle", description: "Edits the transcript", parameters: GenerationSchema(root: .any)) { _ in
            box.session?.transcript = Transcript()
            return GeneratedContent("done")
        }
        let session = LanguageModelSession(model: ScriptedLanguageModel(), tools: [meddling], instructions: "x")
        box.session = session
        do {
            _ = try await session.respond(to: "hi")
            XCTFail("expected transcriptMutationWhileResponding")
        } catch let error as SessionUsageError {
            XCTAssertEqual(error, .transcriptMutationWhileResponding)
        }
        XCTAssertEqual(session.transcript.count, 1, "the assignment was refused and the request reverted")
        // Between requests it is legal: reset and replay.
        session.transcript = Transcript()
        XCTAssertTrue(session.transcript.isEmpty)
    }

    func testHistoryWrittenInOnResponseIsKept() async throws {
        final class Box: @unchecked Sendable { var session: LanguageModelSession? }
        let box = Box()
        let session = LanguageModelSession(model: ScriptedLanguageModel()) {
            makeProfile("P", instructions: "x", [.onResponse { _ in
                guard let session = box.session else { return }
                let history = session.history
                if history.count > 2 { session.history = Array(history.suffix(2)) }
            }])
        }
        box.session = session
        _ = try await session.respond(to: "one")
        _ = try await session.respond(to: "two")
        XCTAssertEqual(session.transcript.map(\.kindName), ["instructions", "prompt", "response"])
        XCTAssertEqual(session.history.count, 2)
    }

    func testReasoningOnAModelWithoutThinkingIsUnsupportedCapability() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel(name: "plain")) {
            makeProfile("P", instructions: "x", [.reasoningLevel(.deep)])
        }
        do {
            _ = try await session.respond(to: "hi")
            XCTFail("expected unsupportedCapability")
        } catch LanguageModelError.unsupportedCapability(let capability, _) {
            XCTAssertEqual(capability, "reasoning")
        }
    }

    func testReasoningEntryTokensAndOnReasoning() async throws {
        let log = Log()
        let session = LanguageModelSession(model: ScriptedLanguageModel(supportsReasoning: true)) {
            makeProfile("P", instructions: "x", [.reasoningLevel(.light), .onReasoning { r in log.add(Transcript.Segment.text(of: r.segments)) }])
        }
        let response = try await session.respond(to: "Why fold?")
        XCTAssertEqual(response.transcriptEntries.map(\.kindName), ["prompt", "reasoning", "response"])
        XCTAssertEqual(log.all, ["Reasoning (light) about \"Why fold?\"."])
        XCTAssertEqual(response.usage.reasoningTokens, 5, "Reasoning (light) about \"Why fold?\". is five words")
        XCTAssertLessThanOrEqual(response.usage.reasoningTokens, response.usage.responseTokens)
        XCTAssertEqual(response.content, "Scripted reply to \"Why fold?\".", "reasoning is not in the content")
    }

    func testThrowingCallbackEndsTheRequest() async throws {
        let session = LanguageModelSession(model: ScriptedLanguageModel()) {
            makeProfile("P", instructions: "x", [.onPrompt { _ in throw Failure() }])
        }
        await XCTAssertThrowsErrorAsync(try await session.respond(to: "hi"))
        XCTAssertTrue(session.transcript.isEmpty)
    }
}

func XCTAssertThrowsErrorAsync<T>(_ expression: @autoclosure () async throws -> T, file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await expression()
        XCTFail("expected an error", file: file, line: line)
    } catch {}
}

func makeProfile(_ identity: String, instructions: String, tools: [any Tool] = [], _ modifiers: [ProfileModifier] = []) -> ProfileConfiguration {
    ProfileConfiguration(identity: identity, instructions: [.text(.init(content: instructions))], tools: tools, modifiers: modifiers)
}
