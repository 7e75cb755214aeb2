import Foundation
import FoundationModelsRuntime
import PromptLanguage
import SwiftSyntax

/// Types declared in the file: members, methods, initializers, statics,
/// protocol default implementations and extensions (of built-in types too).
extension Interpreter {
    var types: TypeTable { context.types }

    /// The type name methods and extensions are looked up under.
    package func typeName(of value: Value) -> String? {
        switch value {
        case .structure(let type, _): return type
        case .object(let box): return box.type
        case .enumCase(let type, _, _): return type.isEmpty ? nil : type
        case .string: return "String"
        case .int: return "Int"
        case .double: return "Double"
        case .bool: return "Bool"
        case .array: return "Array"
        case .dictionary: return "Dictionary"
        case .set: return "Set"
        default: return nil
        }
    }

    /// The type, its superclasses, then the protocols they conform to (with the protocols those inherit).
    func lookupChain(_ typeName: String) -> [TypeInfo] {
        var chain: [TypeInfo] = []
        var seen = Set<String>()
        var pending: [String] = [typeName]
        var protocols: [String] = []
        while let name = pending.first {
            pending.removeFirst()
            guard let info = types.type(name), seen.insert(info.name).inserted else { continue }
            chain.append(info)
            protocols += info.conformances
            if let superclass = info.superclass { pending.append(superclass) }
        }
        while let name = protocols.first {
            protocols.removeFirst()
            guard let info = types.type(name), seen.insert(info.name).inserted else { continue }
            chain.append(info)
            protocols += info.conformances
        }
        return chain
    }

    /// Whether a type declares (directly, through a superclass or a protocol) a
    /// conformance; qualified names count (`LanguageModelSession.DynamicProfile`, `Evaluations.Evaluation`).
    func conforms(_ typeName: String, to proto: String) -> Bool {
        lookupChain(typeName).contains { info in
            info.name == proto || info.name.hasSuffix("." + proto)
                || info.conformances.contains { $0 == proto || $0.hasSuffix("." + proto) }
        }
    }

    func isSubclass(_ typeName: String, of other: String) -> Bool {
        var current: String? = typeName
        while let name = current {
            if name == other { return true }
            current = types.type(name)?.superclass
        }
        return conforms(typeName, to: other)
    }

    func findMethod(_ name: String, in typeName: String, isStatic: Bool = false) -> (decls: [FunctionDeclSyntax], owner: String)? {
        for info in lookupChain(typeName) {
            if let decls = isStatic ? info.staticMethods[name] : info.methods[name] { return (decls, info.name) }
        }
        return nil
    }

    func findComputed(_ name: String, in typeName: String, isStatic: Bool = false) -> ComputedProperty? {
        for info in lookupChain(typeName) {
            if let computed = isStatic ? info.staticComputed[name] : info.computed[name] { return computed }
        }
        return nil
    }

    /// Runs a getter or another accessor body with `self` bound.
    func runAccessor(_ body: CodeBlockItemListSyntax, selfCell: Cell, typeName: String, bindings: [String: Value] = [:],
                     at node: some SyntaxProtocol) async throws -> Value {
        var scope: Scope = [:]
        for (name, value) in bindings { scope[name] = Cell(value) }
        let function = FunctionValue(name: "accessor", parameters: [], body: .statements(body), captured: [globalScope, scope],
                                     selfCell: selfCell, typeName: typeName)
        return try await invoke(function, [], at: node)
    }

    /// Whether a value has an instance member of this name (for implicit `self`).
    func hasMember(_ value: Value, _ name: String) -> Bool {
        switch value {
        case .structure(_, let fields) where fields.contains(where: { $0.name == name }): return true
        case .object(let box) where box.field(name) != nil: return true
        default: break
        }
        guard let type = typeName(of: value) else { return false }
        return lookupChain(type).contains { $0.computed[name] != nil || $0.methods[name] != nil || $0.stored.contains { $0.name == name } }
    }

