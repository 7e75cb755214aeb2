import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
import Surface
import SwiftSyntax

/// Member access. Members of FoundationModels and standard-library values are
/// `Surface.table` entries run by their `Builtins`; this file handles the
/// file's own types (fields, computed properties, enum cases), tuples and
/// implicit members (`.greedy`), whose type comes from the context.
extension Interpreter {
    func memberAccess(_ e: MemberAccessExprSyntax) async throws -> Value {
        let name = e.declName.baseName.text
        guard let baseExpr = e.base else {
            // Implicit member: `.greedy`, `.contentTagging`, `.required`...
            return try implicitMember(name, e)
        }
        if baseExpr.is(SuperExprSyntax.self) { return try await superMember(name, e) }
        if name == "self", baseExpr.is(ArrayExprSyntax.self) || baseExpr.is(DictionaryExprSyntax.self) || baseExpr.is(GenericSpecializationExprSyntax.self) {
            return .type(baseExpr.trimmedDescription)  // `[Item].self`
        }
        if name == "self", let chain = baseExpr.as(OptionalChainingExprSyntax.self),
           chain.expression.trimmedDescription.first?.isUppercase == true, case .type(let wrapped) = try await evaluate(chain.expression) {
            return .type(wrapped + "?")  // `String?.self`
        }
        let base = try await evaluate(baseExpr)
        if base.isNull, Self.inOptionalChain(baseExpr) { return .null }
        return try await member(name, of: base, e)
    }

    /// Whether an expression is, or continues, an optional chain (`a?`, `a?.b`, `a?.b()`, `a?[0].c`): once it
    /// produced nil, the members and calls after it are not evaluated and the whole chain is nil, as in Swift.
    static func inOptionalChain(_ expression: ExprSyntax) -> Bool {
        var current = expression
        while true {
            if current.is(OptionalChainingExprSyntax.self) { return true }
            if let member = current.as(MemberAccessExprSyntax.self), let base = member.base { current = base; continue }
            if let call = current.as(FunctionCallExprSyntax.self) { current = call.calledExpression; continue }
            if let subscriptCall = current.as(SubscriptCallExprSyntax.self) { current = subscriptCall.calledExpression; continue }
            return false
        }
    }

    func implicitMember(_ name: String, _ node: some SyntaxProtocol) throws -> Value {
        switch name {
        case "greedy": return .samplingMode(.greedy)
        case "general": return .useCase(.general)
        case "contentTagging": return .useCase(.contentTagging)
        case "allowed": return .toolCallingMode(.allowed)
        case "required": return .toolCallingMode(.required)
        case "disallowed": return .toolCallingMode(.disallowed)
        case "default": return .model(context.systemModel(useCase: .general))
        case "light": return .reasoningLevel(.light)
        case "moderate": return .reasoningLevel(.moderate)
        case "deep": return .reasoningLevel(.deep)
        case "revertTranscript": return .errorPolicy(.revertTranscript)
        case "preserveTranscript": return .errorPolicy(.preserveTranscript)
        case "available": return .enumCase(type: "SystemLanguageModel.Availability", name: "available", payload: [])
        case "systemNotReady":
            return .enumCase(type: "PrivateCloudComputeLanguageModel.Availability.UnavailableReason", name: name, payload: [])
        case "modelNotReady", "deviceNotEligible", "appleIntelligenceNotEnabled":
            return .enumCase(type: "SystemLanguageModel.Availability.UnavailableReason", name: name, payload: [])
        // Double's statics where a Double is expected (`let x: Double = .infinity`, `-.infinity`).
        case "infinity": return .double(.infinity)
        case "nan": return .double(.nan)
        default:
            // A case of an enum declared in the file (its type is known from the case name).
            for info in types.types.values where info.kind == .enum && info.cases.contains(where: { $0.name == name && $0.parameters.isEmpty }) {
                return .enumCase(type: info.name, name: name, payload: [])
            }
            return .enumCase(type: "", name: name, payload: [])
        }
    }

    /// A value of the file's types as its synthesized `generatedContent`: a nil optional property is left out
    /// unless its type says `@Generable(representNilExplicitlyInGeneratedContent: true)` (nested values follow
    /// their own type's rule).
    func memberwiseContent(_ value: Value) -> GeneratedContent {
        switch value {
        case .structure(let type, let fields) where isFileType(type):
            let explicit = context.file.type(named: type)?.generableAttribute?.representsNilExplicitly == true
            let kept = explicit ? fields : fields.filter { !$0.value.isNull }
            return Value.structureContent(kept, memberwiseContent)
        case .array(let items):
            return GeneratedContent(elements: items.map(memberwiseContent))
        default:
            return value.generatedContent
        }
    }

