import FoundationModelsRuntime
import PromptInterpreter
import Surface

/// The session entries of `Surface.table` (Table/LanguageModelSession.swift).
extension Builtins {
    static let session: @Sendable (Value) -> LanguageModelSession? = { if case .session(let s) = $0 { s } else { nil } }
    static let response: @Sendable (Value) -> ResponseValue? = { if case .response(let r) = $0 { r } else { nil } }
    static let usage: @Sendable (Value) -> Usage? = { if case .usage(let u) = $0 { u } else { nil } }

    /// The explanation a `LanguageModelError.Refusal` was created with, nil for one a model raised.
    static func refusalText(_ value: Value) -> String? {
        guard case .structure(_, let fields) = value else { return nil }
        return fields.first { $0.name == "explanationText" }?.value.stringValue
    }

    /// `Usage.Input(totalTokenCount:cachedTokenCount:)` or `Usage.Output(totalTokenCount:reasoningTokenCount:)`:
    /// the part of the whole (cached, reasoning) may not be negative or exceed the total.
    static func counts(_ i: Interpreter, _ c: BuiltinCall, type: String, labels: [String]) async throws -> Value {
        let args = try await c.arguments(i)
        let values = labels.map { label -> Int? in if case .int(let n)? = args.value(label) { n } else { nil } }
        guard let total = values[0], let part = values[1], total >= 0, (0...total).contains(part) else {
            throw i.error("\(type.split(separator: ".").last ?? "")(\(labels[0]):\(labels[1]):) takes two counts, with 0 <= \(labels[1]) <= \(labels[0])", c.node)
        }
        return .structure(type: type, fields: [(labels[0], .int(total)), (labels[1], .int(part))])
    }

