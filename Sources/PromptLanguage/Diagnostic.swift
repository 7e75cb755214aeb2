/// How serious a diagnostic is.
public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
    case error
    case warning
    /// Advice: the file works, but could be better.
    case info

    private var rank: Int {
        switch self {
        case .error: 2
        case .warning: 1
        case .info: 0
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// One replacement of a byte range by new text.
public struct TextEdit: Sendable, Hashable {
    public var range: SourceRange
    public var newText: String

    public init(range: SourceRange, newText: String) {
        self.range = range
        self.newText = newText
    }
}

/// A mechanical fix: applying every edit (they never overlap) fixes the problem.
public struct FixIt: Sendable, Hashable {
    public var title: String
    public var edits: [TextEdit]

    public init(title: String, edits: [TextEdit]) {
        self.title = title
        self.edits = edits
    }
}

/// A secondary location that explains a diagnostic ("first declared here").
public struct DiagnosticNote: Sendable, Hashable {
    public var range: SourceRange
    public var message: String

    public init(range: SourceRange, message: String) {
        self.range = range
        self.message = message
    }
}

/// A problem found in a prompt file. The message says what is wrong and how
/// to fix it; `code` is stable across releases (see `DiagnosticCode`).
public struct Diagnostic: Sendable, Hashable {
    public var code: DiagnosticCode
    public var severity: Severity
    public var range: SourceRange
    public var message: String
    public var fixIts: [FixIt]
    public var notes: [DiagnosticNote]

    public init(
        _ code: DiagnosticCode, _ severity: Severity? = nil, at range: SourceRange, _ message: String,
        fixIts: [FixIt] = [], notes: [DiagnosticNote] = []
    ) {
        self.code = code
        self.severity = severity ?? code.defaultSeverity
        self.range = range
        self.message = message
        self.fixIts = fixIts
        self.notes = notes
    }

    /// Diagnostics sort by position, then code.
    public static func ordered(_ lhs: Diagnostic, _ rhs: Diagnostic) -> Bool {
        if lhs.range.start.offset != rhs.range.start.offset { return lhs.range.start.offset < rhs.range.start.offset }
        if lhs.code.rawValue != rhs.code.rawValue { return lhs.code.rawValue < rhs.code.rawValue }
        return lhs.message < rhs.message
    }
}
