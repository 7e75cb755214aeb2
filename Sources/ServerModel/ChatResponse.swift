import Foundation
import FoundationModelsRuntime
import JSON
import Schema

/// One chat completion as it arrives: whole (`choices[0].message`) or as
/// stream chunks (`choices[0].delta`). Collects text, tool calls (whose
/// arguments arrive in fragments, by `index`), the finish reason and usage.
struct ChatResponse {
    private(set) var text = ""
    /// Reasoning text (`reasoning_content`, or `reasoning` as some servers name it).
    private(set) var reasoning = ""
    /// Content chunks received (llama-cpp-python sends one per token).
    private(set) var contentChunks = 0
    private(set) var finishReason: String?
    private(set) var usage: Usage?
    private var calls: [Int: (id: String, name: String, arguments: String)] = [:]

    /// What one stream chunk adds.
    struct Piece: Equatable {
        var text: String?
        var reasoning: String?
    }

    /// Adds a stream chunk; returns the text and reasoning it appends.
    mutating func consume(chunk: JSONValue) -> Piece {
        readUsage(chunk)
        guard let choice = chunk["choices"]?[0] else { return Piece() }
        if let reason = choice["finish_reason"]?.stringValue { finishReason = reason }
        let delta = choice["delta"]
        var piece = Piece()
        if let thought = Self.reasoningText(delta), !thought.isEmpty {
            reasoning += thought
            piece.reasoning = thought
        }
        for call in delta?["tool_calls"]?.arrayValue ?? [] {
            let index = call["index"]?.intValue ?? calls.count
            var entry = calls[index] ?? (id: "", name: "", arguments: "")
            if let id = call["id"]?.stringValue { entry.id = id }
            if let name = call["function"]?["name"]?.stringValue { entry.name += name }
            if let fragment = call["function"]?["arguments"]?.stringValue { entry.arguments += fragment }
            calls[index] = entry
        }
        guard let content = delta?["content"]?.stringValue, !content.isEmpty else { return piece }
        text += content
        contentChunks += 1
        piece.text = content
        return piece
    }

    static func reasoningText(_ message: JSONValue?) -> String? {
        message?["reasoning_content"]?.stringValue ?? message?["reasoning"]?.stringValue
    }

    /// The finish reason as fmplay's stop reason.
    var stopReason: ResponseStopReason? {
        switch finishReason {
        case "stop"?, "content_filter"?: .endOfTurn
        case "length"?: .tokenLimit
        case "tool_calls"?, "function_call"?: .toolCalls
        default: nil
        }
    }

    /// A whole (non-streamed) completion.
    mutating func consume(completion: JSONValue) {
        readUsage(completion)
        guard let choice = completion["choices"]?[0] else { return }
        finishReason = choice["finish_reason"]?.stringValue
        let message = choice["message"]
        for (index, call) in (message?["tool_calls"]?.arrayValue ?? []).enumerated() {
            calls[index] = (id: call["id"]?.stringValue ?? "", name: call["function"]?["name"]?.stringValue ?? "",
                            arguments: call["function"]?["arguments"]?.stringValue ?? "")
        }
        text = message?["content"]?.stringValue ?? ""
        reasoning = Self.reasoningText(message) ?? ""
    }

    private mutating func readUsage(_ value: JSONValue) {
        guard let usage = value["usage"], usage.objectValue != nil else { return }
        self.usage = Usage(promptTokens: usage["prompt_tokens"]?.intValue ?? 0,
                           cachedTokens: usage["prompt_tokens_details"]?["cached_tokens"]?.intValue ?? 0,
                           responseTokens: usage["completion_tokens"]?.intValue ?? 0,
                           reasoningTokens: usage["completion_tokens_details"]?["reasoning_tokens"]?.intValue ?? 0)
    }

    /// The tool calls in index order, arguments parsed (a call whose
    /// arguments are not JSON is a `decodingFailure`).
    func toolCalls() throws -> [Transcript.ToolCall] {
        try calls.keys.sorted().map { index in
            let call = calls[index]!
            let source = call.arguments.trimmingCharacters(in: .whitespacesAndNewlines)
            let arguments: GeneratedContent
            do {
                arguments = try GeneratedContent(json: source.isEmpty ? "{}" : source)
            } catch {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "the server called '\(call.name)' with arguments that are not JSON: \(source.prefix(200))"))
            }
            return Transcript.ToolCall(id: call.id, toolName: call.name, arguments: arguments)
        }
    }

    var hasToolCalls: Bool { !calls.isEmpty }

    /// Checks what came back against the schema the request asked for:
    /// servers enforce types and required keys but not always ranges or
    /// patterns (llama-cpp-python enforces neither).
    static func validate(_ text: String, schema: GenerationSchema, endpoint: String) throws {
        let content: GeneratedContent
        do {
            content = try GeneratedContent(json: text)
        } catch {
            throw GenerationError.decodingFailure(.init(debugDescription:
                "\(endpoint) returned output that is not valid JSON for \(schema.typeName): \(error)"))
        }
        guard content.isComplete else { return }  // cut by the token limit: the session says so
        let problems = schema.violations(of: content, checkPatterns: true)
        guard problems.isEmpty else {
            throw GenerationError.decodingFailure(.init(debugDescription:
                "\(endpoint) returned output that does not match \(schema.typeName): " + problems.prefix(3).joined(separator: "; ")))
        }
    }
}
