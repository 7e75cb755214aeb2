import JSON
@testable import LanguageServer
import XCTest

/// `textDocument/signatureHelp` through the real message layer (framing, dispatch, JSON).
final class SignatureHelpProtocolTests: XCTestCase {
    private let uri = "file:///projects/signatures.fmplay"
    private let text = """
        /// Says hello in the traveller's language.
        func grüße(名前: String, times: Int = 1) -> String {
            "Hallo \\(名前)"
        }

        #Playground {
            let session = LanguageModelSession(instructions: "Be brief.")
            let answer = try await session.respond(to: "Hi", generating: String.self, )
            print(grüße(名前: "Ada", times: 2))
            let x = 1
            let y = frobnicate(1)
        }

        """

    private func open(_ harness: ServerHarness, labelOffsets: Bool) -> JSONValue {
        let result = harness.initialize([
            "general": ["positionEncodings": ["utf-16"]],
            "textDocument": ["signatureHelp": ["signatureInformation": ["parameterInformation": ["labelOffsetSupport": .bool(labelOffsets)]]]],
        ], options: ["evaluate": "manual"])
        harness.open(uri, text)
        return result
    }

    func testCapabilityIsAdvertisedWithTriggerCharacters() {
        let harness = ServerHarness()
        let result = open(harness, labelOffsets: true)
        XCTAssertEqual(result["capabilities"]?["signatureHelpProvider"]?["triggerCharacters"], ["(", ","])
    }

    func testOverloadsActiveSignatureAndParameterOverTheProtocol() throws {
        let harness = ServerHarness()
        _ = open(harness, labelOffsets: true)
        let (line, character) = locate("String.self, ", in: text, offset: 13)
        let help = harness.request("textDocument/signatureHelp", ServerHarness.at(uri, line, character))
        let signatures = try XCTUnwrap(help["signatures"]?.arrayValue)
        XCTAssertGreaterThan(signatures.count, 3, "every respond overload is offered")
        let active = try XCTUnwrap(help["activeSignature"]?.intValue)
        let signature = signatures[active]
        XCTAssertEqual(signature["label"]?.stringValue,
                       "respond(to: Prompt, generating: Generable.Type, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) async throws -> LanguageModelSession.Response")
        XCTAssertEqual(help["activeParameter"], 2)
        XCTAssertEqual(signature["activeParameter"], 2)
        // Offsets into the label: the third parameter.
        let parameter = try XCTUnwrap(signature["parameters"]?[2]?["label"]?.arrayValue?.compactMap(\.intValue))
        let label = Array(try XCTUnwrap(signature["label"]?.stringValue).utf16)
        XCTAssertEqual(String(decoding: label[parameter[0]..<parameter[1]], as: UTF16.self), "includeSchemaInPrompt: Bool = true")
    }

    func testTheFilesOwnFunctionWithUTF16Offsets() throws {
        let harness = ServerHarness()
        _ = open(harness, labelOffsets: true)
        let (line, character) = locate("times: 2", in: text, offset: 7)
        let help = harness.request("textDocument/signatureHelp", ServerHarness.at(uri, line, character))
        let signature = try XCTUnwrap(help["signatures"]?[0])
        XCTAssertEqual(signature["label"]?.stringValue, "grüße(名前: String, times: Int = 1) -> String")
        XCTAssertEqual(signature["documentation"]?.stringValue, "Says hello in the traveller's language.")
        XCTAssertEqual(help["activeParameter"], 1)
        // UTF-16 offsets: `grüße(` is 6 units, `名前: String` 10.
        XCTAssertEqual(signature["parameters"]?[0]?["label"], [6, 16])
        XCTAssertEqual(signature["parameters"]?[1]?["label"], [18, 32])
    }

    func testStringLabelsWithoutOffsetSupport() throws {
        let harness = ServerHarness()
        _ = open(harness, labelOffsets: false)
        let (line, character) = locate("\"Be brief", in: text)
        let help = harness.request("textDocument/signatureHelp", ServerHarness.at(uri, line, character))
        let signature = try XCTUnwrap(help["signatures"]?[XCTUnwrap(help["activeSignature"]?.intValue)])
        XCTAssertEqual(signature["parameters"]?[2]?["label"], "instructions: Instructions? = nil")
        XCTAssertEqual(help["activeParameter"], 2)
    }

    func testNullOutsideCallsAndForUnknownCallees() {
        let harness = ServerHarness()
        _ = open(harness, labelOffsets: true)
        for (needle, offset) in [("let x = 1", 9), ("LanguageModelSession(", 0), ("func grüße", 0), ("frobnicate(1", 11)] {
            let (line, character) = locate(needle, in: text, offset: offset)
            XCTAssertEqual(harness.request("textDocument/signatureHelp", ServerHarness.at(uri, line, character)), .null, needle)
        }
        // Past the end of the document: clamped, still null, never an error.
        XCTAssertEqual(harness.request("textDocument/signatureHelp", ServerHarness.at(uri, 400, 3)), .null)
        guard case .failure(let error) = harness.response("textDocument/signatureHelp", ServerHarness.at("file:///not-open.fmplay", 0, 0)) else {
            return XCTFail("a document that is not open is an error")
        }
        XCTAssertEqual(error.code, ResponseError.invalidParamsCode)
    }
}
