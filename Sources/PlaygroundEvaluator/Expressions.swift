import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
@_spi(Compiler) import SwiftParser
import Surface
import SwiftSyntax

extension Interpreter {
    func evaluate(_ expr: ExprSyntax) async throws -> Value {
        try budget.step(expr)
        try budget.enter(expr)
        defer { budget.leave() }
        if let e = expr.as(TryExprSyntax.self) {
            if e.questionOrExclamationMark?.tokenKind == .postfixQuestionMark {
                do { return try await evaluate(e.expression) } catch is CancellationError { throw CancellationError() } catch let e as InterpreterError { throw e } catch { return .null }
            }
            return try await evaluate(e.expression)
        }
        if let e = expr.as(AwaitExprSyntax.self) { return try await evaluate(e.expression) }
        if let e = expr.as(StringLiteralExprSyntax.self) { return .string(try await string(e)) }
        if let e = expr.as(IntegerLiteralExprSyntax.self) {
            guard let v = e.representedLiteralValue else {
                throw error("integer literal '\(e.literal.text)' overflows when stored into 'Int' (\(Int.min)...\(Int.max))", e)
            }
            return .int(v)
        }
        if let e = expr.as(FloatLiteralExprSyntax.self) {
            guard let v = e.representedLiteralValue else { throw error("invalid number literal", e) }
            return .double(v)
        }
        if let e = expr.as(BooleanLiteralExprSyntax.self) { return .bool(e.literal.tokenKind == .keyword(.true)) }
        if expr.is(NilLiteralExprSyntax.self) { return .null }
        if let e = expr.as(ArrayExprSyntax.self) {
            var values: [Value] = []
            for element in e.elements { values.append(try await evaluate(element.expression)) }
            if values.contains(where: \.isContainer) { try budget.value(.array(values), e) }
            return .array(values)
        }
        if let e = expr.as(DictionaryExprSyntax.self) {
            guard case .elements(let elements) = e.content else { return .dictionary([]) }
            var pairs: [(key: Value, value: Value)] = []
            for element in elements {
                let key = try await evaluate(element.key)
                let value = try await evaluate(element.value)
                if let index = pairs.firstIndex(where: { Value.equal($0.key, key) }) { pairs[index].value = value } else { pairs.append((key, value)) }
            }
            if pairs.contains(where: { $0.key.isContainer || $0.value.isContainer }) { try budget.value(.dictionary(pairs), e) }
            return .dictionary(pairs)
        }
        if let e = expr.as(TupleExprSyntax.self) {
            if e.elements.count == 1, e.elements.first!.label == nil { return try await evaluate(e.elements.first!.expression) }
            var items: [(label: String?, value: Value)] = []
            for element in e.elements { items.append((element.label?.text, try await evaluate(element.expression))) }
            if items.contains(where: { $0.value.isContainer }) { try budget.value(.tuple(items), e) }
            return .tuple(items)
        }
        if let e = expr.as(DeclReferenceExprSyntax.self) { return try reference(e) }
        if let e = expr.as(MemberAccessExprSyntax.self) { return try await memberAccess(e) }
        if let e = expr.as(FunctionCallExprSyntax.self) { return try await call(e) }
        if let e = expr.as(InfixOperatorExprSyntax.self) { return try await infix(e) }
        if let e = expr.as(PrefixOperatorExprSyntax.self) {
            // `-9223372036854775808` is Int.min: the minus belongs to the literal, as in Swift.
            if e.operator.text == "-", let literal = e.expression.as(IntegerLiteralExprSyntax.self),
               let value = Int("-" + literal.literal.text.replacingOccurrences(of: "_", with: "")) {
                return .int(value)
            }
            let operand = try await evaluate(e.expression)
            switch (e.operator.text, operand) {
            case ("!", .bool(let b)): return .bool(!b)
            case ("-", .int(let i)): return .int(try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.negate(i) })
            case ("-", .double(let d)): return .double(-d)
            case ("..<", .int(let upper)): return .range(lower: 0, upper: upper, closed: false)
            default: throw error("operator '\(e.operator.text)' cannot be applied to \(operand.description)", e)
            }
        }
        if let e = expr.as(PostfixOperatorExprSyntax.self), e.operator.text == "..." {
            // A one-sided range `i...` (as a subscript: through the end).
            guard case .int(let lower) = try await evaluate(e.expression) else { throw error("a range needs an integer bound", e) }
            return .range(lower: lower, upper: Int.max, closed: false)
        }
        if let e = expr.as(TernaryExprSyntax.self) {
            return try await truth(e.condition) ? try await evaluate(e.thenExpression) : try await evaluate(e.elseExpression)
        }
        if let e = expr.as(OptionalChainingExprSyntax.self) { return try await evaluate(e.expression) }
        if let e = expr.as(ForceUnwrapExprSyntax.self) {
            let value = try await evaluate(e.expression)
            if value.isNull { throw error("unexpectedly found nil while unwrapping an Optional value", e) }
            return value
        }
        if let e = expr.as(SubscriptCallExprSyntax.self) { return try await subscriptValue(e) }
        if let e = expr.as(IfExprSyntax.self) {
            // `if` as an expression: the value of the last expression of the taken branch.
            return try await withScope {
                if try await conditionsHold(e.conditions) { return try await lastValue(e.body.statements) }
                switch e.elseBody {
                case .ifExpr(let next): return try await evaluate(ExprSyntax(next))
                case .codeBlock(let block): return try await lastValue(block.statements)
                case nil: return .null
                }
            }
        }
        if let e = expr.as(AsExprSyntax.self) {
            let value = try await evaluate(e.expression)
            switch e.questionOrExclamationMark?.tokenKind {
            case .postfixQuestionMark?: return valueMatches(value, e.type) ? value : .null
            case .exclamationMark?:
                if valueMatches(value, e.type) { return value }
                throw error("could not cast value of type '\(value.typeDescription)' to '\(e.type.trimmedDescription)'", e)
            default:
                // `2 as Double`: a literal takes the written type.
                if case .int(let i) = value, ["Double", "Float"].contains(e.type.trimmedDescription) { return .double(Double(i)) }
                return value
            }
        }
        if let e = expr.as(IsExprSyntax.self) { return .bool(valueMatches(try await evaluate(e.expression), e.type)) }
        if let e = expr.as(SequenceExprSyntax.self) { throw error("internal: unfolded operator sequence", e) }
        if let e = expr.as(MacroExpansionExprSyntax.self), ["expect", "require"].contains(e.macroName.text) { return try await expectation(e) }
        throw error("'\(expr.trimmedDescription.prefix(40))' is not supported in prompt files", expr)
    }

    func lastValue(_ items: CodeBlockItemListSyntax) async throws -> Value {
        var last: Value = .null
        for item in items {
            if case .expr(let e) = item.item { last = try await evaluate(e) } else { _ = try await execute(item) }
        }
        return last
    }

    /// A string literal, interpolations evaluated.
    func string(_ literal: StringLiteralExprSyntax) async throws -> String {
        guard let kind = literal.stringLiteralKind, !literal.hasError else { throw error("invalid string literal", literal) }
        var result = ""
        for segment in literal.segments {
            switch segment {
            case .stringSegment(let s):
                s.appendUnescapedLiteralValue(stringLiteralKind: kind, delimiterLength: literal.delimiterLength, to: &result)
            case .expressionSegment(let s):
                guard let first = s.expressions.first else { continue }
                let value = try await evaluate(first.expression)
                if value.isContainer { try budget.value(value, first.expression, rendered: true) }
                let text = value.description
                try budget.string(bytes: result.utf8.count + text.utf8.count, literal)
                result += text
            }
        }
        return result
    }

    func reference(_ e: DeclReferenceExprSyntax) throws -> Value {
        let name = e.baseName.text
        if let value = lookup(name) {
            if case .sessionProperty(let key) = value { return try readSessionProperty(key, e) }
            return value
        }
        if name == "self", let value = lookup("self") { return value }
        if context.file.resolveType(name, in: nil) != nil || Surface.table.type(named: name) != nil
            || Interpreter.evaluationsTypes.contains(name) { return .type(name) }
        throw error("cannot find '\(name)' in scope", e)
    }


    func subscriptValue(_ e: SubscriptCallExprSyntax) async throws -> Value {
        let base = try await evaluate(e.calledExpression)
        if let value = try await evaluationsSubscript(base, e) { return value }
        guard let argument = e.arguments.first else { throw error("a subscript needs an index", e) }
        let index = try await evaluate(argument.expression)
        switch (base, index) {
        case (.array(let a), .range(let lower, let upper, _)):
            // `a[i...]` reaches here with an open upper bound.
            let end = upper == Int.max ? a.count : upper
            guard lower >= 0, lower <= end, end <= a.count else { throw error("range \(lower)..<\(end) is out of bounds (count \(a.count))", e) }
            return .array(Array(a[lower..<end]))
        case (.array(let a), .int(let i)):
            return a[try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.index(i, count: a.count) }]
        case (.dictionary(let pairs), _):
            return pairs.first { Value.equal($0.key, index) }?.value ?? .null
        case (.content(let c), .string(let key)): return c[key].map(Value.content) ?? .null
        case (.content(let c), .int(let i)): return c.arrayValue.flatMap { $0.indices.contains(i) ? .content($0[i]) : nil } ?? .null
        case (.transcript(let t), .int(let i)):
            return .transcriptEntry(t[try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.index(i, count: t.count) }])
        default: throw error("cannot subscript \(base.description.prefix(30))", e)
        }
    }

    // MARK: Operators

    func infix(_ e: InfixOperatorExprSyntax) async throws -> Value {
        if e.operator.is(AssignmentExprSyntax.self) {
            let value = try await evaluate(e.rightOperand)
            try await assign(to: e.leftOperand, value)
            return .null
        }
        let op = e.operator.as(BinaryOperatorExprSyntax.self)?.operator.text ?? e.operator.trimmedDescription
        if op == "&&" { return .bool(try await truth(e.leftOperand) ? try await truth(e.rightOperand) : false) }
        if op == "||" { return .bool(try await truth(e.leftOperand) ? true : try await truth(e.rightOperand)) }
        let left = try await evaluate(e.leftOperand)
        if op == "??" { return left.isNull ? try await evaluate(e.rightOperand) : left }
        let right = try await evaluate(e.rightOperand)
        if ["+=", "-=", "*=", "/="].contains(op) {
            let result = try arithmetic(String(op.dropLast()), left, right, e)
            try await assign(to: e.leftOperand, result)
            return .null
        }
        if op == "==" || op == "!=" {
            // Comparing walks both values: bounded like printing them.
            if left.isContainer { try budget.value(left, e, rendered: true) }
            if right.isContainer { try budget.value(right, e, rendered: true) }
        }
        switch op {
        case "==": return .bool(Value.equal(left, right))
        case "!=": return .bool(!Value.equal(left, right))
        case "<", ">", "<=", ">=":
            guard let ordered = Value.compare(left, right) else { throw error("cannot compare \(left.description) and \(right.description)", e) }
            switch op {
            case "<": return .bool(ordered < 0)
            case ">": return .bool(ordered > 0)
            case "<=": return .bool(ordered <= 0)
            default: return .bool(ordered >= 0)
            }
        case "..<", "...":
            guard case .int(let lower) = left, case .int(let upper) = right else { throw error("ranges need integer bounds", e) }
            let closed = op == "..."
            try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.range(lower, upper, closed: closed) }
            return .range(lower: lower, upper: upper, closed: closed)
        default:
            return try arithmetic(op, left, right, e)
        }
    }

    func arithmetic(_ op: String, _ left: Value, _ right: Value, _ node: some SyntaxProtocol) throws -> Value {
        switch (op, left, right) {
        case ("+", .string(let a), .string(let b)):
            try budget.string(bytes: a.utf8.count + b.utf8.count, node)
            return .string(a + b)
        case ("+", .array(let a), .array(let b)):
            try budget.allocate(elements: a.count + b.count, node)
            return .array(a + b)
        case (_, .int(let a), .int(let b)) where Arithmetic.integerOperators.contains(op):
            return .int(try checked(node) { () throws(Arithmetic.Failure) in try Arithmetic.binary(op, a, b) })
        default: break
        }
        if let a = left.number, let b = right.number, let result = Arithmetic.binary(op, a, b) { return .double(result) }
        throw error("operator '\(op)' cannot be applied to \(left.description.prefix(30)) and \(right.description.prefix(30))", node)
    }

    func assign(to target: ExprSyntax, _ value: Value) async throws {
        if let ref = target.as(DeclReferenceExprSyntax.self) { return try assign(ref.baseName.text, value, at: ref) }
        if let member = target.as(MemberAccessExprSyntax.self), let baseExpr = member.base {
            let name = member.declName.baseName.text
            switch try await evaluate(baseExpr) {
            case .object(let box):
                // A class instance changes in place: every holder sees the new value.
                guard let index = box.fields.firstIndex(where: { $0.name == name }) else { throw error("\(box.type) has no property '\(name)'", member) }
                box.fields[index].value = value
                return
            case .session(let session) where name == "transcript":
                guard case .transcript(let transcript) = value else { throw error("session.transcript must be set to a Transcript", member) }
                session.transcript = transcript
                return
            case .session(let session) where name == "transcriptErrorHandlingPolicy":
                session.transcriptErrorHandlingPolicy = value.isNull ? nil : try errorPolicy(value, member)
                return
            default: break
            }
        }
        if target.is(DiscardAssignmentExprSyntax.self) { return }
        if let member = target.as(MemberAccessExprSyntax.self), let base = member.base?.as(DeclReferenceExprSyntax.self),
           case .structure(let type, var fields) = try reference(base) {
            let name = member.declName.baseName.text
            guard let index = fields.firstIndex(where: { $0.name == name }) else { throw error("\(type) has no property '\(name)'", member) }
            fields[index].value = value
            return try assign(base.baseName.text, .structure(type: type, fields: fields), at: base)
        }
        if let sub = target.as(SubscriptCallExprSyntax.self), let base = sub.calledExpression.as(DeclReferenceExprSyntax.self),
           let argument = sub.arguments.first {
            let index = try await evaluate(argument.expression)
            if value.isContainer { try budget.value(value, sub) }
            switch try reference(base) {
            case .array(var a):
                guard case .int(let i) = index else { throw error("an array index must be an Int", sub) }
                a[try checked(sub) { () throws(Arithmetic.Failure) in try Arithmetic.index(i, count: a.count) }] = value
                return try assign(base.baseName.text, .array(a), at: base)
            case .dictionary(var pairs):
                // `dict[key] = nil` removes the key, as in Swift.
                let existing = pairs.firstIndex { Value.equal($0.key, index) }
                if value.isNull {
                    if let existing { pairs.remove(at: existing) }
                } else if let existing { pairs[existing].value = value } else { pairs.append((index, value)) }
                return try assign(base.baseName.text, .dictionary(pairs), at: base)
            default: break
            }
        }
        throw error("cannot assign to '\(target.trimmedDescription)'", target)
    }
}

