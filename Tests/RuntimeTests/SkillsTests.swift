import FoundationModelsRuntime
import Schema
import XCTest

/// FoundationModelsUtilities' skills on the scripted model: the rendered
/// instructions, the tool's name, description and argument schema, what a call
/// returns and which callbacks fire (the facts of the package's own tests).
final class SkillsTests: XCTestCase {
    /// A profile session whose instructions are `skills`, answering with `script`.
    private func session(_ skills: @escaping @Sendable () -> Skills, script: [ScriptedLanguageModel.Reply]) -> (LanguageModelSession, ScriptedLanguageModel) {
        let model = ScriptedLanguageModel(script: script)
        let session = LanguageModelSession(model: model) {
            let (segments, tools) = skills().render()
            return ProfileConfiguration(identity: "skills", instructions: segments.map { .text(.init(content: $0)) }, tools: tools)
        }
        return (session, model)
    }

    private func call(_ skill: String, tool: String = "activate_skill") -> ScriptedLanguageModel.Reply {
        .toolCall(name: tool, arguments: GeneratedContent(properties: [("skill", GeneratedContent(skill))]))
    }

    private func instructionsText(_ session: LanguageModelSession) -> String? {
        guard case .instructions(let instructions)? = session.transcript.first else { return nil }
        return Transcript.Segment.text(of: instructions.segments)
    }

    private func outputs(_ session: LanguageModelSession) -> [String] {
        session.transcript.compactMap { if case .toolOutput(let o) = $0 { Transcript.Segment.text(of: o.segments) } else { nil } }
    }

    static let lead = Skills.defaultInstructions

    func testPromptSkillReturnsItsPromptAndStaysOnDemand() async throws {
        let activations = SkillActivations()
        let fired = Flag()
        let (session, _) = session({
            Skills(activations: activations, skills: [
                Skill(name: "foo", description: "foo description", content: .prompt("foo prompt"), onActivate: { fired.set() }),
                Skill(name: "bar", description: "bar description", content: .instructions(segments: ["bar instructions"], tools: [], allowsDeactivation: false)),
            ])
        }, script: [call("foo"), .text("Success")])
        _ = try await session.respond(to: "...")
        XCTAssertEqual(outputs(session), ["foo prompt"])
        XCTAssertFalse(activations.isActive("foo"), "a prompt skill is not tracked")
        XCTAssertTrue(fired.value, "onActivate fires for a prompt skill")
        XCTAssertEqual(instructionsText(session), """
            \(Self.lead)

            Skill: foo [on demand]
            Description: foo description

            Skill: bar [inactive]
            Description: bar description
            """)
    }

    func testInstructionsSkillActivatesAndTheNextRequestShowsItActive() async throws {
        let activations = SkillActivations()
        let (session, model) = session({
            Skills(activations: activations, skills: [
                Skill(name: "foo", description: "foo description", content: .prompt("foo prompt")),
                Skill(name: "bar", description: "bar description", content: .instructions(segments: ["bar instructions"], tools: [], allowsDeactivation: false)),
            ])
        }, script: [call("bar"), .text("Success")])
        _ = try await session.respond(to: "...")
        XCTAssertEqual(outputs(session), ["Successfully activated skill: bar"])
        XCTAssertEqual(activations.activeSkillNames, ["bar"])
        // The inference after the tool call (and the stored transcript) re-rendered the instructions.
        XCTAssertEqual(instructionsText(session), """
            \(Self.lead)

            Skill: foo [on demand]
            Description: foo description

            Skill: bar [active]
            bar instructions
            """)
        guard case .instructions(let seen)? = model.receivedRequests[1].transcript.entries.first else { return XCTFail() }
        XCTAssertTrue(Transcript.Segment.text(of: seen.segments).contains("Skill: bar [active]"))
        // The tool: activate_skill, its argument one of the names, sorted.
        let tool = model.receivedRequests[0].tools.first { $0.name == "activate_skill" }
        XCTAssertEqual(tool?.description, "Activate a skill yourself when the user's request matches its description, and otherwise respond normally without calling this tool. Don't ask the user for permission to activate, and don't mention activation in your response. Skills marked [on demand] aren't toggled on or off; calling this tool on one delivers its guidance once.")
        guard case .reference(let name)? = tool?.parameters.root, case .object(let properties)? = tool?.parameters.definition(named: name)?.kind,
              case .string(let guides) = properties[0].type else { return XCTFail("no skill argument") }
        XCTAssertEqual(properties.map { $0.name }, ["skill"])
        XCTAssertEqual(guides.anyOf, ["bar", "foo"])
    }

