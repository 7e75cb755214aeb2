import Foundation
@testable import PromptLanguage
import SwiftSyntax
import XCTest

/// `fastElements` must yield exactly what iterating the collection yields
/// (same nodes, same order), for every collection in every fixture tree,
/// including trees of half-typed code (every fixture cut at a quarter, half
/// and three quarters of its bytes).
final class SyntaxElementsTests: XCTestCase {
    private final class CollectionComparer: SyntaxAnyVisitor {
        var collections = 0
        var mismatches: [String] = []

        init() { super.init(viewMode: .all) }

        override func visitAny(_ node: Syntax) -> SyntaxVisitorContinueKind {
            if let collection = node.asProtocol(SyntaxProtocol.self) as? any SyntaxCollection {
                compare(collection)
            }
            return .visitChildren
        }

        private func compare<Collection: SyntaxCollection>(_ collection: Collection) {
            collections += 1
            let expected = collection.map(\.id)
            let actual = collection.fastElements.map(\.id)
            if expected != actual {
                mismatches.append("\(Collection.self) at \(collection.position.utf8Offset): \(expected.count) vs \(actual.count)")
            }
        }
    }

    func testFastElementsEqualTheCollectionsOwnIteration() throws {
        let root = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }
            .filter { ["fmplay", "swift"].contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
        XCTAssertGreaterThan(files.count, 20)
        var total = 0
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let bytes = Array(text.utf8)
            for cut in [bytes.count, bytes.count / 4, bytes.count / 2, bytes.count * 3 / 4] {
                let prefix = String(decoding: bytes[..<cut], as: UTF8.self)
                let comparer = CollectionComparer()
                comparer.walk(PromptAnalyzer.analyze(prefix).file.syntax)
                XCTAssertEqual(comparer.mismatches, [], "\(file.lastPathComponent) cut at \(cut)")
                total += comparer.collections
            }
        }
        XCTAssertGreaterThan(total, 1000)
    }
}
