import Foundation
import IDE
import JSON

/// Text renderings of results: short hints, lens statuses and hover details.
enum ResultRendering {
    /// `→ "Journey to the Land of the Rising Sun"`, `→ SearchSuggestions(searchTerms: 4 items)`,
    /// `→ [3/3] "…"` in a loop, a trailing `⋯` while streaming; at most `limit` characters.
    static func hint(_ result: CallResult, iterations: Int, limit: Int) -> String {
        var prefix = result.kind == .error ? "✗ " : (result.kind == .print ? "» " : (result.kind == .evaluation ? "▣ " : "→ "))
        if iterations > 1 { prefix += "[\(result.iteration + 1)/\(iterations)] " }
        // A profile session's answer names the profile that gave it.
        if let profile = result.lifecycle.last(where: { $0.hasPrefix("profile ") }) {
            prefix += "(" + truncate(String(profile.dropFirst("profile ".count)), to: 40) + ") "
        }
        let suffix = result.isComplete ? "" : " ⋯"
        let budget = max(4, limit - prefix.count - suffix.count)
        let body: String
        switch result.content {
        case .string(let text) where result.kind == .response || result.kind == .stream:
            body = "\"" + truncate(collapse(text), to: budget - 2) + "\""
        case .string(let text):
            body = truncate(collapse(text), to: budget)
        default:
            body = truncate(summary(result.content, typeName: result.typeName, budget: budget), to: budget)
        }
        return prefix + body + suffix
    }

    /// A one-line summary of a structured value: `Type(name: "x", items: 4 items)`.
    static func summary(_ value: JSONValue, typeName: String?, budget: Int) -> String {
        switch value {
        case .object(let object):
            let fields = object.map { key, member in "\(key): \(short(member))" }.joined(separator: ", ")
            return "\(typeName ?? "")(\(fields))"
        case .array(let elements):
            return "[\(elements.count) item\(elements.count == 1 ? "" : "s")]"
        default:
            return short(value)
        }
    }

    private static func short(_ value: JSONValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let b): return "\(b)"
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .string(let s): return "\"\(truncate(collapse(s), to: 24))\""
        case .array(let a): return "\(a.count) item\(a.count == 1 ? "" : "s")"
        case .object(let o): return "{\(o.count) field\(o.count == 1 ? "" : "s")}"
        }
    }

    static func collapse(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    static func truncate(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(max(1, limit - 1))) + "…"
    }

    /// The hover (and hint tooltip) for a call's result, in the client's format.
    static func details(_ result: CallResult, iterations: Int, format: MarkupFormat) -> String {
        var lines: [String] = []
        var title = format.strong(result.kind.rawValue)
        if let type = result.typeName { title += " · \(format.code(type))" }
        if iterations > 1 { title += " · iteration \(result.iteration + 1) of \(iterations)" }
        if !result.isComplete { title += " · streaming…" }
        lines.append(title)
        lines.append("")
        switch result.content {
        case .string(let text):
            lines += format.block(result.details ?? text, language: "text")
        default:
            lines += format.block(result.content.serialized(pretty: true), language: "json")
        }
        if result.kind != .print && result.kind != .evaluation {
            var usage = "\(result.promptTokens) prompt tokens"
            if result.cachedTokens > 0 { usage += " (\(result.cachedTokens) cached)" }
            usage += " · \(result.responseTokens) response tokens"
            if let ttft = result.timeToFirstToken { usage += " · first token \(seconds(ttft))" }
            if let rate = result.tokensPerSecond { usage += " · \(rate.formatted1) tok/s" }
            if let stop = result.stopReason { usage += " · stop: \(stop)" }
            lines.append("")
            lines.append(usage)
            if let model = result.model { lines.append(""); lines.append("Answered by \(model)") }
        }
        if !result.lifecycle.isEmpty {
            // Profiles: which profile answered, which callbacks ran and which tools were called, in order.
            lines.append("")
            lines.append("What happened, in order:")
            lines += format.block(result.lifecycle.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n"),
                                  language: "text")
        }
        if let prompt = result.renderedPrompt, !prompt.isEmpty {
            lines.append("")
            lines.append("Prompt as the model read it:")
            lines += format.block(prompt, language: "text")
        }
        if let transcript = result.transcript, !transcript.isEmpty {
            lines.append("")
            lines.append("Transcript:")
            lines += format.block(transcript, language: "text")
        }
        return lines.joined(separator: "\n")
    }

    static func seconds(_ value: Double) -> String {
        value < 1 ? "\(Int((value * 1000).rounded())) ms" : "\(value.formatted1) s"
    }

    static func statusName(_ status: EvaluationCoordinator.Status) -> String {
        switch status {
        case .queued: "queued"
        case .running: "running"
        case .done(let outcome): outcome.error == nil ? "done" : "failed"
        case .cancelled: "cancelled"
        case .blocked: "blocked"
        }
    }

    /// The status lens: `✓ 3 results · 1.2 s · 212 tok · 95 tok/s`, `✗ exceededContextWindowSize`, `… running · 12 tok`.
    static func status(_ record: EvaluationCoordinator.BlockRecord, results: [CallResult]) -> String? {
        let tokens = results.reduce(0) { $0 + $1.responseTokens }
        switch record.status {
        case .queued:
            return "… queued"
        case .running:
            return "… running · \(max(record.tokens, tokens)) tok"
        case .cancelled:
            return "■ cancelled"
        case .blocked(let reason):
            return "✗ \(reason)"
        case .done(let outcome):
            if let error = outcome.error {
                let name = error.prefix { $0 != ":" && $0 != "(" }
                let rates = results.compactMap(\.passRate).map { "pass rate \(Int(($0 * 100).rounded()))%" }
                return (["✗ \(name.trimmingCharacters(in: .whitespaces))"] + rates).joined(separator: " · ")
            }
            var parts = ["✓ \(results.count) result\(results.count == 1 ? "" : "s")"]
            // Evaluations: the pass rate over every pass/fail metric of the block's runs.
            let passRates = results.compactMap(\.passRate)
            if !passRates.isEmpty { parts.insert("pass rate " + passRates.map { "\(Int(($0 * 100).rounded()))%" }.joined(separator: ", "), at: 0) }
            if outcome.fromCache {
                parts.append("cached")
            } else if let duration = record.duration {
                parts.append(seconds(duration))
            }
            parts.append("\(tokens) tok")
            let rates = results.compactMap(\.tokensPerSecond)
            if !rates.isEmpty { parts.append("\((rates.reduce(0, +) / Double(rates.count)).formatted1) tok/s") }
            if !record.changes.isEmpty { parts.append("changed since last run") }
            return parts.joined(separator: " · ")
        }
    }
}

extension Double {
    /// One decimal place: `1.2`, `95.0` shown as `95`.
    var formatted1: String {
        let rounded = (self * 10).rounded() / 10
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? "\(Int(rounded))" : "\(rounded)"
    }
}
