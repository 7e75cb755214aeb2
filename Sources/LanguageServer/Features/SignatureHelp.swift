import IDE
import JSON

extension LanguageServer {
    /// `textDocument/signatureHelp`: the IDE layer's signatures of the call around the
    /// cursor, or null outside a call's parentheses and for a callee it does not know.
    func signatureHelp(_ params: TextDocumentPositionParams) throws -> LSPSignatureHelp? {
        let current = try analysis(params.textDocument.uri)
        guard let help = current.ide.signatureHelp(at: current.offset(params.position, encoding)) else { return nil }
        let offsets = clientSupports("textDocument", "signatureHelp", "signatureInformation", "parameterInformation", "labelOffsetSupport")
        let signatures = help.signatures.map { signature in
            let label = Array(signature.label.utf8)
            let parameters = signature.parameters.indices.map { index -> ParameterInformation in
                guard offsets else { return ParameterInformation(label: .string(signature.parameterText(index))) }
                let range = signature.parameters[index]
                let start = encoding.length(of: label[..<range.lowerBound])
                return ParameterInformation(label: [.int(start), .int(start + encoding.length(of: label[range]))])
            }
            return SignatureInformation(label: signature.label, documentation: signature.documentation, parameters: parameters,
                                        activeParameter: signature.activeParameter)
        }
        return LSPSignatureHelp(signatures: signatures, activeSignature: help.activeSignature, activeParameter: help.activeParameter)
    }
}
