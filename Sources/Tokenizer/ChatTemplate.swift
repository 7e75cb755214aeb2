/// One message of a conversation.
public struct ChatMessage: Sendable, Equatable {
    public enum Role: String, Sendable {
        case system, user, assistant, tool
    }

    public var role: Role
    public var content: String
    /// Tool calls the assistant made in this message, each already serialized
    /// as a JSON object `{"name": ..., "arguments": {...}}`.
    public var toolCalls: [String]

    public init(role: Role, content: String, toolCalls: [String] = []) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
    }

    public static func system(_ content: String) -> ChatMessage { ChatMessage(role: .system, content: content) }
    public static func user(_ content: String) -> ChatMessage { ChatMessage(role: .user, content: content) }
    public static func assistant(_ content: String, toolCalls: [String] = []) -> ChatMessage {
        ChatMessage(role: .assistant, content: content, toolCalls: toolCalls)
    }
    public static func tool(_ content: String) -> ChatMessage { ChatMessage(role: .tool, content: content) }
}

public struct ChatTemplateError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Renders conversations into the prompt text a model was trained on. The
/// family is detected from the model's `tokenizer.chat_template` (the Jinja
/// text is recognised, not executed) and reproduces what the template, or
/// llama.cpp's built-in version of it, produces.
public struct ChatTemplate: Sendable, Equatable {
    public enum Family: String, Sendable, CaseIterable {
        /// `<|im_start|>role\n...<|im_end|>\n` (SmolLM2, Qwen, ...)
        case chatml
        /// `<|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|>`
        case llama3
        /// `<start_of_turn>user\n...<end_of_turn>\n`, no system role (folded into the first user turn)
        case gemma
        /// `[INST] ...[/INST] ...</s>` (Mistral v3)
        case mistral
        /// `[SYSTEM_PROMPT] ...[/SYSTEM_PROMPT][INST] ...[/INST] ...</s>` (Mistral v7)
        case mistralV7 = "mistral-v7"
    }

    public var family: Family
    /// The system message the template inserts when a conversation has none
    /// (SmolLM2: "You are a helpful AI assistant named SmolLM, trained by Hugging Face").
    public var defaultSystemMessage: String?

    public init(family: Family, defaultSystemMessage: String? = nil) {
        self.family = family
        self.defaultSystemMessage = defaultSystemMessage
    }

    /// Tags the model writes around a tool call (ChatML/Hermes convention,
    /// also used for the other families here): `<tool_call>{json}</tool_call>`.
    public static let toolCallStart = "<tool_call>"
    public static let toolCallEnd = "</tool_call>"

    /// Detects the family of a model's template.
    /// - Parameters:
    ///   - templateText: `tokenizer.chat_template`, if the model has one.
    ///   - override: a `--chat-template` name, which wins.
    ///   - vocabularyHas: whether the vocabulary has a token with this text,
    ///     used when the model has no template (base models).
    public static func detect(templateText: String?, modelName: String, override: String? = nil,
                              vocabularyHas: (String) -> Bool = { _ in false }) throws -> ChatTemplate {
        let names = Family.allCases.map(\.rawValue).joined(separator: ", ")
        if let override {
            guard let family = Family(rawValue: override.lowercased()) else {
                throw ChatTemplateError(message: "unknown chat template '\(override)'; choose one of: \(names)")
            }
            return ChatTemplate(family: family,
                                defaultSystemMessage: family == .chatml ? templateText.flatMap(chatMLDefaultSystem) : nil)
        }
        if let text = templateText, !text.isEmpty {
            if text.contains("<|im_start|>") {
                return ChatTemplate(family: .chatml, defaultSystemMessage: chatMLDefaultSystem(text))
            }
            if text.contains("<|start_header_id|>") { return ChatTemplate(family: .llama3) }
            if text.contains("<start_of_turn>") { return ChatTemplate(family: .gemma) }
            if text.contains("[INST]") {
                return ChatTemplate(family: text.contains("[SYSTEM_PROMPT]") ? .mistralV7 : .mistral)
            }
            throw ChatTemplateError(message: "\(modelName): the model's chat template (tokenizer.chat_template) is not one fmplay knows; pass --chat-template with one of: \(names)")
        }
        // No template (a base model): go by the turn markers in the vocabulary.
        if vocabularyHas("<start_of_turn>") { return ChatTemplate(family: .gemma) }
        if vocabularyHas("<|im_start|>") { return ChatTemplate(family: .chatml) }
        if vocabularyHas("<|start_header_id|>") { return ChatTemplate(family: .llama3) }
        if vocabularyHas("[INST]") { return ChatTemplate(family: .mistral) }
        throw ChatTemplateError(message: "\(modelName): the model has no chat template (tokenizer.chat_template); pass --chat-template with one of: \(names)")
    }

    /// The family for a model's tokenizer and metadata template text.
    public static func detect(templateText: String?, modelName: String, override: String? = nil,
                              tokenizer: Tokenizer) throws -> ChatTemplate {
        try detect(templateText: templateText, modelName: modelName, override: override) {
            tokenizer.tokenID(forText: $0) != nil
        }
    }

