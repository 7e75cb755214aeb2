import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// Labelled tuples, `is`, `as?` and `as!` behave as Swift's do.
final class TupleAndCastTests: XCTestCase {
    func testLabelledTuplesKeepLabelsAndAnswerByLabelAndPosition() async {
        let result = await evaluate(#"""
            struct Named {
                let name: String
            }

            let people = [Named(name: "Ann"), Named(name: "Bo")]

            #Playground {
                let t = (name: "a", count: 2)
                print(t.name, t.count, t.0, t.1)
                print(t)
                let pairs = [(name: "x", count: 1), (name: "y", count: 3)]
                for pair in pairs {
                    print(pair.name, pair.count)
                }
                for (index, named) in people.enumerated() {
                    print(index, named.name)
                }
                for (index, item) in pairs.enumerated() {
                    print(index, item.name, item.1)
                }
                let annotated: (title: String, Int) = ("t", 5)
                print(annotated.title, annotated.1, annotated)
                print(("a", 2), pairs)
                print(t == (name: "a", count: 2), t == (name: "a", count: 3))
                print("\(t.name) has \(t.count)")
            }
            """#)
        XCTAssertEqual(prints(result), [
            "a 2 a 2",
            #"(name: "a", count: 2)"#,
            "x 1", "y 3",
            "0 Ann", "1 Bo",
            "0 x 1", "1 y 3",
            #"t 5 (title: "t", 5)"#,
            #"("a", 2) [(name: "x", count: 1), (name: "y", count: 3)]"#,
            "true false",
            "a has 2",
        ])
    }

    func testIsChecksTheRuntimeType() async {
        let result = await evaluate(#"""
            @Generable
            struct Pick {
                var title: String
            }

            @Generable
            enum Mood {
                case calm, busy
            }

            #Playground {
                let values: [Any] = ["s", 1, 2.5, true, [1, 2], ["k": 1], Pick(title: "x"), Mood.calm, GeneratedContent("g")]
                for value in values {
                    print(value is String, value is Int, value is Double, value is Bool, value is [Int], value is [String: Int], value is Pick, value is Mood, value is GeneratedContent)
                }
                print(values is [Int], [1, 2] is [String], ["a"] is Array<String>, (1, "a") is (Int, String))
            }
            """#)
        let t = "true", f = "false"
        XCTAssertEqual(prints(result), [
            [t, f, f, f, f, f, f, f, f], [f, t, f, f, f, f, f, f, f], [f, f, t, f, f, f, f, f, f],
            [f, f, f, t, f, f, f, f, f], [f, f, f, f, t, f, f, f, f], [f, f, f, f, f, t, f, f, f],
            [f, f, f, f, f, f, t, f, f], [f, f, f, f, f, f, f, t, f], [f, f, f, f, f, f, f, f, t],
            [f, f, t, t],
        ].map { $0.joined(separator: " ") })
    }

    func testConditionalCastIsNilOnMismatch() async {
        let result = await evaluate(#"""
            @Generable
            struct Pick {
                var title: String
            }

            #Playground {
                let values: [Any] = ["s", 1, Pick(title: "x")]
                print(values[0] as? Int == nil, (values[0] as? String) ?? "none", (values[1] as? String) ?? "none")
                if let pick = values[2] as? Pick {
                    print("pick", pick.title)
                }
                if let pick = values[0] as? Pick {
                    print("wrong", pick)
                } else {
                    print("not a pick")
                }
                let number = 2 as Double
                print(number, values[1] as! Int)
            }
            """#)
        XCTAssertEqual(prints(result), ["true s none", "pick x", "not a pick", "2.0 1"])
    }

    func testFailedForcedCastIsARuntimeErrorAtItsLine() async {
        let result = await evaluate("""
            #Playground {
                let values: [Any] = ["s"]
                print("before")
                let n = values[0] as! Int
                print(n)
            }
            """)
        let block = result.blocks[0]
        XCTAssertEqual(block.status, .error)
        XCTAssertEqual(block.results.map(\.kind), [.print, .error])
        XCTAssertEqual(block.results.last?.line, 4)
        XCTAssertTrue(block.results.last?.text.contains("could not cast value of type 'String' to 'Int'") == true,
                      block.results.last?.text ?? "")
    }
}

/// Values whose printing or mutation differed from Swift (found by running FM306-clean code).
final class SwiftParityTests: XCTestCase {
    func testRangesConversionsAndMutatingMethodsMatchSwift() async {
        let result = await evaluate(#"""
            #Playground {
                print(0..<3, 1...3, Array(1...3), Array("ab"))
                print(String(repeating: "ab", count: 2), Bool("true") ?? false, Bool("x") == nil)
                var flag = true
                flag.toggle()
                var list = [1]
                list.append(contentsOf: [2, 3])
                list.insert(0, at: 0)
                let removed = list.remove(at: 1)
                print(flag, list, removed, list.max() ?? 0, list.min() ?? 0, list.firstIndex(of: 3) ?? -1)
                print(list.dropFirst(), list.dropLast(2), list.suffix(2), list.removeLast(), list)
                var dict = ["a": 1, "b": 2, "c": 3]
                dict["a"] = nil
                let old = dict.removeValue(forKey: "b")
                print(dict, dict.count, old ?? 0)
                var text = "ab"
                text.append("c")
                print(text)
            }
            """#)
        XCTAssertEqual(prints(result), [
            #"0..<3 1...3 [1, 2, 3] ["a", "b"]"#,
            "abab true true",
            "false [0, 2, 3] 1 3 0 2",
            "[2, 3] [0] [2, 3] 3 [0, 2]",
            #"["c": 3] 1 2"#,
            "abc",
        ])
    }

    func testIntegerLiteralsTakeDeclaredDoubleTypesAndEmptyInitializers() async {
        let result = await evaluate(#"""
            enum Shape {
                case circle(radius: Double)
                case square(Int)
            }

            struct Stop {
                var hours: Double
                var rates: [Double]
                var count: Int
            }

            #Playground {
                let d: Double = 2
                print(d, Shape.circle(radius: 2), Shape.square(3))
                print(Stop(hours: 1, rates: [1, 2], count: 4))
                var names = [String]()
                names.append("a")
                print(names, [String: Int](), [Int]().isEmpty)
            }
            """#)
        XCTAssertEqual(prints(result), [
            "2.0 circle(radius: 2.0) square(3)",
            "Stop(hours: 1.0, rates: [1.0, 2.0], count: 4)",
            #"["a"] [:] true"#,
        ])
    }

    func testEmptyCollectionsAndBadRangesAreRuntimeErrors() async {
        let result = await evaluate("""
            #Playground {
                var list: [Int] = []
                print("before")
                _ = list.removeLast()
            }

            #Playground {
                let n = 3
                for i in n...1 {
                    print(i)
                }
            }
            """)
        XCTAssertEqual(result.blocks[0].status, .error)
        XCTAssertEqual(result.blocks[0].results.last?.line, 4)
        XCTAssertTrue(result.blocks[0].results.last?.text.contains("can't remove last element from an empty collection") == true)
        XCTAssertEqual(result.blocks[1].status, .error)
        XCTAssertTrue(result.blocks[1].results.last?.text.contains("range requires lowerBound <= upperBound (3...1)") == true,
                      result.blocks[1].results.last?.text ?? "")
    }
}