    func testToggleSkillDeactivatesOnTheSecondCall() async throws {
        let activations = SkillActivations()
        let deactivated = Flag()
        let (session, model) = session({
            Skills(activations: activations, skills: [
                Skill(name: "baz", description: "baz description", content: .instructions(segments: ["baz instructions"], tools: [], allowsDeactivation: true),
                      onDeactivate: { deactivated.set() }),
            ])
        }, script: [call("baz", tool: "toggle_skill"), .text("Success"), call("baz", tool: "toggle_skill"), .text("Success")])
        _ = try await session.respond(to: "...")
        _ = try await session.respond(to: "...")
        XCTAssertEqual(outputs(session), ["Successfully activated skill: baz", "Successfully deactivated skill: baz"])
        XCTAssertTrue(activations.activeSkillNames.isEmpty)
        XCTAssertTrue(deactivated.value)
        XCTAssertEqual(model.receivedRequests[0].tools.map(\.name), ["toggle_skill"])
        XCTAssertEqual(model.receivedRequests[0].tools[0].description, "Activate or deactivate a skill yourself when the user's request matches its description, and otherwise respond normally without calling this tool. Don't ask the user for permission to activate, and don't mention activation in your response.")
    }

    func testDescriptionsNamesAndStrictSchema() {
        let activations = SkillActivations()
        let solo = Skill(name: "solo", description: "solo description", content: .instructions(segments: ["solo"], tools: [], allowsDeactivation: false))
        let skills = Skills(activations: activations, skills: [solo])
        XCTAssertEqual(skills.resolvedToolName, "activate_skill")
        XCTAssertEqual(skills.resolvedToolDescription, "Activate a skill yourself when the user's request matches its description, and otherwise respond normally without calling this tool. Don't ask the user for permission to activate, and don't mention activation in your response.")
        XCTAssertEqual(Skills(activations: activations, toolName: "use_skill", toolDescription: "Pick a skill to use.", skills: [solo]).render().tools.map(\.name), ["use_skill"])
        XCTAssertEqual(Skills(activations: activations, toolDescription: "Pick a skill to use.", skills: [solo]).resolvedToolDescription, "Pick a skill to use.")
        XCTAssertEqual(Skills(activations: activations, instructions: "Custom lead-in for skills.", skills: [solo]).render().segments,
                       ["Custom lead-in for skills.", "\nSkill: solo [inactive]\nDescription: solo description"])
        activations.activate("solo")
        XCTAssertEqual(Skills(activations: activations, skills: [solo]).allowedNames, ["solo"], "not strict: active names stay")
        XCTAssertEqual(Skills(activations: activations, strictSchema: true, skills: [solo]).allowedNames, [], "strict: an active skill that cannot be deactivated is no target")
    }

    func testActiveSkillToolsJoinTheSessionsTools() {
        let activations = SkillActivations()
        let noop = ClosureTool(name: "noop", description: "Does nothing.", parameters: GenerationSchema(root: .any)) { _ in GeneratedContent("") }
        let alpha = Skill(name: "alpha", description: "alpha description", content: .instructions(segments: ["alpha instructions"], tools: [noop], allowsDeactivation: false))
        XCTAssertEqual(Skills(activations: activations, skills: [alpha]).render().tools.map(\.name), ["activate_skill"])
        activations.activate("alpha")
        let rendered = Skills(activations: activations, skills: [alpha]).render()
        XCTAssertEqual(rendered.tools.map(\.name), ["noop", "activate_skill"])
        XCTAssertEqual(rendered.segments, [Self.lead, "\nSkill: alpha [active]", "alpha instructions"], "tools add no text")
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var flag = false
        func set() { lock.lock(); flag = true; lock.unlock() }
        var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
    }
}
