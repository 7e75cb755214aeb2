import PromptLanguage
import SwiftSyntax
import XCTest

/// The one position table: lines end at `\n`, `\r\n` or a lone `\r`, as LSP defines and swift-syntax counts.
final class SourceTextTests: XCTestCase {
    let text = "import FoundationModels\r\n\r\nlet a = 1\rlet b = 2\n\r\nlet broken = [1, 2\r\n#Playground {\r    print(a)\r}\r"

    func testLineEndsAndLineTexts() {
        let source = SourceText(text)
        XCTAssertEqual((1...source.lineCount).map(source.lineText),
                       ["import FoundationModels", "", "let a = 1", "let b = 2", "", "let broken = [1, 2", "#Playground {", "    print(a)", "}", ""])
        XCTAssertEqual(source.position(at: Array(text.utf8).firstIndex(of: UInt8(ascii: "b"))!).description, "4:5")
        XCTAssertEqual(SourceText(bytes: Array(text.utf8)).lineStarts, source.lineStarts)
        XCTAssertEqual(source.offset(line: 4, column: 99), source.lineEnd(4), "columns clamp before the line end")
    }

    /// Diagnostic lines (what `fmplay lint` prints) are swift-syntax's lines.
    func testDiagnosticLinesAreSwiftSyntaxLines() throws {
        let analysis = PromptAnalyzer.analyze(text)
        let diagnostic = try XCTUnwrap(analysis.diagnostics.first { $0.code.rawValue == "FM001" })
        XCTAssertEqual(diagnostic.range.start.line, 6)
        let converter = SourceLocationConverter(fileName: "t.fmplay", tree: analysis.file.syntax)
        for offset in [diagnostic.range.start.offset, analysis.file.playgrounds[0].range.start.offset, text.utf8.count - 1] {
            let location = converter.location(for: AbsolutePosition(utf8Offset: offset))
            let position = analysis.file.source.position(at: offset)
            XCTAssertEqual([position.line, position.column], [location.line, location.column], "offset \(offset)")
        }
    }
}
