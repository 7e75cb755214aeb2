import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
@_spi(Compiler) import SwiftParser
import SwiftSyntax

/// An error the interpreter raises for code it cannot run (with its range).
struct InterpreterError: Error, CustomStringConvertible {
    var message: String
    var offsets: Range<Int>
    /// A limit of `EvaluationLimits` was crossed (not cached: raising the limit may let the block finish).
    var isLimit = false
    var description: String { message }
}

/// A value thrown by prompt-file code (`throw X`).
struct ThrownValue: Error, CustomStringConvertible {
    var value: Value
    var description: String { value.description }
}

/// How a statement list ended.
enum Flow {
    case normal
    case breakLoop
    case continueLoop
    case returned(Value)
}

/// Interprets the statements of one `#Playground` block (and the tool bodies
/// it calls) over the syntax tree. One instance per block run; state lives in
/// its scopes, never in globals.
final class Interpreter: @unchecked Sendable {
    let context: EvaluationContext
    let recorder: ResultRecorder
    let budget: Budget
    private var scopes: [[String: Value]] = [[:]]
    /// The statement being executed, for placing uncaught errors.
    var currentStatementRange: Range<Int> = 0..<0
    /// The profile sessions whose profile or lifecycle callbacks are running
    /// (innermost last): `@SessionProperty` reads and writes go to the last one.
    var servingSessions: [LanguageModelSession] = []
    /// The result `EvaluationContext.current` answers inside a `@Test(.evaluates(...))` block.
    var currentEvaluation: EvaluationRunValue?
    /// Set when the block read the server model's availability or quota, or a
    /// server request failed for a passing reason: its results are not cached.
    var readsServerState = false

    init(context: EvaluationContext, recorder: ResultRecorder) {
        self.context = context
        self.recorder = recorder
        budget = Budget(limits: context.configuration.limits)
    }

    var file: PromptFile { context.file }

    // MARK: Scopes

    func define(_ name: String, _ value: Value) { scopes[scopes.count - 1][name] = value }

    func lookup(_ name: String) -> Value? {
        for scope in scopes.reversed() { if let v = scope[name] { return v } }
        return nil
    }

    func assign(_ name: String, _ value: Value, at node: some SyntaxProtocol) throws {
        for index in scopes.indices.reversed() where scopes[index][name] != nil {
            if case .sessionProperty(let key)? = scopes[index][name] { return try writeSessionProperty(key, value, node) }
            scopes[index][name] = value
            return
        }
        throw error("cannot find '\(name)' in scope", node)
    }

    /// Every name visible here, innermost binding winning (what a closure captures).
    func visibleBindings() -> [String: Value] {
        var bindings: [String: Value] = [:]
        for scope in scopes.dropFirst() { bindings.merge(scope) { _, inner in inner } }
        return bindings
    }

    func withScope<T>(_ body: () async throws -> T) async rethrows -> T {
        scopes.append([:])
        defer { scopes.removeLast() }
        return try await body()
    }

    /// The environment a closure literal captures.
    func captureScopes() -> [[String: Value]] { scopes }

    /// Runs `body` in a captured environment (a closure called later).
    func withCapturedScopes<T>(_ captured: [[String: Value]], _ body: () async throws -> T) async rethrows -> T {
        let saved = scopes
        let savedStatement = currentStatementRange
        scopes = captured
        defer {
            scopes = saved
            currentStatementRange = savedStatement
        }
        return try await body()
    }

    /// Runs `body` in a fresh environment that only sees the file's constants.
    func isolated<T>(_ bindings: [String: Value], _ body: () async throws -> T) async rethrows -> T {
        let saved = scopes
        let savedStatement = currentStatementRange
        scopes = [scopes[0], bindings]
        defer {
            scopes = saved
            currentStatementRange = savedStatement
        }
        return try await body()
    }

    func error(_ message: String, _ node: some SyntaxProtocol) -> InterpreterError {
        InterpreterError(message: message, offsets: node.positionAfterSkippingLeadingTrivia.utf8Offset..<node.endPositionBeforeTrailingTrivia.utf8Offset)
    }

    /// Runs a check from `Arithmetic`; what Swift would stop on becomes a runtime error at `node`.
    func checked<T>(_ node: some SyntaxProtocol, _ body: () throws(Arithmetic.Failure) -> T) throws -> T {
        do { return try body() } catch { throw self.error(error.message, node) }
    }

