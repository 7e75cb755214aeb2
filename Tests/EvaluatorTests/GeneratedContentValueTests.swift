import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// `GeneratedContent.value(_:)` and `value(_:forProperty:)` give the requested Swift type
/// (Apple's `ConvertibleFromGeneratedContent`), named by its metatype or by the declaration's annotation.
final class GeneratedContentValueTests: XCTestCase {
    func testValuesHaveTheRequestedType() async {
        let result = await evaluate("""
            import FoundationModels
            #Playground {
                let content = GeneratedContent(properties: ["name": "Ann", "age": 30, "ok": true, "tags": ["a", "b"]])
                let name = try content.value(String.self, forProperty: "name")
                print(name.uppercased(), name.count)
                print(try content.value(Int.self, forProperty: "age") + 1)
                let ok = try content.value(Bool.self, forProperty: "ok")
                if ok { print("ok") }
                print(try content.value([String].self, forProperty: "tags").joined(separator: "+"))
                let parsed = try GeneratedContent(json: #"{"city":"Paris","n":2.5}"#)
                let city: String = try parsed.value(forProperty: "city")
                let n: Double = try parsed.value(forProperty: "n")
                print(city.lowercased(), n * 2)
                print(try GeneratedContent("hi").value(String.self).uppercased())
            }
            """)
        XCTAssertEqual(prints(result), ["ANN 3", "31", "ok", "a+b", "paris 5.0", "HI"])
    }

    func testGenerableTypesOptionalsAndMismatches() async {
        let result = await evaluate("""
            import FoundationModels
            @Generable
            struct Person {
                var name: String
                var age: Int
            }
            #Playground {
                let content = GeneratedContent(properties: ["who": GeneratedContent(properties: ["name": "Bo", "age": 4])])
                let person = try content.value(Person.self, forProperty: "who")
                print(person.name, person.age + 1)
                let missing = try content.value(String?.self, forProperty: "nickname")
                print(missing ?? "none")
                let raw = try content.value(GeneratedContent.self, forProperty: "who")
                print(raw.jsonString)
                do {
                    let wrong = try content.value(Int.self, forProperty: "who")
                    print(wrong)
                } catch {
                    print("caught")
                }
            }
            """)
        XCTAssertEqual(prints(result), ["Bo 5", "none", #"{"name":"Bo","age":4}"#, "caught"])
    }
}
