/// The history modifiers of Apple's open-source `FoundationModelsUtilities`
/// package (`import FoundationModelsUtilities`), as `historyTransform`s.
/// Both only change what the model sees for one request.
public enum HistoryTransforms {
    /// `.rollingWindow(size: .entries(n))` / `.rollingWindow(entries: n)`: the last
    /// `n` entries of the request transcript. It may drop the instructions entry
    /// and split a prompt from its response, as the package's does.
    public static func rollingWindow(entries n: Int) -> ProfileModifier.HistoryTransform {
        { entries in Array(entries.suffix(max(0, n))) }
    }

    /// `.droppingCompletedToolCalls()`: every tool call and tool output before the
    /// last response or tool-calls entry is removed; the current exchange stays.
    public static let droppingCompletedToolCalls: ProfileModifier.HistoryTransform = { entries in
        guard let boundary = entries.lastIndex(where: { entry in
            switch entry {
            case .response, .toolCalls: true
            default: false
            }
        }) else { return entries }
        let earlier = entries[..<boundary].filter { entry in
            switch entry {
            case .toolCalls, .toolOutput: false
            default: true
            }
        }
        return earlier + entries[boundary...]
    }
}