    /// An `Int` argument (`prefix(2)`, `count: 3`): a Double or anything else is an error naming the parameter.
    func intArgument(_ value: Value?, _ what: String, _ node: some SyntaxProtocol) throws -> Int {
        switch value {
        case .int(let i)?: return i
        case .content(let c)?:
            if let n = c.numberValue, let i = Arithmetic.integer(exactly: n) { return i }
        default: break
        }
        throw error("\(what) needs an Int, not \(value.map { String($0.description.prefix(30)) } ?? "nothing")", node)
    }

    func site(_ node: some SyntaxProtocol) -> CallSite {
        let start = file.source.position(at: node.positionAfterSkippingLeadingTrivia.utf8Offset)
        let end = file.source.position(at: node.endPositionBeforeTrailingTrivia.utf8Offset)
        return CallSite(offset: start.offset, line: start.line, column: start.column, endLine: end.line, endColumn: end.column)
    }

    // MARK: Statements

    func execute(_ items: CodeBlockItemListSyntax) async throws -> Flow {
        for item in items {
            try budget.step(item)
            let flow = try await execute(item)
            if case .normal = flow { continue }
            return flow
        }
        return .normal
    }

    func execute(_ item: CodeBlockItemSyntax) async throws -> Flow {
        currentStatementRange = item.positionAfterSkippingLeadingTrivia.utf8Offset..<item.endPositionBeforeTrailingTrivia.utf8Offset
        switch item.item {
        case .decl(let decl):
            guard let variable = decl.as(VariableDeclSyntax.self) else {
                throw error("this declaration is not supported inside #Playground (declare types at the top level)", decl)
            }
            try await declare(variable)
            return .normal
        case .stmt(let stmt):
            return try await execute(stmt)
        case .expr(let expr):
            return try await executeExpression(expr)
        }
    }

