import FoundationModelsRuntime
import Surface
import SwiftSyntax

/// The interpreter's side of the surface table: it resolves every use of a table type, member or
/// function with `SurfaceTable` and runs the implementation registered under the entry's id in the
/// map it was given (`Interpreter.builtins`; PlaygroundLibrary's `Builtins.all`, injected by the
/// evaluator). The interpreter knows the table, never the implementations.

/// One use of a surface entry: the receiver (`.null` for initializers,
/// static members and global functions), the call (nil for a property or a
/// static value) and the node errors point at.
package struct BuiltinCall {
    package var base: Value
    package var baseExpr: ExprSyntax?
    package var call: FunctionCallExprSyntax?
    package var node: Syntax
    package var entry: SurfaceMember
    /// For a setter (registered as `id + "="`): the value assigned.
    package var newValue: Value = .null

    package func arguments(_ interpreter: Interpreter) async throws -> Arguments {
        guard let call else { return Arguments(items: []) }
        return try await interpreter.arguments(call.arguments, parameters: entry.parameters ?? [])
    }

    /// The call node (every callable entry has one).
    package var callNode: FunctionCallExprSyntax {
        guard let call else { preconditionFailure("\(entry.id) is callable but was used without a call") }
        return call
    }
}

/// The implementation of one surface entry.
package typealias Builtin = @Sendable (Interpreter, BuiltinCall) async throws -> Value

extension Interpreter {
    /// Runs the implementation of a resolved surface entry.
    package func runBuiltin(_ entry: SurfaceMember, base: Value, baseExpr: ExprSyntax?, call: FunctionCallExprSyntax?, node: some SyntaxProtocol) async throws -> Value {
        guard let implementation = builtins[entry.id] else {
            throw error("'\(entry.id)' is in the surface table but has no implementation", node)
        }
        return try await implementation(self, BuiltinCall(base: base, baseExpr: baseExpr, call: call, node: Syntax(node), entry: entry))
    }

    /// `base.name = value` on a value of a surface type whose entry has a setter: the changed receiver, or nil when
    /// the value's type is not in the table or the property has no setter (the caller reports that).
    func setSurfaceProperty(_ name: String, of base: Value, to newValue: Value, _ node: some SyntaxProtocol) async throws -> Value? {
        guard let typeName = base.surfaceTypeName,
              case .found(let entry) = Surface.table.resolveValue(type: typeName, name: name, isStatic: false),
              let setter = builtins[entry.id + "="] else { return nil }
        var call = BuiltinCall(base: base, baseExpr: nil, call: nil, node: Syntax(node), entry: entry)
        call.newValue = newValue
        return try await setter(self, call)
    }

    /// The message for a member the table does not have, with its closest name.
    func unknownMemberMessage(_ name: String, on typeName: String, suggestion: String?, isStatic: Bool) -> String {
        let what = isStatic ? "type '\(typeName)'" : "'\(typeName)'"
        return "\(what) has no member '\(name)' in prompt files" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }

    /// `base.name` on a value of a surface type: nil when the value's type is not in the table.
    func surfaceMember(_ name: String, of base: Value, _ node: some SyntaxProtocol) async throws -> Value? {
        guard let typeName = base.surfaceTypeName else { return nil }
        switch Surface.table.resolveValue(type: typeName, name: name, isStatic: false) {
        case .found(let entry) where !entry.isCallable:
            return try await runBuiltin(entry, base: base, baseExpr: nil, call: nil, node: node)
        case .found:
            throw error("'\(name)' is a method of \(typeName); call it: \(name)(...)", node)
        case .unknownMember(let suggestion):
            if base.hasDynamicMembers { return nil }
            throw error(unknownMemberMessage(name, on: typeName, suggestion: suggestion, isStatic: false), node)
        case .noMatchingOverload:
            return nil
        }
    }

