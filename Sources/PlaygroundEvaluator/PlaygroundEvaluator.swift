import Foundation
import FoundationModelsRuntime
import JSON
import PlaygroundLibrary
import PlaygroundResults
import PromptInterpreter
import PromptLanguage
import SwiftSyntax

/// Runs the `#Playground` blocks of prompt files and records their results.
///
/// Invariants:
/// - Blocks run in source order, each in its own environment (the top-level
///   constants the block uses are evaluated afresh for every block, in source order).
/// - A block's run reads only its `BlockContent`: its text and the declarations it uses.
/// - A block with an error diagnostic in it, or in a declaration it uses, is
///   not run: its result lists the diagnostics.
/// - Results are cached by content: the block's fingerprint (`BlockContent`: its source and the
///   declarations it uses, transitively), the model identity, the option overrides and the seed.
public struct PlaygroundEvaluator: Sendable {
    public enum Selection: Sendable, Hashable {
        case all
        /// Blocks with this name, or whose display name (`#Playground 2`) is this.
        case named(String)
        /// The block containing this 1-based line.
        case line(Int)
        /// The block with this index in the file (`BlockResult.index`); `fmplay run --jobs` runs blocks one by one.
        case index(Int)
    }

    /// The indices of the blocks `selection` picks in an analysed file, in order.
    public static func blockIndices(analysis: PromptAnalysis, selection: Selection) -> [Int] {
        analysis.file.playgrounds.filter { selects(selection, $0) }.map(\.index)
    }

    public var configuration: EvaluationConfiguration
    /// Bumped whenever evaluation semantics or the cached form change, so old cache entries are ignored.
    static let cacheVersion = "fmplay-results-9"

    public init(configuration: EvaluationConfiguration) { self.configuration = configuration }

    /// Runs the selected blocks of an analysed file: the one entry point. `fmplay run`, `fmplay lsp`'s
    /// runner and its worker hand in the analysis they already have, so a text is parsed and checked
    /// once however many blocks run over it.
    public func evaluate(analysis: PromptAnalysis, path: String, selection: Selection = .all,
                         onEvent: @escaping @Sendable (EvaluationEvent) -> Void = { _ in }) async -> FileResult {
        let context = EvaluationContext(analysis: analysis, configuration: configuration)
        var blocks: [BlockResult] = []
        for block in analysis.file.playgrounds where Self.selects(selection, block) {
            if Task.isCancelled { break }
            blocks.append(await run(block, analysis: analysis, context: context, path: path, onEvent: onEvent))
        }
        return FileResult(path: path, blocks: blocks, error: nil)
    }

    /// `evaluate(analysis:...)` of a text not analysed yet (tests and one-off callers).
    public func evaluate(source: String, path: String, selection: Selection = .all,
                         onEvent: @escaping @Sendable (EvaluationEvent) -> Void = { _ in }) async -> FileResult {
        await evaluate(analysis: PromptAnalyzer.analyze(source), path: path, selection: selection, onEvent: onEvent)
    }

    static func selects(_ selection: Selection, _ block: PlaygroundBlock) -> Bool {
        switch selection {
        case .all: true
        case .named(let name): block.name == name || block.displayName == name
        case .line(let line): block.range.start.line <= line && line <= block.range.end.line
        case .index(let index): block.index == index
        }
    }

    // MARK: One block

