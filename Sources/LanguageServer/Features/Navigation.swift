import IDE
import PromptLanguage

extension LanguageServer {
    /// The IDE layer's outline as LSP `DocumentSymbol`s.
    func documentSymbols(_ params: DocumentParams) throws -> [DocumentSymbol] {
        let current = try analysis(params.textDocument.uri)
        func convert(_ symbol: OutlineSymbol) -> DocumentSymbol {
            let kind = switch symbol.kind {
            case .struct: SymbolKind.struct
            case .enum: SymbolKind.enum
            case .enumMember: SymbolKind.enumMember
            case .property: SymbolKind.property
            case .method: SymbolKind.method
            case .constant: SymbolKind.constant
            case .playground: SymbolKind.event
            }
            return DocumentSymbol(
                name: symbol.name, detail: symbol.detail, kind: kind, range: current.range(symbol.range, encoding),
                selectionRange: current.range(symbol.selectionRange, encoding),
                children: symbol.children.isEmpty ? nil : symbol.children.map(convert))
        }
        return current.ide.documentSymbols().map(convert)
    }

    /// The IDE layer's definition as LSP locations.
    func definition(_ params: TextDocumentPositionParams) throws -> [LSPLocation] {
        let current = try analysis(params.textDocument.uri)
        return current.ide.definition(at: current.offset(params.position, encoding)).map {
            LSPLocation(uri: current.uri, range: current.range($0, encoding))
        }
    }
}