    /// The literal system turn a ChatML template emits for conversations
    /// without one: `<|im_start|>system\n<literal text><|im_end|>`.
    static func chatMLDefaultSystem(_ template: String) -> String? {
        var search = template[...]
        let marker = "<|im_start|>system"
        while let start = search.firstRange(of: marker) {
            var rest = search[start.upperBound...]
            if rest.hasPrefix("\\n") {
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix("\n") {
                rest = rest.dropFirst()
            } else {
                search = rest
                continue
            }
            if let end = rest.firstRange(of: "<|im_end|>") {
                let literal = rest[..<end.lowerBound]
                if !literal.isEmpty, !literal.contains("'"), !literal.contains("\""), !literal.contains("{") {
                    return String(literal).replacing("\\n", with: "\n")
                }
            }
            search = rest
        }
        return nil
    }

    /// Renders `messages`; with `addGenerationPrompt`, ends with the opening
    /// of an assistant turn. `tools` are tool definitions (JSON objects, one
    /// string each) described to the model in the system turn.
    public func render(_ messages: [ChatMessage], addGenerationPrompt: Bool = true, tools: [String] = []) -> String {
        var messages = messages
        let toolText = tools.isEmpty ? nil : Self.toolInstructions(tools)
        if let toolText {
            if let i = messages.firstIndex(where: { $0.role == .system }) {
                messages[i].content += "\n\n" + toolText
            } else {
                messages.insert(.system((defaultSystemMessage.map { $0 + "\n\n" } ?? "") + toolText), at: 0)
            }
        }
        switch family {
        case .chatml: return renderChatML(messages, addGenerationPrompt)
        case .llama3: return renderLlama3(messages, addGenerationPrompt)
        case .gemma: return renderGemma(messages, addGenerationPrompt)
        case .mistral, .mistralV7: return renderMistral(messages, addGenerationPrompt)
        }
    }

    /// The system-prompt text that describes tools and the call format.
    public static func toolInstructions(_ tools: [String]) -> String {
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            + "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            + tools.joined(separator: "\n")
            + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
            + "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
    }

    private static func contentWithToolCalls(_ message: ChatMessage) -> String {
        guard !message.toolCalls.isEmpty else { return message.content }
        var text = message.content
        for call in message.toolCalls {
            if !text.isEmpty { text += "\n" }
            text += "\(toolCallStart)\n\(call)\n\(toolCallEnd)"
        }
        return text
    }

    private static func toolResponse(_ content: String) -> String {
        "<tool_response>\n\(content)\n</tool_response>"
    }

    private func renderChatML(_ messages: [ChatMessage], _ addGenerationPrompt: Bool) -> String {
        var out = ""
        if let defaultSystemMessage, messages.first?.role != .system {
            out += "<|im_start|>system\n\(defaultSystemMessage)<|im_end|>\n"
        }
        for message in messages {
            switch message.role {
            case .tool:
                out += "<|im_start|>user\n\(Self.toolResponse(message.content))<|im_end|>\n"
            default:
                out += "<|im_start|>\(message.role.rawValue)\n\(Self.contentWithToolCalls(message))<|im_end|>\n"
            }
        }
        if addGenerationPrompt { out += "<|im_start|>assistant\n" }
        return out
    }

    private func renderLlama3(_ messages: [ChatMessage], _ addGenerationPrompt: Bool) -> String {
        var out = ""
        for message in messages {
            let role = message.role == .tool ? "ipython" : message.role.rawValue
            out += "<|start_header_id|>\(role)<|end_header_id|>\n\n\(Self.trim(Self.contentWithToolCalls(message)))<|eot_id|>"
        }
        if addGenerationPrompt { out += "<|start_header_id|>assistant<|end_header_id|>\n\n" }
        return out
    }

    private func renderGemma(_ messages: [ChatMessage], _ addGenerationPrompt: Bool) -> String {
        var out = ""
        var system = ""
        for message in messages {
            if message.role == .system {
                system = Self.trim(message.content)
                continue
            }
            let role = message.role == .assistant ? "model" : "user"
            out += "<start_of_turn>\(role)\n"
            if !system.isEmpty, role != "model" {
                out += system + "\n\n"
                system = ""
            }
            let content = message.role == .tool ? Self.toolResponse(message.content) : Self.contentWithToolCalls(message)
            out += Self.trim(content) + "<end_of_turn>\n"
        }
        if addGenerationPrompt { out += "<start_of_turn>model\n" }
        return out
    }

    private func renderMistral(_ messages: [ChatMessage], _ addGenerationPrompt: Bool) -> String {
        var out = ""
        if family == .mistralV7 {
            for message in messages {
                switch message.role {
                case .system: out += "[SYSTEM_PROMPT] \(message.content)[/SYSTEM_PROMPT]"
                case .user: out += "[INST] \(message.content)[/INST]"
                case .tool: out += "[TOOL_RESULTS] \(message.content)[/TOOL_RESULTS]"
                case .assistant: out += " \(Self.contentWithToolCalls(message))</s>"
                }
            }
            return out
        }
        var insideTurn = false
        for message in messages {
            if !insideTurn, message.role != .assistant {
                out += "[INST] "
                insideTurn = true
            }
            switch message.role {
            case .system: out += message.content + "\n\n"
            case .user: out += message.content + "[/INST]"
            case .tool: out += Self.toolResponse(message.content) + "[/INST]"
            case .assistant:
                out += " " + Self.trim(Self.contentWithToolCalls(message)) + "</s>"
                insideTurn = false
            }
        }
        return out
    }

    private static func trim(_ text: String) -> String {
        var s = text[...]
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
