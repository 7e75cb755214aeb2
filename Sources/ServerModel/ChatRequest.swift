import FoundationModelsRuntime
import JSON
import Schema

/// How a guided request asks for JSON. OpenAI's `json_schema` first; servers
/// that reject it (llama-cpp-python accepts only `text`/`json_object`) get
/// `json_object` with a `schema` member, which they turn into a grammar.
enum ResponseFormatStyle: Sendable, Hashable {
    case jsonSchema, jsonObjectWithSchema
}

/// Builds the body of `POST {base}/chat/completions` from a model turn.
enum ChatRequest {
    static func body(for request: GenerationRequest, model: String?, stream: Bool, format: ResponseFormatStyle) -> JSONValue {
        var body = JSONObject()
        if let model { body["model"] = .string(model) }
        body["messages"] = .array(messages(request))
        body["stream"] = .bool(stream)
        if stream { body["stream_options"] = ["include_usage": true] }

        let options = request.options
        switch options.samplingMode?.kind {
        case .greedy?:
            body["temperature"] = 0
        case .randomTopK(let k, _)?:
            body["top_k"] = .int(k)
            if let temperature = options.temperature { body["temperature"] = .double(temperature) }
        case .randomProbabilityThreshold(let p, _)?:
            body["top_p"] = .double(p)
            if let temperature = options.temperature { body["temperature"] = .double(temperature) }
        case nil:
            if let temperature = options.temperature { body["temperature"] = .double(temperature) }
        }
        body["seed"] = .int(Int(truncatingIfNeeded: request.effectiveSeed & 0x7FFF_FFFF))
        if let limit = options.maximumResponseTokens { body["max_tokens"] = .int(limit) }
        // 27's reasoning levels as OpenAI's `reasoning_effort` (vLLM, llama.cpp and gateways pass it to
        // reasoning models; others ignore it). `.custom(text)` sends the text as given.
        if let level = request.reasoningLevel { body["reasoning_effort"] = .string(reasoningEffort(level)) }

        let mode = options.toolCallingMode?.kind ?? .allowed
        if !request.tools.isEmpty, mode != .disallowed {
            body["tools"] = .array(request.tools.map { tool in
                ["type": "function", "function": [
                    "name": .string(tool.name), "description": .string(tool.description),
                    "parameters": tool.parameters.jsonSchema(),
                ]]
            })
            if mode == .required {
                // One tool: name it (llama-cpp-python honours only a named choice).
                body["tool_choice"] = request.tools.count == 1
                    ? ["type": "function", "function": ["name": .string(request.tools[0].name)]] : "required"
            } else {
                body["tool_choice"] = "auto"
            }
        }

        if let schema = request.schema {
            let document = schema.jsonSchema()
            switch format {
            case .jsonSchema:
                body["response_format"] = ["type": "json_schema", "json_schema": [
                    "name": .string(safeName(schema.typeName)), "schema": document, "strict": true,
                ]]
            case .jsonObjectWithSchema:
                body["response_format"] = ["type": "json_object", "schema": document]
            }
        }
        return .object(body)
    }

    /// The transcript as chat messages: instructions -> system, prompts ->
    /// user, responses -> assistant, tool calls -> an assistant message with
    /// `tool_calls` (and `content: ""`, which every server accepts), tool
    /// outputs -> `tool` messages.
    static func messages(_ request: GenerationRequest) -> [JSONValue] {
        var messages: [JSONValue] = []
        for entry in request.transcript.entries {
            switch entry {
            case .instructions(let e):
                let text = e.segments.map(\.text).joined(separator: "\n")
                if !text.isEmpty { messages.append(["role": "system", "content": .string(text)]) }
            case .prompt(let e):
                messages.append(["role": "user", "content": .string(e.segments.map(\.text).joined(separator: "\n"))])
            case .response(let e):
                messages.append(["role": "assistant", "content": .string(e.segments.map(\.text).joined(separator: "\n"))])
            case .toolCalls(let e):
                messages.append(["role": "assistant", "content": "", "tool_calls": .array(e.calls.map { call in
                    ["id": .string(call.id), "type": "function",
                     "function": ["name": .string(call.toolName), "arguments": .string(call.arguments.jsonString)]]
                })])
            case .toolOutput(let e):
                messages.append(["role": "tool", "tool_call_id": .string(e.id), "name": .string(e.toolName),
                                 "content": .string(e.segments.map(\.text).joined(separator: "\n"))])
            case .reasoning:
                // Earlier reasoning is not sent back: OpenAI-compatible servers take none in messages
                // (DeepSeek-style APIs reject `reasoning_content` there).
                continue
            }
        }
        if let schema = request.schema, request.includeSchemaInPrompt {
            let note = "Answer with JSON that follows this JSON schema:\n" + schema.jsonSchema().serialized()
            if case .object(var first)? = messages.first, first["role"] == "system", case .string(let text)? = first["content"] {
                first["content"] = .string(text + "\n\n" + note)
                messages[0] = .object(first)
            } else {
                messages.insert(["role": "system", "content": .string(note)], at: 0)
            }
        }
        return messages
    }

    static func reasoningEffort(_ level: ReasoningLevel) -> String {
        switch level {
        case .light: "low"
        case .moderate: "medium"
        case .deep: "high"
        case .custom(let text): text
        }
    }

    /// `json_schema.name` allows letters, digits, `_` and `-` only.
    static func safeName(_ name: String) -> String {
        let cleaned = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" }.prefix(64))
        return cleaned.isEmpty ? "Response" : cleaned
    }
}
