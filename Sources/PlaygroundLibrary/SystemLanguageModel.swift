import FoundationModelsRuntime
import PromptInterpreter

/// The model entries of `Surface.table` (Table/SystemLanguageModel.swift).
extension Builtins {
    static let model: @Sendable (Value) -> SystemLanguageModel? = { if case .model(let m) = $0 { m } else { nil } }

    static func guardrailsValue(_ name: String) -> Value { .enumCase(type: "SystemLanguageModel.Guardrails", name: name, payload: []) }

    /// The guardrails a value names. A bare `.default` reads as the default model (the implicit member has no
    /// context type at run time), so it is accepted as the default guardrails here.
    static func guardrailsName(_ value: Value) -> String? {
        switch value {
        case .model: "default"
        case .enumCase(_, let name, let payload) where payload.isEmpty && ["default", "permissiveContentTransformations"].contains(name): name
        default: nil
        }
    }

    static let systemLanguageModelBuiltins: [String: Builtin] = [
        "SystemLanguageModel.init(useCase:guardrails:)": { i, c in
            let args = try await c.arguments(i)
            if let given = args.value("guardrails"), guardrailsName(given) == nil {
                throw i.error("guardrails: takes .default or .permissiveContentTransformations, not \(given.description.prefix(30))", c.node)
            }
            if case .useCase(let useCase)? = args.value("useCase") { return .model(i.context.systemModel(useCase: useCase)) }
            return .model(i.context.systemModel(useCase: .general))
        },
        "SystemLanguageModel.Guardrails.default": constant(guardrailsValue("default")),
        "SystemLanguageModel.Guardrails.permissiveContentTransformations": constant(guardrailsValue("permissiveContentTransformations")),
        "SystemLanguageModel.default": { i, _ in .model(i.context.systemModel(useCase: .general)) },
        "SystemLanguageModel.availability": on(model) { _, m, _ in
            switch m.availability {
            case .available: return .enumCase(type: "SystemLanguageModel.Availability", name: "available", payload: [])
            case .unavailable(let reason):
                return .enumCase(type: "SystemLanguageModel.Availability", name: "unavailable", payload: [
                    (label: nil, value: .enumCase(type: "SystemLanguageModel.Availability.UnavailableReason", name: "\(reason)", payload: [])),
                ])
            }
        },
        "SystemLanguageModel.isAvailable": on(model) { _, m, _ in .bool(m.isAvailable) },
        "SystemLanguageModel.contextSize": on(model) { _, m, _ in .int(m.contextSize) },
        "SystemLanguageModel.supportedLanguages": on(model) { _, m, _ in .set(m.languages.map(Value.language)) },
        "SystemLanguageModel.useCase": on(model) { _, m, _ in .useCase(m.useCase) },
        "SystemLanguageModel.tokenCount(for:)": on(model) { i, m, c in try await i.tokenCount(m, c.callNode) },
        "SystemLanguageModel.supportsLocale(_:)": on(model) { i, m, c in
            // Locale(identifier: "fr_FR") reaches here as its identifier; no argument means Locale.current,
            // which is English for fmplay's evaluations (they do not depend on the machine's locale).
            let args = try await c.arguments(i)
            let identifier = args.items.first.map { Value.localeIdentifier($0.value) ?? i.promptText($0.value) } ?? "en"
            return .bool(m.supportsLanguage(identifier))
        },
        "SystemLanguageModel.capabilities": on(model) { _, m, _ in capabilitiesValue(reasoning: m.supportsReasoning) },
        "LanguageModelCapabilities.init(_:)": { i, c in
            let given = try await c.arguments(i).unlabelled.first.map { try i.sequenceElements($0, c.node) } ?? []
            let names = try given.map { value -> String in
                guard case .enumCase("LanguageModelCapabilities.Capability", let name, _) = value else {
                    throw i.error("LanguageModelCapabilities([...]) lists capabilities (.guidedGeneration, .toolCalling, .reasoning)", c.node)
                }
                return name
            }
            return .structure(type: "LanguageModelCapabilities", fields: [("capabilities", .array(names.map(capabilityValue)))])
        },
        "LanguageModelCapabilities.contains(_:)": { i, c in
            guard case .structure(_, let fields) = c.base, case .array(let held)? = fields.first?.value else { return .bool(false) }
            guard case .enumCase(_, let name, _)? = try await c.arguments(i).unlabelled.first else {
                throw i.error("contains(_:) takes a capability (.guidedGeneration, .toolCalling, .reasoning)", c.node)
            }
            return .bool(held.contains { if case .enumCase(_, name, _) = $0 { true } else { false } })
        },
        "LanguageModelCapabilities.Capability.guidedGeneration": constant(capabilityValue("guidedGeneration")),
        "LanguageModelCapabilities.Capability.reasoning": constant(capabilityValue("reasoning")),
        "LanguageModelCapabilities.Capability.toolCalling": constant(capabilityValue("toolCalling")),
        "SystemLanguageModel.variant": on(model) { _, m, _ in variantValue(m.name) },
        "SystemLanguageModel.Variant.core3": constant(variantValue("AFM 3 Core")),
        "SystemLanguageModel.Variant.coreAdvanced3": constant(variantValue("AFM 3 Core Advanced")),
        "SystemLanguageModel.Variant.displayName": field("displayName"),
        "SystemLanguageModel.UseCase.general": constant(.useCase(.general)),
        "SystemLanguageModel.UseCase.contentTagging": constant(.useCase(.contentTagging)),
        "SystemLanguageModel.Availability.available": constant(.enumCase(type: "SystemLanguageModel.Availability", name: "available", payload: [])),
        "SystemLanguageModel.Availability.unavailable(_:)": { i, c in
            .enumCase(type: "SystemLanguageModel.Availability", name: "unavailable", payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
        },
        "SystemLanguageModel.Availability.UnavailableReason.deviceNotEligible": unavailableReason("deviceNotEligible"),
        "SystemLanguageModel.Availability.UnavailableReason.appleIntelligenceNotEnabled": unavailableReason("appleIntelligenceNotEnabled"),
        "SystemLanguageModel.Availability.UnavailableReason.modelNotReady": unavailableReason("modelNotReady"),
    ]

    static func capabilityValue(_ name: String) -> Value { .enumCase(type: "LanguageModelCapabilities.Capability", name: name, payload: []) }

    /// What fmplay's models can do: guided generation and tool calling always (the grammar engine and the tool
    /// loop), reasoning with a thinking mode.
    static func capabilitiesValue(reasoning: Bool) -> Value {
        let names = ["guidedGeneration", "toolCalling"] + (reasoning ? ["reasoning"] : [])
        return .structure(type: "LanguageModelCapabilities", fields: [("capabilities", .array(names.map(capabilityValue)))])
    }

    /// A `SystemLanguageModel.Variant`: its display name is its only field, so == compares names.
    static func variantValue(_ displayName: String) -> Value {
        .structure(type: "SystemLanguageModel.Variant", fields: [("displayName", .string(displayName))])
    }

    static func unavailableReason(_ name: String) -> Builtin {
        constant(.enumCase(type: "SystemLanguageModel.Availability.UnavailableReason", name: name, payload: []))
    }
}
