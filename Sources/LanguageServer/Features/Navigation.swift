import PromptLanguage

extension LanguageServer {
    /// Types (with their members), top-level constants and `#Playground` blocks.
    func documentSymbols(_ params: DocumentParams) throws -> [DocumentSymbol] {
        let current = try analysis(params.textDocument.uri)
        let file = current.file
        func range(_ r: SourceRange) -> LSPRange { current.range(r, encoding) }

        func symbol(for type: TypeDeclaration) -> DocumentSymbol {
            var children: [DocumentSymbol] = []
            for property in type.properties + type.otherProperties {
                children.append(DocumentSymbol(
                    name: property.name, detail: property.type?.text, kind: SymbolKind.property,
                    range: range(property.range), selectionRange: range(property.nameRange), children: nil))
            }
            for enumCase in type.cases {
                children.append(DocumentSymbol(
                    name: enumCase.name, detail: nil, kind: SymbolKind.enumMember,
                    range: range(enumCase.range), selectionRange: range(enumCase.nameRange), children: nil))
            }
            for method in type.methods {
                children.append(DocumentSymbol(
                    name: method.signatureName, detail: method.returnType.map { "-> \($0.text)" }, kind: SymbolKind.method,
                    range: range(method.range), selectionRange: range(method.nameRange), children: nil))
            }
            for nested in type.nestedTypes {
                if let nestedType = file.type(named: nested) { children.append(symbol(for: nestedType)) }
            }
            var detail: String?
            if type.tool != nil { detail = "Tool" } else if type.isGenerable { detail = "@Generable" }
            return DocumentSymbol(
                name: type.name, detail: detail, kind: type.kind == .enum ? SymbolKind.enum : SymbolKind.struct,
                range: range(type.range), selectionRange: range(type.nameRange), children: children.isEmpty ? nil : children)
        }

        var symbols: [(offset: Int, symbol: DocumentSymbol)] = []
        for type in file.types where type.parent == nil {
            symbols.append((type.range.start.offset, symbol(for: type)))
        }
        for constant in file.constants {
            symbols.append((constant.range.start.offset, DocumentSymbol(
                name: constant.name, detail: constant.type?.text, kind: SymbolKind.constant,
                range: range(constant.range), selectionRange: range(constant.nameRange), children: nil)))
        }
        for block in file.playgrounds {
            let head = SourceRange(start: block.range.start, end: block.bodyRange.start)
            symbols.append((block.range.start.offset, DocumentSymbol(
                name: block.displayName, detail: "\(block.calls.count) model call\(block.calls.count == 1 ? "" : "s")",
                kind: SymbolKind.event, range: range(block.range), selectionRange: range(head), children: nil)))
        }
        return symbols.sorted { $0.offset < $1.offset }.map(\.symbol)
    }

    /// The declaration of the type, property, case or constant named at the position.
    func definition(_ params: TextDocumentPositionParams) throws -> [LSPLocation] {
        let current = try analysis(params.textDocument.uri)
        let offset = current.offset(params.position, encoding)
        guard let word = current.word(at: offset) else { return [] }
        let file = current.file
        func location(_ r: SourceRange) -> [LSPLocation] { [LSPLocation(uri: current.uri, range: current.range(r, encoding))] }

        // A qualified reference such as `Itinerary.Day`: resolve the last component in its scope.
        let enclosing = file.types.filter { $0.range.offsets.contains(offset) }.max { $0.range.start.offset < $1.range.start.offset }
        if let type = file.resolveType(word.text, in: enclosing?.qualifiedName) ?? file.types.first(where: { $0.name == word.text }) {
            return location(type.nameRange)
        }
        if let constant = file.constants.first(where: { $0.name == word.text }) {
            return location(constant.nameRange)
        }
        // A member name after a dot (`.someCase`, `value.property`): the first declaration with that name.
        let bytes = current.lines.bytes
        if word.offsets.lowerBound > 0, bytes[word.offsets.lowerBound - 1] == UInt8(ascii: ".") {
            for type in file.types {
                if let property = (type.properties + type.otherProperties).first(where: { $0.name == word.text }) { return location(property.nameRange) }
                if let enumCase = type.cases.first(where: { $0.name == word.text }) { return location(enumCase.nameRange) }
            }
        }
        return []
    }
}
