import JSON
import PromptLanguage

/// The outcome of linting a set of paths: per-file analyses plus input
/// problems, rendered as text, JSON or SARIF 2.1.0.
struct LintReport {
    struct FileResult {
        var path: String
        var source: SourceText
        var diagnostics: [Diagnostic]
    }

    var files: [FileResult]
    var problems: [InputProblem]

    func count(_ severity: Severity) -> Int {
        files.reduce(0) { $0 + $1.diagnostics.filter { $0.severity == severity }.count }
    }

    /// 2 for input problems, 1 for errors (or warnings when strict), else 0.
    func exitCode(strict: Bool) -> Int32 {
        if !problems.isEmpty { return 2 }
        if count(.error) > 0 || (strict && count(.warning) > 0) { return 1 }
        return 0
    }

    // MARK: Text

    /// clang-style: `file:line:col: severity: message [FM101]`, the source
    /// line and a caret under the range; notes follow their diagnostic.
    func text() -> String {
        var out = ""
        for problem in problems { out += problem.description + "\n" }
        for file in files {
            for diagnostic in file.diagnostics {
                let start = diagnostic.range.start
                out += "\(file.path):\(start.line):\(start.column): \(diagnostic.severity.textLabel): \(diagnostic.message) [\(diagnostic.code.rawValue)]\n"
                out += Self.excerpt(file.source, diagnostic.range)
                for note in diagnostic.notes {
                    out += "\(file.path):\(note.range.start.line):\(note.range.start.column): note: \(note.message)\n"
                    out += Self.excerpt(file.source, note.range)
                }
                for fixIt in diagnostic.fixIts { out += "  fix-it: \(fixIt.title)\n" }
            }
        }
        let errors = count(.error)
        let warnings = count(.warning)
        let infos = count(.info)
        out += "\(Self.plural(errors, "error")), \(Self.plural(warnings, "warning")), \(Self.plural(infos, "note")) in \(Self.plural(files.count, "file"))"
        if !problems.isEmpty { out += "; \(Self.plural(problems.count, "input problem"))" }
        return out + "\n"
    }

    private static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    /// The source line and a caret line (`^~~~`) under the range's part on that line.
    static func excerpt(_ source: SourceText, _ range: SourceRange) -> String {
        let line = range.start.line
        guard line <= source.lineCount else { return "" }
        let lineStart = source.lineStarts[line - 1]
        let lineEnd = source.lineEnd(line)
        let lineText = source.lineText(line)
        if lineText.utf8.count > 400 { return "" }
        var caret = ""
        for character in source.slice(lineStart..<range.start.offset) {
            caret.append(character == "\t" ? "\t" : " ")
        }
        caret += "^"
        let underlineEnd = min(range.end.offset, lineEnd)
        if underlineEnd > range.start.offset + 1 {
            let underlined = source.slice(range.start.offset..<underlineEnd)
            caret += String(repeating: "~", count: max(0, underlined.count - 1))
        }
        return lineText + "\n" + caret + "\n"
    }

    // MARK: JSON

    func json() -> JSONValue {
        var fileValues: [JSONValue] = []
        for file in files {
            fileValues.append([
                "path": .string(file.path),
                "diagnostics": .array(file.diagnostics.map { Self.json($0) }),
            ])
        }
        return [
            "version": 1,
            "files": .array(fileValues),
            "problems": .array(problems.map { problem in
                var object: JSONObject = ["path": .string(problem.path), "message": .string(problem.message)]
                if let position = problem.position { object["start"] = Self.json(position) }
                return .object(object)
            }),
            "summary": [
                "files": .int(files.count),
                "errors": .int(count(.error)),
                "warnings": .int(count(.warning)),
                "infos": .int(count(.info)),
                "problems": .int(problems.count),
            ],
        ]
    }

    static func json(_ diagnostic: Diagnostic) -> JSONValue {
        [
            "code": .string(diagnostic.code.rawValue),
            "name": .string(diagnostic.code.name),
            "severity": .string(diagnostic.severity.rawValue),
            "message": .string(diagnostic.message),
            "range": json(diagnostic.range),
            "fixIts": .array(diagnostic.fixIts.map { fixIt in
                [
                    "title": .string(fixIt.title),
                    "edits": .array(fixIt.edits.map { ["range": json($0.range), "newText": .string($0.newText)] }),
                ]
            }),
            "notes": .array(diagnostic.notes.map { ["range": json($0.range), "message": .string($0.message)] }),
        ]
    }

