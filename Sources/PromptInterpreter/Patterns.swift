import Evaluations
import Foundation
import FoundationModelsRuntime
import Surface
import SwiftSyntax

/// `switch`, `if case`/`for case` patterns, and `do`/`catch`.
extension Interpreter {
    func executeSwitch(_ switchExpr: SwitchExprSyntax, label: String?) async throws -> Flow {
        let subject = try await evaluate(switchExpr.subject)
        var falling = false
        for element in switchExpr.cases {
            guard case .switchCase(let switchCase) = element else { throw error("#if is not supported in prompt files", element) }
            let bindings = falling ? [] : try await caseBindings(switchCase, subject)
            guard let bindings else { continue }
            let flow = try await withScope { () -> Flow in
                for (name, value) in bindings { define(name, value) }
                return try await execute(switchCase.statements)
            }
            switch flow {
            case .fallthroughCase: falling = true; continue
            case .breakLoop(nil): return .normal
            case .breakLoop(let target?) where target == label: return .normal
            default: return flow
            }
        }
        return .normal
    }

    /// The bindings of the first case item that matches (and whose `where` holds), or nil.
    func caseBindings(_ switchCase: SwitchCaseSyntax, _ subject: Value) async throws -> [(String, Value)]? {
        guard case .case(let caseLabel) = switchCase.label else { return [] }
        for item in caseLabel.caseItems {
            guard let found = try await matches(pattern: item.pattern, subject), try await holds(item.whereClause, with: found) else { continue }
            return found
        }
        return nil
    }

    /// `switch` as a value: the last expression of the case taken.
    func switchValue(_ switchExpr: SwitchExprSyntax) async throws -> Value {
        let subject = try await evaluate(switchExpr.subject)
        for element in switchExpr.cases {
            guard case .switchCase(let switchCase) = element else { throw error("#if is not supported in prompt files", element) }
            guard let bindings = try await caseBindings(switchCase, subject) else { continue }
            return try await withScope {
                for (name, value) in bindings { define(name, value) }
                return try await lastValue(switchCase.statements)
            }
        }
        throw error("no case of the switch matched", switchExpr)
    }

    /// Matches a case pattern; returns the bindings, or nil when it does not match.
    func matches(pattern: PatternSyntax, _ value: Value) async throws -> [(String, Value)]? {
        if pattern.is(WildcardPatternSyntax.self) { return [] }
        if let binding = pattern.as(ValueBindingPatternSyntax.self) { return try await matches(pattern: binding.pattern, value) }
        if let id = pattern.as(IdentifierPatternSyntax.self) { return [(id.identifier.text, value)] }
        if let tuple = pattern.as(TuplePatternSyntax.self) {
            guard case .tuple(let items) = value, items.count == tuple.elements.count else { return nil }
            var bindings: [(String, Value)] = []
            for (element, item) in zip(tuple.elements, items) {
                guard let found = try await matches(pattern: element.pattern, item.value) else { return nil }
                bindings += found
            }
            return bindings
        }
        if let isPattern = pattern.as(IsTypePatternSyntax.self) { return valueMatches(value, isPattern.type) ? [] : nil }
        guard let expression = pattern.as(ExpressionPatternSyntax.self)?.expression else {
            throw error("this pattern is not supported in prompt files", pattern)
        }
        return try await matches(expression: expression, value)
    }

