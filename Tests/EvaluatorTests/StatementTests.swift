import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

final class StatementTests: XCTestCase {
    func testValuesLoopsConditionsAndStrings() async {
        let result = await evaluate(#"""
            import FoundationModels
            import Playgrounds

            struct City {
                let name: String
                var population: Int
                var nickname: String? = nil
                var label: String {
                    "\(name) (\(population)k)"
                }
            }

            let cities = [City(name: "Lisbon", population: 545), City(name: "Oslo", population: 709, nickname: "Tiger City")]
            let capitals = ["Portugal": "Lisbon", "Norway": "Oslo"]
            let limit = 600

            #Playground {
                var total = 0
                for city in cities where city.population > 100 {
                    total += city.population
                    if city.population > limit {
                        print("\(city.name) is big")
                    } else {
                        print("\(city.name) is small")
                    }
                    print(city.nickname ?? "no nickname")
                }
                print(total, total / 2, Double(total) / 4.0)
                for country in capitals.keys {
                    print("\(capitals[country] ?? ""), \(country)")
                }
                var names: [String] = []
                for index in 0..<2 { names.append(cities[index].name.uppercased()) }
                print(names.joined(separator: "+"), names.count, capitals["Norway"] ?? "?")
                let text = """
                    Line one
                      indented \(cities.count)
                    """
                print(text)
                let label = total > 1000 ? "large" : "modest"
                switch label {
                case "large", "huge":
                    print("case large")
                default:
                    print("default")
                }
                print(cities.count * 2, cities[1].name.hasPrefix("O"), !true)
                print(cities[1])
                print(cities[0].label)
            }
            """#)
        XCTAssertEqual(prints(result), [
            "Lisbon is small", "no nickname", "Oslo is big", "Tiger City", "1254 627 313.5",
            "Lisbon, Portugal", "Oslo, Norway", "LISBON+OSLO 2 Oslo", "Line one\n  indented 2", "case large",
            "4 true false", #"City(name: "Oslo", population: 709, nickname: "Tiger City")"#, "Lisbon (545k)",
        ])
    }

    func testSwitchOverAvailability() async {
        let source = """
            #Playground {
                let model = SystemLanguageModel.default
                switch model.availability {
                case .available:
                    print("available \\(model.contextSize) \\(model.isAvailable)")
                case .unavailable(.deviceNotEligible):
                    print("not eligible")
                case .unavailable(let reason):
                    print("unavailable: \\(reason)")
                }
                if case .unavailable(let why) = model.availability {
                    print("if case: \\(why)")
                }
            }
            """
        let available = await evaluate(source)
        XCTAssertEqual(prints(available), ["available 4096 true"])
        let missing = await evaluate(source, model: nil)
        XCTAssertEqual(prints(missing), ["unavailable: modelNotReady", "if case: modelNotReady"])
    }

    func testIfLetGuardAndBreak() async {
        let result = await evaluate("""
            let scores = ["a": 1, "b": 5]
            #Playground {
                if let score = scores["b"], score > 2 {
                    print("b=\\(score)")
                }
                if let missing = scores["z"] {
                    print("never \\(missing)")
                } else if scores.isEmpty {
                    print("empty")
                } else {
                    print("no z")
                }
                for value in [1, 2, 3, 4] {
                    if value == 2 { continue }
                    if value == 4 { break }
                    print(value)
                }
            }
            """)
        XCTAssertEqual(prints(result), ["b=5", "no z", "1", "3"])
    }

    func testInstructionsAndPromptBuilders() async {
        let model = ScriptedLanguageModel()
        let result = await evaluate("""
            let topics = ["tides", "gulls"]
            #Playground {
                let formal = true
                let session = LanguageModelSession {
                    "You write poems."
                    if formal {
                        "Use a formal tone."
                    }
                }
                let prompt = Prompt {
                    "Write about:"
                    for topic in topics {
                        "- \\(topic)"
                    }
                }
                let response = try await session.respond(to: prompt)
                print(response.content)
            }
            """, model: model)
        XCTAssertEqual(prints(result), [#"Scripted reply to "Write about: - tides - gulls"."#])
        guard case .instructions(let instructions)? = model.receivedRequests.first?.transcript.first else { return XCTFail() }
        XCTAssertEqual(instructions.segments.map(\.text), ["You write poems.\nUse a formal tone."])
    }

    func testEnumsWithRawValuesAndAllCases() async {
        let result = await evaluate("""
            enum Category: String, CaseIterable {
                case food = "Food"
                case museum
            }

            #Playground {
                for category in Category.allCases {
                    print(category, category.rawValue)
                }
                let chosen = Category.food
                if chosen == .food { print("food first") }
            }
            """)
        XCTAssertEqual(prints(result), ["food Food", "museum museum", "food first"])
    }
}
