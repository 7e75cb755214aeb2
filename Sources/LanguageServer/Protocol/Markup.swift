import IDE
import JSON

/// The text format of hovers, hint tooltips and completion documentation, negotiated with the
/// client: Markdown only for clients that list it (before plain text) in their capabilities;
/// plain text otherwise, so clients that do not render Markdown (Vim's ALE, which asks for
/// `plaintext` only, and clients that say nothing) never see `**` or code fences.
extension MarkupFormat {
    /// The client's first supported choice from a capability's format list
    /// (`textDocument.hover.contentFormat`, `completionItem.documentationFormat`); the order
    /// is the client's preference. No list, or no known format in it: plain text.
    static func negotiate(_ offers: JSONValue?) -> MarkupFormat {
        for offer in offers?.arrayValue ?? [] {
            if let format = offer.stringValue.flatMap(MarkupFormat.init(rawValue:)) { return format }
        }
        return .plaintext
    }

    func content(_ value: String) -> MarkupContent {
        MarkupContent(kind: rawValue, value: value)
    }
}