    static func json(_ range: SourceRange) -> JSONValue {
        ["start": json(range.start), "end": json(range.end)]
    }

    static func json(_ position: SourcePosition) -> JSONValue {
        ["line": .int(position.line), "column": .int(position.column), "offset": .int(position.offset)]
    }

    // MARK: SARIF

    /// SARIF 2.1.0 as GitHub code scanning reads it. Columns are UTF-16
    /// code units (SARIF's default `columnKind`), 1-based.
    func sarif(toolVersion: String) -> JSONValue {
        let rules = DiagnosticCode.allCases
        var results: [JSONValue] = []
        for file in files {
            for diagnostic in file.diagnostics {
                var result: JSONObject = [
                    "ruleId": .string(diagnostic.code.rawValue),
                    "ruleIndex": .int(rules.firstIndex(of: diagnostic.code) ?? 0),
                    "level": .string(diagnostic.severity.sarifLevel),
                    "message": ["text": .string(diagnostic.message)],
                    "locations": [Self.sarifLocation(file, diagnostic.range)],
                ]
                if !diagnostic.notes.isEmpty {
                    result["relatedLocations"] = .array(diagnostic.notes.enumerated().map { index, note in
                        var location = Self.sarifLocation(file, note.range).objectValue ?? [:]
                        location["id"] = .int(index)
                        location["message"] = ["text": .string(note.message)]
                        return .object(location)
                    })
                }
                if !diagnostic.fixIts.isEmpty {
                    result["fixes"] = .array(diagnostic.fixIts.map { fixIt in
                        [
                            "description": ["text": .string(fixIt.title)],
                            "artifactChanges": [[
                                "artifactLocation": ["uri": .string(Self.uri(file.path))],
                                "replacements": .array(fixIt.edits.map { edit in
                                    ["deletedRegion": Self.sarifRegion(file.source, edit.range), "insertedContent": ["text": .string(edit.newText)]]
                                }),
                            ]],
                        ]
                    })
                }
                results.append(.object(result))
            }
        }
        let notifications: [JSONValue] = problems.map { problem in
            [
                "level": "error",
                "message": ["text": .string(problem.message)],
                "locations": [["physicalLocation": ["artifactLocation": ["uri": .string(Self.uri(problem.path))]]]],
            ]
        }
        return [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [[
                "tool": [
                    "driver": [
                        "name": "fmplay",
                        "version": .string(toolVersion),
                        "informationUri": "https://github.com/fmplay/fmplay",
                        "rules": .array(rules.map { code in
                            [
                                "id": .string(code.rawValue),
                                "name": .string(code.name),
                                "shortDescription": ["text": .string(code.summary)],
                                "defaultConfiguration": ["level": .string(code.defaultSeverity.sarifLevel)],
                            ]
                        }),
                    ]
                ],
                "invocations": [[
                    "executionSuccessful": .bool(problems.isEmpty),
                    "toolExecutionNotifications": .array(notifications),
                ]],
                "columnKind": "utf16CodeUnits",
                "results": .array(results),
            ]],
        ]
    }

    private static func sarifLocation(_ file: FileResult, _ range: SourceRange) -> JSONValue {
        ["physicalLocation": ["artifactLocation": ["uri": .string(uri(file.path))], "region": sarifRegion(file.source, range)]]
    }

    private static func sarifRegion(_ source: SourceText, _ range: SourceRange) -> JSONValue {
        [
            "startLine": .int(range.start.line),
            "startColumn": .int(source.lineAndColumn(of: range.start.offset, in: .utf16CodeUnits).column + 1),
            "endLine": .int(range.end.line),
            "endColumn": .int(source.lineAndColumn(of: range.end.offset, in: .utf16CodeUnits).column + 1),
        ]
    }

    /// A relative path as a URI reference (percent-encoding what URIs forbid).
    static func uri(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~/".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

extension Severity {
    var textLabel: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .info: "note"
        }
    }

    var sarifLevel: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .info: "note"
        }
    }
}
