/// The runner when no model can be used (no model file, or evaluation is not
/// available in this configuration): every block fails with `reason`, which
/// says how to fix it, at the block's head. Diagnostics, hover and completion
/// keep working.
public struct UnavailableRunner: PlaygroundRunner {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public func run(_ request: BlockRunRequest, report: @escaping @Sendable (BlockEvent) -> Void) async -> BlockOutcome {
        BlockOutcome(error: reason, errorRange: request.block.range.start.offset..<request.block.bodyRange.start.offset)
    }

    public func clearCache() throws -> String { "no result cache is in use" }

    public func tokenCount(of text: String, configuration: ServerConfiguration) -> TokenCount { .unavailable(reason) }
}