    /// `base.name(...)` on a value of a surface type: nil when the value's type is not in the table.
    func surfaceMethod(_ name: String, of base: Value, baseExpr: ExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value? {
        guard let typeName = base.surfaceTypeName else { return nil }
        let resolution = Surface.table.resolveCall(type: typeName, name: name, labels: e.arguments.map { $0.label?.text },
                                                   trailingClosure: e.trailingClosure != nil, isStatic: false)
        return try await runResolved(resolution, name: name, typeName: typeName, base: base, baseExpr: baseExpr, e, isStatic: false)
    }

    /// `Type.name` for a surface type: a nested type, a static value or a case.
    func surfaceStaticMember(_ name: String, of typeName: String, _ node: some SyntaxProtocol) async throws -> Value? {
        guard let canonical = Surface.table.canonicalName(typeName) else { return nil }
        if Surface.table.type(named: canonical + "." + name) != nil { return .type(canonical + "." + name) }
        switch Surface.table.resolveValue(type: canonical, name: name, isStatic: true) {
        case .found(let entry):
            return try await runBuiltin(entry, base: .type(typeName), baseExpr: nil, call: nil, node: node)
        case .unknownMember(let suggestion):
            throw error(unknownMemberMessage(name, on: typeName, suggestion: suggestion, isStatic: true), node)
        case .noMatchingOverload:
            return nil
        }
    }

    /// `Type.name(...)` for a surface type: a nested type's initializer, a static method or a case with payload.
    func surfaceStaticCall(_ name: String, of typeName: String, _ e: FunctionCallExprSyntax) async throws -> Value? {
        guard let canonical = Surface.table.canonicalName(typeName) else { return nil }
        if Surface.table.type(named: canonical + "." + name) != nil { return try await surfaceInitializer(canonical + "." + name, e) }
        let resolution = Surface.table.resolveCall(type: canonical, name: name, labels: e.arguments.map { $0.label?.text },
                                                   trailingClosure: e.trailingClosure != nil, isStatic: true)
        return try await runResolved(resolution, name: name, typeName: typeName, base: .type(typeName), baseExpr: nil, e, isStatic: true)
    }

    /// `Type(...)` for a surface type, or a global function: nil when `name` is neither.
    func surfaceInitializer(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value? {
        let labels = e.arguments.map { $0.label?.text }
        if Surface.table.type(named: name) != nil {
            let resolution = Surface.table.resolveCall(type: name, name: "init", labels: labels, trailingClosure: e.trailingClosure != nil, isStatic: true)
            return try await runResolved(resolution, name: "init", typeName: name, base: .null, baseExpr: nil, e, isStatic: true)
        }
        guard Surface.table.functions.contains(where: { $0.name == name }) else { return nil }
        let resolution = Surface.table.resolveFunction(name: name, labels: labels, trailingClosure: e.trailingClosure != nil)
        return try await runResolved(resolution, name: name, typeName: "", base: .null, baseExpr: nil, e, isStatic: true)
    }

    /// The arguments of a table call. An implicit member call (`.init(totalTokenCount: 3, cachedTokenCount: 0)`,
    /// `.random(top: 5)`) gets its type from the parameter it is passed to, as in Swift; so do the elements of an
    /// array literal passed to an array parameter.
    /// The arguments, each evaluated with its parameter's type as context (`allPass: .toolsAllPass` is a Metric).
    /// With `keepingClosures`, closure literals are left unevaluated (`.null`, syntax kept): they are captured, not called.
    package func arguments(_ list: LabeledExprListSyntax, parameters: [SurfaceParameter], keepingClosures: Bool = false) async throws -> Arguments {
        var items: [(label: String?, value: Value, syntax: ExprSyntax)] = []
        for (index, argument) in list.enumerated() {
            let label = argument.label?.text
            if keepingClosures, argument.expression.is(ClosureExprSyntax.self) {
                items.append((label, .null, argument.expression))
                continue
            }
            let parameter = parameters.first { $0.label == label && label != nil } ?? (label == nil && index < parameters.count ? parameters[index] : nil)
            let value = if let parameter { try await evaluate(argument.expression, expecting: parameter.type) } else { try await evaluate(argument.expression) }
            items.append((label, value, argument.expression))
        }
        return Arguments(items: items)
    }

    /// An expression whose context type is `type` (a table type, optional, or an array of one).
    func evaluate(_ expr: ExprSyntax, expecting type: String) async throws -> Value {
        let type = type.hasSuffix("?") ? String(type.dropLast()) : type
        if type.hasPrefix("["), type.hasSuffix("]"), !type.contains(":"), let array = expr.as(ArrayExprSyntax.self),
           array.elements.contains(where: { Self.implicitMemberCall($0.expression) != nil || Self.isImplicitMember($0.expression) }) {
            let element = String(type.dropFirst().dropLast())
            var items: [Value] = []
            for item in array.elements { items.append(try await evaluate(item.expression, expecting: element)) }
            let value = Value.array(items)
            try budget.value(value, expr)
            return value
        }
        if let (name, call) = Self.implicitMemberCall(expr), let canonical = Surface.table.canonicalName(type),
           !(name == "init" ? Surface.table.initializers(of: canonical) : Surface.table.members(of: canonical, named: name, isStatic: true)).isEmpty {
            let typed = name == "init" ? try await surfaceInitializer(canonical, call) : try await surfaceStaticCall(name, of: canonical, call)
            if let typed { return typed }
        }
        // `.core3` compared with a Variant: a static property of the table type.
        if let member = expr.as(MemberAccessExprSyntax.self), member.base == nil, let canonical = Surface.table.canonicalName(type),
           Surface.table.type(named: canonical)?.kind != .enum,
           !Surface.table.members(of: canonical, named: member.declName.baseName.text, isStatic: true).isEmpty {
            return try await staticMember(member.declName.baseName.text, of: canonical, member)
        }
        return try await evaluate(expr)
    }

    /// `.name` with no base (a static property or case the context types).
    static func isImplicitMember(_ expr: ExprSyntax) -> Bool {
        expr.as(MemberAccessExprSyntax.self)?.base == nil && expr.is(MemberAccessExprSyntax.self)
    }

    /// `.name(...)` with no base: the member's name and the call.
    static func implicitMemberCall(_ expr: ExprSyntax) -> (String, FunctionCallExprSyntax)? {
        guard let call = expr.as(FunctionCallExprSyntax.self), let member = call.calledExpression.as(MemberAccessExprSyntax.self),
              member.base == nil else { return nil }
        return (member.declName.baseName.text, call)
    }

    func runResolved(_ resolution: SurfaceTable.Resolution, name: String, typeName: String, base: Value, baseExpr: ExprSyntax?,
                             _ e: FunctionCallExprSyntax, isStatic: Bool) async throws -> Value? {
        switch resolution {
        case .found(let entry):
            return try await runBuiltin(entry, base: base, baseExpr: baseExpr, call: e, node: e)
        case .unknownMember(let suggestion):
            if base.hasDynamicMembers { return nil }
            throw error(unknownMemberMessage(name, on: typeName, suggestion: suggestion, isStatic: isStatic), e)
        case .noMatchingOverload(let candidates, _):
            let callee = name == "init" ? typeName : name
            let labels = "(" + e.arguments.map { ($0.label?.text ?? "_") + ":" }.joined() + ")"
            throw error("no form of \(callee) takes \(labels)\(e.trailingClosure != nil ? " with a trailing closure" : ""); it takes "
                        + candidates.map(\.selector).joined(separator: ", "), e)
        }
    }
}

extension Value {
    /// The Foundation classes whose instances are `ObjectBox`es the table describes.
    static let foundationObjectTypes: Set<String> = ["JSONEncoder", "JSONDecoder", "DateFormatter", "ISO8601DateFormatter", "NumberFormatter"]

    /// The surface table type of a value, nil for file types, tuples and values the table does not describe.
    var surfaceTypeName: String? {
        switch self {
        case .string: "String"
        case .int: "Int"
        case .double: "Double"
        case .bool: "Bool"
        case .array: "Array"
        case .dictionary: "Dictionary"
        case .range, .doubleRange: "Range"
        case .data: "Data"
        case .content: "GeneratedContent"
        case .schema: "GenerationSchema"
        case .model: "SystemLanguageModel"
        case .serverModel: "PrivateCloudComputeLanguageModel"
        case .session: "LanguageModelSession"
        case .response: "LanguageModelSession.Response"
        case .stream: "LanguageModelSession.ResponseStream"
        case .snapshot: "LanguageModelSession.ResponseStream.Snapshot"
        case .usage: "LanguageModelSession.Usage"
        case .options: "GenerationOptions"
        case .samplingMode: "GenerationOptions.SamplingMode"
        case .toolCallingMode: "GenerationOptions.ToolCallingMode"
        case .instructions: "Instructions"
        case .prompt: "Prompt"
        case .transcript: "Transcript"
        case .transcriptEntry: "Transcript.Entry"
        case .transcriptPart(let part): part.typeName
        case .profile: "LanguageModelSession.Profile"
        case .errorPolicy: "TranscriptErrorHandlingPolicy"
        // A tool's error answers LanguageModelSession.ToolCallError's members (tool, underlyingError); every other error the Error protocol's.
        case .error(let e): e.error is ToolCallError ? "LanguageModelSession.ToolCallError" : "Error"
        case .skills(let object): object.typeName
        case .sessionProperties: "SessionPropertyValues"
        case .evaluations(let object): object.surfaceTypeName
        case .structure(let type, _): Surface.table.canonicalName(type)
        // CharacterSet values are enum cases: `CharacterSet.whitespaces`, `a.union(b)`, and an implicit member
        // the context did not type (`.whitespaces.union(.newlines)`) that names one of CharacterSet's statics.
        case .enumCase("CharacterSet", _, _): "CharacterSet"
        case .enumCase("", let name, _) where !Surface.table.members(of: "CharacterSet", named: name, isStatic: true).isEmpty: "CharacterSet"
        // A case of another table enum (a thrown `GenerationSchema.SchemaError`): its type's members (LocalizedError's).
        case .enumCase(let type, _, _) where !type.isEmpty: Surface.table.canonicalName(type)
        case .set: "Set"
        case .date: "Date"
        case .uuid: "UUID"
        case .object(let box) where Value.foundationObjectTypes.contains(box.type): box.type
        default: nil
        }
    }

    /// Generated content answers its properties by name, and a stream snapshot
    /// answers its value's members (the 26.0 beta form): those fall back to the
    /// value when the table has no such member.
    var hasDynamicMembers: Bool {
        switch self {
        case .content, .snapshot: true
        case .sessionProperties: true
        default: false
        }
    }
}

