import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
import Surface
import SwiftSyntax

/// Evaluated call arguments: label (nil when unlabelled), value, syntax.
struct Arguments {
    var items: [(label: String?, value: Value, syntax: ExprSyntax)]
    func value(_ label: String) -> Value? { items.first { $0.label == label }?.value }
    var unlabelled: [Value] { items.filter { $0.label == nil }.map(\.value) }
}

extension Interpreter {
    func arguments(_ list: LabeledExprListSyntax) async throws -> Arguments {
        var items: [(label: String?, value: Value, syntax: ExprSyntax)] = []
        for argument in list { items.append((argument.label?.text, try await evaluate(argument.expression), argument.expression)) }
        return Arguments(items: items)
    }

    func call(_ e: FunctionCallExprSyntax) async throws -> Value {
        if let ref = e.calledExpression.as(DeclReferenceExprSyntax.self), lookup(ref.baseName.text) == nil {
            return try await callFunction(ref.baseName.text, e)
        }
        // `ModelSample<String>(...)`: generic arguments name the type only.
        if let generic = e.calledExpression.as(GenericSpecializationExprSyntax.self),
           let ref = generic.expression.as(DeclReferenceExprSyntax.self), lookup(ref.baseName.text) == nil {
            return try await callFunction(ref.baseName.text, e)
        }
        if let member = e.calledExpression.as(MemberAccessExprSyntax.self) {
            let name = member.declName.baseName.text
            guard let baseExpr = member.base else { return try await implicitCall(name, e) }
            let base = try await evaluate(baseExpr)
            if base.isNull, baseExpr.is(OptionalChainingExprSyntax.self) { return .null }
            return try await method(name, of: base, baseExpr: baseExpr, e)
        }
        // `[Int]()` and `[String: Int]()`: empty collections.
        if e.arguments.isEmpty, e.trailingClosure == nil {
            if e.calledExpression.is(ArrayExprSyntax.self) { return .array([]) }
            if e.calledExpression.is(DictionaryExprSyntax.self) { return .dictionary([]) }
        }
        throw error("'\(e.calledExpression.trimmedDescription.prefix(40))' cannot be called in prompt files", e)
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
    func builderText(_ e: FunctionCallExprSyntax) async throws -> String {
        if let closure = e.trailingClosure { return try await builder(closure.statements).joined(separator: "\n") }
        let args = try await arguments(e.arguments)
        return args.unlabelled.map(promptText).joined(separator: "\n")
    }

    /// Each statement's value in a result builder as prompt text; `if` and `for` contribute their branches.
    func builder(_ items: CodeBlockItemListSyntax) async throws -> [String] {
        try await evaluationBuilderValues(items).filter { !$0.isNull }.map(promptText)
    }

    /// How a value reads in a prompt: strings as is, Generable values as JSON.
    func promptText(_ value: Value) -> String {
        switch value {
        case .string, .int, .double, .bool, .instructions, .prompt: return value.description
        case .array(let a) where a.allSatisfy({ $0.stringValue != nil }): return a.map(\.description).joined(separator: "\n")
        default: return value.generatedContent.jsonString
        }
    }

    /// A struct's memberwise initializer (plain data, Generable types and tools).
    func construct(_ type: TypeDeclaration, _ e: FunctionCallExprSyntax) async throws -> Value {
        guard type.kind == .struct || type.kind == .class else { throw error("'\(type.name)' cannot be constructed in prompt files", e) }
        let args = try await arguments(e.arguments)
        if type.kind == .class, !args.items.isEmpty {
            throw error("class \(type.name) has no memberwise initializer; give its stored properties default values and write \(type.name)()", e)
        }
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
            return convert(content, schema: schema)
        }
        var fields: [(name: String, value: Value)] = []
        let stored = (type.properties + type.otherProperties).filter { !$0.isStatic && !$0.isComputed }
            .sorted { $0.range.start.offset < $1.range.start.offset }
        var used = Set<String>()
        for property in stored {
            if let key = context.sessionPropertyKey(property.name, of: type.qualifiedName) {
                fields.append((property.name, .sessionProperty(key)))
                continue
            }
            if let given = args.items.first(where: { $0.label == property.name }) {
                fields.append((property.name, given.value.converted(to: property.type)))
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
        if type.kind == .class { return .object(ObjectBox(type: type.qualifiedName, fields: fields)) }
        let value = Value.structure(type: type.qualifiedName, fields: fields)
        if fields.contains(where: { $0.value.isContainer }) { try budget.value(value, e) }
        return value
    }

    /// `.member(...)` with the type implied: sampling modes, enum cases with payloads.
    func implicitCall(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value {
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
            return .enumCase(type: "", name: name, payload: args.items.map { ($0.label, $0.value) })
        }
    }

    // MARK: Methods

    func method(_ name: String, of base: Value, baseExpr: ExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value {
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
            if let value = try await surfaceMethod(name, of: base, baseExpr: baseExpr, e) { return value }
        }
        throw error("'\(name)(...)' is not available on \(base.typeDescription) values in prompt files", e)
    }

    /// The count argument of `prefix`/`suffix`/`dropFirst`/`dropLast`: an Int, never negative.
    func countArgument(_ name: String, _ args: Arguments, default value: Int?, _ e: FunctionCallExprSyntax) throws -> Int {
        let given = args.unlabelled.first
        if given == nil, let value { return value }
        let n = try intArgument(given, "\(name)(_:)", e)
        return try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.count(n, Arithmetic.negativeCountMessages[name]!) }
    }

    /// Calls a closure literal with positional arguments (`$0` or named parameters).
    func apply(_ closure: ClosureExprSyntax, _ values: [Value]) async throws -> Value {
        try await withScope {
            var names: [String] = []
            if let parameters = closure.signature?.parameterClause {
                switch parameters {
                case .simpleInput(let list): names = list.map(\.name.text)
                case .parameterClause(let clause): names = clause.parameters.map { ($0.secondName ?? $0.firstName).text }
                }
            }
            for (index, value) in values.enumerated() {
                define("$\(index)", value)
                if index < names.count { define(names[index], value) }
            }
            return try await runBody(closure.statements)
        }
    }

    /// Runs a function-like body: a single expression is its value (implicit
    /// return), otherwise the value of `return`, else nil.
    func runBody(_ statements: CodeBlockItemListSyntax) async throws -> Value {
        if statements.count == 1, case .expr(let expr) = statements.first!.item,
           !expr.is(IfExprSyntax.self), !expr.is(SwitchExprSyntax.self) {
            return try await evaluate(expr)
        }
        if case .returned(let value) = try await execute(statements) { return value }
        return .null
    }
}
