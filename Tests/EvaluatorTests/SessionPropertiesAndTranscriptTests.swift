import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// Session properties written from app code, transcript entries built, edited and saved as Apple documents them
/// (audit 10: findings 6, 7, 11, 16, 17, 29), run on the scripted model.
final class SessionPropertiesAndTranscriptTests: XCTestCase {
    /// `SessionPropertyValues` is a final class: `session.properties.mode = ...` and a write through a local both
    /// reach the session, and the next request's dynamic instructions read the new value.
    func testSessionPropertiesWrittenOutsideTheSession() async {
        let result = await evaluate("""
            import FoundationModels
            extension SessionPropertyValues {
                @SessionPropertyEntry
                var mode: String = "casual"
                @SessionPropertyEntry
                var count: Int = 0
            }
            struct ModeInstructions: DynamicInstructions {
                @SessionProperty(\\.mode) var mode
                var body: some DynamicInstructions {
                    if mode == "formal" { Instructions("Answer formally.") } else { Instructions("Answer casually.") }
                }
            }
            #Playground {
                let session = LanguageModelSession(dynamicInstructions: ModeInstructions())
                _ = try await session.respond(to: "Hi")
                if case .instructions(let i) = session.transcript.first { print(i) }
                let values = session.properties
                values.mode = "formal"
                print(session.properties.mode, values.mode)
                _ = try await session.respond(to: "Hello again")
                if case .instructions(let i) = session.transcript.first { print(i) }
                session.properties.mode = "casual"
                session.properties.count += 2
                print(values.mode, values.count)
                _ = try await session.respond(to: "Third")
                if case .instructions(let i) = session.transcript.first { print(i) }
                let other = LanguageModelSession(dynamicInstructions: ModeInstructions())
                print(other.properties.mode, other.properties.count)
            }
            """)
        XCTAssertEqual(prints(result), ["(Instructions) Answer casually.", "formal formal", "(Instructions) Answer formally.",
                                        "casual 2", "(Instructions) Answer casually.", "casual 0"], result.blocks.first?.error ?? "")
    }

    func testUndeclaredSessionPropertyWriteIsAnError() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let session = LanguageModelSession()
                session.properties.mood = "happy"
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertTrue(result.blocks.first?.error?.contains("no session property 'mood'") == true, result.blocks.first?.error ?? "")
    }
}