    /// An instance property of a user type, or a computed property an extension adds to any value.
    func userMember(_ name: String, of base: Value, _ node: some SyntaxProtocol) async throws -> Value? {
        switch base {
        case .structure(_, let fields):
            if let field = fields.first(where: { $0.name == name }) {
                if case .sessionProperty(let key) = field.value { return try readSessionProperty(key, node) }
                return field.value
            }
        case .object(let box):
            if let field = box.field(name) {
                if case .sessionProperty(let key) = field { return try readSessionProperty(key, node) }
                return field
            }
        case .enumCase(let type, let caseName, _) where name == "rawValue":
            if let raw = types.type(type)?.cases.first(where: { $0.name == caseName })?.rawValue { return raw }
        default: break
        }
        guard let type = typeName(of: base) else { return nil }
        if let computed = findComputed(name, in: type) {
            return try await runAccessor(computed.getter, selfCell: Cell(base), typeName: type, at: node).converted(to: computed.type)
        }
        // `lazy var`: computed on first use (and kept, for class instances).
        for info in lookupChain(type) {
            if let lazy = info.stored.first(where: { $0.name == name && $0.isLazy }), let initializer = lazy.initializer {
                let selfCell = Cell(base)
                let value = try await runAccessor(CodeBlockItemListSyntax([CodeBlockItemSyntax(item: .expr(initializer))]),
                                                  selfCell: selfCell, typeName: type, at: node).converted(to: lazy.type)
                if case .object(let box) = base { box.setField(name, value) }
                return value
            }
        }
        if let method = findMethod(name, in: type) {
            return .function(makeFunction(method.decls[0], captured: [globalScope], selfCell: Cell(base), typeName: method.owner))
        }
        if name == "localizedDescription", let computed = findComputed("errorDescription", in: type) {
            return try await runAccessor(computed.getter, selfCell: Cell(base), typeName: type, at: node)
        }
        // An Error of the file without a description: Foundation's generic text, with the case's number for an enum.
        if name == "localizedDescription", lookupChain(type).contains(where: { $0.conformances.contains("Error") || $0.conformances.contains("LocalizedError") }) {
            var code = 1
            if case .enumCase(_, let caseName, _) = base, let index = types.type(type)?.cases.firstIndex(where: { $0.name == caseName }) { code = index }
            return .string("The operation could not be completed. (\(type) error \(code).)")
        }
        return nil
    }

    /// `super.name`: a property of the superclass's implementation, on `self`.
    func superMember(_ name: String, _ node: some SyntaxProtocol) async throws -> Value {
        guard let selfCell = lookupCell("self"), let current = currentTypeName, let superclass = types.type(current)?.superclass else {
            throw error("super is only available in a subclass", node)
        }
        if let computed = findComputed(name, in: superclass) {
            return try await runAccessor(computed.getter, selfCell: selfCell, typeName: superclass, at: node)
        }
        if let method = findMethod(name, in: superclass) {
            return .function(makeFunction(method.decls[0], captured: [globalScope], selfCell: selfCell, typeName: method.owner))
        }
        return try await member(name, of: selfCell.value, node)
    }

    /// `Type.member` for user types: static stored (initialized once), static computed, cases, `allCases`.
    func userStaticMember(_ name: String, of typeName: String, _ node: some SyntaxProtocol) async throws -> Value? {
        guard types.type(typeName) != nil else { return nil }
        for info in lookupChain(typeName) {
            if let stored = info.staticStored.first(where: { $0.name == name }) {
                let key = info.name + "." + name
                if let cell = statics[key] { return cell.value }
                var value = Value.null
                if let initializer = stored.initializer {
                    value = try await runAccessor(CodeBlockItemListSyntax([CodeBlockItemSyntax(item: .expr(initializer))]),
                                                  selfCell: Cell(.type(info.name)), typeName: info.name, at: node).converted(to: stored.type)
                }
                statics[key] = Cell(value)
                return value
            }
            if let computed = info.staticComputed[name] {
                return try await runAccessor(computed.getter, selfCell: Cell(.type(typeName)), typeName: typeName, at: node)
            }
        }
        guard let info = types.type(typeName) else { return nil }
        if info.kind == .enum {
            if let found = info.cases.first(where: { $0.name == name }) {
                if !found.parameters.isEmpty {
                    // A case with associated values used as a function: `Shape.circle` then called.
                    return .function(FunctionValue(name: name, parameters: found.parameters, body: .native { [info] values in
                        .enumCase(type: info.name, name: name, payload: zip(found.parameters, values).map { ($0.label, $1.converted(to: $0.type)) })
                    }, captured: [], typeName: info.name, isClosure: true))
                }
                return .enumCase(type: info.name, name: name, payload: [])
            }
            if name == "allCases" { return .array(info.cases.map { .enumCase(type: info.name, name: $0.name, payload: []) }) }
        }
        if let method = findMethod(name, in: typeName, isStatic: true) {
            return .function(makeFunction(method.decls[0], captured: [globalScope], selfCell: Cell(.type(typeName)), typeName: typeName))
        }
        return nil
    }

