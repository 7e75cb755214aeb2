import IDE
import XCTest

final class SignatureHelpTests: XCTestCase {
    /// Every marker of `Fixtures/signature-help/*.fmplay`, rendered and compared with its `.expected` file.
    func testFixtures() throws {
        let fixtures = try Fixture.all(in: "signature-help")
        XCTAssertEqual(fixtures.map(\.name), ["declarations.fmplay", "null.fmplay", "table.fmplay"])
        for fixture in fixtures {
            let document = IDEDocument(text: fixture.text)
            var rendered = ""
            for marker in fixture.markers {
                rendered += "@\(marker.name)\n" + Self.render(document.signatureHelp(at: marker.offset))
            }
            try fixture.check(rendered)
        }
    }

    /// `null`, or every signature (`*` before the active one) with its active parameter in «».
    static func render(_ help: SignatureHelp?) -> String {
        guard let help else { return "null\n" }
        var lines: [String] = []
        for (index, signature) in help.signatures.enumerated() {
            var label = Array(signature.label.utf8)
            if let active = signature.activeParameter {
                let range = signature.parameters[active]
                label.insert(contentsOf: Array("»".utf8), at: range.upperBound)
                label.insert(contentsOf: Array("«".utf8), at: range.lowerBound)
            }
            lines.append((index == help.activeSignature ? "* " : "  ") + String(decoding: label, as: UTF8.self))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func testLabelsChooseTheParameterAndTheOverload() throws {
        let text = """
            #Playground {
                let options = GenerationOptions(maximumResponseTokens: 5, temperature: 0.5)
                let session = LanguageModelSession(model: .default, instructions: "Be brief.")
            }
            """
        let document = IDEDocument(text: text)
        let help = try XCTUnwrap(document.signatureHelp(at: offset(of: "0.5)", in: text)))
        // Written in an order no initializer takes: labels matter, so no parameter is active.
        XCTAssertTrue(help.signatures.allSatisfy { $0.label.hasPrefix("GenerationOptions(sampling") })
        XCTAssertNil(help.signatures[help.activeSignature].activeParameter)

        let session = try XCTUnwrap(document.signatureHelp(at: offset(of: "\"Be brief", in: text)))
        let active = session.signatures[session.activeSignature]
        XCTAssertEqual(active.label, "LanguageModelSession(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: Instructions? = nil)")
        XCTAssertEqual(session.activeParameter, 2)
        XCTAssertEqual(active.parameterText(2), "instructions: Instructions? = nil")
        XCTAssertEqual(active.documentation, "A session with optional tools and instructions (a string or Instructions).\nLanguageModelSession · 26.0")
    }

    func testTheFilesOwnSignaturesFollowEveryNewVersion() throws {
        // The file's signatures are cached per version (per syntax tree): an edit that renames a
        // parameter must show the new label at once, and going back must not show the edited one.
        let before = "func greet(name: String) -> String { name }\nlet a = greet(name: \"x\")"
        let after = "func greet(person: String) -> String { person }\nlet a = greet(person: \"x\")"
        for (text, label) in [(before, "greet(name: String) -> String"), (after, "greet(person: String) -> String"),
                              (before, "greet(name: String) -> String")] {
            let document = IDEDocument(text: text)
            for _ in 0..<2 {
                let help = try XCTUnwrap(document.signatureHelp(at: offset(of: "\"x", in: text)))
                XCTAssertEqual(help.signatures.map(\.label), [label])
            }
        }
    }

    func testHalfTypedCallsStillHelp() throws {
        for text in ["#Playground {\n    let s = LanguageModelSession(", "#Playground {\n    let o = GenerationOptions(temperature: 1, ",
                     "let o = GenerationOptions(\n"] {
            let document = IDEDocument(text: text)
            let help = try XCTUnwrap(document.signatureHelp(at: text.utf8.count), text)
            XCTAssertFalse(help.signatures.isEmpty)
        }
        let text = "let o = GenerationOptions(temperature: 1, "
        let help = try XCTUnwrap(IDEDocument(text: text).signatureHelp(at: text.utf8.count))
        XCTAssertEqual(help.signatures[help.activeSignature].parameterText(try XCTUnwrap(help.activeParameter)), "maximumResponseTokens: Int? = nil")
    }

    func testOffsetsOutsideTheTextAreNull() {
        let document = IDEDocument(text: "let o = GenerationOptions()")
        XCTAssertNil(document.signatureHelp(at: -1))
        XCTAssertNil(document.signatureHelp(at: 10_000))
        XCTAssertNotNil(document.signatureHelp(at: 26))
        XCTAssertNil(IDEDocument(text: "").signatureHelp(at: 0))
    }

    private func offset(of needle: String, in text: String) -> Int {
        text[..<text.range(of: needle)!.lowerBound].utf8.count
    }
}

final class SignatureHelpRobustnessTests: XCTestCase {
    /// At every offset of every fixture, and at the end of prefixes of them (half-typed code),
    /// signature help answers without trapping, and an answer always has an active signature in range.
    func testEveryOffsetAndPrefix() throws {
        for fixture in try Fixture.all(in: "signature-help") {
            let document = IDEDocument(text: fixture.text)
            let bytes = Array(fixture.text.utf8)
            var answered = 0
            for offset in 0...bytes.count {
                guard let help = document.signatureHelp(at: offset) else { continue }
                answered += 1
                XCTAssertTrue(help.signatures.indices.contains(help.activeSignature), "\(fixture.name) at \(offset)")
                for signature in help.signatures {
                    XCTAssertTrue(signature.parameters.allSatisfy { $0.upperBound <= signature.label.utf8.count })
                }
            }
            XCTAssertGreaterThan(answered, 0, fixture.name)
            for end in stride(from: 0, through: bytes.count, by: 23) {
                let prefix = String(decoding: bytes[..<end], as: UTF8.self)
                _ = IDEDocument(text: prefix).signatureHelp(at: prefix.utf8.count)
            }
        }
    }
}
