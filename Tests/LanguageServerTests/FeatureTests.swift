import Foundation
import JSON
@testable import LanguageServer
import XCTest

let sampleURI = "file:///projects/trip.fmplay"
let sampleText = """
    import FoundationModels
    import Playgrounds

    @Generable
    struct TripTitle {
        @Guide(description: "A catchy title", .count(2))
        var words: [String]
    }

    struct WeatherTool: Tool {
        let name = "getWeather"
        let description = "Looks up the weather in a city"
        @Generable
        struct Arguments {
            var city: String
        }
        func call(arguments: Arguments) async throws -> String {
            "Sunny in \\(arguments.city)"
        }
    }

    let cities = ["Tokyo", "Kyoto"]

    #Playground("titles") {
        let session = LanguageModelSession(instructions: "You write short travel titles.")
        let response = try await session.respond(to: "Name a trip to Japan", generating: TripTitle.self)
        print(response.content)
    }

    #Playground {
        let session = LanguageModelSession(tools: [WeatherTool()])
        let answer = try await session.respond(to: "What is the weather in Tokyo?")
    }

    """

final class FeatureTests: XCTestCase {
    private func openSample(_ harness: ServerHarness, text: String = sampleText, options: JSONValue = ["evaluate": "manual"]) {
        harness.initialize([
            "general": ["positionEncodings": ["utf-16"]],
            "textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]],
            "workspace": ["inlayHint": ["refreshSupport": true], "codeLens": ["refreshSupport": true]],
            "window": ["workDoneProgress": true],
        ], options: options)
        harness.open(sampleURI, text)
    }

