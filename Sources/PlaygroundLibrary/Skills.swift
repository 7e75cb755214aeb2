import FoundationModelsRuntime
import PromptInterpreter
import Surface
import SwiftSyntax

/// The `Skills`, `Skill` and `SkillActivations` entries of `Surface.table`
/// (Table/Agentic.swift). The rendering and the tool are
/// FoundationModelsRuntime's `Skills`; here prompt-file arguments become its values.
extension Builtins {
    static let skillsBuiltins: [String: Builtin] = {
        let activations: @Sendable (Value) -> SkillActivations? = { if case .skills(.activations(let a)) = $0 { a } else { nil } }
        var all: [String: Builtin] = [
            "SkillActivations.init()": { i, c in
                try i.requireUtilities("SkillActivations", c.node)
                return .skills(.activations(SkillActivations()))
            },
            "SkillActivations.activate(_:)": on(activations) { i, a, c in
                a.activate(try await i.skillName(c))
                return .null
            },
            "SkillActivations.deactivate(_:)": on(activations) { i, a, c in
                a.deactivate(try await i.skillName(c))
                return .null
            },
            "SkillActivations.isActive(_:)": on(activations) { i, a, c in .bool(a.isActive(try await i.skillName(c))) },
            "SkillActivations.activeSkillNames": on(activations) { _, a, _ in .array(a.activeSkillNames.map(Value.string)) },
            "SkillActivations.count": on(activations) { _, a, _ in .int(a.activeSkillNames.count) },
            "SkillActivations.isEmpty": on(activations) { _, a, _ in .bool(a.activeSkillNames.isEmpty) },
        ]
        for entry in Surface.table.type(named: "Skill")?.members ?? [] where entry.kind == .initializer {
            all[entry.id] = { i, c in try await i.makeSkill(c.callNode) }
        }
        for entry in Surface.table.type(named: "Skills")?.members ?? [] where entry.kind == .initializer {
            all[entry.id] = { i, c in try await i.makeSkills(c.callNode) }
        }
        return all
    }()
}

extension Interpreter {
    func requireUtilities(_ name: String, _ node: some SyntaxProtocol) throws {
        guard context.importsUtilities else {
            throw error("\(name) comes from Apple's FoundationModelsUtilities package: add 'import FoundationModelsUtilities'", node)
        }
    }

    fileprivate func skillName(_ c: BuiltinCall) async throws -> String {
        guard let name = try await c.arguments(self).unlabelled.first?.stringValue else { throw error("a skill name is a String", c.node) }
        return name
    }

    /// `Skill(name:description:prompt:onActivate:)`, `Skill(name:description:instructions:allowsDeactivation:onActivate:onDeactivate:)`
    /// and the builder forms: a trailing closure of strings is a prompt skill; one with
    /// `Instructions`, tools or dynamic instructions is an instructions skill.
    func makeSkill(_ e: FunctionCallExprSyntax) async throws -> Value {
        try requireUtilities("Skill", e)
        let args = try await arguments(e.arguments)
        guard let name = args.value("name")?.stringValue, let description = args.value("description")?.stringValue else {
            throw error("Skill needs name: and description: strings", e)
        }
        let onActivate = try callback(args.value("onActivate"), "onActivate", e)
        let onDeactivate = try callback(args.value("onDeactivate"), "onDeactivate", e)
        let allowsDeactivation: Bool
        switch args.value("allowsDeactivation") {
        case nil: allowsDeactivation = false
        case .bool(let b)?: allowsDeactivation = b
        default: throw error("allowsDeactivation: is a Bool", e)
        }
        var content: Skill.Content
        if let prompt = args.value("prompt") {
            content = .prompt(promptText(prompt))
        } else if let instructions = args.value("instructions") {
            content = .instructions(segments: [promptText(instructions)], tools: [], allowsDeactivation: allowsDeactivation)
        } else if let closure = e.trailingClosure {
            let values = try await builderValues(closure.statements)
            if values.allSatisfy({ if case .string = $0 { true } else if case .prompt = $0 { true } else { false } }) {
                content = .prompt(values.map(promptText).joined(separator: "\n"))
            } else {
                let rendered = try await renderInstructions(values, Syntax(e))
                content = .instructions(segments: rendered.texts, tools: rendered.tools, allowsDeactivation: allowsDeactivation)
            }
        } else {
            throw error("Skill needs prompt:, instructions: or a trailing closure with its prompt or instructions", e)
        }
        if case .prompt = content, args.value("allowsDeactivation") != nil || args.value("onDeactivate") != nil {
            throw error("a prompt skill is delivered once and cannot be deactivated: allowsDeactivation: and onDeactivate: belong to instructions skills", e)
        }
        return .skills(.skill(Skill(name: name, description: description, content: content,
                                    onActivate: onActivate, onDeactivate: onDeactivate)))
    }

    /// `Skills(activations:toolName:toolDescription:instructions:strictSchema:) { Skill(...) ... }` (or `skills: [...]`).
    func makeSkills(_ e: FunctionCallExprSyntax) async throws -> Value {
        try requireUtilities("Skills", e)
        let args = try await arguments(e.arguments)
        guard case .skills(.activations(let activations))? = args.value("activations") else {
            throw error("Skills needs activations: SkillActivations() (create it once and keep it, for example in the profile's owner)", e)
        }
        func optionalString(_ label: String) throws -> String? {
            switch args.value(label) {
            case nil, .null?: return nil
            case .string(let s)?: return s
            default: throw error("\(label): is a String", e)
            }
        }
        var instructions: String?
        switch args.value("instructions") {
        case nil, .null?: break
        case let value?: instructions = promptText(value)
        }
        let strict: Bool
        switch args.value("strictSchema") {
        case nil: strict = false
        case .bool(let b)?: strict = b
        default: throw error("strictSchema: is a Bool", e)
        }
        var values: [Value] = []
        if case .array(let items)? = args.value("skills") {
            values = items
        } else if let closure = e.trailingClosure {
            values = try await builderValues(closure.statements)
        } else {
            throw error("Skills needs its skills: Skills(activations: activations) { Skill(...) ... }", e)
        }
        var skills: [Skill] = []
        for value in values {
            guard case .skills(.skill(let skill)) = value else {
                throw error("Skills lists Skill values; found \(value.description.prefix(40))", e)
            }
            guard !skills.contains(where: { $0.name == skill.name }) else {
                throw error("two skills are named '\(skill.name)'; the model tells them apart by name", e)
            }
            skills.append(skill)
        }
        return .skills(.skills(Skills(activations: activations, toolName: try optionalString("toolName"),
                                      toolDescription: try optionalString("toolDescription"), instructions: instructions,
                                      strictSchema: strict, skills: skills)))
    }

    private func callback(_ value: Value?, _ label: String, _ e: FunctionCallExprSyntax) throws -> @Sendable () async throws -> Void {
        switch value {
        case nil, .null?: return {}
        case .function(let function)?:
            let node = Syntax(e)
            return { [self] in _ = try await self.call(function, [], at: node) }
        default: throw error("\(label): is a closure", e)
        }
    }
}
