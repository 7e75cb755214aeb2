/// Decides, as the output of a request with tools is generated, whether it is
/// tool calls or an answer, so that an answer streams from its first bytes.
///
/// Text is held back only while everything generated so far is still a prefix
/// of the tool-call opener (for ChatML `<tool_call>\n`). Once the output starts
/// with the opener, it is tool calls and stays held until it is parsed; once it
/// differs from the opener, it is an answer and everything streams. The
/// grammar guarantees an answer never starts with the opener.
struct ToolCallGate {
    enum Decision: Equatable {
        /// Everything so far is a prefix of the opener (possibly empty).
        case undecided
        /// The output began with the opener: held back until it is parsed.
        case toolCall
        /// Streamed as it is generated.
        case answer
    }

    let opener: String
    private(set) var decision: Decision
    /// The tool calls so far, or the text that is still a prefix of the opener.
    private(set) var heldText = ""
    /// Tokens whose text has not been released yet.
    private var unreportedTokens = 0

    /// With `toolsPossible` false, everything is an answer from the start.
    init(opener: String, toolsPossible: Bool) {
        self.opener = opener
        decision = toolsPossible ? .undecided : .answer
    }

    /// Adds the text of newly generated tokens; returns what to stream now
    /// (with how many tokens produced it), or nil to hold it.
    mutating func add(_ text: String, tokens: Int) -> (text: String, tokenCount: Int)? {
        unreportedTokens += tokens
        switch decision {
        case .answer:
            return text.isEmpty ? nil : release(text)
        case .toolCall:
            heldText += text
            return nil
        case .undecided:
            heldText += text
            if heldText.hasPrefix(opener) {
                decision = .toolCall
                return nil
            }
            guard !opener.hasPrefix(heldText) else { return nil }
            decision = .answer
            defer { heldText = "" }
            return release(heldText)
        }
    }

    /// At the end of generation, with the detokenizer's remaining text:
    /// whatever answer text is still unreleased (an undecided output is a
    /// short answer such as "<"). Tool calls stay in `heldText`.
    mutating func finish(tail: String) -> (text: String, tokenCount: Int)? {
        switch decision {
        case .answer:
            return tail.isEmpty && unreportedTokens == 0 ? nil : release(tail)
        case .toolCall:
            heldText += tail
            return nil
        case .undecided:
            heldText += tail
            guard !heldText.isEmpty else { return nil }
            decision = .answer
            defer { heldText = "" }
            return release(heldText)
        }
    }

    private mutating func release(_ text: String) -> (text: String, tokenCount: Int) {
        defer { unreportedTokens = 0 }
        return (text, unreportedTokens)
    }
}
