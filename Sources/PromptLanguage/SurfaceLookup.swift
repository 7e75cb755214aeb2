import Surface
import SwiftSyntax

/// Questions editors ask about the surface at a position: which table entry
/// a name refers to (hover, signature help) and which members can follow a
/// dot (completion). Protocol-free: offsets are UTF-8 byte offsets.
public struct SurfaceLookup {
    public let file: PromptFile
    public let inference: SurfaceInference
    private var table: SurfaceTable { Surface.table }

    public init(file: PromptFile, inference: SurfaceInference? = nil) {
        self.file = file
        self.inference = inference ?? SurfaceInference(file: file)
    }

    /// What a name at an offset refers to.
    public enum Target {
        case member(SurfaceMember)
        case type(SurfaceType)
    }

    /// The table entry or type named by the identifier at an offset, if certain.
    public func target(at offset: Int) -> Target? {
        guard offset >= 0, offset <= file.source.text.utf8.count,
              let token = file.syntax.token(at: AbsolutePosition(utf8Offset: offset)) ?? file.syntax.token(at: AbsolutePosition(utf8Offset: max(0, offset - 1))),
              let reference = token.parent?.as(DeclReferenceExprSyntax.self) else { return nil }
        let name = reference.baseName.text
        if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
            let call = member.parent?.as(FunctionCallExprSyntax.self).flatMap { $0.calledExpression.id == member.id ? $0 : nil }
            guard let base = member.base else { return implicitTarget(member, call: call) }
            switch inference.type(of: base) {
            case .instance(let type)?:
                return resolved(call.map { resolve(type: type, name: name, call: $0, isStatic: false) }
                                ?? table.resolveValue(type: type, name: name, isStatic: false))
            case .metatype(let type)?:
                if let nested = table.type(named: type + "." + name) { return .type(nested) }
                return resolved(call.map { resolve(type: type, name: name, call: $0, isStatic: true) }
                                ?? table.resolveValue(type: type, name: name, isStatic: true))
            case nil:
                return nil
            }
        }
        let call = reference.parent?.as(FunctionCallExprSyntax.self).flatMap { $0.calledExpression.id == reference.id ? $0 : nil }
        if case .metatype(let type)? = inference.type(of: ExprSyntax(reference)) {
            if let call, case .found(let entry) = resolve(type: type, name: "init", call: call, isStatic: true) { return .member(entry) }
            return table.type(named: type).map(Target.type)
        }
        if let call, !inference.isBound(name), case .found(let entry) = table.resolveFunction(
            name: name, labels: call.arguments.map { $0.label?.text }, trailingClosure: call.trailingClosure != nil) {
            return .member(entry)
        }
        return nil
    }

    /// The entries that can follow the dot just before `offset` (`session.`, `SystemLanguageModel.`, `sampling: .`).
    public func completions(afterDotAt offset: Int) -> [SurfaceMember]? {
        guard offset > 0, offset <= file.source.text.utf8.count,
              let token = file.syntax.token(at: AbsolutePosition(utf8Offset: offset - 1)), token.tokenKind == .period else { return nil }
        let baseType: InferredType?
        if let member = token.parent?.as(MemberAccessExprSyntax.self) {
            guard let base = member.base else {
                guard let type = contextualType(of: member) else { return nil }
                return table.type(named: type)?.members.filter { $0.isStatic && $0.kind != .initializer }
            }
            baseType = inference.type(of: base)
        } else if let previous = token.previousToken(viewMode: .sourceAccurate), var expression = previous.parent?.as(ExprSyntax.self) {
            // `s.` at the end of a line parses as `s` followed by an unexpected period.
            while let parent = expression.parent?.as(ExprSyntax.self), parent.lastToken(viewMode: .sourceAccurate)?.id == previous.id,
                  parent.is(MemberAccessExprSyntax.self) || parent.is(FunctionCallExprSyntax.self) {
                expression = parent
            }
            baseType = inference.type(of: expression)
        } else {
            return nil
        }
        switch baseType {
        case .instance(let type)?: return table.type(named: type)?.members.filter { !$0.isStatic }
        case .metatype(let type)?: return table.type(named: type)?.members.filter { $0.isStatic && $0.kind != .initializer }
        case nil: return nil
        }
    }

    /// The parameter type an implicit member argument (`sampling: .greedy`) is checked against.
    public func contextualType(of member: MemberAccessExprSyntax) -> String? {
        var node = Syntax(member)
        if let call = member.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == member.id { node = Syntax(call) }
        guard let argument = node.parent?.as(LabeledExprSyntax.self), let list = argument.parent?.as(LabeledExprListSyntax.self),
              let call = list.parent?.as(FunctionCallExprSyntax.self),
              let entry = enclosingEntry(of: call), let parameters = entry.parameters,
              let index = list.firstIndex(where: { $0.id == argument.id }).map({ list.distance(from: list.startIndex, to: $0) }),
              let positions = SurfaceTable.positions(parameters, labels: list.map { $0.label?.text }), positions.indices.contains(index)
        else { return nil }
        var type = parameters[positions[index]].type
        if type.hasSuffix("?") { type.removeLast() }
        return table.canonicalName(type)
    }

    /// The entry a call resolves to (initializer, method or function), for signature help.
    public func enclosingEntry(of call: FunctionCallExprSyntax) -> SurfaceMember? {
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            if case .metatype(let type)? = inference.type(of: call.calledExpression),
               case .found(let entry) = resolve(type: type, name: "init", call: call, isStatic: true) { return entry }
            if !inference.isBound(reference.baseName.text), case .found(let entry) = table.resolveFunction(
                name: reference.baseName.text, labels: call.arguments.map { $0.label?.text }, trailingClosure: call.trailingClosure != nil) {
                return entry
            }
            return nil
        }
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base else { return nil }
        let name = member.declName.baseName.text
        switch inference.type(of: base) {
        case .instance(let type)?:
            if case .found(let entry) = resolve(type: type, name: name, call: call, isStatic: false) { return entry }
        case .metatype(let type)?:
            let nested = table.type(named: type + "." + name) != nil
            if case .found(let entry) = resolve(type: nested ? type + "." + name : type, name: nested ? "init" : name, call: call, isStatic: true) {
                return entry
            }
        case nil:
            break
        }
        return nil
    }

    /// Every form of the callee of a call, whatever labels it has so far (signature help shows the overloads).
    public func forms(of call: FunctionCallExprSyntax) -> [SurfaceMember] {
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            if case .metatype(let type)? = inference.type(of: call.calledExpression) { return table.initializers(of: type) }
            let name = reference.baseName.text
            return inference.isBound(name) ? [] : table.functions.filter { $0.name == name }
        }
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self) else { return [] }
        let name = member.declName.baseName.text
        guard let base = member.base else {
            // An implicit member (`sampling: .random(`): the parameter's type says whose.
            guard let type = contextualType(of: member) else { return [] }
            return table.members(of: type, named: name, isStatic: true)
        }
        switch inference.type(of: base) {
        case .instance(let type)?:
            return table.members(of: type, named: name, isStatic: false)
        case .metatype(let type)?:
            if table.type(named: type + "." + name) != nil { return table.initializers(of: type + "." + name) }
            return name == "init" ? table.initializers(of: type) : table.members(of: type, named: name, isStatic: true)
        case nil:
            return []
        }
    }

    private func implicitTarget(_ member: MemberAccessExprSyntax, call: FunctionCallExprSyntax?) -> Target? {
        guard let type = contextualType(of: member) else { return nil }
        let name = member.declName.baseName.text
        return resolved(call.map { resolve(type: type, name: name, call: $0, isStatic: true) } ?? table.resolveValue(type: type, name: name, isStatic: true))
    }

    private func resolve(type: String, name: String, call: FunctionCallExprSyntax, isStatic: Bool) -> SurfaceTable.Resolution {
        table.resolveCall(type: type, name: name, labels: call.arguments.map { $0.label?.text }, trailingClosure: call.trailingClosure != nil, isStatic: isStatic)
    }

    private func resolved(_ resolution: SurfaceTable.Resolution) -> Target? {
        switch resolution {
        case .found(let entry): .member(entry)
        case .noMatchingOverload(let candidates, _): candidates.first.map(Target.member)
        case .unknownMember: nil
        }
    }
}
