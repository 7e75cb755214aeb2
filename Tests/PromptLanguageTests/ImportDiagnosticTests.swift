import PromptLanguage
import XCTest

/// FM311: an import of a module the surface table does not list.
final class ImportDiagnosticTests: XCTestCase {
    private func imports(_ text: String) -> [Diagnostic] {
        PromptAnalyzer.analyze(text + "\n#Playground {\n    print(1)\n}\n").diagnostics.filter { $0.code == .unknownImport }
    }

    func testUnknownImportsAreDiagnosedWithASentenceAndFixes() throws {
        let unknown = try XCTUnwrap(imports("import Combine").first)
        XCTAssertTrue(unknown.message.hasPrefix("prompt files cannot import 'Combine'. Known modules: FoundationModels, "), unknown.message)
        XCTAssertEqual(unknown.fixIts.map(\.title), ["remove the import"])
        let typo = try XCTUnwrap(imports("import Evaluationz").first)
        XCTAssertTrue(typo.message.hasPrefix("prompt files cannot import 'Evaluationz'; did you mean 'Evaluations'? Known modules: "), typo.message)
        XCTAssertEqual(typo.fixIts.map(\.title), ["import Evaluations", "remove the import"])
        // A kind-qualified import of an unknown module.
        XCTAssertEqual(imports("import struct SwiftUI.Color").count, 1)
    }

    func testKnownImportsAreNot() {
        let known = ["FoundationModels", "Playgrounds", "Foundation", "Evaluations", "FoundationModelsUtilities", "RegexBuilder", "Swift", "Testing"]
        XCTAssertEqual(imports(known.map { "import \($0)" }.joined(separator: "\n")).map(\.message), [])
        XCTAssertEqual(imports("import struct FoundationModels.GenerationOptions").map(\.message), [])
    }
}
