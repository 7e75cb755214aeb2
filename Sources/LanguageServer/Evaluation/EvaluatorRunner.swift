import Foundation
import FoundationModelsRuntime
import JSON
import PlaygroundEvaluator
import PlaygroundResults
import PromptLanguage

/// Runs blocks with the `PlaygroundEvaluator`, sharing its on-disk result
/// cache with `fmplay run`. The command layer supplies the model (one
/// instance per settings, so the engine keeps its prompt cache between runs).
public struct EvaluatorRunner: PlaygroundRunner {
    /// The evaluation settings for the server's settings; throws a message that says how to fix it.
    public typealias ConfigurationProvider = @Sendable (ServerConfiguration) throws -> EvaluationConfiguration
    /// Tokens of a text with the configured model's tokenizer, or why there is none.
    public typealias TokenCounter = @Sendable (String, ServerConfiguration) -> Result<Int, TokenizerUnavailable>

    public struct TokenizerUnavailable: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    private let configurationFor: ConfigurationProvider
    private let countTokens: TokenCounter

    public init(configuration: @escaping ConfigurationProvider, tokenCounter: @escaping TokenCounter) {
        self.configurationFor = configuration
        self.countTokens = tokenCounter
    }

    public func run(_ request: BlockRunRequest, report: @escaping @Sendable (BlockEvent) -> Void) async -> BlockOutcome {
        let head = request.block.range.start.offset..<request.block.bodyRange.start.offset
        var configuration: EvaluationConfiguration
        do {
            configuration = try configurationFor(request.configuration)
        } catch {
            return BlockOutcome(error: "\(error)", errorRange: head)
        }
        if request.ignoreCache { configuration.cache = nil }  // an explicit run generates again
        let evaluator = PlaygroundEvaluator(configuration: configuration)
        let tokens = TokenTally()
        // The request's analysis is the one the server made of this document version: evaluated as it is.
        let file = await evaluator.evaluate(analysis: request.analysis, path: "", selection: .index(request.block.index)) { event in
            switch event {
            case .snapshot(_, _, let result):
                report(.result(Self.convert(result, fallback: head, isComplete: false)))
                if let count = tokens.update(result) { report(.tokens(count)) }
            case .result(_, _, let result):
                report(.result(Self.convert(result, fallback: head, isComplete: true)))
                if let count = tokens.finish(result) { report(.tokens(count)) }
            case .blockStarted, .blockFinished:
                break
            }
        }
        guard let block = file.blocks.first else {
            return BlockOutcome(error: file.error ?? "the block was not run", errorRange: head)
        }
        guard block.status == .error else { return BlockOutcome(fromCache: block.cached) }
        let failure = block.results.last { $0.kind == .error }
        let range = failure?.offsets ?? head
        return BlockOutcome(error: failure?.text ?? Self.withoutLocation(block.error ?? "failed"), errorRange: range, fromCache: block.cached)
    }

    public func clearCache() throws -> String {
        let configuration = try configurationFor(ServerConfiguration())
        guard let cache = configuration.cache else { return "no result cache is in use" }
        // ResultCache keeps one file per key under <directory>/results.
        let results = cache.directory + "/results"
        if FileManager.default.fileExists(atPath: results) { try FileManager.default.removeItem(atPath: results) }
        return "cleared the result cache in \(cache.directory)"
    }

    public func tokenCount(of text: String, configuration: ServerConfiguration) -> TokenCount {
        let model: (any LanguageModel)?
        do {
            model = try configurationFor(configuration).model
        } catch {
            return .unavailable("\(error)")
        }
        guard let model else {
            return .unavailable("no model is available: set fmplay.modelPath (or FMPLAY_MODEL) to a GGUF file, or install the default model with `make setup`")
        }
        switch countTokens(text, configuration) {
        case .success(let tokens): return .counted(tokens: tokens, contextSize: model.contextSize, model: model.name)
        case .failure(let problem): return .unavailable(problem.reason)
        }
    }

    /// A result as the server shows it; its range is the UTF-8 offsets the evaluator recorded
    /// (every recorded result has them; `fallback`, the block's head, only guards the type's optional).
    static func convert(_ result: EvaluationResult, fallback: Swift.Range<Int>, isComplete: Bool) -> CallResult {
        let kind: CallResult.Kind = switch result.kind {
        case .response: .response
        case .stream: .stream
        case .print: .print
        case .error: .error
        case .evaluation: .evaluation
        }
        var call = CallResult(
            range: result.offsets ?? fallback, iteration: result.iteration, kind: kind, typeName: result.typeName,
            content: result.kind == .error || result.kind == .print ? .string(result.text) : result.content, isComplete: isComplete,
            promptTokens: result.usage?.promptTokens ?? 0, cachedTokens: result.usage?.cachedTokens ?? 0,
            responseTokens: result.usage?.responseTokens ?? 0, timeToFirstToken: result.timeToFirstToken,
            tokensPerSecond: result.tokensPerSecond, transcript: result.transcript, model: result.model)
        call.renderedPrompt = result.renderedPrompt
        call.stopReason = result.stopReason
        call.lifecycle = result.lifecycle
        if isComplete { call.record = result }
        if let report = result.evaluation {
            call.content = .string(report.headline)
            call.details = report.text
            call.passRate = report.passRate
        }
        return call
    }

    /// `path:line:column: message` without the location (the editor shows it at the range).
    static func withoutLocation(_ message: String) -> String {
        let parts = message.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, Int(parts[1]) != nil, Int(parts[2]) != nil else { return message }
        return parts[3].trimmingCharacters(in: .whitespaces)
    }
}

/// Response tokens of a block so far: finished calls plus the current stream.
private final class TokenTally: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = 0
    private var current = 0

    func update(_ snapshot: EvaluationResult) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard let tokens = snapshot.usage?.responseTokens else { return nil }
        current = tokens
        return finished + current
    }

    func finish(_ result: EvaluationResult) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        current = 0
        guard let tokens = result.usage?.responseTokens else { return nil }
        finished += tokens
        return finished
    }
}
