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

    /// One column conversion for LSP and SARIF: columns count UTF-8 bytes, UTF-16 code units or scalars,
    /// an offset inside a character counts the whole character, and a column stops at the line's content end.
    func testLineAndColumnInEveryUnit() {
        let source = SourceText("é😀x\r\ny")
        XCTAssertTrue(source.lineAndColumn(of: 6, in: .utf8Bytes) == (0, 6))
        XCTAssertTrue(source.lineAndColumn(of: 6, in: .utf16CodeUnits) == (0, 3))
        XCTAssertTrue(source.lineAndColumn(of: 6, in: .unicodeScalars) == (0, 2))
        XCTAssertTrue(source.lineAndColumn(of: 4, in: .utf16CodeUnits) == (0, 3), "inside the emoji: the whole character counts")
        XCTAssertTrue(source.lineAndColumn(of: 8, in: .utf16CodeUnits) == (0, 4), "the \\n of \\r\\n: the line's end")
        XCTAssertTrue(source.lineAndColumn(of: 9, in: .utf16CodeUnits) == (1, 0))
        XCTAssertTrue(source.lineAndColumn(of: 99, in: .utf16CodeUnits) == (1, 1), "clamped to the text")
        XCTAssertTrue(source.lineAndColumn(of: -5, in: .utf8Bytes) == (0, 0))
    }
}
