import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
@_spi(Compiler) import SwiftParser
import SwiftSyntax

/// An error the interpreter raises for code it cannot run (with its range).
package struct InterpreterError: Error, CustomStringConvertible {
    package var message: String
    package var offsets: Range<Int>
    /// A limit of `EvaluationLimits` was crossed (not cached: raising the limit may let the block finish).
    package var isLimit = false
    package var description: String { message }
}

/// A value thrown by prompt-file code (`throw X`).
package struct ThrownValue: Error, CustomStringConvertible {
    package var value: Value
    package init(value: Value) { self.value = value }
    package var description: String { value.description }
}

/// How a statement list ended.
enum Flow {
    case normal
    /// `break` (with its label, if any).
    case breakLoop(String?)
    /// `continue` (with its label, if any).
    case continueLoop(String?)
    case returned(Value)
    case fallthroughCase
}

/// Interprets the statements of one `#Playground` block (and the tool bodies
/// it calls) over the syntax tree. One instance per block run; state lives in
/// its scopes, never in globals.
package final class Interpreter: @unchecked Sendable {
    package let context: EvaluationContext
    package let recorder: ResultRecorder
    package let budget: Budget
    /// The implementation of every surface table entry, by entry id (PlaygroundLibrary's `Builtins.all`,
    /// given by the evaluator): the interpreter resolves a use against the table and runs what this
    /// map holds for the entry (`runBuiltin`), so it depends on no implementation.
    let builtins: [String: Builtin]
    private var scopes: [Scope] = [[:]]
    /// The statement being executed, for placing uncaught errors.
    var currentStatementRange: Range<Int> = 0..<0
    /// The profile sessions whose profile or lifecycle callbacks are running
    /// (innermost last): `@SessionProperty` reads and writes go to the last one.
    var servingSessions: [LanguageModelSession] = []
    /// The result `EvaluationContext.current` answers inside a `@Test(.evaluates(...))` block.
    package var currentEvaluation: EvaluationRunValue?
    /// Set when the block read the server model's availability or quota, or a
    /// server request failed for a passing reason: its results are not cached.
    package var readsServerState = false
    /// How deep user calls are nested (bounded by `maximumCallDepth`).
    var callDepth = 0
    /// The type whose method, initializer or closure is running (static members and `Self`).
    var currentTypeName: String?
    /// Static stored properties, initialized on first use (`Type.name`).
    var statics: [String: Cell] = [:]
    /// Deferred blocks per running statement list (innermost last).
    var deferred: [[CodeBlockItemListSyntax]] = []
    /// The call depth of the failable initializer running (`return nil` fails it).
    var failableInitializerDepth = -1
    /// The call depth of the initializer running (property observers do not fire there).
    var initializerDepth = -1
    /// Properties whose observers are running (`Type.name`).
    var observing: Set<String> = []
    /// The seeded generator of `Int.random`, `shuffled()`, `randomElement()`, `UUID()`.
    package lazy var random = InterpreterRandom(seed: context.configuration.seed)
    /// Generation ids of this run's requests (the runtime's UUID) to ids from `random` (`runIdentifier`).
    var generationIDRoots: [String: String] = [:]

    package init(context: EvaluationContext, recorder: ResultRecorder, builtins: [String: Builtin]) {
        self.context = context
        self.recorder = recorder
        self.builtins = builtins
        budget = Budget(limits: context.configuration.limits)
    }

    var file: PromptFile { context.file }

    // MARK: Scopes

    func define(_ name: String, _ value: Value) { scopes[scopes.count - 1][name] = Cell(value) }

    func defineCell(_ name: String, _ cell: Cell) { scopes[scopes.count - 1][name] = cell }

    func lookup(_ name: String) -> Value? { lookupCell(name)?.value }

    func lookupCell(_ name: String) -> Cell? {
        for scope in scopes.reversed() { if let cell = scope[name] { return cell } }
        return nil
    }

    /// A name declared in a function's own scopes (not the file's top level).
    func lookupLocalCell(_ name: String) -> Cell? {
        for scope in scopes.dropFirst().reversed() { if let cell = scope[name] { return cell } }
        return nil
    }

    var currentScopes: [Scope] { scopes }
    var globalScope: Scope { scopes[0] }

    func swapScopes(_ new: [Scope]) -> [Scope] {
        let saved = scopes
        scopes = new
        return saved
    }

    func restoreScopes(_ saved: [Scope]) { scopes = saved }

    func assign(_ name: String, _ value: Value, at node: some SyntaxProtocol) throws {
        guard let cell = lookupCell(name) else { throw error("cannot find '\(name)' in scope", node) }
        if case .sessionProperty(let key) = cell.value { return try writeSessionProperty(key, value, node) }
        cell.value = value
    }

    func withScope<T>(_ body: () async throws -> T) async rethrows -> T {
        scopes.append([:])
        defer { scopes.removeLast() }
        return try await body()
    }

    /// Runs `body` in a fresh environment that only sees the file's constants.
    func isolated<T>(_ bindings: [String: Value], _ body: () async throws -> T) async rethrows -> T {
        let saved = scopes
        let savedStatement = currentStatementRange
        scopes = [scopes[0], bindings.mapValues { Cell($0) }]
        defer {
            scopes = saved
            currentStatementRange = savedStatement
        }
        return try await body()
    }

    package func error(_ message: String, _ node: some SyntaxProtocol) -> InterpreterError {
        InterpreterError(message: message, offsets: node.positionAfterSkippingLeadingTrivia.utf8Offset..<node.endPositionBeforeTrailingTrivia.utf8Offset)
    }

    /// Runs a check from `Arithmetic`; what Swift would stop on becomes a runtime error at `node`.
    package func checked<T>(_ node: some SyntaxProtocol, _ body: () throws(Arithmetic.Failure) -> T) throws -> T {
        do { return try body() } catch { throw self.error(error.message, node) }
    }

    /// An `Int` argument (`prefix(2)`, `count: 3`): a Double or anything else is an error naming the parameter.
    package func intArgument(_ value: Value?, _ what: String, _ node: some SyntaxProtocol) throws -> Int {
        switch value {
        case .int(let i)?: return i
        case .content(let c)?:
            if let n = c.numberValue, let i = Arithmetic.integer(exactly: n) { return i }
        default: break
        }
        throw error("\(what) needs an Int, not \(value.map { String($0.description.prefix(30)) } ?? "nothing")", node)
    }

    package func site(_ node: some SyntaxProtocol) -> CallSite {
        file.source.range(node.positionAfterSkippingLeadingTrivia.utf8Offset..<node.endPositionBeforeTrailingTrivia.utf8Offset)
    }

    // MARK: Statements

    func execute(_ items: CodeBlockItemListSyntax) async throws -> Flow {
        // Only lists with a `defer` pay for the bookkeeping.
        let hasDefer = items.contains { $0.item.as(StmtSyntax.self)?.is(DeferStmtSyntax.self) == true }
        if hasDefer { deferred.append([]) }
        var flow = Flow.normal
        do {
            for item in items {
                try budget.step(item)
                flow = try await execute(item)
                if case .normal = flow { continue }
                break
            }
        } catch {
            if hasDefer { try await runDeferred() }
            throw error
        }
        if hasDefer { try await runDeferred() }
        return flow
    }

    /// Runs the `defer` blocks of the innermost statement list, last first.
    private func runDeferred() async throws {
        let blocks = deferred.removeLast()
        for block in blocks.reversed() { _ = try await withScope { try await execute(block) } }
    }

    func execute(_ item: CodeBlockItemSyntax) async throws -> Flow {
        currentStatementRange = item.positionAfterSkippingLeadingTrivia.utf8Offset..<item.endPositionBeforeTrailingTrivia.utf8Offset
        switch item.item {
        case .decl(let decl):
            if let variable = decl.as(VariableDeclSyntax.self) {
                try await declare(variable)
            } else if let function = decl.as(FunctionDeclSyntax.self) {
                // A local function sees itself (recursion) and the variables around it.
                let cell = Cell(.null)
                defineCell(function.name.text, cell)
                cell.value = .function(makeFunction(function, captured: currentScopes, selfCell: lookupCell("self"), typeName: currentTypeName))
            } else {
                throw error("this declaration is not supported inside a block (declare types at the top level)", decl)
            }
            return .normal
        case .stmt(let stmt):
            return try await execute(stmt)
        case .expr(let expr):
            return try await executeExpression(expr)
        }
    }

    func declare(_ variable: VariableDeclSyntax) async throws {
        for (index, binding) in variable.bindings.enumerated() {
            // `var a, b: Int`: the type written last applies to the names before it.
            let annotation = binding.typeAnnotation?.type
                ?? variable.bindings.dropFirst(index + 1).lazy.compactMap { $0.typeAnnotation?.type }.first
            var value = Value.null
            if let initializer = binding.initializer { value = try await evaluate(initializer.value, typedAs: annotation) }
            // `let city: String = try content.value(forProperty: "city")`: the annotation is the generic type.
            if case .content(let content) = value, let annotation { value = try contentValue(content, as: annotation.trimmedDescription) }
            value = value.converted(to: annotation)  // `let d: Double = 2` is 2.0
            if let optional = annotation?.as(OptionalTypeSyntax.self) { value = value.converted(to: optional.wrappedType) }
            // `let t: (name: String, count: Int) = ("a", 2)`: the annotation's labels.
            if let tupleType = annotation?.as(TupleTypeSyntax.self), case .tuple(var items) = value,
               items.count == tupleType.elements.count
            {
                for (index, element) in tupleType.elements.enumerated() {
                    if let label = element.firstName?.text, label != "_" { items[index].label = label }
                }
                value = .tuple(items)
            }
            if let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
                define(name, value)
            } else {
                try bind(binding.pattern, to: value)
            }
        }
    }

    func executeExpression(_ expr: ExprSyntax) async throws -> Flow {
        if let ifExpr = expr.as(IfExprSyntax.self) { return try await executeIf(ifExpr) }
        if let switchExpr = expr.as(SwitchExprSyntax.self) { return try await executeSwitch(switchExpr, label: nil) }
        _ = try await evaluate(expr)
        return .normal
    }

    func execute(_ stmt: StmtSyntax, label: String? = nil) async throws -> Flow {
        if let s = stmt.as(ExpressionStmtSyntax.self) {
            if let switchExpr = s.expression.as(SwitchExprSyntax.self) { return try await executeSwitch(switchExpr, label: label) }
            let flow = try await executeExpression(s.expression)
            if case .breakLoop(let target?) = flow, target == label { return .normal }
            return flow
        }
        if let s = stmt.as(LabeledStmtSyntax.self) { return try await execute(s.statement, label: s.label.text) }
        if let s = stmt.as(ForStmtSyntax.self) { return try await executeFor(s, label: label) }
        if let s = stmt.as(DoStmtSyntax.self) {
            let flow = try await executeDo(s)
            if case .breakLoop(let target?) = flow, target == label { return .normal }
            return flow
        }
        if let s = stmt.as(WhileStmtSyntax.self) {
            var count = 0
            while true {
                let flow: Flow? = try await withScope {
                    guard try await conditionsHold(s.conditions) else { return nil }
                    return try await execute(s.body.statements)
                }
                guard let flow else { return .normal }
                count += 1
                if count > Self.maximumLoopCount { throw error("the loop ran \(Self.maximumLoopCount) times; stopping", s) }
                let (stop, result) = loopControl(flow, label: label)
                if stop { return result }
            }
        }
        if let s = stmt.as(RepeatStmtSyntax.self) {
            var count = 0
            repeat {
                count += 1
                if count > Self.maximumLoopCount { throw error("the loop ran \(Self.maximumLoopCount) times; stopping", s) }
                let flow = try await withScope { try await execute(s.body.statements) }
                let (stop, result) = loopControl(flow, label: label)
                if stop { return result }
            } while try await truth(s.condition)
            return .normal
        }
        if let s = stmt.as(GuardStmtSyntax.self) {
            if try await conditionsHold(s.conditions) { return .normal }
            let flow = try await withScope { try await execute(s.body.statements) }
            if case .normal = flow { throw error("the guard body must not fall through", s) }
            return flow
        }
        if let s = stmt.as(ReturnStmtSyntax.self) {
            guard let expression = s.expression else { return .returned(.null) }
            if expression.is(NilLiteralExprSyntax.self), failableInitializerDepth == callDepth, callDepth > 0 { throw InitializerFailed() }
            return .returned(try await evaluate(expression))
        }
        if let s = stmt.as(ThrowStmtSyntax.self) {
            throw ThrownValue(value: try await evaluate(s.expression))
        }
        if let s = stmt.as(BreakStmtSyntax.self) { return .breakLoop(s.label?.text) }
        if let s = stmt.as(ContinueStmtSyntax.self) { return .continueLoop(s.label?.text) }
        if let s = stmt.as(DeferStmtSyntax.self) {
            guard !deferred.isEmpty else { throw error("defer outside a block", s) }
            deferred[deferred.count - 1].append(s.body.statements)
            return .normal
        }
        if stmt.is(FallThroughStmtSyntax.self) { return .fallthroughCase }
        throw error("'\(stmt.trimmedDescription.prefix(30))' is not supported in prompt files", stmt)
    }

    static let maximumLoopCount = 1_000_000

    /// After one pass of a loop body: whether to stop, and the flow the loop then ends with.
    func loopControl(_ flow: Flow, label: String?) -> (stop: Bool, result: Flow) {
        switch flow {
        case .normal: return (false, .normal)
        case .continueLoop(let target) where target == nil || target == label: return (false, .normal)
        case .breakLoop(let target) where target == nil || target == label: return (true, .normal)
        default: return (true, flow)
        }
    }

    func executeFor(_ loop: ForStmtSyntax, label: String?) async throws -> Flow {
        let sequence = try await evaluate(loop.sequence)
        if case .stream(let stream) = sequence {
            return try await iterate(stream, loop)
        }
        if case .range(let lower, let upper, let closed) = sequence {
            // Ranges are walked lazily: `0..<1_000_000_000` must not allocate; `0...Int.max` must not overflow.
            if !closed && lower == upper { return .normal }
            let last = closed ? upper : upper - 1
            var index = lower
            while true {
                let (stop, result) = loopControl(try await iteration(loop, .int(index)), label: label)
                if stop { return result }
                if index == last { return .normal }
                index += 1
            }
        }
        let elements = try sequenceElements(sequence, loop.sequence)
        for element in elements {
            let (stop, result) = loopControl(try await iteration(loop, element), label: label)
            if stop { return result }
        }
        return .normal
    }

    /// The elements a `for` loop (or a sequence algorithm) walks.
    package func sequenceElements(_ sequence: Value, _ node: some SyntaxProtocol) throws -> [Value] {
        switch sequence {
        case .array(let a), .set(let a): return a
        case .dictionary(let pairs): return pairs.map { .tuple([(label: "key", value: $0.key), (label: "value", value: $0.value)]) }
        case .string(let s): return s.map { .string(String($0)) }
        case .transcript(let t): return t.map(Value.transcriptEntry)
        case .content(let c): return (c.arrayValue ?? []).map(Value.content)
        case .range(let lower, let upper, let closed):
            let count = try checked(node) { () throws(Arithmetic.Failure) in try Arithmetic.rangeCount(lower, upper, closed: closed) }
            try budget.allocate(elements: count, node)
            return (0..<count).map { .int(lower + $0) }
        default: throw error("cannot iterate over \(sequence.description.prefix(40))", node)
        }
    }

    /// One pass of a `for` body with the loop variable bound (`for case` skips what does not match).
    func iteration(_ loop: ForStmtSyntax, _ element: Value) async throws -> Flow {
        try Task.checkCancellation()
        return try await withScope { () -> Flow in
            if loop.caseKeyword != nil {
                guard let bindings = try await matches(pattern: loop.pattern, element) else { return .normal }
                for (name, value) in bindings { define(name, value) }
            } else {
                try bind(loop.pattern, to: element)
            }
            if let whereClause = loop.whereClause, !(try await truth(whereClause.condition)) { return .normal }
            return try await execute(loop.body.statements)
        }
    }

    func bind(_ pattern: PatternSyntax, to value: Value) throws {
        if let id = pattern.as(IdentifierPatternSyntax.self) {
            define(id.identifier.text, value)
        } else if pattern.is(WildcardPatternSyntax.self) {
            return
        } else if let tuple = pattern.as(TuplePatternSyntax.self) {
            let parts: [Value]
            switch value {
            case .tuple(let items): parts = items.map(\.value)
            default: throw error("cannot destructure \(value.description)", pattern)
            }
            for (element, part) in zip(tuple.elements, parts) { try bind(element.pattern, to: part) }
        } else if let binding = pattern.as(ValueBindingPatternSyntax.self) {
            try bind(binding.pattern, to: value)
        } else {
            throw error("this pattern is not supported in prompt files", pattern)
        }
    }

    func executeIf(_ ifExpr: IfExprSyntax) async throws -> Flow {
        let taken = try await withScope { () -> Flow? in
            guard try await conditionsHold(ifExpr.conditions) else { return nil }
            return try await execute(ifExpr.body.statements)
        }
        if let taken { return taken }
        switch ifExpr.elseBody {
        case .ifExpr(let next): return try await executeIf(next)
        case .codeBlock(let block): return try await withScope { try await execute(block.statements) }
        case nil: return .normal
        }
    }

    /// Evaluates `if`/`while`/`guard` conditions, binding `if let` names in the current scope.
    func conditionsHold(_ conditions: ConditionElementListSyntax) async throws -> Bool {
        for element in conditions {
            switch element.condition {
            case .expression(let expr):
                guard try await truth(expr) else { return false }
            case .optionalBinding(let binding):
                let name = binding.pattern.trimmedDescription
                var value = lookup(name) ?? .null
                if let initializer = binding.initializer { value = try await evaluate(initializer.value) }
                if value.isNull { return false }
                define(name, value)
            case .matchingPattern(let match):
                let value = try await evaluate(match.initializer.value)
                guard let bindings = try await matches(pattern: match.pattern, value) else { return false }
                for (name, v) in bindings { define(name, v) }
            case .availability(let availability):
                // Prompt files run as on the newest OS fmplay implements (27.0): every #available holds.
                if availability.availabilityKeyword.tokenKind == .poundUnavailable { return false }
            @unknown default:
                throw error("this condition is not supported in prompt files", element)
            }
        }
        return true
    }

    func truth(_ expr: ExprSyntax) async throws -> Bool {
        guard case .bool(let b) = try await evaluate(expr) else { throw error("expected a Bool condition", expr) }
        return b
    }

}

