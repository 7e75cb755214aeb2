import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
import Surface
import SwiftSyntax

/// Evaluated call arguments: label (nil when unlabelled), value, syntax.
package struct Arguments {
    package var items: [(label: String?, value: Value, syntax: ExprSyntax)]
    package func value(_ label: String) -> Value? { items.first { $0.label == label }?.value }
    package var unlabelled: [Value] { items.filter { $0.label == nil }.map(\.value) }
}

extension Interpreter {
    package func arguments(_ list: LabeledExprListSyntax) async throws -> Arguments {
        var items: [(label: String?, value: Value, syntax: ExprSyntax)] = []
        for argument in list { items.append((argument.label?.text, try await evaluate(argument.expression), argument.expression)) }
        return Arguments(items: items)
    }

    package func call(_ e: FunctionCallExprSyntax) async throws -> Value {
        let callee = e.calledExpression
        if let ref = callee.as(DeclReferenceExprSyntax.self) { return try await callNamed(ref, e) }
        if let member = callee.as(MemberAccessExprSyntax.self) { return try await callMember(member, e) }
        // `[Int]()` and `[String: Int]()`: empty collections.
        if e.arguments.isEmpty, e.trailingClosure == nil {
            if callee.is(ArrayExprSyntax.self) { return .array([]) }
            if callee.is(DictionaryExprSyntax.self) { return .dictionary([]) }
        }
        if let array = callee.as(ArrayExprSyntax.self), array.elements.count == 1 {
            // `[Int](repeating: 0, count: 3)`, `[String](someSequence)`
            return try await callFunction("Array", e)
        }
        if let generic = callee.as(GenericSpecializationExprSyntax.self), let ref = generic.expression.as(DeclReferenceExprSyntax.self) {
            if let info = types.type(ref.baseName.text), info.kind != .builtin { return try await constructNamed(info.name, e) }
            return try await callFunction(ref.baseName.text, e)
        }
        // Any other expression that gives a function: `makeAdder(2)(3)`, `handlers[0](x)`.
        let value = try await evaluate(callee)
        // `callback?(x)` with no callback set does nothing and is nil, as in Swift.
        if value.isNull, callee.is(OptionalChainingExprSyntax.self) { return .null }
        if case .function(let function) = value { return try await invoke(function, try await callArguments(e), at: e) }
        if case .type(let typeName) = value { return try await constructNamed(typeName, e) }
        throw error("'\(callee.trimmedDescription.prefix(40))' cannot be called in prompt files", e)
    }

