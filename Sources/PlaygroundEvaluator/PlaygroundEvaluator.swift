import Foundation
import FoundationModelsRuntime
import JSON
import PlaygroundResults
import PromptLanguage
import SwiftSyntax

/// Runs the `#Playground` blocks of prompt files and records their results.
///
/// Invariants:
/// - Blocks run in source order, each in its own environment (the file's
///   top-level constants are evaluated afresh for every block).
/// - A block with an error diagnostic in it, or in a declaration it uses, is
///   not run: its result lists the diagnostics.
/// - Results are cached by content: the block's source, the declarations it
///   uses (transitively), the model identity, the option overrides and the seed.
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

    /// The indices of the blocks `selection` picks in `source`, in order.
    public static func blockIndices(source: String, selection: Selection) -> [Int] {
        PromptAnalyzer.analyze(source).file.playgrounds.filter { selects(selection, $0) }.map(\.index)
    }

    public var configuration: EvaluationConfiguration
    /// Bumped whenever evaluation semantics change, so old cache entries are ignored.
    static let cacheVersion = "fmplay-results-7"

    public init(configuration: EvaluationConfiguration) { self.configuration = configuration }

    public func evaluate(source: String, path: String, selection: Selection = .all,
                         onEvent: @escaping @Sendable (EvaluationEvent) -> Void = { _ in }) async -> FileResult {
        let analysis = PromptAnalyzer.analyze(source)
        let context = EvaluationContext(analysis: analysis, configuration: configuration)
        var blocks: [BlockResult] = []
        for block in analysis.file.playgrounds where Self.selects(selection, block) {
            if Task.isCancelled { break }
            blocks.append(await run(block, analysis: analysis, context: context, path: path, onEvent: onEvent))
        }
        return FileResult(path: path, blocks: blocks, error: nil)
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
        let dependencies = Self.dependencies(of: block, in: file)
        var result = BlockResult(name: block.name, displayName: block.displayName, index: block.index, line: block.range.start.line,
                                 status: .ok, error: nil, results: [], cached: false, duration: 0)
        onEvent(.blockStarted(path: path, block: block.displayName, line: result.line))
        let recorder = ResultRecorder(path: path, block: block.displayName, onEvent: onEvent)

        // Diagnostics first: nothing runs when the block or what it uses is wrong.
        let ranges: [PromptLanguage.SourceRange] = [block.range] + dependencies.map { $0.range }
        var problems = analysis.diagnostics.filter { diagnostic in
            diagnostic.severity == .error && ranges.contains { $0.contains(diagnostic.range.start.offset) }
        }.map { (range: $0.range, message: "\($0.code.rawValue): \($0.message)") }
        if let body = context.body(of: block) {
            problems += UnsupportedSyntax.find(in: body, source: file.source)
        } else {
            problems.append((block.range, "the #Playground block has no body"))
        }
        if !problems.isEmpty {
            for problem in problems {
                recorder.recordError(line: problem.range.start.line, column: problem.range.start.column, endLine: problem.range.end.line,
                                     endColumn: problem.range.end.column, message: problem.message)
            }
            result.status = .error
            let first = problems[0]
            result.error = "\(path):\(first.range.start.line):\(first.range.start.column): \(first.message)"
                + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
            result.results = recorder.results
            onEvent(.blockFinished(path: path, block: result))
            return result
        }

        let key = cacheKey(block, dependencies: dependencies, file: file)
        if let cache = configuration.cache, let cached = cache.load(key) {
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
        let interpreter = Interpreter(context: context, recorder: recorder)
        let trait = context.testEvaluation(of: block)
        let outcome = await runWithTimeout { try await interpreter.runBlock(context.body(of: block)!, evaluates: trait) }
        result.duration = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - start).components.seconds)
        var cacheable = true
        if let failure = outcome {
            let (range, message) = describe(failure, interpreter: interpreter, source: file.source)
            recorder.recordError(line: range.start.line, column: range.start.column, endLine: range.end.line,
                                 endColumn: range.end.column, message: message, stopReason: Self.stopReason(of: failure))
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
        if cacheable { configuration.cache?.store(key, results: result.results) }
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

    /// The declarations a block uses, transitively, in source order.
    static func dependencies(of block: PlaygroundBlock, in file: PromptFile) -> [(name: String, range: PromptLanguage.SourceRange)] {
        var declarations: [String: [PromptLanguage.SourceRange]] = [:]
        for type in file.types where type.parent == nil { declarations[type.name, default: []].append(type.range) }
        for type in file.types where type.parent != nil { declarations[type.name, default: []].append(type.range) }
        for constant in file.constants { declarations[constant.name, default: []].append(constant.range) }
        var used: [(name: String, range: PromptLanguage.SourceRange)] = []
        var seen = Set<String>()
        var pending = identifiers(in: file.source.slice(block.range.offsets))
        while let name = pending.popLast() {
            guard !seen.contains(name), let ranges = declarations[name] else { continue }
            seen.insert(name)
            for range in ranges {
                used.append((name, range))
                pending += identifiers(in: file.source.slice(range.offsets))
            }
        }
        return used.sorted { $0.range.start.offset < $1.range.start.offset }
    }

    static func identifiers(in text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init).filter { $0.first?.isNumber == false }
    }

    func cacheKey(_ block: PlaygroundBlock, dependencies: [(name: String, range: PromptLanguage.SourceRange)], file: PromptFile) -> String {
        var material = Self.cacheVersion + "\n" + configuration.identity + "\n" + file.source.slice(block.range.offsets)
        var included = Set<Int>()
        for dependency in dependencies where included.insert(dependency.range.start.offset).inserted {
            material += "\n\u{1}" + file.source.slice(dependency.range.offsets)
        }
        return SHA256.hex(material)
    }
}

extension Interpreter {
    /// The byte range of the statement being executed (where uncaught errors are reported).
    var currentStatement: Range<Int> { currentStatementRange }

    /// Evaluates the file's top-level constants, then the block body.
    func runBlock(_ body: CodeBlockItemListSyntax, evaluates: (ExprSyntax, FunctionCallExprSyntax)? = nil) async throws {
        for variable in context.topLevelVariables {
            currentStatementRange = variable.positionAfterSkippingLeadingTrivia.utf8Offset..<variable.endPositionBeforeTrailingTrivia.utf8Offset
            try await declare(variable)
        }
        if let (expression, trait) = evaluates {
            // `@Test(.evaluates(evaluation))`: run it, then the body with EvaluationContext.current set.
            currentStatementRange = trait.positionAfterSkippingLeadingTrivia.utf8Offset..<trait.endPositionBeforeTrailingTrivia.utf8Offset
            let evaluation = try await evaluate(expression)
            guard case .structure(let type, _) = evaluation, conforms(type, to: "Evaluation") else {
                throw error(".evaluates(...) needs an instance of a struct conforming to Evaluation", expression)
            }
            var info: [(String, String)] = []
            let args = try await arguments(trait.arguments)
            if case .dictionary(let pairs)? = args.value("info") { info = pairs.map { ($0.key.description, $0.value.description) } }
            currentEvaluation = try await runEvaluation(evaluation, info: info, site: site(trait))
        }
        _ = try await withScope { try await execute(body) }
    }
}
