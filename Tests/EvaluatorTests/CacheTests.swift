import FoundationModelsRuntime
import JSON
import PlaygroundEvaluator
import PlaygroundResults
import XCTest

final class CacheTests: XCTestCase {
    let source = travelTypes + """
        let city = "Porto"

        #Playground("first") {
            let session = LanguageModelSession()
            let response = try await session.respond(to: "Ideas for \\(city)", generating: Suggestions.self)
            print(response.content.stars)
        }

        #Playground("second") {
            print("independent")
        }
        """

    func testSecondRunIsCachedAndIdentical() async throws {
        let cache = ResultCache(directory: try temporaryDirectory())
        let model = ScriptedLanguageModel()
        let cold = await evaluate(source, model: model, cache: cache)
        XCTAssertEqual(cold.blocks.map(\.cached), [false, false])
        let warm = await evaluate(source, model: model, cache: cache)
        XCTAssertEqual(warm.blocks.map(\.cached), [true, true])
        XCTAssertEqual(warm.blocks.map(\.results), cold.blocks.map(\.results))
        XCTAssertEqual(model.receivedRequests.count, 1, "the cached run makes no model calls")
    }

    /// A suite's @Test method depends on its suite type: editing a static it reads as `Self.x` runs it again.
    func testSuiteTestsDependOnTheirSuite() async throws {
        let cache = ResultCache(directory: try temporaryDirectory())
        func source(_ greeting: String) -> String {
            "import Testing\nstruct Greetings {\n    static let text = \"\(greeting)\"\n    @Test func greet() { print(Self.text) }\n}\n"
        }
        let first = await evaluate(source("hello"), cache: cache)
        XCTAssertEqual(prints(first), ["hello"])
        let again = await evaluate(source("hello"), cache: cache)
        XCTAssertEqual(again.blocks.map(\.cached), [true])
        let edited = await evaluate(source("bonjour"), cache: cache)
        XCTAssertEqual(edited.blocks.map(\.cached), [false])
        XCTAssertEqual(prints(edited), ["bonjour"])
    }

    /// The JSON form (`fmplay run --format json`, the worker's pipe, the cache) carries each result's
    /// UTF-8 offsets: read back, a result is equal to the one recorded and its offsets cover its call.
    func testJSONFormCarriesTheResultsOffsets() async throws {
        let run = await evaluate(source, model: ScriptedLanguageModel())
        let results = run.blocks.flatMap(\.results)
        XCTAssertEqual(results.map(\.kind), [.response, .print, .print])
        let bytes = Array(source.utf8)
        for result in results {
            let offsets = try XCTUnwrap(result.offsets, "\(result.kind) at line \(result.line)")
            XCTAssertEqual(result.jsonValue["startOffset"]?.intValue, offsets.lowerBound)
            XCTAssertEqual(result.jsonValue["endOffset"]?.intValue, offsets.upperBound)
            XCTAssertEqual(EvaluationResult(json: result.jsonValue), result)
            let text = String(decoding: bytes[offsets], as: UTF8.self)
            XCTAssertTrue(text.hasPrefix(result.kind == .print ? "print(" : "try await session.respond(")
                          || text.hasPrefix("session.respond("), text)
        }
        var withoutOffsets = results[0].jsonValue
        if case .object(var object) = withoutOffsets { object["startOffset"] = nil; object["endOffset"] = nil; withoutOffsets = .object(object) }
        XCTAssertNil(EvaluationResult(json: withoutOffsets)?.offsets, "JSON written without them reads back without them")
    }

    /// Cached results are placed where the block and the declarations they came from are now:
    /// text added above them (an unused constant) or between them keeps the key, and the results'
    /// lines and UTF-8 offsets are those of a fresh run of the moved text.
    func testCachedResultsFollowTheBlockAndItsDeclarations() async throws {
        let cache = ResultCache(directory: try temporaryDirectory())
        let original = """
            func greet(_ name: String) {
                print("hello \\(name)")
            }

            #Playground {
                greet("Ada")
                print("done")
            }
            """
        let cold = await evaluate(original, cache: cache)
        XCTAssertEqual(cold.blocks.map(\.cached), [false])
        let moved = "let unused = 1\n\n" + original.replacingOccurrences(of: "}\n\n#Playground", with: "}\n\nlet alsoUnused = 2\n\n#Playground")
        let warm = await evaluate(moved, cache: cache)
        let fresh = await evaluate(moved)
        XCTAssertEqual(warm.blocks.map(\.cached), [true])
        XCTAssertEqual(warm.blocks[0].results, fresh.blocks[0].results)
        XCTAssertEqual(warm.blocks[0].results.map(\.line), [4, 11])
        let bytes = Array(moved.utf8)
        XCTAssertEqual(warm.blocks[0].results.compactMap(\.offsets).map { String(decoding: bytes[$0], as: UTF8.self) },
                       ["print(\"hello \\(name)\")", "print(\"done\")"])
        // The function the block calls is part of its content: editing it runs the block again.
        let edited = await evaluate(moved.replacingOccurrences(of: "hello", with: "hi"), cache: cache)
        XCTAssertEqual(edited.blocks.map(\.cached), [false])
        XCTAssertEqual(prints(edited), ["hi Ada", "done"])
    }

