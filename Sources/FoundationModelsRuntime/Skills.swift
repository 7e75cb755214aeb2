import Schema

/// The skills pattern of Apple's open-source `FoundationModelsUtilities`
/// package (`import FoundationModelsUtilities`): `Skills` is dynamic
/// instructions that list each `Skill` and add one tool through which the
/// model loads a skill; `SkillActivations` remembers which instruction skills
/// are on. Behaviour follows the package's tests (rendering text, tool names,
/// descriptions and outputs):
///
/// - the instructions are a lead text, then per skill a block starting on a
///   new line: `Skill: <name> [on demand]` + `Description: ...` for a prompt
///   skill, `Skill: <name> [inactive]` + `Description: ...` for an
///   instruction skill that is off, `Skill: <name> [active]` + its
///   instructions (and its tools join the session's tools) when it is on;
/// - the tool is `activate_skill`, or `toggle_skill` when a skill allows
///   deactivation; its one argument `skill` is one of the skill names;
/// - calling it on a prompt skill returns the prompt as tool output (nothing
///   is tracked); on an instruction skill it flips the activation and returns
///   `Successfully activated skill: <name>` / `Successfully deactivated ...`.
///   The next request re-renders the instructions.
public final class SkillActivations: Sendable {
    private let names = Locked<[String]>([])

    public init() {}

    /// Turns a skill on (no effect when it already is).
    public func activate(_ name: String) {
        names.withLock { if !$0.contains(name) { $0.append(name) } }
    }

    public func deactivate(_ name: String) {
        names.withLock { $0.removeAll { $0 == name } }
    }

    public func isActive(_ name: String) -> Bool { names.withLock { $0.contains(name) } }

    /// The active skills in the order they were activated.
    public var activeSkillNames: [String] { names.withLock { $0 } }
}

/// One skill: a name and description the model sees, and what activating it
/// delivers.
public struct Skill: Sendable {
    public enum Content: Sendable {
        /// Delivered once, as the tool's output ("on demand").
        case prompt(String)
        /// Added to the instructions (with its tools) while the skill is active.
        case instructions(segments: [String], tools: [any Tool], allowsDeactivation: Bool)
    }

    public var name: String
    public var description: String
    public var content: Content
    public var onActivate: @Sendable () async throws -> Void
    public var onDeactivate: @Sendable () async throws -> Void

    public init(name: String, description: String, content: Content,
                onActivate: @escaping @Sendable () async throws -> Void = {},
                onDeactivate: @escaping @Sendable () async throws -> Void = {}) {
        self.name = name
        self.description = description
        self.content = content
        self.onActivate = onActivate
        self.onDeactivate = onDeactivate
    }

    var isPrompt: Bool { if case .prompt = content { true } else { false } }
    var allowsDeactivation: Bool { if case .instructions(_, _, true) = content { true } else { false } }
}

/// `Skills(activations:toolName:toolDescription:instructions:strictSchema:) { ... }`.
public struct Skills: Sendable {
    public static let defaultInstructions =
        "If a skill below fits the user's request, silently activate it before responding. Otherwise, respond normally without calling tools."

    public var activations: SkillActivations
    public var toolName: String?
    public var toolDescription: String?
    /// The lead text above the list (nil: `defaultInstructions`).
    public var instructions: String?
    /// Whether the tool's `skill` argument lists only valid targets (no active
    /// skill when none can be deactivated).
    public var strictSchema: Bool
    public var skills: [Skill]

    public init(activations: SkillActivations, toolName: String? = nil, toolDescription: String? = nil,
                instructions: String? = nil, strictSchema: Bool = false, skills: [Skill]) {
        self.activations = activations
        self.toolName = toolName
        self.toolDescription = toolDescription
        self.instructions = instructions
        self.strictSchema = strictSchema
        self.skills = skills
    }

    /// The rendered instructions segments and tools, from the current activations.
    public func render() -> (segments: [String], tools: [any Tool]) {
        var segments = [instructions ?? Self.defaultInstructions]
        var tools: [any Tool] = []
        for skill in skills {
            switch skill.content {
            case .prompt:
                segments.append("\nSkill: \(skill.name) [on demand]\nDescription: \(skill.description)")
            case .instructions(let text, let skillTools, _):
                if activations.isActive(skill.name) {
                    segments.append("\nSkill: \(skill.name) [active]")
                    segments += text
                    tools += skillTools
                } else {
                    segments.append("\nSkill: \(skill.name) [inactive]\nDescription: \(skill.description)")
                }
            }
        }
        tools.append(toggleTool())
        return (segments, tools)
    }

    var allowsDeactivation: Bool { skills.contains(where: \.allowsDeactivation) }

    /// The tool's name: the given one, else `toggle_skill` / `activate_skill`.
    public var resolvedToolName: String { toolName ?? (allowsDeactivation ? "toggle_skill" : "activate_skill") }

    public var resolvedToolDescription: String {
        if let toolDescription { return toolDescription }
        var text = (allowsDeactivation ? "Activate or deactivate a skill yourself" : "Activate a skill yourself")
            + " when the user's request matches its description, and otherwise respond normally without calling this tool."
            + " Don't ask the user for permission to activate, and don't mention activation in your response."
        if skills.contains(where: \.isPrompt) {
            text += " Skills marked [on demand] aren't toggled on or off; calling this tool on one delivers its guidance once."
        }
        return text
    }

    /// The names the tool accepts: inactive skills, plus active ones unless the
    /// schema is strict and nothing can be deactivated; sorted.
    public var allowedNames: [String] {
        let active = Set(activations.activeSkillNames)
        var names = skills.map(\.name).filter { !active.contains($0) }
        if !strictSchema || allowsDeactivation { names += active.filter { name in skills.contains { $0.name == name } } }
        return names.sorted()
    }

    func toggleTool() -> ClosureTool {
        let parameters = GenerationSchema(root: .reference("Arguments"), definitions: [
            Definition(name: "Arguments", kind: .object([Property(name: "skill", type: .string(StringGuides(anyOf: allowedNames)))])),
        ])
        let skills = self.skills
        let activations = self.activations
        return ClosureTool(name: resolvedToolName, description: resolvedToolDescription, parameters: parameters) { arguments in
            guard let name = arguments["skill"]?.stringValue,
                  let skill = skills.first(where: { $0.name == name }) else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "Model attempted to toggle a skill named '\(arguments.jsonString)', but no matching skill was found. Available skills: "
                    + skills.map(\.name).joined(separator: ", ")))
            }
            switch skill.content {
            case .prompt(let prompt):
                try await skill.onActivate()
                return GeneratedContent(prompt)
            case .instructions:
                if activations.isActive(skill.name) {
                    activations.deactivate(skill.name)
                    try await skill.onDeactivate()
                    return GeneratedContent("Successfully deactivated skill: \(skill.name)")
                }
                activations.activate(skill.name)
                try await skill.onActivate()
                return GeneratedContent("Successfully activated skill: \(skill.name)")
            }
        }
    }
}
