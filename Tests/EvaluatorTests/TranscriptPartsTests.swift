import PlaygroundEvaluator
import XCTest

/// The transcript's inner types as Apple documents them: entry payloads with their segments, segments' values,
/// and transcripts written by hand (`Transcript(entries:)`, the WWDC25 context-window pattern).
final class TranscriptPartsTests: XCTestCase {
    func testPayloadsAndSegmentsOfASessionTranscript() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession(instructions: "Be brief.")
                _ = try await session.respond(to: "Name a fruit")
                for entry in session.transcript {
                    switch entry {
                    case .instructions(let instructions):
                        print("instructions", instructions.segments.count, instructions.toolDefinitions.count)
                    case .prompt(let prompt):
                        for case .text(let text) in prompt.segments { print("prompt:", text.content) }
                        print(prompt.options.maximumResponseTokens == nil, prompt.id == entry.id)
                    case .response(let response):
                        for segment in response.segments {
                            switch segment {
                            case .text(let text): print("response:", text.content)
                            case .structure(let structure): print("structured:", structure.source)
                            }
                        }
                    default:
                        print("other")
                    }
                }
            }
            """)
        XCTAssertEqual(prints(result), ["instructions 1 0", "prompt: Name a fruit", "true true", "response: Scripted reply to \"Name a fruit\"."])
    }

    func testATranscriptWrittenByHandResumesASession() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let condensed = Transcript(entries: [
                    .instructions(Transcript.Instructions(segments: [.text(Transcript.TextSegment(content: "Summarize."))], toolDefinitions: [])),
                    .prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: "Earlier: fruit."))])),
                    Transcript.Entry.response(Transcript.Response(assetIDs: [], segments: [.text(Transcript.TextSegment(id: "r1", content: "Noted."))])),
                ])
                print(condensed.count)
                print(condensed)
                let session = LanguageModelSession(transcript: condensed)
                print(try await session.respond(to: "And now?").content, session.transcript.count)
                if case .response(let response)? = condensed.last, case .text(let text)? = response.segments.first { print(text.id) }
                print(Transcript(entries: session.transcript.suffix(2)).count, Transcript().isEmpty)
            }
            """)
        XCTAssertEqual(prints(result), [
            "3", "(Instructions) Summarize.\n(Prompt) Earlier: fruit.\n(Response) Noted.", "Scripted reply to \"And now?\". 5", "r1", "2 true",
        ])
    }

    /// Lifecycle modifiers receive the payload types (`Transcript.Response`), as Apple's closures do.
    func testLifecycleModifiersReceivePayloads() async {
        let result = await evaluate("""
            import FoundationModels
            final class Log { var lines: [String] = [] }
            #Playground {
                let log = Log()
                let session = LanguageModelSession(profile: Profile {
                    Instructions("Be brief.")
                }
                .onPrompt { prompt in log.lines.append("prompt \\(prompt.segments.count)") }
                .onResponse { response in
                    if case .text(let text)? = response.segments.first { log.lines.append("response " + text.content) }
                })
                _ = try await session.respond(to: "Hi")
                print(log.lines)
            }
            """)
        XCTAssertEqual(prints(result), ["[\"prompt 1\", \"response Scripted reply to \\\"Hi\\\".\"]"])
    }

    func testEntriesMustBeEntries() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let words = ["not an entry"]
                let transcript = Transcript(entries: words)
                print(transcript)
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertTrue(result.blocks.first?.error?.contains("Transcript(entries:) takes Transcript.Entry values") == true, result.blocks.first?.error ?? "")
        XCTAssertEqual(result.blocks.first?.results.last?.line, 4)
    }

    /// 27.0: a transcript is a RangeReplaceableCollection; changes write back to the session or the variable.
    func testTranscriptMutations() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession(instructions: "Be brief.")
                _ = try await session.respond(to: "One")
                _ = try await session.respond(to: "Two")
                print(session.transcript.count)
                let last = session.transcript.removeLast()
                print(session.transcript.count, last)
                _ = session.transcript.remove(at: 1)
                print(session.transcript.count)
                var copy = session.transcript
                copy.append(.prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: "Added"))])))
                copy.insert(Transcript.Entry.response(Transcript.Response(assetIDs: [], segments: [])), at: 0)
                copy.append(contentsOf: session.transcript)
                print(copy.count, session.transcript.count, copy.removeFirst().id.isEmpty)
                copy.removeAll()
                print(copy.isEmpty)
            }
            """)
        XCTAssertEqual(prints(result), ["5", "4 (Response) Scripted reply to \"Two\".", "3", "8 3 false", "true"])
    }

    /// A transcript's mutations are Array's (one implementation): the same index checks and empty-collection errors.
    func testTranscriptAndArrayMutationsFailAlike() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                var numbers = [1, 2]
                numbers.insert(3, at: 5)
            }
            #Playground {
                var transcript = Transcript()
                transcript.insert(.prompt(Transcript.Prompt(segments: [])), at: 5)
            }
            #Playground {
                var numbers: [Int] = []
                _ = numbers.removeLast()
            }
            #Playground {
                var transcript = Transcript()
                _ = transcript.removeLast()
            }
            """)
        let errors = result.blocks.map { $0.error ?? "" }
        XCTAssertTrue(errors[0].contains("index out of range (index 5, valid insertion indices 0...2)"), errors[0])
        XCTAssertTrue(errors[1].contains("index out of range (index 5, valid insertion indices 0...0)"), errors[1])
        XCTAssertTrue(errors[2].contains("can't remove last element from an empty collection"), errors[2])
        XCTAssertTrue(errors[3].contains("can't remove last element from an empty collection"), errors[3])
    }
}
