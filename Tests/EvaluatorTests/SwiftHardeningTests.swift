import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// Ordinary Swift that would crash or hang a compiled program must not crash or hang
/// the evaluator: unbounded recursion through any kind of call is a runtime error at
/// its line, and releasing long chains of class instances does not recurse per instance.
final class SwiftHardeningTests: XCTestCase {
    func testUnboundedRecursionIsARuntimeErrorWhateverCalls() async {
        let result = await evaluate("""
            func forever(_ n: Int) -> Int { forever(n + 1) }
            struct Loop { var x: Int { x + 1 } }
            class Node { var next: Node?; init() { next = Node() } }
            struct Desc: CustomStringConvertible { var description: String { "\\(self)" } }
            enum E { case a; var me: E { me } }

            #Playground("function") { print(forever(0)) }
            #Playground("computed") { print(Loop().x) }
            #Playground("initializer") { _ = Node() }
            #Playground("description") { print(Desc()) }
            #Playground("closure") {
                var f: ((Int) -> Int)!
                f = { n in f(n + 1) }
                print(f(0))
            }
            #Playground("enum") { print(E.a.me) }
            #Playground("after") { print("still running") }
            """, model: nil)
        XCTAssertEqual(result.blocks.count, 7)
        for block in result.blocks.prefix(6) {
            XCTAssertEqual(block.status, .error, block.name ?? "")
            XCTAssertTrue(block.error?.contains("calls nested more than 400 deep") ?? false, "\(block.name ?? ""): \(block.error ?? "")")
        }
        XCTAssertEqual(prints(result, block: 6), ["still running"])
    }

    func testLongChainsOfInstancesAreReleasedWithoutRecursion() async {
        let result = await evaluate("""
            class Node { var next: Node?; var value = 0 }
            #Playground("list") {
                let head = Node()
                var current = head
                for i in 0..<20000 { let n = Node(); n.value = i; current.next = n; current = n }
                let cycle = Node()
                cycle.next = cycle
                print(head.next?.next?.value ?? -1, cycle.next === cycle)
            }
            #Playground("after") { print("released") }
            """, model: nil, timeout: 600)
        XCTAssertEqual(prints(result), ["1 true"])
        XCTAssertEqual(prints(result, block: 1), ["released"])
    }
}