    /// A block's run reads only its content: a top-level constant it does not use is not evaluated
    /// (as Swift initializes globals lazily), so that constant's failure is not the block's.
    func testUnusedTopLevelConstantsAreNotEvaluated() async {
        let source = """
            let broken = [1][3]
            let used = "fine"

            #Playground {
                print(used)
            }

            #Playground {
                print(broken)
            }
            """
        let result = await evaluate(source)
        XCTAssertEqual(result.blocks.map(\.status), [.ok, .error])
        XCTAssertEqual(prints(result), ["fine"])
    }

    /// An entry is verified before use: a tampered result (valid JSON, wrong digest), an entry copied
    /// under another key, or garbage is ignored, and the run rewrites it.
    func testTamperedEntriesAreIgnoredAndRewritten() async throws {
        let directory = try temporaryDirectory()
        let cache = ResultCache(directory: directory)
        let source = "#Playground {\n    print(\"genuine\")\n}\n"
        _ = await evaluate(source, cache: cache)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/results").filter { $0.hasSuffix(".json") }
        XCTAssertEqual(files.count, 1)
        let path = directory + "/results/" + files[0]
        let genuine = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(genuine.contains("\"sha256\""), genuine)
        let tampered = genuine.replacingOccurrences(of: "genuine", with: "tampered")
        let otherKey = genuine.replacingOccurrences(of: files[0].dropLast(5), with: String(repeating: "0", count: 64))
        for bad in [tampered, otherKey, "{\"version\":2}", "not json at all", ""] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            let run = await evaluate(source, cache: cache)
            XCTAssertEqual(run.blocks.first?.cached, false, bad)
            XCTAssertEqual(prints(run), ["genuine"])
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), genuine, "the bad entry is rewritten")
        }
        let last = await evaluate(source, cache: cache)
        XCTAssertEqual(last.blocks.first?.cached, true)
    }

    func testKeyCoversBlockDeclarationsModelAndSeed() async throws {
        let cache = ResultCache(directory: try temporaryDirectory())
        _ = await evaluate(source, cache: cache)

        // Editing another block does not invalidate this one.
        let otherBlockEdited = source.replacingOccurrences(of: "\"independent\"", with: "\"changed\"")
        let run1 = await evaluate(otherBlockEdited, cache: cache)
        XCTAssertEqual(run1.blocks.map(\.cached), [true, false])

        // A declaration the block uses (a constant, a Generable type) is part of the key.
        let constantEdited = source.replacingOccurrences(of: "\"Porto\"", with: "\"Braga\"")
        let run2 = await evaluate(constantEdited, cache: cache)
        XCTAssertEqual(run2.blocks.map(\.cached), [false, true])
        let typeEdited = source.replacingOccurrences(of: ".range(1...5)", with: ".range(2...5)")
        let run3 = await evaluate(typeEdited, cache: cache)
        XCTAssertEqual(run3.blocks.first?.cached, false)

        // A different model or seed misses.
        let run4 = await evaluate(source, model: ScriptedLanguageModel(name: "other"), cache: cache)
        XCTAssertEqual(run4.blocks.first?.cached, false)
        let run5 = await evaluate(source, cache: cache, seed: 1)
        XCTAssertEqual(run5.blocks.first?.cached, false)
        let run6 = await evaluate(source, cache: cache)
        XCTAssertEqual(run6.blocks.first?.cached, true)
    }

    func testSelectionByNameAndLine() async {
        let named = await evaluate(source, selection: .named("second"))
        XCTAssertEqual(named.blocks.map(\.displayName), ["second"])
        let byLine = await evaluate(source, selection: .line(21))
        XCTAssertEqual(byLine.blocks.map(\.displayName), ["first"])
    }

    func testDefaultCacheDirectoryFollowsXDG() {
        XCTAssertEqual(ResultCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"]), "/x/fmplay")
        XCTAssertEqual(ResultCache.defaultDirectory(environment: ["HOME": "/h"]), "/h/.cache/fmplay")
    }
}
