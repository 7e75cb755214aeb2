import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
import SwiftSyntax

extension Interpreter {
    func memberAccess(_ e: MemberAccessExprSyntax) async throws -> Value {
        let name = e.declName.baseName.text
        guard let baseExpr = e.base else {
            // Implicit member: `.greedy`, `.contentTagging`, `.required`...
            return try implicitMember(name, e)
        }
        let base = try await evaluate(baseExpr)
        if base.isNull, baseExpr.is(OptionalChainingExprSyntax.self) { return .null }
        return try await member(name, of: base, e)
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
        case "available": return .enumCase(type: "SystemLanguageModel.Availability", name: "available", payload: [])
        case "modelNotReady", "deviceNotEligible", "appleIntelligenceNotEnabled":
            return .enumCase(type: "SystemLanguageModel.Availability.UnavailableReason", name: name, payload: [])
        default: return .enumCase(type: "", name: name, payload: [])
        }
    }

    func member(_ name: String, of base: Value, _ node: some SyntaxProtocol) async throws -> Value {
        switch base {
        case .type(let typeName):
            return try staticMember(name, of: typeName, node)
        case .structure(let type, let fields):
            if let field = fields.first(where: { $0.name == name }) { return field.value }
            if let getter = context.computedProperty(name, of: type) {
                var bindings: [String: Value] = ["self": base]
                for field in fields { bindings[field.name] = field.value }
                return try await isolated(bindings) { try await runBody(getter) }
            }
            throw error("\(type) has no property '\(name)'", node)
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
            if name == "description" { return .string(base.description) }
            throw error("'\(caseName)' has no property '\(name)'", node)
        case .content(let c):
            switch name {
            case "jsonString": return .string(c.jsonString)
            case "isComplete": return .bool(c.isComplete)
            case "count": if let a = c.arrayValue { return .int(a.count) }
            default: break
            }
            if case .structure = c.kind { return c[name].map(Value.content) ?? .null }
        case .model(let model):
            switch name {
            case "availability":
                switch model.availability {
                case .available: return .enumCase(type: "SystemLanguageModel.Availability", name: "available", payload: [])
                case .unavailable(let reason):
                    return .enumCase(type: "SystemLanguageModel.Availability", name: "unavailable", payload: [
                        (label: nil, value: .enumCase(type: "SystemLanguageModel.Availability.UnavailableReason", name: "\(reason)", payload: [])),
                    ])
                }
            case "isAvailable": return .bool(model.isAvailable)
            case "contextSize": return .int(model.contextSize)
            case "supportedLanguages": return .array((model.supportedLanguages ?? []).map(Value.string))
            case "useCase": return .useCase(model.useCase)
            default: break
            }
        case .session(let session):
            switch name {
            case "transcript": return .transcript(session.transcript)
            case "isResponding": return .bool(session.isResponding)
            case "usage": return .usage(session.usage)
            default: break
            }
        case .response(let r):
            switch name {
            case "content": return r.content
            case "rawContent": return .content(r.rawContent)
            case "transcriptEntries": return .array(r.entries.map(Value.transcriptEntry))
            case "usage": return .usage(r.usage)
            default: break
            }
        case .snapshot(let content, let raw):
            switch name {
            case "content": return content
            case "rawContent": return .content(raw)
            default: return try await member(name, of: content, node)  // the 26.0 beta element was the value itself
            }
        case .data(let bytes):
            switch name {
            case "count": return .int(bytes.count)
            case "isEmpty": return .bool(bytes.isEmpty)
            default: break
            }
        case .usage(let u):
            switch name {
            case "promptTokens", "inputTokenCount": return .int(u.promptTokens)
            case "cachedTokens", "cachedTokenCount": return .int(u.cachedTokens)
            case "responseTokens", "outputTokenCount": return .int(u.responseTokens)
            case "totalTokenCount", "totalTokens": return .int(u.totalTokens)
            // 27's nested form: usage.input.totalTokenCount / cachedTokenCount, usage.output.totalTokenCount.
            case "input":
                return .structure(type: "LanguageModelSession.Usage.Input", fields: [
                    ("totalTokenCount", .int(u.promptTokens)), ("cachedTokenCount", .int(u.cachedTokens))])
            case "output":
                return .structure(type: "LanguageModelSession.Usage.Output", fields: [
                    ("totalTokenCount", .int(u.responseTokens)), ("reasoningTokenCount", .int(0))])
            default: break
            }
        case .transcript(let t):
            switch name {
            case "count": return .int(t.count)
            case "entries": return .array(t.map(Value.transcriptEntry))
            case "isEmpty": return .bool(t.isEmpty)
            case "last": return t.last.map(Value.transcriptEntry) ?? .null
            case "first": return t.first.map(Value.transcriptEntry) ?? .null
            case "description": return .string(t.description)
            default: break
            }
        case .error(let e):
            switch name {
            case "localizedDescription", "description": return .string("\(e.error)")
            case "debugDescription": return .string((e.error as? GenerationError)?.context.debugDescription ?? "\(e.error)")
            case "underlyingError": if let t = e.error as? ToolCallError { return .error(ErrorValue(error: t.underlyingError)) }
            default: break
            }
        case .options(let o):
            switch name {
            case "temperature": return o.temperature.map(Value.double) ?? .null
            case "maximumResponseTokens": return o.maximumResponseTokens.map(Value.int) ?? .null
            default: break
            }
        default:
            break
        }
        return try commonMember(name, of: base, node)
    }

    /// Properties shared by strings, arrays and dictionaries.
    func commonMember(_ name: String, of base: Value, _ node: some SyntaxProtocol) throws -> Value {
        switch (name, base) {
        case ("count", .string(let s)): return .int(s.count)
        case ("count", .array(let a)): return .int(a.count)
        case ("count", .dictionary(let d)): return .int(d.count)
        case ("isEmpty", .string(let s)): return .bool(s.isEmpty)
        case ("isEmpty", .array(let a)): return .bool(a.isEmpty)
        case ("isEmpty", .dictionary(let d)): return .bool(d.isEmpty)
        case ("first", .array(let a)): return a.first ?? .null
        case ("last", .array(let a)): return a.last ?? .null
        case ("keys", .dictionary(let d)): return .array(d.map(\.key))
        case ("values", .dictionary(let d)): return .array(d.map(\.value))
        case ("description", _): return .string(base.description)
        default: break
        }
        // Tuple members by label (`pair.key`, `t.name`) or position (`t.0`).
        if case .tuple(let items) = base {
            if let item = items.first(where: { $0.label == name }) { return item.value }
            if let index = Int(name), items.indices.contains(index) { return items[index].value }
        }
        throw error("'\(name)' is not available on \(base.description.prefix(40)) in prompt files", node)
    }

    /// `Type.member`: enum cases, static values, FoundationModels statics.
    func staticMember(_ name: String, of typeName: String, _ node: some SyntaxProtocol) throws -> Value {
        if typeName == "SystemLanguageModel", name == "default" { return .model(context.systemModel(useCase: .general)) }
        if typeName.hasSuffix("UseCase") || typeName == "SystemLanguageModel" {
            if name == "contentTagging" { return .useCase(.contentTagging) }
            if name == "general" { return .useCase(.general) }
        }
        if name == "self" { return .type(typeName) }
        if let constant = Arithmetic.staticMember(name, of: typeName) { return constant }
        if name == "generationSchema", let schema = context.schema(forType: typeName) { return .schema(schema) }
        if let type = context.file.resolveType(typeName, in: nil) {
            if type.kind == .enum, type.cases.contains(where: { $0.name == name }) {
                return .enumCase(type: type.qualifiedName, name: name, payload: [])
            }
            if type.kind == .enum, name == "allCases" {
                return .array(type.cases.map { .enumCase(type: type.qualifiedName, name: $0.name, payload: []) })
            }
            if let nested = context.file.resolveType(name, in: type.qualifiedName) { return .type(nested.qualifiedName) }
        }
        if ["GenerationError", "LanguageModelSession", "LanguageModelError"].contains(typeName) || typeName.hasSuffix(".GenerationError") {
            return .type(typeName + "." + name)
        }
        return try implicitMember(name, node)
    }

}
