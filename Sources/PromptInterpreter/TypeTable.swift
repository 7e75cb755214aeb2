import PromptLanguage
import SwiftSyntax

/// A stored property of a user type (or a static stored property).
struct StoredProperty {
    var name: String
    var type: TypeSyntax?
    var initializer: ExprSyntax?
    var isLet: Bool
    var isLazy: Bool
    var willSet: (parameter: String, body: CodeBlockItemListSyntax)?
    var didSet: (parameter: String, body: CodeBlockItemListSyntax)?
}

/// A computed property's accessors.
struct ComputedProperty {
    var getter: CodeBlockItemListSyntax
    var setter: (parameter: String, body: CodeBlockItemListSyntax)?
    var type: TypeSyntax?
}

/// An enum case as the interpreter needs it.
struct CaseInfo {
    var name: String
    var rawValue: Value?
    var parameters: [Parameter]
}

/// Everything the interpreter knows about one type: its declaration plus the
/// extensions of it in the file. Built-in types (`String`, `Int`, `Array`...)
/// get an entry when the file extends them; protocols hold their extensions'
/// default implementations.
final class TypeInfo: @unchecked Sendable {
    enum Kind { case `struct`, `class`, `enum`, `protocol`, builtin }

    let name: String
    var kind: Kind
    var superclass: String?
    var conformances: [String] = []
    var stored: [StoredProperty] = []
    var computed: [String: ComputedProperty] = [:]
    var methods: [String: [FunctionDeclSyntax]] = [:]
    var staticMethods: [String: [FunctionDeclSyntax]] = [:]
    var staticStored: [StoredProperty] = []
    var staticComputed: [String: ComputedProperty] = [:]
    var initializers: [InitializerDeclSyntax] = []
    var cases: [CaseInfo] = []
    var rawType: String?
    var subscripts: [SubscriptDeclSyntax] = []

    init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// The file's functions and types, from the operator-folded syntax.
struct TypeTable {
    private(set) var types: [String: TypeInfo] = [:]
    /// Short names to qualified names (`Inner` -> `Outer.Inner`), first declaration wins.
    private(set) var shortNames: [String: String] = [:]
    private(set) var functions: [String: [FunctionDeclSyntax]] = [:]

    /// Names extensions of built-in types are filed under.
    static func builtinName(_ written: String) -> String { SupportedSwiftChecker.extendedTypeName(written) }

    init(_ file: SourceFileSyntax) {
        for item in file.statements {
            if case .decl(let decl) = item.item { add(decl, parent: nil) }
        }
    }

    func type(_ name: String) -> TypeInfo? {
        if let found = types[name] { return found }
        if let qualified = shortNames[name] { return types[qualified] }
        return nil
    }

    private mutating func entry(_ name: String, kind: TypeInfo.Kind) -> TypeInfo {
        if let existing = types[name] {
            if kind != .builtin, existing.kind == .builtin { existing.kind = kind }
            return existing
        }
        let info = TypeInfo(name: name, kind: kind)
        types[name] = info
        let short = String(name.split(separator: ".").last ?? Substring(name))
        if shortNames[short] == nil { shortNames[short] = name }
        return info
    }

    private mutating func add(_ decl: DeclSyntax, parent: String?) {
        func qualified(_ name: String) -> String { parent.map { "\($0).\(name)" } ?? name }
        if let function = decl.as(FunctionDeclSyntax.self), parent == nil {
            functions[function.name.text, default: []].append(function)
            return
        }
        // Every declaration group (struct, class, actor, enum, protocol, extension) has a member block
        // and an inheritance clause; only the name and the kind of entry differ.
        guard let group = decl.asProtocol(DeclGroupSyntax.self) else { return }
        let info: TypeInfo
        switch group {
        case let node as StructDeclSyntax: info = entry(qualified(node.name.text), kind: .struct)
        case let node as ClassDeclSyntax: info = entry(qualified(node.name.text), kind: .class)
        case let node as ActorDeclSyntax: info = entry(qualified(node.name.text), kind: .class)
        case let node as EnumDeclSyntax: info = entry(qualified(node.name.text), kind: .enum)
        case let node as ProtocolDeclSyntax: info = entry(qualified(node.name.text), kind: .protocol)
        case let node as ExtensionDeclSyntax:
            let written = node.extendedType.trimmedDescription
            info = entry(types[written] != nil ? written : (shortNames[written] ?? Self.builtinName(written)), kind: .builtin)
        default: return
        }
        let members = group.memberBlock
        let inherited = group.inheritanceClause
        for type in inherited?.inheritedTypes ?? [] {
            let name = type.type.trimmedDescription
            if info.kind == .class, info.superclass == nil, info.conformances.isEmpty, types[name]?.kind == .class || shortNames[name].flatMap({ types[$0] })?.kind == .class {
                info.superclass = types[name]?.name ?? shortNames[name]
            } else if info.kind == .enum, info.rawType == nil, info.cases.isEmpty, ["String", "Int", "Double", "Character"].contains(name) {
                info.rawType = name
            } else {
                info.conformances.append(name)
            }
        }
        for member in members.members { addMember(member.decl, to: info) }
    }

