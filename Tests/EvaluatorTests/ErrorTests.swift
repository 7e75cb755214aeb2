import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

final class ErrorTests: XCTestCase {
    func testGenerationErrorsCaughtByCase() async {
        let result = await evaluate("""
            #Playground {
                let session = LanguageModelSession()
                do {
                    _ = try await session.respond(to: "one two three four five six seven eight nine ten eleven twelve")
                } catch LanguageModelSession.GenerationError.exceededContextWindowSize(let context) {
                    print("too long: \\(context.debugDescription)")
                } catch {
                    print("other: \\(error)")
                }
                let short = try await session.respond(to: "short", options: GenerationOptions(maximumResponseTokens: 2))
                print(short.content)
            }
            """, model: ScriptedLanguageModel(contextSize: 8))
        XCTAssertEqual(prints(result), [
            "too long: The prompt has 13 tokens, more than the model's context size of 8 tokens.", "Scripted reply",
        ])
    }

    func testConcurrentRequestWhileStreaming() async {
        let result = await evaluate("""
            #Playground {
                let session = LanguageModelSession()
                for try await _ in session.streamResponse(to: "Tell a story") {
                    do {
                        _ = try await session.respond(to: "interrupt")
                    } catch LanguageModelSession.GenerationError.concurrentRequests {
                        print("busy")
                        break
                    }
                }
            }
            """, model: ScriptedLanguageModel(tokenDelay: .milliseconds(20)))
        XCTAssertEqual(prints(result), ["busy"])
    }

    func testUncaughtDecodingFailureFailsBlockAtStatement() async {
        let result = await evaluate(travelTypes + """
            #Playground {
                let session = LanguageModelSession()
                print("before")
                let response = try await session.respond(to: "x", generating: Suggestions.self)
                print(response.content)
            }
            """, model: ScriptedLanguageModel(script: [.text(#"{"searchTerms": ["a"], "mood": "calm", "stars": 3}"#)]))
        let block = result.blocks[0]
        XCTAssertEqual(block.status, .error)
        XCTAssertEqual(block.results.map(\.kind), [.print, .error])
        XCTAssertEqual(block.results[1].line, 20)
        XCTAssertTrue(block.results[1].text.contains("decodingFailure"), block.results[1].text)
        XCTAssertTrue(block.results[1].text.contains("$.searchTerms: 1 elements, at least 3 required"), block.results[1].text)
    }

    func testUnsupportedSwiftIsReportedBeforeAnythingRuns() async {
        let model = ScriptedLanguageModel()
        let result = await evaluate("""
            #Playground {
                let session = LanguageModelSession()
                _ = try await session.respond(to: "hi")
                let line = readLine()
                print(line)
            }
            """, model: model)
        let block = result.blocks[0]
        XCTAssertEqual(block.status, .error)
        XCTAssertTrue(model.receivedRequests.isEmpty, "nothing may run")
        XCTAssertEqual(block.results.first?.kind, .error)
        XCTAssertEqual(block.results.first?.line, 4)
        XCTAssertEqual(block.results.first?.column, 16)
    }

    func testRuntimeErrorsNameTheProblem() async {
        let result = await evaluate("""
            #Playground {
                let names = ["a"]
                print(names[3])
            }

            #Playground {
                print(undefinedThing)
            }
            """)
        XCTAssertEqual(result.blocks[0].error, "test.fmplay:3:11: index out of range (index 3, count 1)")
        XCTAssertEqual(result.blocks[1].status, .error)
        XCTAssertTrue(result.blocks[1].error?.contains("undefinedThing") == true, result.blocks[1].error ?? "")
    }

    func testUnavailableModelThrowsAssetsUnavailable() async {
        let result = await evaluate("""
            #Playground {
                let session = LanguageModelSession()
                _ = try await session.respond(to: "hi")
            }
            """, model: nil)
        XCTAssertEqual(result.blocks[0].status, .error)
        XCTAssertTrue(result.blocks[0].error?.contains("assetsUnavailable") == true)
        XCTAssertTrue(result.blocks[0].error?.contains("make setup") == true)
    }

    func testTimeoutCancelsBlock() async {
        let result = await evaluate("""
            #Playground {
                print("start")
                let session = LanguageModelSession()
                _ = try await session.respond(to: "hang")
            }
            """, model: ScriptedLanguageModel(tokenDelay: .seconds(60)), timeout: 0.2)
        XCTAssertEqual(result.blocks[0].status, .error)
        XCTAssertEqual(result.blocks[0].results.map(\.kind), [.print, .error])
        XCTAssertEqual(result.blocks[0].results.last?.text, "timed out after 0.2 s")
    }
}