    func testDiagnosticsArePublishedWithTheVersionAndPulled() throws {
        let harness = ServerHarness()
        let broken = sampleText + "let broken = [1, 2\n"
        openSample(harness, text: broken)
        let published = try XCTUnwrap(harness.notifications("textDocument/publishDiagnostics").last)
        XCTAssertEqual(published["version"], 1)
        let codes = published["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        XCTAssertTrue(codes.contains("FM001"), "\(codes)")
        let pulled = harness.request("textDocument/diagnostic", ServerHarness.document(sampleURI))
        XCTAssertEqual(pulled["kind"], "full")
        XCTAssertEqual(pulled["items"], published["diagnostics"])

        // An edit that fixes it publishes again with the new version and no FM108.
        let (line, character) = locate("[1, 2", in: broken, offset: 5)
        harness.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(sampleURI), "version": 2],
            "contentChanges": [["range": ["start": ServerHarness.position(line, character), "end": ServerHarness.position(line, character)], "text": "]"]],
        ])
        let republished = try XCTUnwrap(harness.notifications("textDocument/publishDiagnostics").last)
        XCTAssertEqual(republished["version"], 2)
        XCTAssertEqual(republished["diagnostics"], [])
    }

    func testFixItsBecomeQuickFixes() throws {
        let harness = ServerHarness()
        let text = "#Playground {\n    let x = max(1, 2\n}\n"
        openSample(harness, text: text)
        let diagnostics = harness.notifications("textDocument/publishDiagnostics").last?["diagnostics"]?.arrayValue ?? []
        XCTAssertFalse(diagnostics.isEmpty)
        let actions = harness.request("textDocument/codeAction", [
            "textDocument": ["uri": .string(sampleURI)],
            "range": ["start": ServerHarness.position(0, 0), "end": ServerHarness.position(3, 0)],
            "context": ["diagnostics": .array(diagnostics)],
        ])
        let action = try XCTUnwrap(actions.arrayValue?.first)
        XCTAssertEqual(action["kind"], "quickfix")
        XCTAssertNotNil(action["edit"]?["changes"]?[sampleURI]?[0]?["newText"]?.stringValue)
        let none = harness.request("textDocument/codeAction", [
            "textDocument": ["uri": .string(sampleURI)],
            "range": ["start": ServerHarness.position(0, 0), "end": ServerHarness.position(3, 0)],
            "context": ["diagnostics": [], "only": ["refactor"]],
        ])
        XCTAssertEqual(none, [])
    }

    /// A diagnostic at the end of a line (a missing `]`) sits one column past the last
    /// character, where a Vim-style cursor cannot go: Neovim asks for the cursor's position with
    /// the line's diagnostics as context, and gets the fix; without them, only an overlapping
    /// range does.
    func testQuickFixForAContextDiagnosticOutsideTheRange() throws {
        let harness = ServerHarness()
        let text = "let cities = [\"Tokyo\", \"Kyoto\"\n#Playground {\n}\n"
        openSample(harness, text: text)
        let diagnostics = harness.notifications("textDocument/publishDiagnostics").last?["diagnostics"]?.arrayValue ?? []
        let missing = try XCTUnwrap(diagnostics.first { $0["message"]?.stringValue?.contains("']'") ?? false }, "\(diagnostics)")
        XCTAssertEqual(missing["range"]?["start"], ServerHarness.position(0, 30))
        func actions(_ context: [JSONValue]) -> [JSONValue] {
            harness.request("textDocument/codeAction", [
                "textDocument": ["uri": .string(sampleURI)],
                "range": ["start": ServerHarness.position(0, 29), "end": ServerHarness.position(0, 29)],
                "context": ["diagnostics": .array(context)],
            ]).arrayValue ?? []
        }
        let fixed = actions([missing])
        XCTAssertEqual(fixed.count, 1)
        XCTAssertEqual(fixed.first?["edit"]?["changes"]?[sampleURI]?[0]?["newText"], "]")
        // ALE sends only the range (its end as it computes it), the message and the code.
        let aleStyle: JSONValue = [
            "range": ["start": ServerHarness.position(0, 30), "end": ServerHarness.position(0, 31)],
            "message": missing["message"] ?? .null, "code": "FM001",
        ]
        XCTAssertEqual(actions([aleStyle]).count, 1)
        XCTAssertEqual(actions([]), [])
    }

    func testCompletionContexts() {
        let harness = ServerHarness()
        let text = sampleText + """
            #Playground {
                let s = LanguageModelSession(tools: [])
                let r = try await s.respond(to: "x", generating: )
                let o = GenerationOptions()
                let p = GenerationOptions(sampling: )
            }
            @Generable struct G { @Guide(.) var n: Int }

            """
        openSample(harness, text: text)
        func labels(_ needle: String, _ offset: Int) -> [String] {
            let (line, character) = locate(needle, in: text, offset: offset)
            return harness.request("textDocument/completion", ServerHarness.at(sampleURI, line, character))["items"]?
                .arrayValue?.compactMap { $0["label"]?.stringValue } ?? []
        }
        XCTAssertEqual(labels("generating: )", 12), ["TripTitle.self", "WeatherTool.Arguments.self", "G.self"])
        XCTAssertEqual(labels("tools: [])", 8), ["WeatherTool()"])
        // Labels of every GenerationOptions initializer in the surface table (toolCallingMode: is 27.0's).
        XCTAssertEqual(labels("GenerationOptions()", 18), ["samplingMode:", "temperature:", "maximumResponseTokens:", "toolCallingMode:", "sampling:"])
        XCTAssertEqual(labels("sampling: )", 10), [".greedy", ".random(top:seed:)", ".random(probabilityThreshold:seed:)"])
        let guides = labels("@Guide(.)", 8)
        XCTAssertTrue(guides.contains("range(_:)") && guides.contains("count(_:)") && guides.contains("element(_:)"), "\(guides)")
        XCTAssertFalse(guides.contains("description:"))
    }

    /// Completion after a dot and hover on a member read the surface table.
    func testTableCompletionAndHover() throws {
        let harness = ServerHarness()
        let text = sampleText + """
            #Playground {
                let s = LanguageModelSession()
                print(s.transcript.count)
                let m = SystemLanguageModel.default
                s.
            }

            """
        openSample(harness, text: text)
        let (line, character) = locate("s.\n", in: text, offset: 2)
        let items = harness.request("textDocument/completion", ServerHarness.at(sampleURI, line, character))["items"]?
            .arrayValue?.compactMap { $0["label"]?.stringValue } ?? []
        XCTAssertTrue(items.contains("transcript") && items.contains("respond(to:options:)") && items.contains("prewarm(promptPrefix:)"), "\(items)")
        XCTAssertFalse(items.contains("default"), "static members are not offered on an instance: \(items)")
        let statics = locate("SystemLanguageModel.default", in: text, offset: 20)
        let staticItems = harness.request("textDocument/completion", ServerHarness.at(sampleURI, statics.line, statics.character))["items"]?
            .arrayValue?.compactMap { $0["label"]?.stringValue } ?? []
        XCTAssertTrue(staticItems.contains("default"), "\(staticItems)")

        let hoverAt = locate("transcript.count", in: text, offset: 3)
        let hover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, hoverAt.line, hoverAt.character))
        let markdown = try XCTUnwrap(hover["contents"]?["value"]?.stringValue)
        XCTAssertTrue(markdown.contains("var transcript: Transcript") && markdown.contains("LanguageModelSession · 26.0"), markdown)
        let countAt = locate("count)", in: text, offset: 1)
        let countHover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, countAt.line, countAt.character))
        XCTAssertTrue(countHover["contents"]?["value"]?.stringValue?.contains("The number of entries.") ?? false, "\(countHover)")
    }

    /// Hover on a diagnostic shows its message and the catalogue's explanation.
    func testHoverOnADiagnosticExplainsIt() throws {
        let harness = ServerHarness()
        let text = sampleText + "#Playground {\n    let s = LanguageModelSession()\n    s.frobnicate()\n}\n"
        openSample(harness, text: text)
        let (line, character) = locate("frobnicate", in: text, offset: 3)
        let hover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, line, character))
        let markdown = try XCTUnwrap(hover["contents"]?["value"]?.stringValue)
        XCTAssertTrue(markdown.hasPrefix("**FM310** unknown-member · 'LanguageModelSession' has no member 'frobnicate'"), markdown)
        XCTAssertTrue(markdown.contains("surface table"), markdown)
    }

    func testSymbolsAndDefinition() throws {
        let harness = ServerHarness()
        openSample(harness)
        let symbols = harness.request("textDocument/documentSymbol", ServerHarness.document(sampleURI)).arrayValue ?? []
        XCTAssertEqual(symbols.compactMap { $0["name"]?.stringValue }, ["TripTitle", "WeatherTool", "cities", "titles", "#Playground 2"])
        XCTAssertEqual(symbols[0]["children"]?[0]?["name"], "words")
        let (line, character) = locate("TripTitle.self", in: sampleText, offset: 3)
        let definition = harness.request("textDocument/definition", ServerHarness.at(sampleURI, line, character))
        let target = locate("TripTitle {", in: sampleText)
        XCTAssertEqual(definition[0]?["range"]?["start"], ServerHarness.position(target.line, target.character))
    }

    func testHoverOnTypeAndPromptString() throws {
        let harness = ServerHarness()
        openSample(harness)
        let (line, character) = locate("TripTitle.self", in: sampleText, offset: 2)
        let typeHover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, line, character))
        let markdown = try XCTUnwrap(typeHover["contents"]?["value"]?.stringValue)
        XCTAssertTrue(markdown.contains("```json") && markdown.contains("words"), markdown)

        let prompt = locate("Name a trip", in: sampleText, offset: 2)
        let promptHover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, prompt.line, prompt.character))
        XCTAssertEqual(promptHover["contents"]?["value"], "**Prompt** · 5 tokens of scripted's 2048-token context (0.2%)")

        let instructions = locate("You write", in: sampleText, offset: 2)
        let instructionsHover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, instructions.line, instructions.character))
        XCTAssertTrue(instructionsHover["contents"]?["value"]?.stringValue?.hasPrefix("**Instructions**") ?? false)

        let call = locate("session.respond(to: \"Name", in: sampleText, offset: 10)
        let callHover = harness.request("textDocument/hover", ServerHarness.at(sampleURI, call.line, call.character))
        XCTAssertEqual(callHover["contents"]?["value"], "**respond** · no result yet: run the block (▶ Run)")
    }
}

