import PromptLanguage

/// One fix-it of a diagnostic, offered as a quick fix.
public struct QuickFix: Sendable, Equatable {
    public var diagnostic: Diagnostic
    public var fixIt: FixIt
    /// The diagnostic's only fix-it (editors may apply it directly).
    public var isPreferred: Bool
}

extension IDEDocument {
    /// Every fix-it of the diagnostics `include` selects (the server selects by the client's
    /// range and context diagnostics), in diagnostic order.
    public func quickFixes(where include: (Diagnostic) -> Bool) -> [QuickFix] {
        analysis.diagnostics.filter { !$0.fixIts.isEmpty && include($0) }.flatMap { diagnostic in
            diagnostic.fixIts.map { QuickFix(diagnostic: diagnostic, fixIt: $0, isPreferred: diagnostic.fixIts.count == 1) }
        }
    }
}
