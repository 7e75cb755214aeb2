import PromptLanguage

/// A code lens on a `#Playground` block's head.
public struct BlockLens: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// `▶ Run` the block.
        case run
        /// `■ Cancel` its queued or running evaluation.
        case cancel
        /// The last run's status (no command).
        case status(String)
    }

    public var blockIndex: Int
    /// From the block's start to its body's `{`.
    public var head: Range<Int>
    public var action: Action

    public var title: String {
        switch action {
        case .run: "▶ Run"
        case .cancel: "■ Cancel"
        case .status(let text): text
        }
    }
}

/// What the server knows of a block's evaluation (the IDE layer holds no evaluation state).
public struct BlockState: Sendable {
    public var block: PlaygroundBlock
    /// Queued or running.
    public var isActive: Bool
    /// The last run's summary, if any.
    public var status: String?

    public init(block: PlaygroundBlock, isActive: Bool, status: String?) {
        self.block = block
        self.isActive = isActive
        self.status = status
    }
}

extension IDEDocument {
    /// Per block: Run (Cancel while queued or running), then the last run's status.
    public func codeLenses(_ states: [BlockState]) -> [BlockLens] {
        states.flatMap { state -> [BlockLens] in
            let head = state.block.range.start.offset..<state.block.bodyRange.start.offset
            var lenses = [BlockLens(blockIndex: state.block.index, head: head, action: state.isActive ? .cancel : .run)]
            if let status = state.status { lenses.append(BlockLens(blockIndex: state.block.index, head: head, action: .status(status))) }
            return lenses
        }
    }
}
