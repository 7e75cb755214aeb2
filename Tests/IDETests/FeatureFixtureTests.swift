import IDE
import PromptLanguage
import XCTest

/// The features the LanguageServer target translates, at the IDE layer: every marker of
/// `Fixtures/features/*.fmplay` renders its hover, completion, definition and quick fixes,
/// and each file its outline and code lenses, compared with the `.expected` file beside it.
final class FeatureFixtureTests: XCTestCase {
    func testFixtures() throws {
        let fixtures = try Fixture.all(in: "features")
        XCTAssertFalse(fixtures.isEmpty)
        for fixture in fixtures {
            let document = IDEDocument(text: fixture.text)
            var lines = ["== outline"]
            func outline(_ symbols: [OutlineSymbol], depth: Int) {
                for symbol in symbols {
                    lines.append(String(repeating: "  ", count: depth) + "\(symbol.kind) \(symbol.name)"
                                 + (symbol.detail.map { " [\($0)]" } ?? "") + " \(Self.span(symbol.range)) name \(Self.span(symbol.selectionRange))")
                    outline(symbol.children, depth: depth + 1)
                }
            }
            outline(document.documentSymbols(), depth: 1)
            lines.append("== lenses")
            let states = document.file.playgrounds.enumerated().map { index, block in
                BlockState(block: block, isActive: index == 1, status: index == 0 ? "2 results" : nil)
            }
            for lens in document.codeLenses(states) {
                lines.append("  block \(lens.blockIndex) \(lens.title) \(Self.span(lens.head, in: document))")
            }
            for marker in fixture.markers {
                lines.append("@\(marker.name)")
                lines += Self.render(document, at: marker.offset).map { "  " + $0 }
            }
            try fixture.check(lines.joined(separator: "\n") + "\n")
        }
    }

    static func render(_ document: IDEDocument, at offset: Int) -> [String] {
        var lines: [String] = []
        for subject in document.hoverSubjects(at: offset) {
            let text = document.hoverText(subject, format: .plaintext)?.split(separator: "\n", omittingEmptySubsequences: false) ?? []
            let summary = switch subject {
            case .diagnostic(let diagnostic): "diagnostic \(diagnostic.code.rawValue)"
            case .promptString(let role, let value, _): "\(role) \"\(value)\""
            case .type(let type, _): "type \(type.qualifiedName)"
            case .surface(let target, _):
                switch target {
                case .member(let entry): "entry \(entry.id)"
                case .type(let type): "table type \(type.name)"
                }
            case .modelCall(let block, let call): "model call \(call.method.rawValue) in block \(block.index)"
            }
            lines.append("hover: \(summary) \(span(subject.offsets, in: document))" + (text.first.map { " | \($0)" } ?? ""))
            for line in text.dropFirst().filter({ !$0.isEmpty }).prefix(2) { lines.append("       | " + line) }
        }
        let completions = document.completions(at: offset)
        if !completions.isEmpty {
            lines.append("completion: " + completions.prefix(8).map { "\($0.label) (\($0.kind))" }.joined(separator: ", ")
                         + (completions.count > 8 ? " …" : ""))
        }
        for range in document.definition(at: offset) { lines.append("definition: \(span(range))") }
        for fix in document.quickFixes(where: { $0.range.contains(offset) || $0.range.end.offset == offset }) {
            lines.append("quick fix: \(fix.fixIt.title)" + (fix.isPreferred ? " (preferred)" : "") + " for \(fix.diagnostic.code.rawValue)")
        }
        return lines
    }

    static func span(_ range: SourceRange) -> String { "\(range.start.line):\(range.start.column)-\(range.end.line):\(range.end.column)" }

    static func span(_ offsets: Range<Int>, in document: IDEDocument) -> String {
        let source = document.file.source
        return "\(source.position(at: offsets.lowerBound))-\(source.position(at: offsets.upperBound))"
    }
}