    func matches(expression: ExprSyntax, _ value: Value) async throws -> [(String, Value)]? {
        if let patternExpr = expression.as(PatternExprSyntax.self) { return try await matches(pattern: patternExpr.pattern, value) }
        if expression.is(DiscardAssignmentExprSyntax.self) { return [] }
        // `let x?`: an optional that holds a value.
        if let optional = expression.as(OptionalChainingExprSyntax.self) {
            return value.isNull ? nil : try await matches(expression: optional.expression, value)
        }
        // `let x as T`, `is T` inside expressions.
        if let cast = expression.as(AsExprSyntax.self) {
            return valueMatches(value, cast.type) ? try await matches(expression: cast.expression, value) : nil
        }
        if let tuple = expression.as(TupleExprSyntax.self), tuple.elements.count > 1 {
            guard case .tuple(let items) = value, items.count == tuple.elements.count else { return nil }
            var bindings: [(String, Value)] = []
            for (element, item) in zip(tuple.elements, items) {
                guard let found = try await matches(expression: element.expression, item.value) else { return nil }
                bindings += found
            }
            return bindings
        }
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
                value = .enumCase(type: "Transcript.Entry", name: entry.kindName, payload: [(label: nil, value: TranscriptPart.payload(of: entry))])
            }
            if case .enumCase = value {} else if name == "none" {
                return value.isNull ? [] : nil
            } else if name == "some", let payloadPatterns, let first = payloadPatterns.first {
                return value.isNull ? nil : try await matches(expression: first.expression, value)
            }
            guard case .enumCase(_, let caseName, let payload) = value else {
                if case .error(let e) = value { return try await errorCaseBindings(e.error, name, payloadPatterns, written: member.base) }
                if member.base != nil || payloadPatterns != nil { return nil }
                // A static member compared with `==` (`case .zero`).
                return Value.equal(try await memberAccess(member), value) ? [] : nil
            }
            guard caseName == name else { return nil }
            guard let payloadPatterns else { return [] }
            var bindings: [(String, Value)] = []
            if payloadPatterns.count == 1, payload.count > 1, let only = payloadPatterns.first {
                // `case .point(let pair)`: the whole payload as a tuple.
                return try await matches(expression: only.expression, .tuple(payload))
            }
            for (argument, item) in zip(payloadPatterns, payload) {
                guard let found = try await matches(expression: argument.expression, item.value) else { return nil }
                bindings += found
            }
            return bindings
        }
        // An expression pattern: ranges contain, everything else compares with ==.
        let candidate = try await evaluate(expression)
        if case .range(let lower, let upper, let closed) = candidate {
            if case .int(let i) = value { return Arithmetic.contains(lower, upper, closed: closed, i) ? [] : nil }
            if case .double(let d) = value {
                return Double(lower) <= d && (closed ? d <= Double(upper) : d < Double(upper)) ? [] : nil
            }
        }
        if case .doubleRange(let lower, let upper, let closed) = candidate, let d = value.number {
            return lower <= d && (closed ? d <= upper : d < upper) ? [] : nil
        }
        return Value.equal(candidate, value) ? [] : nil
    }

    /// Whether an expression names a value in scope (rather than a type).
    func isValueExpression(_ expr: ExprSyntax) -> Bool {
        if let ref = expr.as(DeclReferenceExprSyntax.self) { return lookup(ref.baseName.text) != nil }
        return false
    }

    /// `switch error { case .contextSizeExceeded(let info): ... }` after `catch let error as LanguageModelError`:
    /// nil when the error is not that case, else the payload's bindings.
    private func errorCaseBindings(_ error: any Error, _ name: String, _ payloadPatterns: LabeledExprListSyntax?,
                                   written: ExprSyntax?) async throws -> [(String, Value)]? {
        guard errorMatches(error, caseName: name) else { return nil }
        guard let payloadPatterns, let context = Self.errorPayload(error, caseName: name, written: written?.trimmedDescription) else { return [] }
        var payload = [context]
        if let generation = error as? GenerationError, generation.caseName == "refusal", payloadPatterns.count == 2 {
            payload.insert(Self.refusalValue(type: "LanguageModelSession.GenerationError.Refusal", entries: [],
                                             description: generation.context.debugDescription), at: 0)
        }
        var bindings: [(String, Value)] = []
        for (argument, item) in zip(payloadPatterns.suffix(payload.count), payload) {
            guard let found = try await matches(expression: argument.expression, item) else { return nil }
            bindings += found
        }
        return bindings
    }

    /// A `case` or `catch` item's `where` clause, evaluated with the pattern's bindings (true without a clause).
    func holds(_ whereClause: WhereClauseSyntax?, with bindings: [(String, Value)]) async throws -> Bool {
        guard let whereClause else { return true }
        return try await withScope { () -> Bool in
            for (name, value) in bindings { define(name, value) }
            return try await truth(whereClause.condition)
        }
    }

    func errorMatches(_ error: any Error, caseName: String) -> Bool {
        if let generation = error as? GenerationError {
            return generation.caseName == caseName || generation.languageModelErrorCaseName == caseName
        }
        if let usage = error as? SessionUsageError { return usage.caseName == caseName }
        if let model = error as? LanguageModelError { return model.caseName == caseName }
        if let server = error as? PrivateCloudComputeLanguageModel.Error { return server.caseName == caseName }
        if let results = error as? EvaluationResultsError { return results.caseName == caseName }
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
                if let bindings = try await catchBindings(clause, error) {
                    return try await withScope {
                        for (name, value) in bindings { define(name, value) }
                        return try await execute(clause.body.statements)
                    }
                }
            }
            throw error
        }
    }

    /// Matches a `catch` clause against an error. Errors thrown by prompt code
    /// match like `switch` patterns (`catch MyError.bad(let why) where ...`,
    /// `catch let e as MyError`, `catch is MyError`); FoundationModels errors
    /// by case name and type.
    func catchBindings(_ clause: CatchClauseSyntax, _ error: any Error) async throws -> [(String, Value)]? {
        let caught: Value
        if let thrown = error as? ThrownValue { caught = thrown.value } else { caught = .error(ErrorValue(error: error)) }
        if clause.catchItems.isEmpty { return [("error", caught)] }
        for item in clause.catchItems {
            guard let pattern = item.pattern else { continue }
            var found: [(String, Value)]?
            if error is ThrownValue {
                found = try await matches(pattern: pattern, caught)
            } else {
                found = foundationModelsCatch(pattern, error)
            }
            guard let bindings = found, try await holds(item.whereClause, with: bindings) else { continue }
            return bindings
        }
        return nil
    }

    /// `catch let e as GenerationError`, `catch GenerationError.someCase(let context)`, `catch is ToolCallError`.
    private func foundationModelsCatch(_ pattern: PatternSyntax, _ error: any Error) -> [(String, Value)]? {
        let text = pattern.trimmedDescription
        if text.hasPrefix("is ") { return errorIs(error, typeName: String(text.dropFirst(3))) ? [] : nil }
        if text.hasPrefix("let ") || text.hasPrefix("var ") {
            let parts = text.dropFirst(4).components(separatedBy: " as ")
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            if parts.count == 1 || errorIs(error, typeName: parts[1].trimmingCharacters(in: .whitespaces)) {
                return [(name, .error(ErrorValue(error: error)))]
            }
            return nil
        }
        let head = text.split(separator: "(").first.map(String.init) ?? text
        let caseName = head.split(separator: ".").last.map(String.init) ?? head
        if errorIs(error, typeName: head) { return [] }
        guard errorMatches(error, caseName: caseName) else { return nil }
        var bindings: [(String, Value)] = []
        if let open = text.firstIndex(of: "("), let context = Self.errorPayload(error, caseName: caseName, written: head) {
            // The payload: the context, after a Refusal for `.refusal(let refusal, let context)`.
            let names = text[text.index(after: open)...].dropLast().split(separator: ",").map {
                $0.replacingOccurrences(of: "let ", with: "").replacingOccurrences(of: "var ", with: "").trimmingCharacters(in: .whitespaces)
            }
            var payload = [context]
            if let generation = error as? GenerationError, generation.caseName == "refusal" {
                payload.insert(Self.refusalValue(type: "LanguageModelSession.GenerationError.Refusal", entries: [],
                                                 description: generation.context.debugDescription), at: 0)
            }
            for (name, value) in zip(names, payload.suffix(names.count)) where name != "_" { bindings.append((name, value)) }
        }
        return bindings
    }

    /// What `catch X.caseName(let info)` binds: the case's payload. A GenerationError caught as a
    /// `LanguageModelError` case (by the written type, or by a case name only 27.0 has) carries that case's
    /// payload type (`LanguageModelError.ContextSizeExceeded` with contextSize and tokenCount).
    static func errorPayload(_ error: any Error, caseName: String, written: String?) -> Value? {
        if let generation = error as? GenerationError {
            let context = generation.context
            let asLanguageModelError = written?.contains("LanguageModelError") == true
                || (generation.caseName != caseName && generation.languageModelErrorCaseName == caseName)
            if written?.hasPrefix("SystemLanguageModel.Error") == true {
                return .structure(type: "SystemLanguageModel.Error.AssetsUnavailable", fields: [(name: "debugDescription", value: .string(context.debugDescription))])
            }
            guard asLanguageModelError, let name = generation.languageModelErrorCaseName else {
                return .structure(type: "GenerationError.Context", fields: [(name: "debugDescription", value: .string(context.debugDescription))])
            }
            var fields: [(name: String, value: Value)] = [(name: "debugDescription", value: .string(context.debugDescription))]
            if name == "contextSizeExceeded" {
                fields += [(name: "contextSize", value: .int(context.contextSize ?? 0)), (name: "tokenCount", value: .int(context.tokenCount ?? 0))]
            }
            if name == "rateLimited" { fields.append((name: "resetDate", value: .null)) }
            return .structure(type: "LanguageModelError." + name.prefix(1).uppercased() + name.dropFirst(), fields: fields)
        }
        if let model = error as? LanguageModelError, case .unsupportedCapability(let capability, _) = model {
            return .structure(type: "LanguageModelError.UnsupportedCapability", fields: [
                (name: "debugDescription", value: .string(model.description)),
                (name: "capability", value: .enumCase(type: "LanguageModelCapabilities.Capability", name: capability, payload: [])),
            ])
        }
        if let server = error as? PrivateCloudComputeLanguageModel.Error { return serverErrorPayload(server) }
        return nil
    }

    /// The payload a `catch PrivateCloudComputeLanguageModel.Error.x(let info)` binds.
    static func serverErrorPayload(_ error: PrivateCloudComputeLanguageModel.Error) -> Value {
        switch error {
        case .quotaLimitReached(let info):
            return .structure(type: "PrivateCloudComputeLanguageModel.Error.QuotaLimitReached", fields: [
                (name: "debugDescription", value: .string(info.debugDescription)),
                (name: "resetDate", value: info.resetDate.map { .date($0.timeIntervalSince1970) } ?? .null),
                (name: "limitIncreaseSuggestion", value: .null),
            ])
        case .networkFailure(let context):
            return .structure(type: "PrivateCloudComputeLanguageModel.Error.NetworkFailure", fields: [
                (name: "debugDescription", value: .string(context.debugDescription)),
            ])
        case .serviceUnavailable(let context):
            return .structure(type: "PrivateCloudComputeLanguageModel.Error.ServiceUnavailable", fields: [
                (name: "debugDescription", value: .string(context.debugDescription)),
            ])
        }
    }

    func errorIs(_ error: any Error, typeName: String) -> Bool {
        let last = typeName.split(separator: ".").last.map(String.init) ?? typeName
        // A framework error prompt code built and threw (`throw LanguageModelError.rateLimited(.init(...))`).
        if let thrown = error as? ThrownValue, case .enumCase(let type, _, _) = thrown.value, Surface.table.type(named: type) != nil {
            return typeName == "Error" || type == typeName || type.hasSuffix("." + typeName)
        }
        if typeName == "LanguageModelSession.Error" { return error is SessionUsageError }
        // 27.0 moved `assetsUnavailable` from GenerationError to SystemLanguageModel.Error.
        if typeName == "SystemLanguageModel.Error" { return (error as? GenerationError)?.caseName == "assetsUnavailable" }
        switch last {
        case "GenerationError": return error is GenerationError
        case "LanguageModelError": return (error as? GenerationError)?.languageModelErrorCaseName != nil || error is LanguageModelError
        case "Error" where typeName.hasSuffix("PrivateCloudComputeLanguageModel.Error"): return error is PrivateCloudComputeLanguageModel.Error
        case "ToolCallError": return error is ToolCallError
        case "EvaluationResultsError": return error is EvaluationResultsError
        case "Error": return true
        default:
            if let thrown = error as? ThrownValue {
                switch thrown.value {
                case .enumCase(let type, _, _), .structure(let type, _): return type == last || type.hasSuffix("." + last)
                case .object(let box): return box.type == last || box.type.hasSuffix("." + last)
                default: return false
                }
            }
            return false
        }
    }
}
