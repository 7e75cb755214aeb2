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
        if let e = expr.as(ArrayExprSyntax.self) { return try await arrayLiteral(e) }
        if let e = expr.as(DictionaryExprSyntax.self) { return try await dictionaryLiteral(e) }
        if let e = expr.as(TupleExprSyntax.self) { return try await tupleValue(e) }
        if let e = expr.as(DeclReferenceExprSyntax.self) { return try await reference(e) }
        if let e = expr.as(ClosureExprSyntax.self) { return .function(makeClosure(e)) }
        if let e = expr.as(KeyPathExprSyntax.self) { return .function(try keyPathFunction(e)) }
        if expr.is(SuperExprSyntax.self) { return lookup("self") ?? .null }
        if let e = expr.as(MemberAccessExprSyntax.self) { return try await memberAccess(e) }
        if let e = expr.as(FunctionCallExprSyntax.self) { return try await call(e) }
        if let e = expr.as(InfixOperatorExprSyntax.self) { return try await infix(e) }
        if let e = expr.as(PrefixOperatorExprSyntax.self) { return try await prefixOperation(e) }
        if let e = expr.as(PostfixOperatorExprSyntax.self) {
            // A one-sided range `i...` (as a subscript: through the end).
            guard e.operator.text == "...", case .int(let lower) = try await evaluate(e.expression) else {
                throw error("the postfix operator '\(e.operator.text)' is not supported", e)
            }
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
        if let e = expr.as(IfExprSyntax.self) { return try await ifValue(e) }
        if let e = expr.as(SwitchExprSyntax.self) { return try await switchValue(e) }
        if let e = expr.as(AsExprSyntax.self) { return try await cast(e) }
        if let e = expr.as(IsExprSyntax.self) { return .bool(valueMatches(try await evaluate(e.expression), e.type)) }
        if let e = expr.as(SequenceExprSyntax.self) { throw error("internal: unfolded operator sequence", e) }
        if let e = expr.as(MacroExpansionExprSyntax.self), ["expect", "require"].contains(e.macroName.text) { return try await expectation(e) }
        throw error("'\(expr.trimmedDescription.prefix(40))' is not supported in prompt files", expr)
    }

    /// `[a, b]` (within the memory budget).
    func arrayLiteral(_ e: ArrayExprSyntax) async throws -> Value {
        var values: [Value] = []
        for element in e.elements { values.append(try await evaluate(element.expression)) }
        if values.contains(where: \.isContainer) { try budget.value(.array(values), e) }
        return .array(values)
    }

    /// `[k: v]` in written order; a repeated key keeps its first place and its last value.
    func dictionaryLiteral(_ e: DictionaryExprSyntax) async throws -> Value {
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

    /// `(a, b)`, `(label: x)`; a parenthesized expression is its value.
    func tupleValue(_ e: TupleExprSyntax) async throws -> Value {
        if e.elements.count == 1, e.elements.first!.label == nil { return try await evaluate(e.elements.first!.expression) }
        var items: [(label: String?, value: Value)] = []
        for element in e.elements { items.append((element.label?.text, try await evaluate(element.expression))) }
        if items.contains(where: { $0.value.isContainer }) { try budget.value(.tuple(items), e) }
        return .tuple(items)
    }

    /// `!b`, `-x`, `~i`, `..<n`, `...n`.
    func prefixOperation(_ e: PrefixOperatorExprSyntax) async throws -> Value {
        // `-9223372036854775808` is Int.min: the minus belongs to the literal, as in Swift.
        if e.operator.text == "-", let literal = e.expression.as(IntegerLiteralExprSyntax.self),
           let value = Int("-" + literal.literal.text.replacingOccurrences(of: "_", with: "")) {
            return .int(value)
        }
        let operand = try await evaluate(e.expression)
        switch (e.operator.text, operand) {
        case ("!", .bool(let b)): return .bool(!b)
        case ("..<", .int(let i)): return .range(lower: Int.min, upper: i, closed: false)
        case ("...", .int(let i)): return .range(lower: Int.min, upper: i, closed: true)
        case ("~", .int(let i)): return .int(~i)
        case ("-", .int(let i)): return .int(try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.negate(i) })
        case ("-", .double(let d)): return .double(-d)
        case ("..<", .int(let upper)): return .range(lower: 0, upper: upper, closed: false)
        default: throw error("operator '\(e.operator.text)' cannot be applied to \(operand.description)", e)
        }
    }

    /// `if` as an expression: the value of the last expression of the taken branch.
    func ifValue(_ e: IfExprSyntax) async throws -> Value {
        try await withScope {
            if try await conditionsHold(e.conditions) { return try await lastValue(e.body.statements) }
            switch e.elseBody {
            case .ifExpr(let next): return try await evaluate(ExprSyntax(next))
            case .codeBlock(let block): return try await lastValue(block.statements)
            case nil: return .null
            }
        }
    }

    /// `as?` (nil on mismatch), `as!` (a runtime error on mismatch) and `as`.
    func cast(_ e: AsExprSyntax) async throws -> Value {
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
                let text = try await text(value)
                try budget.string(bytes: result.utf8.count + text.utf8.count, literal)
                result += text
            }
        }
        return result
    }

    /// A name: locals, then members of `self` (implicit self), the file's constants,
    /// static members of the current type, functions, types, operators as functions.
    func reference(_ e: DeclReferenceExprSyntax) async throws -> Value {
        let name = e.baseName.text
        if let cell = lookupLocalCell(name) {
            if case .sessionProperty(let key) = cell.value { return try readSessionProperty(key, e) }
            return cell.value
        }
        if name == "self", let value = lookup("self") { return value }
        if name == "Self", let type = currentTypeName { return .type(type) }
        if let selfCell = lookupCell("self"), hasMember(selfCell.value, name),
           let value = try await userMember(name, of: selfCell.value, e) {
            return value
        }
        if let value = lookup(name) {
            if case .sessionProperty(let key) = value { return try readSessionProperty(key, e) }
            return value
        }
        if let type = currentTypeName, let value = try await userStaticMember(name, of: type, e) { return value }
        if let decls = types.functions[name] {
            return .function(makeFunction(decls[0], captured: [globalScope], selfCell: nil, typeName: nil))
        }
        if context.file.resolveType(name, in: nil) != nil || types.type(name) != nil || Interpreter.knownTypes.contains(name)
            || Surface.table.type(named: name) != nil { return .type(name) }
        if let function = operatorFunction(name) { return .function(function) }
        // Implicit `self` for a built-in member: `rawValue` in an enum's own members, `count` in an extension of String.
        if let selfCell = lookupCell("self"), !name.isEmpty, name.first?.isLowercase == true,
           let value = try? await member(name, of: selfCell.value, e) {
            return value
        }
        throw error("cannot find '\(name)' in scope", e)
    }

    /// `<`, `+`... passed as functions (`sorted(by: <)`, `reduce(0, +)`).
    func operatorFunction(_ name: String) -> FunctionValue? {
        guard ["<", ">", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "&&", "||"].contains(name) else { return nil }
        return FunctionValue.native(name, arity: 2) { [unowned self] values in
            if values.count == 2 { return try await self.binary(name, values[0], values[1], nil) }
            // One value: a pair (`zip(a, b).map(+)`, `.allSatisfy(==)`), or `-` as a prefix function (`map(-)`).
            if values.count == 1, case .tuple(let pair) = values[0], pair.count == 2 {
                return try await self.binary(name, pair[0].value, pair[1].value, nil)
            }
            switch (name, values.first) {
            case ("-", .int(let i)?): return .int(try self.checked(self.currentNode) { () throws(Arithmetic.Failure) in try Arithmetic.negate(i) })
            case ("-", .double(let d)?): return .double(-d)
            default: throw self.error("the operator '\(name)' takes two values here, not \(values.count)", self.currentNode)
            }
        }
    }

    static var knownTypes: Set<String> { SupportedSwiftChecker.standardTypes }

    func subscriptValue(_ e: SubscriptCallExprSyntax) async throws -> Value {
        let base = try await evaluate(e.calledExpression)
        if let value = try await evaluationsSubscript(base, e) { return value }
        guard let argument = e.arguments.first else { throw error("a subscript needs an index", e) }
        let index = try await evaluate(argument.expression)
        switch (base, index) {
        case (.array(let a), .range(let lower, let upper, let closed)):
            // `a[i...]` reaches here with an open upper bound, `a[..<n]` and `a[...n]` with an open lower one.
            let start = lower == Int.min ? 0 : lower
            let end = upper == Int.max ? a.count : (closed ? upper + 1 : upper)
            guard start >= 0, start <= end, end <= a.count else {
                throw error("range \(start)\(closed && upper != Int.max ? "..." : "..<")\(closed && upper != Int.max ? upper : end) is out of bounds (count \(a.count))", e)
            }
            return .array(Array(a[start..<end]))
        case (.array(let a), .int(let i)):
            return a[try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.index(i, count: a.count) }]
        case (.dictionary(let pairs), _):
            if let found = pairs.first(where: { Value.equal($0.key, index) }) { return found.value }
            if let fallback = e.arguments.dropFirst().first(where: { $0.label?.text == "default" }) { return try await evaluate(fallback.expression) }
            return .null
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
        if Self.compoundOperators.contains(op) {
            let right = try await evaluate(e.rightOperand)
            try await modify(e.leftOperand) { value in value = try await binary(String(op.dropLast()), value, right, e) }
            return .null
        }
        let left = try await evaluate(e.leftOperand)
        if op == "??" { return left.isNull ? try await evaluate(e.rightOperand) : left }
        // `variant == .core3`: an implicit member on the right is the left value's type's member, as Swift infers it.
        if op == "==" || op == "!=", let type = left.surfaceTypeName {
            return try await binary(op, left, try await evaluate(e.rightOperand, expecting: type), e)
        }
        let right = try await evaluate(e.rightOperand)
        return try await binary(op, left, right, e)
    }

    static let compoundOperators: Set<String> = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "&+=", "&-=", "&*="]

    /// A binary operator on two values; user types' own operators (`static func <`) first.
    func binary(_ op: String, _ left: Value, _ right: Value, _ node: InfixOperatorExprSyntax?) async throws -> Value {
        let at: Syntax = node.map { Syntax($0) } ?? currentNode
        if let type = typeName(of: left), types.type(type) != nil, let method = findMethod(op, in: type, isStatic: true) {
            let args = [CallArgument(label: nil, value: left), CallArgument(label: nil, value: right)]
            return try await invokeDeclared(method.decls, selfCell: Cell(.type(type)), typeName: type, args, at: at)
        }
        if op == "==" || op == "!=" {
            // Comparing walks both values: bounded like printing them.
            if left.isContainer { try budget.value(left, at, rendered: true) }
            if right.isContainer { try budget.value(right, at, rendered: true) }
        }
        switch op {
        case "==": return .bool(try await equal(left, right))
        case "!=": return .bool(!(try await equal(left, right)))
        case "===", "!==":
            guard case .object(let a) = left, case .object(let b) = right else { return .bool((op == "===") == (left.isNull && right.isNull)) }
            return .bool((a === b) == (op == "==="))
        case "<", ">", "<=", ">=":
            guard let ordered = try await compare(left, right) else {
                throw error("cannot compare \(left.description.prefix(30)) and \(right.description.prefix(30))", at)
            }
            switch op {
            case "<": return .bool(ordered < 0)
            case ">": return .bool(ordered > 0)
            case "<=": return .bool(ordered <= 0)
            default: return .bool(ordered >= 0)
            }
        case "..<", "...":
            if case .int(let lower) = left, case .int(let upper) = right {
                let closed = op == "..."
                try checked(at) { () throws(Arithmetic.Failure) in try Arithmetic.range(lower, upper, closed: closed) }
                return .range(lower: lower, upper: upper, closed: closed)
            }
            guard let lower = left.number, let upper = right.number else {
                if case .string = left, case .string = right { return .tuple([(label: "lowerBound", value: left), (label: "upperBound", value: right)]) }
                throw error("ranges need number bounds", at)
            }
            if lower > upper { throw error("range requires lowerBound <= upperBound", at) }
            return .doubleRange(lower: lower, upper: upper, closed: op == "...")
        default:
            return try arithmetic(op, left, right, at)
        }
    }

    /// The node of the statement running (for errors of operators called as functions).
    var currentNode: Syntax { Syntax(TokenSyntax.identifier("")) }

    /// `==` with user `static func ==` for nested values too (`[Point]` compares with the elements' `==`).
    func equal(_ left: Value, _ right: Value) async throws -> Bool {
        if let type = typeName(of: left), types.type(type) != nil, let method = findMethod("==", in: type, isStatic: true) {
            let args = [CallArgument(label: nil, value: left), CallArgument(label: nil, value: right)]
            if case .bool(let b) = try await invokeDeclared(method.decls, selfCell: Cell(.type(type)), typeName: type, args, at: currentNode) { return b }
        }
        if case .object(let a) = left, case .object(let b) = right, a === b { return true }
        return Value.equal(left, right)
    }

    /// Ordering with user `static func <` (Comparable types), else the built-in order.
    package func compare(_ left: Value, _ right: Value) async throws -> Int? {
        if let type = typeName(of: left), types.type(type) != nil, let method = findMethod("<", in: type, isStatic: true) {
            let call = { (a: Value, b: Value) async throws -> Bool in
                let args = [CallArgument(label: nil, value: a), CallArgument(label: nil, value: b)]
                if case .bool(let r) = try await self.invokeDeclared(method.decls, selfCell: Cell(.type(type)), typeName: type, args, at: self.currentNode) {
                    return r
                }
                return false
            }
            if try await call(left, right) { return -1 }
            return try await call(right, left) ? 1 : 0
        }
        if case .enumCase(let type, let a, _) = left, case .enumCase(_, let b, _) = right, let info = types.type(type), info.conformances.contains("Comparable") {
            let ia = info.cases.firstIndex { $0.name == a } ?? 0
            let ib = info.cases.firstIndex { $0.name == b } ?? 0
            return ia < ib ? -1 : (ia > ib ? 1 : 0)
        }
        if case .tuple(let a) = left, case .tuple(let b) = right {
            for (x, y) in zip(a, b) {
                guard let order = try await compare(x.value, y.value) else { return nil }
                if order != 0 { return order }
            }
            return 0
        }
        return Value.compare(left, right)
    }

    func arithmetic(_ op: String, _ left: Value, _ right: Value, _ node: some SyntaxProtocol) throws -> Value {
        switch (op, left, right) {
        case ("+", .string(let a), .string(let b)):
            try budget.string(bytes: a.utf8.count + b.utf8.count, node)
            return .string(a + b)
        case ("+", .array(let a), .array(let b)):
            try budget.allocate(elements: a.count + b.count, node)
            return .array(a + b)
        case ("+", .data(let a), .data(let b)):  // Data is a collection of bytes: `feedback1 + feedback2`
            try budget.string(bytes: a.count + b.count, node)
            return .data(a + b)
        case ("&&", .bool(let a), .bool(let b)): return .bool(a && b)
        case ("||", .bool(let a), .bool(let b)): return .bool(a || b)
        case (_, .int(let a), .int(let b)) where Arithmetic.integerOperators.contains(op):
            return .int(try checked(node) { () throws(Arithmetic.Failure) in try Arithmetic.binary(op, a, b) })
        case (_, .int(let a), .int(let b)):
            switch op {
            case "&": return .int(a & b)
            case "|": return .int(a | b)
            case "^": return .int(a ^ b)
            case "<<": return .int(a << b)
            case ">>": return .int(a >> b)
            case "&+": return .int(a &+ b)
            case "&-": return .int(a &- b)
            case "&*": return .int(a &* b)
            default: break
            }
        default: break
        }
        if let a = left.number, let b = right.number, let result = Arithmetic.binary(op, a, b) { return .double(result) }
        throw error("operator '\(op)' cannot be applied to \(left.description.prefix(30)) and \(right.description.prefix(30))", node)
    }

}