    /// Sets a static stored property.
    func setStatic(_ name: String, of typeName: String, _ value: Value, _ node: some SyntaxProtocol) async throws -> Bool {
        for info in lookupChain(typeName) where info.staticStored.contains(where: { $0.name == name }) {
            _ = try await userStaticMember(name, of: info.name, node)
            statics[info.name + "." + name]?.value = value
            return true
        }
        return false
    }

    /// Calls a method declared for the value's type (or an extension or protocol default).
    /// A `mutating` method on a value type writes `self` back to `baseExpr`.
    func callUserMethod(_ name: String, on base: Value, baseExpr: ExprSyntax?, _ args: [CallArgument],
                        at node: some SyntaxProtocol) async throws -> Value? {
        guard let type = typeName(of: base), let method = findMethod(name, in: type) else { return nil }
        let chosen = choose(method.decls, parameters: { TypeTable.parameters(of: $0) }, args) ?? method.decls[0]
        let mutating = chosen.modifiers.contains { $0.name.tokenKind == .keyword(.mutating) }
        if mutating, let baseExpr, !isReference(base) {
            var result = Value.null
            try await modify(baseExpr) { value in
                let cell = Cell(value)
                result = try await invoke(makeFunction(chosen, captured: [globalScope], selfCell: cell, typeName: method.owner), args, at: node)
                value = cell.value
            }
            return result
        }
        return try await invoke(makeFunction(chosen, captured: [globalScope], selfCell: Cell(base), typeName: method.owner), args, at: node)
    }

    func isReference(_ value: Value) -> Bool {
        if case .object = value { return true }
        return false
    }

    // MARK: Initializers

    /// `Type(...)` for a type declared in the file. Nil when it has no initializer that fits
    /// (the caller then tries the memberwise initializer).
    func constructUser(_ typeName: String, _ args: [CallArgument], at node: some SyntaxProtocol) async throws -> Value? {
        guard let info = types.type(typeName) else { return nil }
        switch info.kind {
        case .enum:
            if let init_ = chooseInitializer(info, args) { return try await runInitializer(init_, selfValue: .null, type: info.name, args, at: node) }
            if args.count == 1, args[0].label == "rawValue" {
                guard let found = info.cases.first(where: { $0.rawValue.map { Value.equal($0, args[0].value) } ?? false }) else { return .null }
                return .enumCase(type: info.name, name: found.name, payload: [])
            }
            return nil
        case .class:
            let box = ObjectBox(type: info.name, fields: [])
            try await initializeStored(of: info.name, into: box, at: node)
            var current: String? = info.name
            while let name = current, let classInfo = types.type(name) {
                if let init_ = chooseInitializer(classInfo, args) {
                    return try await runInitializer(init_, selfValue: .object(box), type: classInfo.name, args, at: node)
                }
                if !classInfo.initializers.isEmpty { break }
                current = classInfo.superclass
            }
            if args.isEmpty { return .object(box) }
            throw error("\(info.name) has no initializer taking (\(args.map { ($0.label ?? "_") + ":" }.joined()))", node)
        case .struct:
            guard let init_ = chooseInitializer(info, args) else { return nil }
            let box = ObjectBox(type: info.name, fields: [])
            try await initializeStored(of: info.name, into: box, at: node)
            return try await runInitializer(init_, selfValue: .structure(type: info.name, fields: box.fields), type: info.name, args, at: node)
        case .protocol, .builtin:
            return nil
        }
    }

    func chooseInitializer(_ info: TypeInfo, _ args: [CallArgument]) -> InitializerDeclSyntax? {
        let fitting = info.initializers.filter { bind(TypeTable.parameters($0.signature.parameterClause), args) != nil }
        return fitting.count <= 1 ? fitting.first : choose(fitting, parameters: { TypeTable.parameters($0.signature.parameterClause) }, args)
    }

    /// Stored properties with their starting values (superclass first); the others start as nil.
    func initializeStored(of typeName: String, into box: ObjectBox, at node: some SyntaxProtocol) async throws {
        guard let info = types.type(typeName) else { return }
        if let superclass = info.superclass { try await initializeStored(of: superclass, into: box, at: node) }
        for property in info.stored where !property.isLazy {
            var value = Value.null
            if let key = context.sessionPropertyKey(property.name, of: typeName) {
                value = .sessionProperty(key)
            } else if let initializer = property.initializer {
                value = try await isolated([:]) { try await evaluate(initializer) }.converted(to: property.type)
            }
            box.setField(property.name, value)
        }
    }

