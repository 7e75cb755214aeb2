/// `Prompt`: what a user turn says. Built from strings and generated values
/// (the `Prompt { }` builder joins its parts with newlines).
public struct Prompt: Sendable, Hashable, ExpressibleByStringLiteral {
    public var segments: [Transcript.Segment]

    public init(segments: [Transcript.Segment]) { self.segments = segments }
    public init(_ text: String) { self.segments = [.text(.init(content: text))] }
    public init(stringLiteral value: String) { self.init(value) }

    /// Builder semantics: each part on its own line.
    public init(joining parts: [String]) { self.init(parts.joined(separator: "\n")) }

    public var text: String { Transcript.Segment.text(of: segments) }
}

/// `Instructions`: what the developer tells the model for a whole session.
public struct Instructions: Sendable, Hashable, ExpressibleByStringLiteral {
    public var segments: [Transcript.Segment]

    public init(segments: [Transcript.Segment]) { self.segments = segments }
    public init(_ text: String) { self.segments = [.text(.init(content: text))] }
    public init(stringLiteral value: String) { self.init(value) }
    public init(joining parts: [String]) { self.init(parts.joined(separator: "\n")) }

    public var text: String { Transcript.Segment.text(of: segments) }
}
