import FoundationModelsRuntime
import JSON
import Schema
import XCTest

/// The saved shape of a transcript and a schema (`codingJSON`): every field of every entry survives a round trip
/// through JSON text, and malformed input is an error that says what was expected.
final class TranscriptCodingTests: XCTestCase {
    private func roundTrip(_ transcript: Transcript) throws -> Transcript {
        let text = transcript.codingJSON.serialized()
        return try Transcript(codingJSON: try JSONValue.parse(text))
    }

    func testEveryEntryKindRoundTrips() throws {
        let schema = GenerationSchema(root: .reference("Trip"), definitions: [
            Definition(name: "Trip", description: "A trip", kind: .object([
                Property(name: "city", description: "Where", type: .string(StringGuides(anyOf: ["Paris", "Rome"]))),
                Property(name: "days", type: .integer(NumberGuides(minimum: 1, maximum: 9))),
                Property(name: "tags", type: .array(element: .string(StringGuides(pattern: "[a-z]+")), guides: ArrayGuides(minimumCount: 1, maximumCount: 3)),
                         isOptional: true),
                Property(name: "mode", type: .reference("Mode")),
                Property(name: "score", type: .number(.none)),
                Property(name: "ok", type: .boolean),
                Property(name: "extra", type: .any),
            ])),
            Definition(name: "Mode", kind: .enumeration([
                EnumCase(name: "train"),
                EnumCase(name: "flight", description: "By air", associatedValues: [Property(name: "number", type: .string(StringGuides(constant: "UA1")))]),
            ])),
        ])
        var nilExplicit = schema
        nilExplicit.definitions[0].representsNilExplicitly = true
        let transcript = Transcript(entries: [
            .instructions(.init(id: "1", segments: [.text(.init(id: "1.1", content: "Be brief."))],
                                toolDefinitions: [.init(name: "plan", description: "Plans.", parameters: nilExplicit)])),
            .prompt(.init(id: "2", segments: [.text(.init(id: "2.1", content: "Plan a trip"))],
                          options: GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: UInt64.max), temperature: 0.3,
                                                     maximumResponseTokens: 50, toolCallingMode: .required),
                          responseFormat: .init(name: "Trip", schema: schema),
                          contextOptions: ContextOptions(includeSchemaInPrompt: false, reasoningLevel: .custom("think")),
                          metadata: ["requestID": GeneratedContent("abc"), "n": GeneratedContent(2)])),
            .reasoning(.init(id: "3", segments: [.text(.init(id: "3.1", content: "Hmm."))], metadata: ["k": GeneratedContent(true)], signature: [0, 255, 7])),
            .toolCalls(.init(id: "4", [.init(id: "4.1", toolName: "plan", arguments: GeneratedContent(properties: [("city", GeneratedContent("Paris"))]),
                                             metadata: ["m": GeneratedContent(1.5)])])),
            .toolOutput(.init(id: "4.1", toolName: "plan", segments: [.structure(.init(id: "5.1", source: "plan", content: GeneratedContent(elements: [GeneratedContent(1)])))])),
            .response(.init(id: "6", assetIDs: ["a"], segments: [.text(.init(id: "6.1", content: "Done."))], metadata: ["x": GeneratedContent("y")])),
            .prompt(.init(id: "7", segments: [], options: GenerationOptions(samplingMode: .greedy))),
            .prompt(.init(id: "8", segments: [], options: GenerationOptions(samplingMode: .random(top: 4), toolCallingMode: .disallowed),
                          contextOptions: ContextOptions(reasoningLevel: .deep))),
        ])
        XCTAssertEqual(try roundTrip(transcript), transcript)
        XCTAssertEqual(try GenerationSchema(codingJSON: try JSONValue.parse(schema.codingJSON.serialized())), schema)
    }

    func testMalformedInputSaysWhatWasExpected() {
        XCTAssertThrowsError(try Transcript(codingJSON: ["entries": 3])) { error in
            XCTAssertTrue("\(error)".contains("{\"version\": 1, \"entries\": [...]}"), "\(error)")
        }
        XCTAssertThrowsError(try Transcript(codingJSON: ["version": 2, "entries": []])) { error in
            XCTAssertTrue("\(error)".contains("version 2"), "\(error)")
        }
        XCTAssertThrowsError(try Transcript(codingJSON: ["version": 1, "entries": [["kind": "memo", "id": "1"]]])) { error in
            XCTAssertTrue("\(error)".contains("unknown transcript entry kind 'memo'"), "\(error)")
        }
        XCTAssertThrowsError(try GenerationSchema(codingJSON: ["root": ["type": "date"]])) { error in
            XCTAssertTrue("\(error)".contains("unknown schema type"), "\(error)")
        }
    }
}