    private mutating func addMember(_ decl: DeclSyntax, to info: TypeInfo) {
        if let function = decl.as(FunctionDeclSyntax.self) {
            guard function.body != nil else { return }  // a protocol requirement
            if Self.isStatic(function.modifiers) {
                info.staticMethods[function.name.text, default: []].append(function)
            } else {
                info.methods[function.name.text, default: []].append(function)
            }
        } else if let initializer = decl.as(InitializerDeclSyntax.self) {
            info.initializers.append(initializer)
        } else if let subscriptDecl = decl.as(SubscriptDeclSyntax.self) {
            info.subscripts.append(subscriptDecl)
        } else if let variable = decl.as(VariableDeclSyntax.self) {
            let isStatic = Self.isStatic(variable.modifiers)
            let isLazy = variable.modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for (index, binding) in variable.bindings.enumerated() {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                // `var a, b: Int`: the type written last applies to the names before it.
                let type = binding.typeAnnotation?.type
                    ?? variable.bindings.dropFirst(index + 1).lazy.compactMap { $0.typeAnnotation?.type }.first
                if let accessors = binding.accessorBlock, let computed = Self.computed(accessors, type: type) {
                    if isStatic { info.staticComputed[name] = computed } else { info.computed[name] = computed }
                    continue
                }
                if case .accessors(let list)? = binding.accessorBlock?.accessors, list.contains(where: { $0.body == nil }) {
                    continue  // `var name: String { get }`: a protocol requirement
                }
                var property = StoredProperty(name: name, type: type, initializer: binding.initializer?.value, isLet: isLet, isLazy: isLazy)
                if case .accessors(let list)? = binding.accessorBlock?.accessors {
                    for accessor in list {
                        guard let body = accessor.body?.statements else { continue }
                        let parameter = accessor.parameters?.name.text
                        switch accessor.accessorSpecifier.tokenKind {
                        case .keyword(.willSet): property.willSet = (parameter ?? "newValue", body)
                        case .keyword(.didSet): property.didSet = (parameter ?? "oldValue", body)
                        default: break
                        }
                    }
                }
                if isStatic { info.staticStored.append(property) } else { info.stored.append(property) }
            }
        } else if let caseDecl = decl.as(EnumCaseDeclSyntax.self) {
            for element in caseDecl.elements {
                var parameters: [Parameter] = []
                for parameter in element.parameterClause?.parameters ?? [] {
                    let label = parameter.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0.text }
                    parameters.append(Parameter(label: label, name: label, defaultValue: parameter.defaultValue?.value, type: parameter.type))
                }
                var raw: Value?
                if let literal = element.rawValue?.value {
                    raw = Self.literal(literal)
                } else if info.rawType == "String" || info.rawType == "Character" {
                    raw = .string(element.name.text)
                } else if info.rawType == "Int" {
                    let previous = info.cases.last?.rawValue
                    if case .int(let i)? = previous { raw = .int(i + 1) } else { raw = .int(0) }
                }
                info.cases.append(CaseInfo(name: element.name.text, rawValue: raw, parameters: parameters))
            }
        } else if decl.is(StructDeclSyntax.self) || decl.is(ClassDeclSyntax.self) || decl.is(EnumDeclSyntax.self) || decl.is(ActorDeclSyntax.self) {
            add(decl, parent: info.name)
        }
    }

    static func literal(_ expr: ExprSyntax) -> Value? {
        if let int = expr.as(IntegerLiteralExprSyntax.self), let v = int.representedLiteralValue { return .int(v) }
        if let float = expr.as(FloatLiteralExprSyntax.self), let v = float.representedLiteralValue { return .double(v) }
        if let string = expr.as(StringLiteralExprSyntax.self), let v = string.representedLiteralValue { return .string(v) }
        if let bool = expr.as(BooleanLiteralExprSyntax.self) { return .bool(bool.literal.tokenKind == .keyword(.true)) }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-", let inner = literal(prefix.expression) {
            if case .int(let i) = inner { return .int(-i) }
            if case .double(let d) = inner { return .double(-d) }
        }
        return nil
    }

    static func isStatic(_ modifiers: DeclModifierListSyntax) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    static func computed(_ block: AccessorBlockSyntax, type: TypeSyntax?) -> ComputedProperty? {
        switch block.accessors {
        case .getter(let body): return ComputedProperty(getter: body, setter: nil, type: type)
        case .accessors(let list):
            guard let getter = list.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) })?.body?.statements else { return nil }
            var computed = ComputedProperty(getter: getter, setter: nil, type: type)
            if let setter = list.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.set) }), let body = setter.body?.statements {
                computed.setter = (setter.parameters?.name.text ?? "newValue", body)
            }
            return computed
        }
    }

    /// The parameters of a declared function (operators take no argument labels).
    static func parameters(of decl: FunctionDeclSyntax) -> [Parameter] {
        var result = parameters(decl.signature.parameterClause)
        if decl.name.text.first.map({ !$0.isLetter && $0 != "_" }) == true {
            for index in result.indices { result[index].label = nil }
        }
        return result
    }

    /// The parameters of a function, initializer or subscript clause.
    static func parameters(_ clause: FunctionParameterClauseSyntax, isSubscript: Bool = false) -> [Parameter] {
        clause.parameters.map { parameter in
            let first = parameter.firstName.text
            let second = parameter.secondName?.text
            let label: String? = isSubscript ? (second == nil ? nil : (first == "_" ? nil : first)) : (first == "_" ? nil : first)
            let name = second ?? first
            var type = parameter.type
            var isInout = false
            if let attributed = type.as(AttributedTypeSyntax.self) {
                isInout = attributed.specifiers.contains { $0.trimmedDescription == "inout" }
                type = attributed.baseType
            }
            let isFunction = type.is(FunctionTypeSyntax.self)
                || type.as(TupleTypeSyntax.self)?.elements.first?.type.is(FunctionTypeSyntax.self) == true
                || type.as(OptionalTypeSyntax.self)?.wrappedType.as(TupleTypeSyntax.self)?.elements.first?.type.is(FunctionTypeSyntax.self) == true
            return Parameter(label: label, name: name == "_" ? nil : name, defaultValue: parameter.defaultValue?.value,
                             isVariadic: parameter.ellipsis != nil, isInout: isInout, isFunction: isFunction, type: type)
        }
    }
}