    /// The representations FoundationModels' protocols give a type of the file that does not declare them:
    /// `generatedContent` (a @Generable or ConvertibleToGeneratedContent type's memberwise content) and
    /// `promptRepresentation`/`instructionsRepresentation` (from its declared or memberwise content).
    func representationMember(_ name: String, of base: Value, type: String, _ node: some SyntaxProtocol) async throws -> Value? {
        let conformances = Set(types.type(type)?.conformances ?? [])
        let convertible = context.file.type(named: type)?.isGenerable == true || conformances.contains("Generable")
            || conformances.contains("ConvertibleToGeneratedContent")
        switch name {
        case "generatedContent" where convertible:
            return .content(memberwiseContent(base))
        case "promptRepresentation" where convertible || conformances.contains("PromptRepresentable"):
            return .prompt(Prompt(try await representedText(base, at: node)))
        case "instructionsRepresentation" where convertible || conformances.contains("InstructionsRepresentable"):
            return .instructions(Instructions(try await representedText(base, instructions: true, at: node)))
        default:
            return toolDefaultMember(name, type: type)
        }
    }

    /// What the `Tool` protocol gives a tool type of the file that does not declare it: `name` is the type name
    /// (Apple documents the default; its PlannerTool relies on it) and `includesSchemaInInstructions` is true.
    func toolDefaultMember(_ name: String, type: String) -> Value? {
        guard let declaration = context.file.type(named: type), let tool = declaration.tool else { return nil }
        switch name {
        case "name": return .string(tool.effectiveName(typeName: declaration.name))
        case "includesSchemaInInstructions": return .bool(true)
        default: return nil
        }
    }

    /// An expression whose declared type is written (`let p: Point = .origin`, a parameter's `= .standard`): an
    /// implicit member names a static of that type when it is one of the file's types.
    func evaluate(_ expr: ExprSyntax, typedAs type: TypeSyntax?) async throws -> Value {
        if let member = expr.as(MemberAccessExprSyntax.self), member.base == nil,
           let name = (type?.as(OptionalTypeSyntax.self)?.wrappedType ?? type)?.as(IdentifierTypeSyntax.self)?.name.text,
           let info = types.type(name), info.kind != .builtin, info.kind != .enum || !info.cases.contains(where: { $0.name == member.declName.baseName.text }),
           let value = try await userStaticMember(member.declName.baseName.text, of: info.name, member) {
            return value
        }
        return try await evaluate(expr)
    }

    /// `Int(x)`, `Double(x)` as function values: text parses (nil when it is not a number), numbers convert
    /// (a Double to Int truncates; one that is not finite or out of range is an error, as Swift traps).
    func numericConversion(_ typeName: String, _ value: Value, _ node: some SyntaxProtocol) throws -> Value {
        switch (typeName, value) {
        case ("Int", .string(let s)): return Int(s).map(Value.int) ?? .null
        case ("Int", .int): return value
        case ("Int", .double(let d)):
            guard d.isFinite, d > -9.3e18, d < 9.3e18 else { throw error("Double value \(d) cannot be converted to Int", node) }
            return .int(Int(d))
        case (_, .string(let s)): return Double(s).map(Value.double) ?? .null
        case (_, .int(let i)): return .double(Double(i))
        case (_, .double): return value
        default: throw error("\(typeName).init cannot convert \(value.description.prefix(30))", node)
        }
    }

