import Foundation
import FoundationModelsRuntime
import PromptInterpreter

/// The `PrivateCloudComputeLanguageModel` entries of `Surface.table`
/// (Table/SystemLanguageModel.swift). `availability` and `isAvailable` ask
/// the server (a short probe), `contextSize` is what it reports (32768
/// otherwise), `quotaUsage` what its rate-limit headers said last. Reading
/// availability or quota marks the block's results as depending on the
/// server's state now, so they are not cached.
extension Builtins {
    static let serverModel: @Sendable (Value) -> PrivateCloudComputeLanguageModel? = { if case .serverModel(let m) = $0 { m } else { nil } }

    static let serverModelBuiltins: [String: Builtin] = [
        "PrivateCloudComputeLanguageModel.init()": { i, _ in .serverModel(i.context.serverModel()) },
        "PrivateCloudComputeLanguageModel.availability": on(serverModel) { i, m, _ in
            i.readsServerState = true
            switch await m.currentAvailability().0 {
            case .available: return serverAvailability("available", reason: nil)
            case .unavailable(let reason): return serverAvailability("unavailable", reason: reason.rawValue)
            }
        },
        "PrivateCloudComputeLanguageModel.isAvailable": on(serverModel) { i, m, _ in
            i.readsServerState = true
            return .bool(await m.currentAvailability().0 == .available)
        },
        "PrivateCloudComputeLanguageModel.contextSize": on(serverModel) { _, m, _ in .int(await m.currentContextSize()) },
        "PrivateCloudComputeLanguageModel.quotaUsage": on(serverModel) { i, m, _ in
            i.readsServerState = true
            return quotaValue(m.quotaUsage)
        },
        // One rule with supportedLanguages (`LanguageSupport`): a configured server lists no languages, so English.
        "PrivateCloudComputeLanguageModel.supportsLocale(_:)": on(serverModel) { i, m, c in
            let identifier = try await c.arguments(i).items.first.map { Value.localeIdentifier($0.value) ?? i.promptText($0.value) } ?? "en"
            return .bool(LanguageSupport.supports(identifier, languages: m.languages))
        },
        "PrivateCloudComputeLanguageModel.capabilities": on(serverModel) { _, m, _ in capabilitiesValue(reasoning: m.supportsReasoning) },
        "PrivateCloudComputeLanguageModel.supportedLanguages": on(serverModel) { _, m, _ in .set(m.languages.map(Value.language)) },
        "PrivateCloudComputeLanguageModel.Availability.available": constant(serverAvailability("available", reason: nil)),
        "PrivateCloudComputeLanguageModel.Availability.unavailable(_:)": { i, c in
            .enumCase(type: "PrivateCloudComputeLanguageModel.Availability", name: "unavailable",
                      payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
        },
        "PrivateCloudComputeLanguageModel.Availability.UnavailableReason.deviceNotEligible": serverUnavailableReason("deviceNotEligible"),
        "PrivateCloudComputeLanguageModel.Availability.UnavailableReason.systemNotReady": serverUnavailableReason("systemNotReady"),
        "PrivateCloudComputeLanguageModel.QuotaUsage.status": field("status"),
        "PrivateCloudComputeLanguageModel.QuotaUsage.isLimitReached": field("isLimitReached"),
        "PrivateCloudComputeLanguageModel.QuotaUsage.resetDate": field("resetDate"),
        "PrivateCloudComputeLanguageModel.QuotaUsage.limitIncreaseSuggestion": field("limitIncreaseSuggestion"),
        "PrivateCloudComputeLanguageModel.QuotaUsage.Status.BelowLimit.isApproachingLimit": field("isApproachingLimit"),
        "PrivateCloudComputeLanguageModel.QuotaUsage.Status.belowLimit(_:)": { i, c in
            .enumCase(type: "PrivateCloudComputeLanguageModel.QuotaUsage.Status", name: "belowLimit",
                      payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
        },
        "PrivateCloudComputeLanguageModel.QuotaUsage.Status.limitReached(_:)": { i, c in
            .enumCase(type: "PrivateCloudComputeLanguageModel.QuotaUsage.Status", name: "limitReached",
                      payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
        },
        // Never reached: servers offer no upgrade flow, so the suggestion is always nil.
        "PrivateCloudComputeLanguageModel.QuotaUsage.LimitIncreaseSuggestion.show()": { i, c in
            throw i.error("servers offer no upgrade flow (limitIncreaseSuggestion is nil)", c.node)
        },
        "PrivateCloudComputeLanguageModel.Error.quotaLimitReached(_:)": serverErrorCase("quotaLimitReached"),
        "PrivateCloudComputeLanguageModel.Error.networkFailure(_:)": serverErrorCase("networkFailure"),
        "PrivateCloudComputeLanguageModel.Error.serviceUnavailable(_:)": serverErrorCase("serviceUnavailable"),
        "PrivateCloudComputeLanguageModel.Error.QuotaLimitReached.debugDescription": field("debugDescription"),
        "PrivateCloudComputeLanguageModel.Error.QuotaLimitReached.resetDate": field("resetDate"),
        "PrivateCloudComputeLanguageModel.Error.QuotaLimitReached.limitIncreaseSuggestion": field("limitIncreaseSuggestion"),
        "PrivateCloudComputeLanguageModel.Error.NetworkFailure.debugDescription": field("debugDescription"),
        "PrivateCloudComputeLanguageModel.Error.ServiceUnavailable.debugDescription": field("debugDescription"),
    ]

    static func serverAvailability(_ name: String, reason: String?) -> Value {
        .enumCase(type: "PrivateCloudComputeLanguageModel.Availability", name: name, payload: reason.map {
            [(label: nil, value: .enumCase(type: "PrivateCloudComputeLanguageModel.Availability.UnavailableReason", name: $0, payload: []))]
        } ?? [])
    }

    static func serverUnavailableReason(_ name: String) -> Builtin {
        constant(.enumCase(type: "PrivateCloudComputeLanguageModel.Availability.UnavailableReason", name: name, payload: []))
    }

    static func serverErrorCase(_ name: String) -> Builtin {
        { i, c in
            .enumCase(type: "PrivateCloudComputeLanguageModel.Error", name: name, payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
        }
    }

    static func quotaValue(_ quota: PrivateCloudComputeLanguageModel.QuotaUsage) -> Value {
        let status: Value
        switch quota.status {
        case .belowLimit(let info):
            status = .enumCase(type: "PrivateCloudComputeLanguageModel.QuotaUsage.Status", name: "belowLimit", payload: [
                (label: nil, value: .structure(type: "PrivateCloudComputeLanguageModel.QuotaUsage.Status.BelowLimit", fields: [
                    (name: "isApproachingLimit", value: .bool(info.isApproachingLimit)),
                ])),
            ])
        case .limitReached:
            status = .enumCase(type: "PrivateCloudComputeLanguageModel.QuotaUsage.Status", name: "limitReached", payload: [
                (label: nil, value: .structure(type: "PrivateCloudComputeLanguageModel.QuotaUsage.Status.LimitReached", fields: [])),
            ])
        }
        return .structure(type: "PrivateCloudComputeLanguageModel.QuotaUsage", fields: [
            (name: "status", value: status),
            (name: "isLimitReached", value: .bool(quota.isLimitReached)),
            (name: "resetDate", value: quota.resetDate.map { .date($0.timeIntervalSince1970) } ?? .null),
            (name: "limitIncreaseSuggestion", value: .null),
        ])
    }
}