    func declare(_ variable: VariableDeclSyntax) async throws {
        for binding in variable.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else {
                throw error("only simple names can be declared here", binding.pattern)
            }
            var value = Value.null
            if let initializer = binding.initializer { value = try await evaluate(initializer.value) }
            if let annotation = binding.typeAnnotation?.type, ["Double", "Float", "Double?", "Float?"].contains(annotation.trimmedDescription),
               case .int(let i) = value
            {
                value = .double(Double(i))  // `let d: Double = 2` is 2.0
            }
            // `let t: (name: String, count: Int) = ("a", 2)`: the annotation's labels.
            if let tupleType = binding.typeAnnotation?.type.as(TupleTypeSyntax.self), case .tuple(var items) = value,
               items.count == tupleType.elements.count
            {
                for (index, element) in tupleType.elements.enumerated() {
                    if let label = element.firstName?.text, label != "_" { items[index].label = label }
                }
                value = .tuple(items)
            }
            define(name, value)
        }
    }

    func executeExpression(_ expr: ExprSyntax) async throws -> Flow {
        if let ifExpr = expr.as(IfExprSyntax.self) { return try await executeIf(ifExpr) }
        if let switchExpr = expr.as(SwitchExprSyntax.self) { return try await executeSwitch(switchExpr) }
        _ = try await evaluate(expr)
        return .normal
    }

    func execute(_ stmt: StmtSyntax) async throws -> Flow {
        if let s = stmt.as(ExpressionStmtSyntax.self) { return try await executeExpression(s.expression) }
        if let s = stmt.as(ForStmtSyntax.self) { return try await executeFor(s) }
        if let s = stmt.as(DoStmtSyntax.self) { return try await executeDo(s) }
        if let s = stmt.as(WhileStmtSyntax.self) {
            var guardCount = 0
            while try await conditionsHold(s.conditions) {
                guardCount += 1
                if guardCount > 100_000 { throw error("the loop ran 100000 times; stopping", s) }
                let flow = try await withScope { try await execute(s.body.statements) }
                if case .breakLoop = flow { break }
                if case .returned = flow { return flow }
            }
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
            return .returned(try await evaluate(expression))
        }
        if let s = stmt.as(ThrowStmtSyntax.self) {
            throw ThrownValue(value: try await evaluate(s.expression))
        }
        if stmt.is(BreakStmtSyntax.self) { return .breakLoop }
        if stmt.is(ContinueStmtSyntax.self) { return .continueLoop }
        throw error("'\(stmt.trimmedDescription.prefix(30))' is not supported in prompt files", stmt)
    }

    func executeFor(_ loop: ForStmtSyntax) async throws -> Flow {
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
                let flow = try await iteration(loop, .int(index))
                switch flow {
                case .breakLoop: return .normal
                case .returned: return flow
                default: break
                }
                if index == last { return .normal }
                index += 1
            }
        }
        let elements: [Value]
        switch sequence {
        case .array(let a): elements = a
        case .dictionary(let pairs): elements = pairs.map { .tuple([(label: "key", value: $0.key), (label: "value", value: $0.value)]) }
        case .string(let s): elements = s.map { .string(String($0)) }
        case .transcript(let t): elements = t.map(Value.transcriptEntry)
        case .content(let c): elements = (c.arrayValue ?? []).map(Value.content)
        default: throw error("cannot iterate over \(sequence.description.prefix(40))", loop.sequence)
        }
        for element in elements {
            let flow = try await iteration(loop, element)
            switch flow {
            case .breakLoop: return .normal
            case .returned: return flow
            default: continue
            }
        }
        return .normal
    }

    /// One pass of a `for` body with the loop variable bound.
    func iteration(_ loop: ForStmtSyntax, _ element: Value) async throws -> Flow {
        try Task.checkCancellation()
        return try await withScope { () -> Flow in
            try bind(loop.pattern, to: element)
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
            default:
                throw error("this condition is not supported in prompt files", element)
            }
        }
        return true
    }

    func truth(_ expr: ExprSyntax) async throws -> Bool {
        guard case .bool(let b) = try await evaluate(expr) else { throw error("expected a Bool condition", expr) }
        return b
    }

    func executeSwitch(_ switchExpr: SwitchExprSyntax) async throws -> Flow {
        let subject = try await evaluate(switchExpr.subject)
        for element in switchExpr.cases {
            guard case .switchCase(let switchCase) = element else { throw error("#if is not supported in prompt files", element) }
            var bindings: [(String, Value)]?
            switch switchCase.label {
            case .default:
                bindings = []
            case .case(let label):
                for item in label.caseItems {
                    if let found = try await matches(pattern: item.pattern, subject) {
                        if let whereClause = item.whereClause {
                            let ok = try await withScope { () -> Bool in
                                for (n, v) in found { define(n, v) }
                                return try await truth(whereClause.condition)
                            }
                            if !ok { continue }
                        }
                        bindings = found
                        break
                    }
                }
            }
            guard let bindings else { continue }
            let flow = try await withScope { () -> Flow in
                for (name, value) in bindings { define(name, value) }
                return try await execute(switchCase.statements)
            }
            if case .breakLoop = flow { return .normal }
            return flow
        }
        return .normal
    }

    /// Matches a case pattern; returns the bindings, or nil when it does not match.
    func matches(pattern: PatternSyntax, _ value: Value) async throws -> [(String, Value)]? {
        if pattern.is(WildcardPatternSyntax.self) { return [] }
        if let binding = pattern.as(ValueBindingPatternSyntax.self) {
            if let id = binding.pattern.as(IdentifierPatternSyntax.self) { return [(id.identifier.text, value)] }
            return try await matches(pattern: binding.pattern, value)
        }
        if let id = pattern.as(IdentifierPatternSyntax.self) { return [(id.identifier.text, value)] }
        guard let expression = pattern.as(ExpressionPatternSyntax.self)?.expression else {
            throw error("this pattern is not supported in prompt files", pattern)
        }
        return try await matches(expression: expression, value)
    }

    func matches(expression: ExprSyntax, _ value: Value) async throws -> [(String, Value)]? {
        if let patternExpr = expression.as(PatternExprSyntax.self) { return try await matches(pattern: patternExpr.pattern, value) }
        if expression.is(DiscardAssignmentExprSyntax.self) { return [] }
        // `.name` or `Type.name`, optionally with payload patterns.
        var member: MemberAccessExprSyntax?
        var payloadPatterns: LabeledExprListSyntax?
        if let m = expression.as(MemberAccessExprSyntax.self) { member = m }
        if let call = expression.as(FunctionCallExprSyntax.self), let m = call.calledExpression.as(MemberAccessExprSyntax.self) {
            member = m
            payloadPatterns = call.arguments
        }
        if let member, member.base == nil || !(isValueExpression(member.base!)) {
            let name = member.declName.baseName.text
            var value = value
            // Transcript entries match as the enum they are: `case .response(let response)`.
            if case .transcriptEntry(let entry) = value {
                value = .enumCase(type: "Transcript.Entry", name: entry.kindName, payload: [(label: nil, value: .transcriptEntry(entry))])
            }
            guard case .enumCase(_, let caseName, let payload) = value else {
                if case .error(let e) = value { return errorMatches(e.error, caseName: name) ? [] : nil }
                return nil
            }
            guard caseName == name else { return nil }
            guard let payloadPatterns else { return [] }
            var bindings: [(String, Value)] = []
            for (argument, item) in zip(payloadPatterns, payload) {
                guard let found = try await matches(expression: argument.expression, item.value) else { return nil }
                bindings += found
            }
            return bindings
        }
        // An expression pattern: compare with ==.
        let candidate = try await evaluate(expression)
        if case .range(let lower, let upper, let closed) = candidate, case .int(let i) = value {
            return Arithmetic.contains(lower, upper, closed: closed, i) ? [] : nil
        }
        return Value.equal(candidate, value) ? [] : nil
    }

    /// Whether an expression names a value in scope (rather than a type).
    func isValueExpression(_ expr: ExprSyntax) -> Bool {
        if let ref = expr.as(DeclReferenceExprSyntax.self) { return lookup(ref.baseName.text) != nil }
        return false
    }

    func errorMatches(_ error: any Error, caseName: String) -> Bool {
        if let generation = error as? GenerationError { return generation.caseName == caseName }
        if let usage = error as? SessionUsageError { return usage.caseName == caseName }
        if let model = error as? LanguageModelError { return model.caseName == caseName }
        if let server = error as? PrivateCloudComputeLanguageModel.Error { return server.caseName == caseName }
        if let thrown = error as? ThrownValue, case .enumCase(_, let name, _) = thrown.value { return name == caseName }
        return false
    }

    func executeDo(_ doStmt: DoStmtSyntax) async throws -> Flow {
        do {
            return try await withScope { try await execute(doStmt.body.statements) }
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as InterpreterError {
            throw error
        } catch {
            for clause in doStmt.catchClauses {
                if let bindings = catchBindings(clause, error) {
                    return try await withScope {
                        for (name, value) in bindings { define(name, value) }
                        return try await execute(clause.body.statements)
                    }
                }
            }
            throw error
        }
    }

    /// Matches a `catch` clause against an error: `catch`, `catch let e as T`,
    /// `catch T.caseName`, `catch T.caseName(let context)`.
    func catchBindings(_ clause: CatchClauseSyntax, _ error: any Error) -> [(String, Value)]? {
        if clause.catchItems.isEmpty { return [("error", .error(ErrorValue(error: error)))] }
        for item in clause.catchItems {
            let text = item.pattern?.trimmedDescription ?? ""
            if text.hasPrefix("let ") || text.hasPrefix("var ") {
                let parts = text.dropFirst(4).components(separatedBy: " as ")
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                if parts.count == 1 || errorIs(error, typeName: parts[1].trimmingCharacters(in: .whitespaces)) {
                    return [(name, .error(ErrorValue(error: error)))]
                }
                continue
            }
            let head = text.split(separator: "(").first.map(String.init) ?? text
            let caseName = head.split(separator: ".").last.map(String.init) ?? head
            if errorIs(error, typeName: head) { return [] }
            guard errorMatches(error, caseName: caseName) else { continue }
            var bindings: [(String, Value)] = []
            if let open = text.firstIndex(of: "("), let payload = Self.errorPayload(error) {
                let inner = text[text.index(after: open)...].dropLast()
                let name = inner.replacingOccurrences(of: "let ", with: "").replacingOccurrences(of: "var ", with: "")
                    .trimmingCharacters(in: .whitespaces)
                if name != "_" { bindings.append((name, payload)) }
            }
            return bindings
        }
        return nil
    }

    /// What `catch X.caseName(let info)` binds: the case's payload.
    static func errorPayload(_ error: any Error) -> Value? {
        if let generation = error as? GenerationError {
            return .structure(type: "GenerationError.Context", fields: [
                (name: "debugDescription", value: .string(generation.context.debugDescription)),
            ])
        }
        if let server = error as? PrivateCloudComputeLanguageModel.Error { return Builtins.serverErrorPayload(server) }
        return nil
    }

    func errorIs(_ error: any Error, typeName: String) -> Bool {
        let last = typeName.split(separator: ".").last.map(String.init) ?? typeName
        if typeName == "LanguageModelSession.Error" { return error is SessionUsageError }
        switch last {
        case "GenerationError": return error is GenerationError
        case "LanguageModelError": return error is GenerationError || error is LanguageModelError
        case "Error" where typeName.hasSuffix("PrivateCloudComputeLanguageModel.Error"): return error is PrivateCloudComputeLanguageModel.Error
        case "ToolCallError": return error is ToolCallError
        case "Error": return true
        default:
            if let thrown = error as? ThrownValue {
                switch thrown.value {
                case .enumCase(let type, _, _), .structure(let type, _): return type == last || type.hasSuffix("." + last)
                default: return false
                }
            }
            return false
        }
    }
}
