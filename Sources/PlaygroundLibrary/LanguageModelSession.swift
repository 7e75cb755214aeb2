import FoundationModelsRuntime
import PromptInterpreter
import Surface

/// The session entries of `Surface.table` (Table/LanguageModelSession.swift).
extension Builtins {
    static let session: @Sendable (Value) -> LanguageModelSession? = { if case .session(let s) = $0 { s } else { nil } }
    static let response: @Sendable (Value) -> ResponseValue? = { if case .response(let r) = $0 { r } else { nil } }
    static let usage: @Sendable (Value) -> Usage? = { if case .usage(let u) = $0 { u } else { nil } }

    static let sessionBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "LanguageModelSession.init(model:tools:instructions:)": { i, c in try await i.makeSession(c.callNode) },
            "LanguageModelSession.init(model:tools:transcript:)": { i, c in try await i.makeSession(c.callNode) },
            "LanguageModelSession.transcript": on(session) { _, s, _ in .transcript(s.transcript) },
            "LanguageModelSession.isResponding": on(session) { _, s, _ in .bool(s.isResponding) },
            "LanguageModelSession.usage": on(session) { _, s, _ in .usage(s.usage) },
            "LanguageModelSession.prewarm(promptPrefix:)": on(session) { _, s, _ in
                await s.prewarm()
                return .null
            },
            "LanguageModelSession.Response.content": on(response) { _, r, _ in r.content },
            "LanguageModelSession.Response.rawContent": on(response) { _, r, _ in .content(r.rawContent) },
            "LanguageModelSession.Response.transcriptEntries": on(response) { _, r, _ in .array(r.entries.map(Value.transcriptEntry)) },
            "LanguageModelSession.Response.usage": on(response) { _, r, _ in .usage(r.usage) },
            "LanguageModelSession.ResponseStream.collect()": on({ if case .stream(let s) = $0 { s } else { nil } }) { i, s, _ in try await i.collect(s) },
            "LanguageModelSession.ResponseStream.Snapshot.content": on({ if case .snapshot(let content, _) = $0 { content } else { nil } }) { _, v, _ in v },
            "LanguageModelSession.ResponseStream.Snapshot.rawContent": on({ if case .snapshot(_, let raw) = $0 { raw } else { nil } }) { _, raw, _ in .content(raw) },
            "LanguageModelSession.Usage.input": on(usage) { _, u, _ in
                .structure(type: "LanguageModelSession.Usage.Input", fields: [("totalTokenCount", .int(u.promptTokens)), ("cachedTokenCount", .int(u.cachedTokens))])
            },
            "LanguageModelSession.Usage.output": on(usage) { _, u, _ in
                .structure(type: "LanguageModelSession.Usage.Output", fields: [("totalTokenCount", .int(u.responseTokens)), ("reasoningTokenCount", .int(u.reasoningTokens))])
            },
            "LanguageModelSession.Usage.totalTokenCount": on(usage) { _, u, _ in .int(u.totalTokens) },
            "LanguageModelSession.Usage.totalTokens": on(usage) { _, u, _ in .int(u.totalTokens) },
            "LanguageModelSession.Usage.inputTokenCount": on(usage) { _, u, _ in .int(u.promptTokens) },
            "LanguageModelSession.Usage.promptTokens": on(usage) { _, u, _ in .int(u.promptTokens) },
            "LanguageModelSession.Usage.cachedTokenCount": on(usage) { _, u, _ in .int(u.cachedTokens) },
            "LanguageModelSession.Usage.cachedTokens": on(usage) { _, u, _ in .int(u.cachedTokens) },
            "LanguageModelSession.Usage.outputTokenCount": on(usage) { _, u, _ in .int(u.responseTokens) },
            "LanguageModelSession.Usage.responseTokens": on(usage) { _, u, _ in .int(u.responseTokens) },
            "LanguageModelSession.Usage.Input.totalTokenCount": field("totalTokenCount"),
            "LanguageModelSession.Usage.Input.cachedTokenCount": field("cachedTokenCount"),
            "LanguageModelSession.Usage.Output.totalTokenCount": field("totalTokenCount"),
            "LanguageModelSession.Usage.Output.reasoningTokenCount": field("reasoningTokenCount"),
            "LanguageModelSession.GenerationError.Context.debugDescription": field("debugDescription"),
            "LanguageModelSession.GenerationError.Refusal.description": field("description"),
            "LanguageModelError.ContextSizeExceeded.contextSize": field("contextSize"),
            "LanguageModelError.ContextSizeExceeded.tokenCount": field("tokenCount"),
            "LanguageModelError.RateLimited.resetDate": field("resetDate"),
        ]
        // Every LanguageModelError payload has a debugDescription.
        for type in Surface.table.types where type.name.hasPrefix("LanguageModelError.") || type.name == "SystemLanguageModel.Error.AssetsUnavailable" {
            all[type.name + ".debugDescription"] = field("debugDescription")
        }
        let sessionMembers = Surface.table.type(named: "LanguageModelSession")?.members ?? []
        // Every respond/streamResponse form runs through one implementation.
        for entry in sessionMembers where entry.name == "respond" || entry.name == "streamResponse" {
            let method = entry.name
            all[entry.id] = on(session) { i, s, c in try await i.modelCall(method, s, c.callNode) }
        }
        for entry in sessionMembers where entry.name == "logFeedbackAttachment" {
            all[entry.id] = on(session) { i, s, c in try await i.logFeedbackAttachment(s, c.callNode) }
        }
        // Error cases name the case as a type (`catch` and `is` compare by name).
        for owner in ["LanguageModelSession.GenerationError", "LanguageModelError", "LanguageModelSession.Error", "SystemLanguageModel.Error"] {
            for entry in Surface.table.type(named: owner)?.members ?? [] where entry.kind == .enumCase {
                all[entry.id] = { _, c in
                    guard case .type(let written) = c.base else { return .type(entry.owner + "." + entry.name) }
                    return .type(written + "." + entry.name)
                }
            }
        }
        return all
    }()
}