    func run(_ block: PlaygroundBlock, analysis: PromptAnalysis, context: EvaluationContext, path: String,
             onEvent: @escaping @Sendable (EvaluationEvent) -> Void) async -> BlockResult {
        let file = analysis.file
        let content = BlockContent(block: block, in: file)
        var result = BlockResult(name: block.name, displayName: block.displayName, index: block.index, line: block.range.start.line,
                                 status: .ok, error: nil, results: [], cached: false, duration: 0)
        onEvent(.blockStarted(path: path, block: block.displayName, line: result.line))
        let recorder = ResultRecorder(path: path, block: block.displayName, onEvent: onEvent)

        // Diagnostics first: nothing runs when the block or what it uses is wrong.
        var problems = analysis.diagnostics.filter { diagnostic in
            diagnostic.severity == .error && content.covers(diagnostic.range.start.offset)
        }.map { (range: $0.range, message: "\($0.code.rawValue): \($0.message)") }
        if let body = context.body(of: block) {
            problems += UnsupportedSyntax.find(in: body, source: file.source)
        } else {
            problems.append((block.range, "the #Playground block has no body"))
        }
        if !problems.isEmpty {
            for problem in problems { recorder.recordError(problem.range, message: problem.message) }
            result.status = .error
            let first = problems[0]
            result.error = "\(path):\(first.range.start.line):\(first.range.start.column): \(first.message)"
                + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
            result.results = recorder.results
            onEvent(.blockFinished(path: path, block: result))
            return result
        }

        let key = cacheKey(content)
        if let cache = configuration.cache, let cached = cache.load(key).flatMap({ Self.placed($0, content: content, source: file.source) }) {
            for item in cached { onEvent(.result(path: path, block: block.displayName, result: item)) }
            result.results = cached
            result.cached = true
            if let failure = cached.first(where: { $0.kind == .error }) {
                result.status = .error
                result.error = "\(path):\(failure.line):\(failure.column): \(failure.text)"
            }
            onEvent(.blockFinished(path: path, block: result))
            return result
        }

        let start = ContinuousClock.now
        let interpreter = Interpreter(context: context, recorder: recorder, builtins: Builtins.all)
        let trait = context.testEvaluation(of: block)
        let variables = context.topLevelVariables.filter { content.covers($0.positionAfterSkippingLeadingTrivia.utf8Offset) }
        let outcome = await runWithTimeout {
            try await interpreter.runBlock(context.body(of: block)!, variables: variables, evaluates: trait, suite: block.testSuite)
        }
        result.duration = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - start).components.seconds)
        var cacheable = true
        if let failure = outcome {
            let (range, message) = describe(failure, interpreter: interpreter, source: file.source)
            recorder.recordError(range, message: message, stopReason: Self.stopReason(of: failure))
            result.status = .error
            result.error = "\(path):\(range.start.line):\(range.start.column): \(message)"
            cacheable = !(failure is CancellationError || failure is TimeoutError || (failure as? InterpreterError)?.isLimit == true
                || Interpreter.dependsOnServerState(failure))
        } else if let failed = recorder.results.first(where: { $0.kind == .error }) {
            // A failed #expect records its failure and lets the test continue, as Swift Testing does.
            result.status = .error
            result.error = "\(path):\(failed.line):\(failed.column): \(failed.text)"
        }
        // What the server said about itself (availability, quota) holds only now.
        if interpreter.readsServerState { cacheable = false }
        result.results = recorder.results
        if cacheable, let cache = configuration.cache, let stored = Self.stored(result.results, content: content) {
            cache.store(key, results: stored)
        }
        onEvent(.blockFinished(path: path, block: result))
        return result
    }

    struct TimeoutError: Error {}

    /// Runs the body, cancelling it after the configured timeout. Returns the error, if any.
    func runWithTimeout(_ body: @escaping @Sendable () async throws -> Void) async -> (any Error)? {
        guard let timeout = configuration.timeout else {
            do { try await body(); return nil } catch { return error }
        }
        return await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do { try await body(); return nil } catch { return error }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                return Task.isCancelled ? nil : TimeoutError()
            }
            let first = await group.next()!
            group.cancelAll()
            if first is TimeoutError || first is CancellationError {
                _ = await group.next()
                return first is TimeoutError ? first : CancellationError()
            }
            return first
        }
    }

    /// The stop reason a failed block's error result carries: cancelled or timed out, or the tool-round bound.
    static func stopReason(of error: any Error) -> String? {
        switch error {
        case is TimeoutError, is CancellationError: return ResponseStopReason.cancelled.rawValue
        case let e as GenerationError:
            if case .decodingFailure(let context) = e { return context.stopReason?.rawValue }
            return nil
        default: return nil
        }
    }

    func describe(_ error: any Error, interpreter: Interpreter, source: SourceText) -> (PromptLanguage.SourceRange, String) {
        let statement = source.range(interpreter.currentStatement)
        switch error {
        case let e as InterpreterError: return (source.range(e.offsets), e.message)
        case let e as GenerationError: return (statement, "uncaught \(e)")
        case let e as ToolCallError: return (statement, "uncaught \(e)")
        case let e as ThrownValue: return (statement, "uncaught error: \(e.value.description)")
        case is TimeoutError: return (statement, "timed out after \(configuration.timeout.map { Value.format($0) } ?? "?") s")
        case is CancellationError: return (statement, "cancelled")
        default: return (statement, "uncaught error: \(error)")
        }
    }

    // MARK: Cache keys

    /// The disk cache key: the block's content fingerprint (`BlockContent`) under this
    /// evaluator's cache version and configuration identity.
    func cacheKey(_ content: BlockContent) -> String {
        SHA256.hex(Self.cacheVersion + "\n" + configuration.identity + "\n" + content.material)
    }

    /// Results as the cache keeps them: ranges in content coordinates. Nil (do not cache) when a
    /// result lies outside the block and its declarations: it depends on text the key does not hold.
    static func stored(_ results: [EvaluationResult], content: BlockContent) -> [EvaluationResult]? {
        var stored: [EvaluationResult] = []
        for var result in results {
            guard let offsets = result.offsets, let relative = content.contentOffsets(of: offsets) else { return nil }
            result.offsets = relative
            stored.append(result)
        }
        return stored
    }

    /// Cached results placed at the block's current position (the block and its declarations
    /// may have moved since they were stored); nil when an entry does not fit the content.
    static func placed(_ cached: [EvaluationResult], content: BlockContent, source: SourceText) -> [EvaluationResult]? {
        var placed: [EvaluationResult] = []
        for var result in cached {
            guard let relative = result.offsets, let offsets = content.offsets(ofContent: relative) else { return nil }
            result.place(source.range(offsets))
            placed.append(result)
        }
        return placed
    }
}

extension EvaluationResult {
    /// Sets the range, as UTF-8 offsets and as lines and columns of the same table.
    mutating func place(_ range: PromptLanguage.SourceRange) {
        offsets = range.offsets
        line = range.start.line
        column = range.start.column
        endLine = range.end.line
        endColumn = range.end.column
    }
}

extension PlaygroundEvaluator {
    /// The surface table ids that have an implementation (for the parity test).
    public static var implementedSurfaceIDs: Set<String> { Builtins.ids }

    /// The surface table properties prompt code can assign (their setters are registered as `id=`).
    public static var settableSurfaceIDs: Set<String> { Builtins.settableIDs }
}

/// What a run is configured with and the limits it runs under are the interpreter's; the evaluator's clients
/// name them through this module.
public typealias EvaluationConfiguration = PromptInterpreter.EvaluationConfiguration
public typealias EvaluationLimits = PromptInterpreter.EvaluationLimits
