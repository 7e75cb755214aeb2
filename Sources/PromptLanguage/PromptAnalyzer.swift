import Schema
import SwiftDiagnostics
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax

/// The result of analysing one prompt file: the model and every diagnostic,
/// sorted by position.
public struct PromptAnalysis: Sendable {
    public var file: PromptFile
    public var diagnostics: [Diagnostic]
    /// The types of names and expressions against `Surface.table` (hover, completion, signature help).
    public var surface: SurfaceInference

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// The front end's entry point: text in, `(model, diagnostics)` out.
///
/// Invariant: never throws and never traps on bad input. Half-typed code
/// still yields a model.
public enum PromptAnalyzer {
    /// The parser's nesting limit; deeper code is one FM003 diagnostic.
    public static let maximumNestingLevel = 256
    /// The largest text analysed (`fmplay lint` refuses larger files before reading them; the language
    /// server gets one FM002 for a larger document instead of seconds of analysis on its message loop).
    public static let maximumTextSize = 4 * 1024 * 1024

    public static func analyze(_ text: String) -> PromptAnalysis {
        analyze(SourceText(text))
    }

    /// The analysis of a text whose table the caller already has (the language server's
    /// document): the analysis keeps that table as `file.source`, the one position table.
    public static func analyze(_ source: SourceText) -> PromptAnalysis {
        var phases = PhaseTimes(enabled: false)
        return analyze(source, phases: &phases, shouldStop: { false })!
    }

    /// Time spent in each phase of one analysis (for `fmplay bench lint`).
    public struct PhaseTimes: Sendable {
        public var enabled: Bool
        /// Phase name and duration, in the order the phases ran.
        public private(set) var phases: [(name: String, duration: Duration)] = []

        public init(enabled: Bool = true) {
            self.enabled = enabled
        }

        /// Adds the phases measured separately (inside another phase), summed per name.
        mutating func merge(_ other: PhaseTimes) {
            for (name, duration) in other.phases {
                if let index = phases.firstIndex(where: { $0.name == name }) { phases[index].duration += duration } else { phases.append((name, duration)) }
            }
        }

        mutating func measure<T>(_ name: String, _ body: () -> T) -> T {
            guard enabled else { return body() }
            let clock = ContinuousClock()
            let start = clock.now
            let result = body()
            phases.append((name, clock.now - start))
            return result
        }
    }

    /// `analyze(_:)`, recording the time of each phase in `phases` when it is enabled.
    public static func analyze(_ text: String, phases: inout PhaseTimes) -> PromptAnalysis {
        analyze(SourceText(text), phases: &phases, shouldStop: { false })!
    }

    /// `analyze(_:)` that can be cancelled: `shouldStop` is asked between phases, and
    /// nil is returned as soon as it says yes (the language server's background analyses).
    public static func analyze(_ source: SourceText, shouldStop: () -> Bool) -> PromptAnalysis? {
        var phases = PhaseTimes(enabled: false)
        return analyze(source, phases: &phases, shouldStop: shouldStop)
    }