    func member(_ name: String, of base: Value, _ node: some SyntaxProtocol) async throws -> Value {
        if let value = try await evaluationsMember(name, of: base, node) { return value }
        if case .object(let box) = base, Value.foundationObjectTypes.contains(box.type), types.type(box.type) == nil,
           let value = try await surfaceMember(name, of: base, node) {
            return value  // a Foundation object's properties are its table entries (NumberFormatter computes its defaults)
        }
        if let value = try await userMember(name, of: base, node) { return value }
        switch base {
        case .type(let typeName):
            if let value = try await userStaticMember(name, of: typeName, node) { return value }
            if typeName == "String", name == "init" {
                // `String.init` as a function value (`numbers.map(String.init)`).
                return .function(FunctionValue.native("String.init", arity: 1) { [unowned self] values in .string(try await self.text(values[0])) })
            }
            if ["Int", "Double", "Float"].contains(typeName), name == "init" {
                // `["1", "x"].compactMap(Int.init)`, `[3.7].map(Int.init)`, `[1, 2].map(Double.init)`.
                return .function(FunctionValue.native("\(typeName).init", arity: 1) { [unowned self] values in
                    try self.numericConversion(typeName, values[0], node)
                })
            }
            return try await staticMember(name, of: typeName, node)
        case .structure(let type, _) where isFileType(type):
            // A value generated for a dynamic schema (its type is no declaration of the file) is Apple's
            // GeneratedContent: the members its fields do not answer are GeneratedContent's (jsonString, kind...).
            if isDynamicSchemaValue(type), !Surface.table.members(of: "GeneratedContent", named: name, isStatic: false).isEmpty {
                return try await member(name, of: .content(base.generatedContent), node)
            }
            if let value = try await representationMember(name, of: base, type: type, node) { return value }
            throw error("\(type) has no property '\(name)'", node)
        case .object(let box):
            if let value = toolDefaultMember(name, type: box.type) { return value }
            throw error("\(box.type) has no property '\(name)'", node)
        case .enumCase(let type, let caseName, let payload):
            if name == "rawValue" {
                // The declared raw value, else the case name (String raw values default to it).
                switch context.file.type(named: type)?.cases.first(where: { $0.name == caseName })?.rawValue {
                case .integer(let i)?: return .int(i)
                case .double(let d)?: return .double(d)
                case .string(let s)?: return .string(s)
                default: return .string(caseName)
                }
            }
            if let item = payload.first(where: { $0.label == name }) { return item.value }
            if name == "description" { return .string(try await text(base)) }
            // A case of a table enum (`GenerationSchema.SchemaError.undefinedReferences`) answers the table's members.
            if Surface.table.type(named: type) != nil, let value = try await surfaceMember(name, of: base, node) { return value }
            throw error("'\(caseName)' has no property '\(name)'", node)
        case .tuple(let items):
            // Tuple members by label (`pair.key`, `t.name`) or position (`t.0`).
            if let item = items.first(where: { $0.label == name }) { return item.value }
            if let index = Int(name), items.indices.contains(index) { return items[index].value }
            if name == "description" { return .string(base.description) }
        default:
            if let value = try await surfaceMember(name, of: base, node) { return value }
        }
        // Members the table does not list on values with dynamic members.
        switch base {
        case .content(let c):
            if case .structure = c.kind { return c[name].map(Value.content) ?? .null }
        case .snapshot(let content, _, _, _):
            return try await member(name, of: content, node)  // the 26.0 beta element was the value itself
        case .sessionProperties(let session):
            // `session.properties.summary`: the file's @SessionPropertyEntry names, read from the session now.
            return try sessionProperty(name, of: session, node)
        default:
            break
        }
        throw error("'\(name)' is not available on \(base.typeDescription) values in prompt files", node)
    }

    /// Whether a structure value is of a type declared in the file (not a table type such as ContextOptions).
    /// A structure of a type the file does not declare: what a dynamic schema generated.
    func isDynamicSchemaValue(_ type: String) -> Bool {
        Surface.table.canonicalName(type) == nil && context.file.resolveType(type, in: nil) == nil && types.type(type) == nil
    }

    func isFileType(_ type: String) -> Bool {
        Surface.table.canonicalName(type) == nil || context.file.resolveType(type, in: nil) != nil
    }

    /// `Type.member`: nested types, static values and cases of table types, then the file's enums.
    func staticMember(_ name: String, of typeName: String, _ node: some SyntaxProtocol) async throws -> Value {
        if name == "self" { return .type(typeName) }
        if name == "generationSchema", let schema = context.schema(forType: typeName) { return .schema(schema) }
        if let type = context.file.resolveType(typeName, in: nil) {
            if type.kind == .enum, type.cases.contains(where: { $0.name == name }) {
                return .enumCase(type: type.qualifiedName, name: name, payload: [])
            }
            if type.kind == .enum, name == "allCases" {
                return .array(type.cases.map { .enumCase(type: type.qualifiedName, name: $0.name, payload: []) })
            }
            if let nested = context.file.resolveType(name, in: type.qualifiedName) { return .type(nested.qualifiedName) }
            throw error("type '\(typeName)' has no member '\(name)'", node)
        }
        if let value = try await surfaceStaticMember(name, of: typeName, node) { return value }
        throw error("type '\(typeName)' has no member '\(name)' in prompt files", node)
    }
}
