import PromptLanguage

/// One entry of the document outline.
public struct OutlineSymbol: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case `struct`, `enum`, enumMember, property, method, constant, playground
    }

    public var name: String
    public var detail: String?
    public var kind: Kind
    public var range: SourceRange
    /// The part an editor selects (the name, a block's head).
    public var selectionRange: SourceRange
    public var children: [OutlineSymbol]
}

extension IDEDocument {
    /// Types (with their members), top-level constants and `#Playground` blocks, in source order.
    public func documentSymbols() -> [OutlineSymbol] {
        func symbol(for type: TypeDeclaration) -> OutlineSymbol {
            var children: [OutlineSymbol] = []
            for property in type.properties + type.otherProperties {
                children.append(OutlineSymbol(name: property.name, detail: property.type?.text, kind: .property,
                                              range: property.range, selectionRange: property.nameRange, children: []))
            }
            for enumCase in type.cases {
                children.append(OutlineSymbol(name: enumCase.name, detail: nil, kind: .enumMember,
                                              range: enumCase.range, selectionRange: enumCase.nameRange, children: []))
            }
            for method in type.methods {
                children.append(OutlineSymbol(name: method.signatureName, detail: method.returnType.map { "-> \($0.text)" }, kind: .method,
                                              range: method.range, selectionRange: method.nameRange, children: []))
            }
            for nested in type.nestedTypes {
                if let nestedType = file.type(named: nested) { children.append(symbol(for: nestedType)) }
            }
            var detail: String?
            if type.tool != nil { detail = "Tool" } else if type.isGenerable { detail = "@Generable" }
            return OutlineSymbol(name: type.name, detail: detail, kind: type.kind == .enum ? .enum : .struct,
                                 range: type.range, selectionRange: type.nameRange, children: children)
        }

        var symbols: [OutlineSymbol] = []
        for type in file.types where type.parent == nil {
            symbols.append(symbol(for: type))
        }
        for constant in file.constants {
            symbols.append(OutlineSymbol(name: constant.name, detail: constant.type?.text, kind: .constant,
                                         range: constant.range, selectionRange: constant.nameRange, children: []))
        }
        for block in file.playgrounds {
            let head = SourceRange(start: block.range.start, end: block.bodyRange.start)
            symbols.append(OutlineSymbol(name: block.displayName, detail: "\(block.calls.count) model call\(block.calls.count == 1 ? "" : "s")",
                                         kind: .playground, range: block.range, selectionRange: head, children: []))
        }
        return symbols.enumerated().sorted { ($0.element.range.start.offset, $0.offset) < ($1.element.range.start.offset, $1.offset) }.map(\.element)
    }

    /// The declaration of the type, property, case or constant named at an offset (its name's range).
    public func definition(at offset: Int) -> [SourceRange] {
        guard let word = word(at: offset) else { return [] }
        // A qualified reference such as `Itinerary.Day`: resolve the last component in its scope.
        let enclosing = file.types.filter { $0.range.offsets.contains(offset) }.max { $0.range.start.offset < $1.range.start.offset }
        if let type = file.resolveType(word.text, in: enclosing?.qualifiedName) ?? file.types.first(where: { $0.name == word.text }) {
            return [type.nameRange]
        }
        if let constant = file.constants.first(where: { $0.name == word.text }) {
            return [constant.nameRange]
        }
        // A member name after a dot (`.someCase`, `value.property`): the first declaration with that name.
        if word.offsets.lowerBound > 0, bytes[word.offsets.lowerBound - 1] == UInt8(ascii: ".") {
            for type in file.types {
                if let property = (type.properties + type.otherProperties).first(where: { $0.name == word.text }) { return [property.nameRange] }
                if let enumCase = type.cases.first(where: { $0.name == word.text }) { return [enumCase.nameRange] }
            }
        }
        return []
    }
}