    static func analyze(_ source: SourceText, phases: inout PhaseTimes, shouldStop: () -> Bool) -> PromptAnalysis? {
        if source.bytes.count > maximumTextSize {
            // Not analysed; the model is empty but keeps the document's table, so positions still convert.
            var empty = analyze(SourceText(""), phases: &phases, shouldStop: { false })!
            empty.file.source = source
            let megabytes = (source.bytes.count * 10 / (1024 * 1024) + 5) / 10
            empty.diagnostics = [Diagnostic(
                .unreadableFile, .error, at: source.range(0..<0),
                "the file is \(megabytes) MB, larger than the \(maximumTextSize / 1024 / 1024) MB limit for prompt files, so it is not analysed; split it into smaller files")]
            return empty
        }
        var depthPhase = PhaseTimes(enabled: phases.enabled)
        let (tree, firstOverflow, tooDeep) = phases.measure("parse") { () -> (SourceFileSyntax, Int?, [Range<Int>]) in
            var (parseable, firstOverflow) = NestingGuard.neutralize(source.bytes)
            func parse() -> SourceFileSyntax {
                parseable.withUnsafeBufferPointer { buffer in Parser.parse(source: buffer, maximumNestingLevel: maximumNestingLevel) }
            }
            var tree = parse()
            // Paths deeper than DepthGuard's limit are blanked and the text parsed again (a few rounds at most:
            // blanking only removes code, so each round finds less; after the last, everything left is dropped).
            var tooDeep: [Range<Int>] = []
            for round in 0..<4 {
                var ranges = depthPhase.measure("depth guard") { DepthGuard.tooDeep(tree) }
                if ranges.isEmpty { break }
                if round == 3 { ranges = [0..<parseable.count] }
                tooDeep += ranges
                parseable = DepthGuard.blank(parseable, ranges)
                tree = parse()
            }
            return (tree, firstOverflow, tooDeep)
        }
        phases.merge(depthPhase)  // part of "parse" too
        if shouldStop() { return nil }
        var diagnostics = phases.measure("syntax diagnostics") {
            syntaxDiagnostics(tree, source: source, reportedNesting: firstOverflow != nil)
        }
        if let firstOverflow {
            diagnostics.append(nestingDiagnostic(at: firstOverflow, source: source))
        }
        for range in tooDeep {
            diagnostics.append(Diagnostic(
                .nestingTooDeep, at: source.range(range),
                "this code nests more than \(DepthGuard.maximumDepth) levels deep (chained calls, operators, optionals or generic types); it is not analysed or run. Split it into named constants"))
        }

        if shouldStop() { return nil }
        var builder = ModelBuilder(source: source)
        phases.measure("model") { builder.build(tree) }
        if shouldStop() { return nil }
        diagnostics += builder.diagnostics
        var file = PromptFile(
            source: source, syntax: tree, imports: builder.imports, types: builder.types, constants: builder.constants,
            playgrounds: builder.playgrounds, schemas: [:])
        file.schemas = phases.measure("schemas") {
            let schemas = SchemaBuilder(file: file)
            var result: [String: GenerationSchema] = [:]
            for type in file.types {
                if let schema = schemas.schema(for: type) { result[type.qualifiedName] = schema }
            }
            return result
        }
        if shouldStop() { return nil }
        diagnostics += phases.measure("schema checks") { SchemaChecks(file: file).run() }
        diagnostics += phases.measure("tool checks") { ToolChecks(file: file).run() }
        diagnostics += phases.measure("session checks") { SessionChecks(file: file).run() }
        diagnostics += phases.measure("supported Swift") { SupportedSwiftChecker.check(file: file) }
        diagnostics += phases.measure("evaluations") { EvaluationsChecks(file: file).run() }
        diagnostics += phases.measure("unimplemented API") { UnimplementedAPIChecks(file: file).run() }
        diagnostics += phases.measure("dynamic builders") { DynamicBuilderChecks(file: file).run() }
        if shouldStop() { return nil }
        let surface = phases.measure("surface") { SurfaceChecker(file: file).run() }
        // One error per place: a more specific check (FM304's use cases, FM306's closures, FM313) wins over FM310.
        diagnostics += surface.diagnostics.filter { found in
            !diagnostics.contains { $0.severity == .error && $0.range.offsets.overlaps(found.range.offsets) }
        }
        diagnostics.sort(by: Diagnostic.ordered)
        return PromptAnalysis(file: file, diagnostics: diagnostics, surface: surface.inference)
    }

    private static func nestingDiagnostic(at offset: Int, source: SourceText) -> Diagnostic {
        Diagnostic(
            .nestingTooDeep, at: source.range(offset..<offset + 1),
            "brackets nest too deeply here (more than \(NestingGuard.maximumBracketDepth) levels, more than \(NestingGuard.maximumSquareBracketRun) '[' in a row, or more than \(NestingGuard.maximumPrefixRun) 'try'/'await' or generic 'Name<' in a row); the nested code is not analysed. Flatten the nesting (split it into named constants or types)")
    }

    private static func syntaxDiagnostics(_ tree: SourceFileSyntax, source: SourceText, reportedNesting: Bool) -> [Diagnostic] {
        guard tree.hasError || tree.hasWarning else { return [] }
        var result: [Diagnostic] = []
        var reportedNesting = reportedNesting
        for diagnostic in ParseDiagnosticsGenerator.diagnostics(for: tree) {
            let start = diagnostic.position.utf8Offset
            let end = max(start, diagnostic.node.endPositionBeforeTrailingTrivia.utf8Offset)
            let message = diagnostic.message
            if message == StaticParserError.maximumNestingLevelOverflow.message {
                guard !reportedNesting else { continue }
                reportedNesting = true
                result.append(Diagnostic(
                    .nestingTooDeep, at: source.range(start..<start),
                    "code nests deeper than \(maximumNestingLevel) levels; prompt files cannot be analysed past this point. Flatten the nesting (split it into named constants or types)"))
                continue
            }
            let fixIts = diagnostic.fixIts.map { fixIt in
                FixIt(title: fixIt.message.message, edits: fixIt.edits.map { edit in
                    TextEdit(range: source.range(edit.range.lowerBound.utf8Offset..<edit.range.upperBound.utf8Offset), newText: edit.replacement)
                })
            }
            result.append(Diagnostic(
                .syntaxError, diagnostic.diagMessage.severity == .error ? .error : .warning,
                at: source.range(start..<min(end, start + 200)), message, fixIts: fixIts))
        }
        return result
    }
}