    /// `Usage(input:output:metadata:)`, from the counts of an Input and an Output.
    static func makeUsage(_ i: Interpreter, _ c: BuiltinCall) async throws -> Value {
        let args = try await c.arguments(i)
        func fields(_ label: String, _ type: String) throws -> [String: Int] {
            guard case .structure(type, let fields)? = args.value(label) else {
                throw i.error("Usage(input:output:) takes a Usage.Input and a Usage.Output (for example .init(totalTokenCount: 10, cachedTokenCount: 0))", c.node)
            }
            return Dictionary(fields.compactMap { field in if case .int(let n) = field.value { (field.name, n) } else { nil } }, uniquingKeysWith: { a, _ in a })
        }
        let input = try fields("input", "LanguageModelSession.Usage.Input")
        let output = try fields("output", "LanguageModelSession.Usage.Output")
        var metadata: [String: GeneratedContent] = [:]
        if case .dictionary(let pairs)? = args.value("metadata") {
            for pair in pairs { metadata[pair.key.stringValue ?? pair.key.description] = pair.value.generatedContent }
        }
        return .usage(Usage(promptTokens: input["totalTokenCount"] ?? 0, cachedTokens: input["cachedTokenCount"] ?? 0,
                            responseTokens: output["totalTokenCount"] ?? 0, reasoningTokens: output["reasoningTokenCount"] ?? 0,
                            metadata: metadata))
    }

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
            "LanguageModelSession.ResponseStream.Snapshot.content": on({ if case .snapshot(let content, _, _, _) = $0 { content } else { nil } }) { _, v, _ in v },
            "LanguageModelSession.ResponseStream.Snapshot.rawContent": on({ if case .snapshot(_, let raw, _, _) = $0 { raw } else { nil } }) { _, raw, _ in .content(raw) },
            "LanguageModelSession.ResponseStream.Snapshot.usage": on({ if case .snapshot(_, _, let usage, _) = $0 { usage } else { nil } }) { _, u, _ in .usage(u) },
            "LanguageModelSession.ResponseStream.Snapshot.transcriptEntries": on({ if case .snapshot(_, _, _, let entries) = $0 { entries } else { nil } }) { _, e, _ in
                .array(e.map(Value.transcriptEntry))
            },
            "LanguageModelSession.Usage.input": on(usage) { _, u, _ in
                .structure(type: "LanguageModelSession.Usage.Input", fields: [("totalTokenCount", .int(u.promptTokens)), ("cachedTokenCount", .int(u.cachedTokens))])
            },
            "LanguageModelSession.Usage.output": on(usage) { _, u, _ in
                .structure(type: "LanguageModelSession.Usage.Output", fields: [("totalTokenCount", .int(u.responseTokens)), ("reasoningTokenCount", .int(u.reasoningTokens))])
            },
            "LanguageModelSession.Usage.init(input:output:metadata:)": { i, c in try await makeUsage(i, c) },
            "LanguageModelSession.Usage.metadata": on(usage) { _, u, _ in Interpreter.metadataValue(u.metadata) },
            "LanguageModelSession.Usage.Input.init(totalTokenCount:cachedTokenCount:)": { i, c in
                try await counts(i, c, type: "LanguageModelSession.Usage.Input", labels: ["totalTokenCount", "cachedTokenCount"])
            },
            "LanguageModelSession.Usage.Output.init(totalTokenCount:reasoningTokenCount:)": { i, c in
                try await counts(i, c, type: "LanguageModelSession.Usage.Output", labels: ["totalTokenCount", "reasoningTokenCount"])
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
            "LanguageModelSession.GenerationError.Refusal.init(transcriptEntries:)": { i, c in
                let entries = try await c.arguments(i).value("transcriptEntries").map { try i.sequenceElements($0, c.node) } ?? []
                return Interpreter.refusalValue(type: "LanguageModelSession.GenerationError.Refusal",
                                                entries: entries.compactMap { if case .transcriptEntry(let e) = $0 { e } else { nil } }, description: "")
            },
            "LanguageModelSession.GenerationError.Refusal.explanation": { i, c in
                try await i.explainRefusal(entries: Interpreter.refusalEntries(c.base), explanation: nil, stream: false, c.node)
            },
            "LanguageModelSession.GenerationError.Refusal.explanationStream": { i, c in
                try await i.explainRefusal(entries: Interpreter.refusalEntries(c.base), explanation: nil, stream: true, c.node)
            },
            "LanguageModelError.Refusal.init(explanation:debugDescription:metadata:)": { i, c in
                let args = try await c.arguments(i)
                guard let explanation = args.value("explanation")?.stringValue, let debug = args.value("debugDescription")?.stringValue else {
                    throw i.error("LanguageModelError.Refusal(explanation:debugDescription:metadata:) takes two strings and a dictionary", c.node)
                }
                return Interpreter.refusalValue(type: "LanguageModelError.Refusal", entries: [], description: debug, adding: [
                    ("explanationText", .string(explanation)), ("debugDescription", .string(debug)),
                    ("metadata", args.value("metadata") ?? .dictionary([])),
                ])
            },
            "LanguageModelError.Refusal.explanation": { i, c in
                try await i.explainRefusal(entries: Interpreter.refusalEntries(c.base), explanation: refusalText(c.base), stream: false, c.node)
            },
            "LanguageModelError.Refusal.explanationStream": { i, c in
                try await i.explainRefusal(entries: Interpreter.refusalEntries(c.base), explanation: refusalText(c.base), stream: true, c.node)
            },
            "LanguageModelError.ContextSizeExceeded.contextSize": field("contextSize"),
            "LanguageModelError.ContextSizeExceeded.tokenCount": field("tokenCount"),
            "LanguageModelError.RateLimited.resetDate": field("resetDate"),
            "LanguageModelError.UnsupportedCapability.capability": field("capability"),
        ]
        // The payloads of errors prompt code throws itself: memberwise values (`metadata` defaults to empty).
        for type in ["LanguageModelError.ContextSizeExceeded", "LanguageModelError.RateLimited", "LanguageModelError.Timeout",
                     "LanguageModelError.GuardrailViolation", "LanguageModelError.UnsupportedCapability", "LanguageModelSession.GenerationError.Context"] {
            for entry in Surface.table.initializers(of: type) {
                all[entry.id] = { i, c in
                    let args = try await c.arguments(i)
                    var fields = args.items.compactMap { item in item.label.map { (name: $0, value: item.value) } }
                    if entry.parameters?.contains(where: { $0.label == "metadata" }) == true, !fields.contains(where: { $0.name == "metadata" }) {
                        fields.append((name: "metadata", value: .dictionary([])))
                    }
                    return .structure(type: type, fields: fields)
                }
            }
        }
        // Every LanguageModelError payload has a debugDescription (and the 27.0 ones metadata).
        for type in Surface.table.types where type.name.hasPrefix("LanguageModelError.") || type.name == "SystemLanguageModel.Error.AssetsUnavailable" {
            all[type.name + ".debugDescription"] = field("debugDescription")
            if type.name.hasPrefix("LanguageModelError.") {
                all[type.name + ".metadata"] = { _, c in
                    if case .structure(_, let fields) = c.base, let given = fields.first(where: { $0.name == "metadata" })?.value { return given }
                    return .dictionary([])
                }
            }
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
        // Error cases name the case as a type (`catch` and `is` compare by name); called with a payload
        // (`LanguageModelError.contextSizeExceeded(.init(...))`), the case is an error value to throw, which
        // `catch`, `switch` and `if case` match by case and bind the payload of.
        for owner in ["LanguageModelSession.GenerationError", "LanguageModelError", "LanguageModelSession.Error", "SystemLanguageModel.Error"] {
            for entry in Surface.table.type(named: owner)?.members ?? [] where entry.kind == .enumCase {
                all[entry.id] = { i, c in
                    if c.call != nil, entry.parameters?.isEmpty == false {
                        return .enumCase(type: entry.owner, name: entry.name, payload: try await c.arguments(i).items.map { ($0.label, $0.value) })
                    }
                    guard case .type(let written) = c.base else { return .type(entry.owner + "." + entry.name) }
                    return .type(written + "." + entry.name)
                }
            }
        }
        return all
    }()
}
