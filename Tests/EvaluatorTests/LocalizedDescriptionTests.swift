import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// `error.localizedDescription` of the file's own errors: its `errorDescription` when it is a LocalizedError
/// that has one, else Foundation's generic text with the case's number.
final class LocalizedDescriptionTests: XCTestCase {
    func testTheFilesOwnErrorsHaveALocalizedDescription() async {
        let result = await evaluate("""
            enum Simple: Error { case oops, worse }
            struct Described: LocalizedError {
                var errorDescription: String? { "described" }
            }
            #Playground {
                do { throw Simple.worse } catch { print(error.localizedDescription) }
                do { throw Described() } catch { print(error.localizedDescription) }
            }
            """, model: nil)
        XCTAssertEqual(prints(result), ["The operation could not be completed. (Simple error 1.)", "described"])
    }
}