extension Value {
    package var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        case .content(let c): c.numberValue
        default: nil
        }
    }

    package var stringValue: String? {
        switch self {
        case .string(let s): s
        case .content(let c): c.stringValue
        default: nil
        }
    }

    package static func equal(_ a: Value, _ b: Value) -> Bool {
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
        case (.type(let x), .type(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.set(let x), .set(let y)), (.set(let x), .array(let y)), (.array(let x), .set(let y)):
            // A set compared with an array literal: the literal is a Set (`set == [2, 1]`).
            let unique = y.reduce(into: [Value]()) { found, item in if !found.contains(where: { equal($0, item) }) { found.append(item) } }
            return x.count == unique.count && x.allSatisfy { item in unique.contains { equal($0, item) } }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && x.allSatisfy { pair in y.contains { equal($0.key, pair.key) && equal($0.value, pair.value) } }
        case (.toolCallingMode(let x), .toolCallingMode(let y)): return x == y
        // A case of the file's own enum named like a framework static (`Theme.light == .light`): the implicit
        // member without a context type was read as the framework's value; it names the same case.
        case (.enumCase(let type, let name, let payload), .reasoningLevel(let level)) where Self.isFileCase(type, payload),
             (.reasoningLevel(let level), .enumCase(let type, let name, let payload)) where Self.isFileCase(type, payload):
            return name == level.description
        case (.enumCase(let type, let name, let payload), .toolCallingMode(let mode)) where Self.isFileCase(type, payload),
             (.toolCallingMode(let mode), .enumCase(let type, let name, let payload)) where Self.isFileCase(type, payload):
            return name == "\(mode.kind)"
        case (.enumCase(let type, let name, let payload), .errorPolicy(let policy)) where Self.isFileCase(type, payload),
             (.errorPolicy(let policy), .enumCase(let type, let name, let payload)) where Self.isFileCase(type, payload):
            return name == policy.description
        case (.enumCase(let type, let name, let payload), .samplingMode(let mode)) where Self.isFileCase(type, payload),
             (.samplingMode(let mode), .enumCase(let type, let name, let payload)) where Self.isFileCase(type, payload):
            return name == "greedy" && mode.kind == .greedy
        // The framework's Equatable values (GenerationOptions, Transcript.Entry, ContextOptions' level, Data);
        // a Metric is identified by its name.
        case (.options(let x), .options(let y)): return x == y
        case (.transcriptEntry(let x), .transcriptEntry(let y)): return x == y
        case (.reasoningLevel(let x), .reasoningLevel(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.evaluations(.metric(let x)), .evaluations(.metric(let y))): return x.name == y.name
        case (.samplingMode(let x), .samplingMode(let y)): return x == y
        // `mode.kind == .greedy`: likewise read as the mode `.greedy`.
        case (.enumCase("GenerationOptions.SamplingMode.Kind", let name, _), .samplingMode(let mode)),
             (.samplingMode(let mode), .enumCase("GenerationOptions.SamplingMode.Kind", let name, _)):
            return name == "greedy" && mode.kind == .greedy
        // `mode.kind == .required`: the implicit member has no context type, so it is read as the mode.
        case (.enumCase("GenerationOptions.ToolCallingMode.Kind", let name, _), .toolCallingMode(let mode)),
             (.toolCallingMode(let mode), .enumCase("GenerationOptions.ToolCallingMode.Kind", let name, _)):
            return name == "\(mode.kind)"
        default:
            if let x = a.number, let y = b.number { return x == y }
            return false
        }
    }

    /// A payload-free case of an enum that is not one of the framework's (those compare by their own rules).
    private static func isFileCase(_ type: String, _ payload: [(label: String?, value: Value)]) -> Bool {
        !type.isEmpty && payload.isEmpty && !type.hasPrefix("GenerationOptions.") && Surface.table.type(named: type) == nil
    }

    /// -1, 0, 1, or nil when the values do not order.
    static func compare(_ a: Value, _ b: Value) -> Int? {
        if let x = a.number, let y = b.number { return x < y ? -1 : (x > y ? 1 : 0) }
        if case .date(let x) = a, case .date(let y) = b { return x < y ? -1 : (x > y ? 1 : 0) }
        if let x = a.stringValue, let y = b.stringValue { return x < y ? -1 : (x > y ? 1 : 0) }
        return nil
    }
}
