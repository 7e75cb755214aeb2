import PlaygroundEvaluator
import XCTest

/// `GeneratedContent.kind` and `GeneratedContent.Kind`, as Apple documents them for dynamic content and tools.
final class GeneratedContentKindTests: XCTestCase {
    func testKindSwitchesAndBuildsContent() async {
        let result = await evaluate(#"""
            import FoundationModels
            #Playground {
                let content = try GeneratedContent(json: #"{"name":"Ada","age":36,"tags":["x"],"ok":true,"none":null}"#)
                if case .structure(let properties, let keys) = content.kind {
                    for key in keys {
                        switch properties[key]!.kind {
                        case .string(let s): print(key, "string", s)
                        case .number(let n): print(key, "number", n)
                        case .array(let items): print(key, "array", items.count)
                        case .bool(let b): print(key, "bool", b)
                        case .null: print(key, "null")
                        case .structure: print(key, "object")
                        }
                    }
                }
                let built = GeneratedContent(kind: .structure(properties: ["a": GeneratedContent("x")], orderedKeys: ["a"]))
                print(built.jsonString, GeneratedContent(elements: [1, 2]).jsonString, GeneratedContent(kind: .number(2)).jsonString)
                print(GeneratedContent(kind: GeneratedContent.Kind.string("s")).jsonString, GeneratedContent(kind: .null).jsonString)
            }
            """#)
        XCTAssertEqual(prints(result), ["name string Ada", "age number 36.0", "tags array 1", "ok bool true", "none null",
                                        "{\"a\":\"x\"} [1,2] 2", "\"s\" null"])
    }

    /// A structure's ordered keys must list its properties once each: anything else is an error at its line.
    func testAStructureKindMustListItsKeys() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let keys = ["a", "b"]
                let content = GeneratedContent(kind: .structure(properties: ["a": GeneratedContent(1)], orderedKeys: keys))
                print(content)
            }
            """)
        XCTAssertEqual(result.blocks.first?.status, .error)
        XCTAssertEqual(result.blocks.first?.results.last?.line, 4)
        XCTAssertTrue(result.blocks.first?.error?.contains("a structure's orderedKeys must list every property once") == true, result.blocks.first?.error ?? "")
    }
}