    /// `name(...)`: a local function or closure, a method of `self`, a file function or type, an initializer or global function.
    func callNamed(_ ref: DeclReferenceExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value {
        let name = ref.baseName.text
        // A local (or captured) function or closure variable.
        if let cell = lookupLocalCell(name), case .function(let function) = cell.value {
            return try await invoke(function, try await callArguments(e), at: e)
        }
        // A method of `self` called without `self.`.
        if let selfCell = lookupCell("self") {
            if case .type(let type) = selfCell.value, types.type(type) != nil, let method = findMethod(name, in: type, isStatic: true) {
                return try await invokeDeclared(method.decls, selfCell: selfCell, typeName: method.owner, try await callArguments(e), at: e)
            }
            if let type = typeName(of: selfCell.value), findMethod(name, in: type) != nil {
                let selfRef = ExprSyntax(DeclReferenceExprSyntax(baseName: .keyword(.self)))
                if let result = try await callUserMethod(name, on: selfCell.value, baseExpr: selfRef, try await callArguments(e), at: e) {
                    return result
                }
            }
        }
        if let cell = lookupCell(name), case .function(let function) = cell.value {
            return try await invoke(function, try await callArguments(e), at: e)
        }
        if let decls = types.functions[name] {
            return try await invokeDeclared(decls, selfCell: nil, typeName: nil, try await callArguments(e), at: e)
        }
        if name == "Self", let type = currentTypeName { return try await constructNamed(type, e) }
        // Inside an extension of a built-in type: its methods on `self` (`trimmingCharacters(in:)`).
        if let selfCell = lookupCell("self"), !Surface.table.functions.contains(where: { $0.name == name }), types.type(name) == nil,
           let selfType = typeName(of: selfCell.value), types.type(selfType).map({ $0.kind == .builtin }) ?? true {
            return try await method(name, of: selfCell.value, baseExpr: ExprSyntax(DeclReferenceExprSyntax(baseName: .keyword(.self))), e)
        }
        if types.type(name) != nil { return try await constructNamed(types.type(name)!.name, e) }
        return try await callFunction(name, e)
    }

    /// `base.name(...)`: `super`, `self.init`, the file's types and methods, stored closures, then the value's members.
    func callMember(_ member: MemberAccessExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value {
        let name = member.declName.baseName.text
        guard let baseExpr = member.base else { return try await implicitCall(name, e) }
        if baseExpr.is(SuperExprSyntax.self) { return try await callSuper(name, e) }
        if name == "init", let ref = baseExpr.as(DeclReferenceExprSyntax.self), ref.baseName.text == "self" {
            try await delegateInitializer(toSuper: false, try await callArguments(e), at: e)
            return .null
        }
        let base = try await evaluate(baseExpr)
        if base.isNull, Self.inOptionalChain(baseExpr) { return .null }
        if case .type(let typeName) = base, types.type(typeName) != nil {
            if name == "init" { return try await constructNamed(typeName, e) }
            if let method = findMethod(name, in: typeName, isStatic: true) {
                return try await invokeDeclared(method.decls, selfCell: Cell(base), typeName: method.owner, try await callArguments(e), at: e)
            }
            if let nested = types.type(typeName + "." + name) { return try await constructNamed(nested.name, e) }
            if let value = try await userStaticMember(name, of: typeName, e), case .function(let function) = value {
                return try await invoke(function, try await callArguments(e), at: e)
            }
        }
        if typeName(of: base).map({ findMethod(name, in: $0) != nil }) == true,
           let result = try await callUserMethod(name, on: base, baseExpr: baseExpr, try await callArguments(e), at: e) {
            return result
        }
        // A stored property holding a closure (`handler.onDone(3)`).
        if case .structure(_, let fields) = base, case .function(let function)? = fields.first(where: { $0.name == name })?.value {
            return try await invoke(function, try await callArguments(e), at: e)
        }
        if case .object(let box) = base, case .function(let function)? = box.field(name) {
            return try await invoke(function, try await callArguments(e), at: e)
        }
        if case .tuple(let items) = base, case .function(let function)? = items.first(where: { $0.label == name })?.value {
            return try await invoke(function, try await callArguments(e), at: e)
        }
        return try await method(name, of: base, baseExpr: baseExpr, e)
    }

    /// `Type(...)`: a user initializer, the memberwise one, or a built-in type's.
    func constructNamed(_ typeName: String, _ e: FunctionCallExprSyntax) async throws -> Value {
        if types.type(typeName)?.kind != .builtin, types.type(typeName) != nil {
            let args = try await callArguments(e)
            if let value = try await constructUser(typeName, args, at: e) { return value }
            if let declared = context.file.resolveType(typeName, in: nil) ?? context.file.type(named: typeName) {
                return try await construct(declared, e)
            }
            throw error("\(typeName) has no initializer taking (\(args.map { ($0.label ?? "_") + ":" }.joined()))", e)
        }
        let short = typeName.split(separator: ".").last.map(String.init) ?? typeName
        return try await callFunction(short, e)
    }

    /// `super.method(...)` and `super.init(...)`.
    func callSuper(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await callArguments(e)
        if name == "init" {
            try await delegateInitializer(toSuper: true, args, at: e)
            return .null
        }
        guard let selfCell = lookupCell("self"), let current = currentTypeName, let superclass = types.type(current)?.superclass,
              let method = findMethod(name, in: superclass) else {
            throw error("super has no method '\(name)'", e)
        }
        return try await invokeDeclared(method.decls, selfCell: selfCell, typeName: method.owner, args, at: e)
    }

    /// The arguments with a trailing closure as the last unlabelled one.
    func allArguments(_ e: FunctionCallExprSyntax) async throws -> Arguments {
        var args = try await arguments(e.arguments)
        if let closure = e.trailingClosure { args.items.append((nil, .function(makeClosure(closure)), ExprSyntax(closure))) }
        return args
    }

    /// `name(...)`: initializers of table types and global functions (`Builtins`), then the file's types.
    func callFunction(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value {
        if context.file.resolveType(name, in: nil) == nil, let value = try await evaluationsInitializer(name, e) { return value }
        switch name {
        case "Profile": return try await makeProfile(e)
        case "ForEach": return try await makeForEach(e)
        default: break
        }
        if let value = try await surfaceInitializer(name, e) { return value }
        guard let type = context.file.resolveType(name, in: nil) else { throw error("cannot find '\(name)' in scope", e) }
        return try await construct(type, e)
    }

    /// The text of `Instructions { ... }` / `Prompt { ... }` / `Instructions("...")`.
    package func builderText(_ e: FunctionCallExprSyntax, instructions: Bool = false) async throws -> String {
        if let closure = e.trailingClosure { return try await builder(closure.statements, instructions: instructions).joined(separator: "\n") }
        let args = try await arguments(e.arguments)
        var texts: [String] = []
        for value in args.unlabelled { texts.append(try await representedText(value, instructions: instructions, at: e)) }
        return texts.joined(separator: "\n")
    }

    /// Each statement's value in a result builder as prompt (or instructions) text; `if` and `for` contribute their branches.
    func builder(_ items: CodeBlockItemListSyntax, instructions: Bool = false) async throws -> [String] {
        var texts: [String] = []
        for value in try await evaluationBuilderValues(items) where !value.isNull {
            texts.append(try await representedText(value, instructions: instructions, at: items))
        }
        return texts
    }

    /// How a value reads in a prompt (Apple's PromptRepresentable) or instructions (InstructionsRepresentable): a
    /// type of the file reads as the `promptRepresentation` (`instructionsRepresentation`) it declares, else as the
    /// `generatedContent` it declares (ConvertibleToGeneratedContent's representation is its content), else as
    /// `promptText` (a @Generable value's memberwise content).
    package func representedText(_ value: Value, instructions: Bool = false, at node: some SyntaxProtocol) async throws -> String {
        guard case .structure(let type, _) = value, isFileType(type) else { return promptText(value) }
        let own = instructions ? "instructionsRepresentation" : "promptRepresentation"
        if findComputed(own, in: type) != nil, case .array(let parts)? = try await property(own, of: value, builder: true, node) {
            return parts.filter { !$0.isNull }.map(promptText).joined(separator: "\n")
        }
        if findComputed("generatedContent", in: type) != nil, let content = try await property("generatedContent", of: value, builder: false, node) {
            return promptText(content)
        }
        return promptText(value)
    }

    /// How a value reads in a prompt: strings as is, Generable values as JSON.
    package func promptText(_ value: Value) -> String {
        switch value {
        case .string, .int, .double, .bool, .instructions, .prompt: return value.description
        case .array(let a) where a.allSatisfy({ $0.stringValue != nil }): return a.map(\.description).joined(separator: "\n")
        default: return value.generatedContent.jsonString
        }
    }

    /// A struct's memberwise initializer (plain data, Generable types and tools).
    func construct(_ type: TypeDeclaration, _ e: FunctionCallExprSyntax) async throws -> Value {
        guard type.kind == .struct else { throw error("'\(type.name)' cannot be constructed in prompt files", e) }
        var args = try await arguments(e.arguments)
        // `Type(content)`: a Generable type from GeneratedContent (ConvertibleFromGeneratedContent).
        if args.items.count == 1, args.items[0].label == nil, case .content(let content) = args.items[0].value {
            guard let schema = context.schema(forType: type.qualifiedName) else {
                throw error("'\(type.name)' is not @Generable, so it cannot be made from GeneratedContent", e)
            }
            let problems = schema.violations(of: content)
            guard problems.isEmpty else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "\(content.jsonString) is not a \(type.name): " + problems.prefix(3).joined(separator: "; ")))
            }
            return try await generated(content, schema: schema)
        }
        var fields: [(name: String, value: Value)] = []
        let lazy = Set(types.type(type.qualifiedName)?.stored.filter(\.isLazy).map(\.name) ?? [])
        let stored = (type.properties + type.otherProperties).filter { !$0.isStatic && !$0.isComputed && !lazy.contains($0.name) }
            .sorted { $0.range.start.offset < $1.range.start.offset }
        if let closure = e.trailingClosure {
            // A trailing closure fills the first stored property not given by label.
            let labels = Set(args.items.compactMap(\.label))
            if let next = stored.first(where: { !labels.contains($0.name) }) {
                args.items.append((next.name, .function(makeClosure(closure)), ExprSyntax(closure)))
            }
        }
        var used = Set<String>()
        for property in stored {
            if let key = context.sessionPropertyKey(property.name, of: type.qualifiedName) {
                fields.append((property.name, .sessionProperty(key)))
                continue
            }
            if let given = args.items.first(where: { $0.label == property.name }) {
                var value = given.value.converted(to: property.type)
                // `var w = 1.0` declares a Double: `R(w: 2).w` is 2.0.
                if property.type == nil, case .int(let i) = value, let initializer = context.initializer(of: property),
                   (initializer.as(PrefixOperatorExprSyntax.self)?.expression ?? initializer).is(FloatLiteralExprSyntax.self) {
                    value = .double(Double(i))
                }
                fields.append((property.name, value))
                used.insert(property.name)
            } else if let initializer = context.initializer(of: property) {
                fields.append((property.name, try await isolated([:]) { try await evaluate(initializer) }))
            } else if property.type?.isOptional == true {
                fields.append((property.name, .null))
            } else if type.tool != nil, property.name == "name" || property.name == "description" {
                continue
            } else {
                throw error("missing argument '\(property.name)' in call to \(type.name)(...)", e)
            }
        }
        for item in args.items where item.label == nil || !used.contains(item.label!) {
            throw error("\(type.name) has no stored property '\(item.label ?? "_")'", item.syntax)
        }
        let value = Value.structure(type: type.qualifiedName, fields: fields)
        if fields.contains(where: { $0.value.isContainer }) { try budget.value(value, e) }
        return value
    }

