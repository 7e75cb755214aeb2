import IDE
import JSON
import PromptLanguage

extension LanguageServer {
    /// Front-end diagnostics plus evaluation errors at their call sites, for the current text.
    func diagnostics(_ uri: String) throws -> [LSPDiagnostic] {
        let current = try analysis(uri)
        var result = current.analysis.diagnostics.map { convert($0, in: current) }
        for failure in evaluation.failures(uri, in: current) {
            result.append(LSPDiagnostic(
                range: current.source.range(of: failure.offsets, in: encoding), severity: 1, code: "evaluation",
                source: "fmplay", message: failure.message, relatedInformation: nil))
        }
        return result
    }

    func convert(_ diagnostic: Diagnostic, in current: DocumentAnalysis) -> LSPDiagnostic {
        let severity = switch diagnostic.severity {
        case .error: 1
        case .warning: 2
        case .info: 3
        }
        let related = diagnostic.notes.map {
            DiagnosticRelatedInformation(location: LSPLocation(uri: current.uri, range: current.range($0.range, encoding)), message: $0.message)
        }
        return LSPDiagnostic(
            range: current.range(diagnostic.range, encoding), severity: severity, code: diagnostic.code.rawValue, source: "fmplay",
            message: diagnostic.message, relatedInformation: related.isEmpty ? nil : related)
    }

    func publishDiagnostics(_ uri: String) {
        guard let open = documents[uri], open.publishedRevision != open.document.revision || evaluation.failuresChanged(uri) else { return }
        guard let items = try? diagnostics(uri) else { return }
        documents[uri]?.publishedRevision = open.document.revision
        sendNotification("textDocument/publishDiagnostics", PublishDiagnosticsParams(uri: uri, version: open.document.version, diagnostics: items))
    }

    func pullDiagnostics(_ params: DocumentParams) throws -> FullDocumentDiagnosticReport {
        let open = try openDocument(params.textDocument.uri)
        return FullDocumentDiagnosticReport(resultId: "\(open.document.revision)", items: try diagnostics(params.textDocument.uri))
    }

    /// Quick fixes: every fix-it of a diagnostic that overlaps the requested range or that the
    /// client sent in the context. (A diagnostic at the end of a line, such as a missing `]`,
    /// sits one column past the last character, where a Vim-style cursor cannot go; Neovim
    /// then asks for the cursor's position with the line's diagnostics as context.)
    func codeActions(_ params: CodeActionParams) throws -> [CodeAction] {
        if let only = params.context.only, !only.contains(where: { $0 == "quickfix" || $0.hasPrefix("quickfix.") }) { return [] }
        let current = try analysis(params.textDocument.uri)
        let fixes = current.ide.quickFixes { diagnostic in
            let converted = convert(diagnostic, in: current)
            let inContext = params.context.diagnostics.contains { $0.range.start == converted.range.start && $0.message == converted.message }
            return inContext || converted.range.overlaps(params.range)
        }
        return fixes.map { fix in
            let edits = fix.fixIt.edits.map { LSPTextEdit(range: current.range($0.range, encoding), newText: $0.newText) }
            return CodeAction(
                title: fix.fixIt.title, kind: "quickfix", diagnostics: [convert(fix.diagnostic, in: current)], isPreferred: fix.isPreferred ? true : nil,
                edit: WorkspaceEdit(changes: [current.uri: edits]))
        }
    }
}