extension Interpreter {
    /// The byte range of the statement being executed (where uncaught errors are reported).
    package var currentStatement: Range<Int> { currentStatementRange }

    /// Evaluates the given top-level constants (those the block uses), then the block body; a `@Test` method of a
    /// `suite` type runs (trait and body) as a method of a new `Suite()`, as Swift Testing does.
    package func runBlock(_ body: CodeBlockItemListSyntax, variables: [VariableDeclSyntax],
                  evaluates: (ExprSyntax, FunctionCallExprSyntax)? = nil, suite: String? = nil) async throws {
        for variable in variables {
            currentStatementRange = variable.positionAfterSkippingLeadingTrivia.utf8Offset..<variable.endPositionBeforeTrailingTrivia.utf8Offset
            try await declare(variable)
        }
        guard let suite else { return try await runTest(body, evaluates: evaluates) }
        let instance = try await suiteInstance(suite, at: body)
        try await asMember(instance, name: suite, at: body) { try await runTest(body, evaluates: evaluates) }
    }

    /// `Suite()`: its `init()`, or its stored properties' starting values when it declares no initializer.
    private func suiteInstance(_ suite: String, at node: CodeBlockItemListSyntax) async throws -> Value {
        currentStatementRange = node.position.utf8Offset..<node.position.utf8Offset
        if let value = try await constructUser(suite, [], at: node) { return value }
        guard let info = types.type(suite), info.kind == .struct, info.initializers.isEmpty else {
            throw error("the test suite \(suite) needs an init() without arguments (Swift Testing creates one instance per test)", node)
        }
        // The implicit init() exists only when every stored property has a starting value (or is optional).
        if let missing = info.stored.first(where: { $0.initializer == nil && !$0.isLazy && $0.type?.is(OptionalTypeSyntax.self) != true
                                                    && context.sessionPropertyKey($0.name, of: suite) == nil }) {
            throw error("the test suite \(suite) has no init() without arguments: give '\(missing.name)' a starting value "
                        + "(Swift Testing creates one instance per test with init())", node)
        }
        let box = ObjectBox(type: suite, fields: [])
        try await initializeStored(of: suite, into: box, at: node)
        return .structure(type: suite, fields: box.fields)
    }

    private func runTest(_ body: CodeBlockItemListSyntax, evaluates: (ExprSyntax, FunctionCallExprSyntax)?) async throws {
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