    /// `.member(...)` with the type implied: sampling modes, enum cases with payloads.
    package func implicitCall(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        switch name {
        case "init" where args.value("referenceTo") != nil || args.value("arrayOf") != nil || args.value("type") != nil:
            return try makeDynamicSchema(args, e)
        case "random":
            var seed: UInt64?
            if let given = args.value("seed"), !given.isNull {
                let i = try intArgument(given, "random(seed:)", e)
                seed = try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.unsigned(i, what: "seed") }
            }
            if let given = args.value("top") {
                let top = try intArgument(given, "random(top:)", e)
                guard top >= 1 else { throw error("random(top:) needs at least 1 token, not \(top)", e) }
                return .samplingMode(.random(top: top, seed: seed))
            }
            if let given = args.value("probabilityThreshold") {
                guard let p = given.number, p.isFinite, p >= 0, p <= 1 else {
                    throw error("random(probabilityThreshold:) needs a number from 0 to 1, not \(given.description.prefix(30))", e)
                }
                return .samplingMode(.random(probabilityThreshold: p, seed: seed))
            }
            throw error("random(...) needs top: or probabilityThreshold:", e)
        default:
            for info in types.types.values where info.kind == .enum {
                if let found = info.cases.first(where: { $0.name == name && !$0.parameters.isEmpty }) {
                    return .enumCase(type: info.name, name: name, payload: zip(found.parameters, args.items).map { ($1.label, $1.value.converted(to: $0.type)) })
                }
            }
            return .enumCase(type: "", name: name, payload: args.items.map { ($0.label, $0.value) })
        }
    }

    // MARK: Methods

    /// Whether `base.name(...)` calls Optional's member although lint could not type the receiver as `T?`: a table value
    /// whose type has no such member (`info.resetDate.map { }` on a catch payload, whose `resetDate` is `Date?`), or nil.
    func callsOptionalMember(_ name: String, of base: Value) -> Bool {
        guard !Surface.table.members(of: "Optional", named: name, isStatic: false).isEmpty else { return false }
        if base.isNull { return true }
        guard let type = base.surfaceTypeName, !base.hasDynamicMembers, type != "GeneratedContent" else { return false }
        return Surface.table.members(of: type, named: name, isStatic: false).isEmpty
    }

    func method(_ name: String, of base: Value, baseExpr: ExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value {
        if context.surface.isOptional(baseExpr) || callsOptionalMember(name, of: base) {
            // `optional.map { }`: Optional's own members (the front end knows the receiver is `T?`), through the table.
            let resolution = Surface.table.resolveCall(type: "Optional", name: name, labels: e.arguments.map { $0.label?.text },
                                                       trailingClosure: e.trailingClosure != nil, isStatic: false)
            if let value = try await runResolved(resolution, name: name, typeName: "Optional", base: base, baseExpr: baseExpr, e, isStatic: false) {
                return value
            }
        }
        if isProfileValue(base), let result = try await profileMethod(name, of: base, e) { return result }
        if let value = try await evaluationsMethod(name, of: base, e) { return value }
        switch base {
        case .type(let typeName):
            if name == "ForEach", ["DynamicInstructions", "LanguageModelSession.DynamicInstructions"].contains(typeName) {
                return try await makeForEach(e)
            }
            if let type = context.file.resolveType(typeName, in: nil) {
                if type.kind == .enum {
                    let args = try await arguments(e.arguments)
                    let declared = type.cases.first { $0.name == name }?.associatedValues ?? []
                    return .enumCase(type: type.qualifiedName, name: name, payload: args.items.enumerated().map { index, item in
                        (item.label, item.value.converted(to: declared.indices.contains(index) ? declared[index].type : nil))
                    })
                }
                if let nested = context.file.resolveType(name, in: typeName) { return try await construct(nested, e) }
                throw error("type '\(typeName)' has no member '\(name)'", e)
            }
            if let value = try await surfaceStaticCall(name, of: typeName, e) { return value }
        case .structure(let type, let fields) where name == "value" && isFileType(type):
            let args = try await arguments(e.arguments)
            guard let property = args.value("forProperty")?.stringValue else { return base }
            guard let field = fields.first(where: { $0.name == property }) else {
                throw ThrownValue(value: .string("\(type) has no property '\(property)'"))
            }
            return field.value
        case .enumCase(let type, let caseName, let payload) where name == "value":
            // The member a dynamic `anyOf:` union generated (or an enum case's labelled
            // associated values): its properties answer like Apple's GeneratedContent.
            let args = try await arguments(e.arguments)
            guard let property = args.value("forProperty")?.stringValue else { return base }
            guard let field = payload.first(where: { $0.label == property }) else {
                throw ThrownValue(value: .string("\(type).\(caseName) has no property '\(property)'"))
            }
            return field.value
        default:
            break
        }
        if let value = try await surfaceMethod(name, of: base, baseExpr: baseExpr, e) { return value }
        if case .structure(let type, _) = base, isDynamicSchemaValue(type),
           let value = try await surfaceMethod(name, of: .content(base.generatedContent), baseExpr: baseExpr, e) {
            return value  // a dynamic schema's value is GeneratedContent (Apple's respond(schema:) content)
        }
        if case .content(let c) = base, let items = c.arrayValue,
           let value = try await surfaceMethod(name, of: .array(items.map(Value.content)), baseExpr: baseExpr, e) {
            return value  // generated array content is an Array at run time: Array's members (`items.enumerated()`)
        }
        throw error("'\(name)(...)' is not available on \(base.typeDescription) values in prompt files", e)
    }

    /// `Optional.map`/`flatMap`: nil stays nil, a value goes through the closure. Values carry no
    /// Optional wrapper, so both return the closure's result.
    package func optionalMap(_ base: Value, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await callArguments(e)
        guard args.count == 1, case .function(let function) = args[0].value else {
            throw error("Optional.\(e.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text ?? "map") needs one closure", e)
        }
        if base.isNull { return .null }
        return try await call(function, [base], at: Syntax(e))
    }

    /// The count argument of `prefix`/`suffix`/`dropFirst`/`dropLast`: an Int, never negative.
    package func countArgument(_ name: String, _ args: Arguments, default value: Int?, _ e: FunctionCallExprSyntax) throws -> Int {
        let given = args.unlabelled.first
        if given == nil, let value { return value }
        let n = try intArgument(given, "\(name)(_:)", e)
        return try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.count(n, Arithmetic.negativeCountMessages[name]!) }
    }

    /// Calls a closure literal with positional arguments (`$0` or named parameters).
    package func apply(_ closure: ClosureExprSyntax, _ values: [Value]) async throws -> Value {
        try await invoke(makeClosure(closure), values.map { CallArgument(label: nil, value: $0) }, at: closure)
    }

    /// Runs a function-like body: a single expression is its value (implicit
    /// return), otherwise the value of `return`, else nil.
    func runBody(_ statements: CodeBlockItemListSyntax) async throws -> Value {
        if statements.count == 1, case .expr(let expr) = statements.first!.item,
           !(expr.is(IfExprSyntax.self) || expr.is(SwitchExprSyntax.self)) {
            return try await evaluate(expr)
        }
        if statements.count == 1, let expr = Self.onlyExpression(statements), Self.isValueBranching(expr) {
            return try await evaluate(expr)
        }
        if case .returned(let value) = try await execute(statements) { return value }
        return .null
    }

    /// The expression of a one-item body (an `if` or `switch` there is an expression statement).
    static func onlyExpression(_ items: CodeBlockItemListSyntax) -> ExprSyntax? {
        guard items.count == 1 else { return nil }
        switch items.first!.item {
        case .expr(let expr): return expr
        case .stmt(let stmt): return stmt.as(ExpressionStmtSyntax.self)?.expression
        default: return nil
        }
    }

    /// Whether an `if` or `switch` is an expression (Swift 5.9): every branch is one expression, and an `if`
    /// has an `else`. A body that is one such expression returns its value (`var label: String { switch self { ... } }`).
    static func isValueBranching(_ expr: ExprSyntax) -> Bool {
        func single(_ items: CodeBlockItemListSyntax) -> Bool {
            guard let inner = onlyExpression(items) else { return false }
            return !(inner.is(IfExprSyntax.self) || inner.is(SwitchExprSyntax.self)) || isValueBranching(inner)
        }
        if let ifExpr = expr.as(IfExprSyntax.self) {
            guard single(ifExpr.body.statements) else { return false }
            switch ifExpr.elseBody {
            case .codeBlock(let block)?: return single(block.statements)
            case .ifExpr(let next)?: return isValueBranching(ExprSyntax(next))
            case nil: return false
            }
        }
        if let switchExpr = expr.as(SwitchExprSyntax.self) {
            return !switchExpr.cases.isEmpty && switchExpr.cases.allSatisfy { item in
                guard case .switchCase(let switchCase) = item else { return false }
                return single(switchCase.statements)
            }
        }
        return false
    }
}