    /// Runs an `init` body on `self`; a failable one that returns nil gives nil.
    func runInitializer(_ decl: InitializerDeclSyntax, selfValue: Value, type: String, _ args: [CallArgument],
                        at node: some SyntaxProtocol) async throws -> Value {
        let selfCell = Cell(selfValue)
        let function = FunctionValue(name: "init", parameters: TypeTable.parameters(decl.signature.parameterClause),
                                     body: .statements(decl.body?.statements ?? CodeBlockItemListSyntax([])), captured: [globalScope],
                                     selfCell: selfCell, typeName: type)
        let savedFailable = failableInitializerDepth
        let savedInitializer = initializerDepth
        failableInitializerDepth = decl.optionalMark != nil ? callDepth + 1 : -1
        initializerDepth = callDepth + 1
        defer {
            failableInitializerDepth = savedFailable
            initializerDepth = savedInitializer
        }
        do {
            _ = try await invoke(function, args, at: node)
        } catch is InitializerFailed {
            return .null
        }
        return selfCell.value
    }

    /// `super.init(...)` / `self.init(...)` inside an initializer: runs on the same instance.
    func delegateInitializer(toSuper: Bool, _ args: [CallArgument], at node: some SyntaxProtocol) async throws {
        guard let selfCell = lookupCell("self"), let current = currentTypeName, let info = types.type(current) else {
            throw error("\(toSuper ? "super" : "self").init is only available inside an initializer", node)
        }
        let targetName = toSuper ? info.superclass : info.name
        guard let targetName, let target = types.type(targetName) else { throw error("\(current) has no superclass", node) }
        guard let init_ = chooseInitializer(target, args) else {
            if args.isEmpty { return }
            // The memberwise initializer (an `init` in an extension delegating to it).
            if target.kind == .struct, case .structure(let type, var fields) = selfCell.value,
               args.allSatisfy({ label in label.label.map { name in target.stored.contains { $0.name == name } } ?? false }) {
                for argument in args {
                    let property = target.stored.first { $0.name == argument.label }
                    let value = argument.value.converted(to: property?.type)
                    if let index = fields.firstIndex(where: { $0.name == argument.label }) { fields[index].value = value } else { fields.append((argument.label!, value)) }
                }
                selfCell.value = .structure(type: type, fields: fields)
                return
            }
            throw error("\(targetName) has no initializer taking (\(args.map { ($0.label ?? "_") + ":" }.joined()))", node)
        }
        let result = try await runInitializer(init_, selfValue: selfCell.value, type: target.name, args, at: node)
        if !isReference(selfCell.value) { selfCell.value = result }
    }
}

extension Interpreter {
    /// The generated fields of a @Generable type plus its `GenerationID` properties, in declaration order: the model
    /// does not generate those (they are not in the schema); they take the content's id, which a session sets on
    /// everything it generates (shared by a stream's snapshots). Content made by hand has none: then a new id.
    func withGenerationIDs(_ typeName: String, _ content: GeneratedContent, _ fields: [(name: String, value: Value)]) -> [(name: String, value: Value)] {
        guard let type = context.file.type(named: typeName),
              type.properties.contains(where: { Self.isGenerationID($0.type) }) else { return fields }
        let id = Value.generationID(content.id.map { runIdentifier($0.rawValue) } ?? randomUUID())
        var result: [(name: String, value: Value)] = []
        for property in type.properties {
            if Self.isGenerationID(property.type) { result.append((property.name, id)) }
            else if let field = fields.first(where: { $0.name == property.name }) { result.append(field) }
        }
        return result + fields.filter { field in !result.contains { $0.name == field.name } }
    }

    /// A session's generation id (`<request UUID>/<path>`) with the request's UUID replaced by one from the seeded
    /// generator, the same for every snapshot of the request: printed ids repeat run to run, as `GenerationID()` does.
    func runIdentifier(_ raw: String) -> String {
        let root = raw.prefix { $0 != "/" }
        let path = raw.dropFirst(root.count)
        if let known = generationIDRoots[String(root)] { return known + path }
        let fresh = randomUUID()
        generationIDRoots[String(root)] = fresh
        return fresh + path
    }

    /// A version 4 UUID from the interpreter's seeded generator (so runs repeat), as `UUID().uuidString` writes it.
    package func randomUUID() -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
    }

    static func isGenerationID(_ type: TypeReference?) -> Bool {
        guard let text = type?.text else { return false }
        return text == "GenerationID" || text == "FoundationModels.GenerationID"
    }
}