extension Value {
    var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        case .content(let c): c.numberValue
        default: nil
        }
    }

    var stringValue: String? {
        switch self {
        case .string(let s): s
        case .content(let c): c.stringValue
        default: nil
        }
    }

    static func equal(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.string, _), (_, .string): return a.stringValue != nil && a.stringValue == b.stringValue
        case (.int(let x), .int(let y)): return x == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.tuple(let x), .tuple(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0.value, $1.value) }
        case (.enumCase(_, let n1, let p1), .enumCase(_, let n2, let p2)):
            return n1 == n2 && p1.count == p2.count && zip(p1, p2).allSatisfy { equal($0.value, $1.value) }
        case (.structure(let t1, let f1), .structure(let t2, let f2)):
            return t1 == t2 && f1.count == f2.count && zip(f1, f2).allSatisfy { $0.name == $1.name && equal($0.value, $1.value) }
        case (.content(let x), .content(let y)): return x == y
        case (.useCase(let x), .useCase(let y)): return x == y
        case (.toolCallingMode(let x), .toolCallingMode(let y)): return x == y
        default:
            if let x = a.number, let y = b.number { return x == y }
            return false
        }
    }

    /// -1, 0, 1, or nil when the values do not order.
    static func compare(_ a: Value, _ b: Value) -> Int? {
        if let x = a.number, let y = b.number { return x < y ? -1 : (x > y ? 1 : 0) }
        if let x = a.stringValue, let y = b.stringValue { return x < y ? -1 : (x > y ? 1 : 0) }
        return nil
    }
}
