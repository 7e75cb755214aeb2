import FoundationModelsRuntime
import PlaygroundEvaluator
import XCTest

/// Printing and sending values whose objects form a cycle (a tree with `weak var parent`, a linked list
/// pointing back at itself) ends: an object met again on the path is written as its type name.
final class ReferenceCycleTests: XCTestCase {
    func testPrintingACycleOfObjectsEnds() async {
        let result = await evaluate("""
            final class TreeNode {
                let value: Int
                var children: [TreeNode] = []
                weak var parent: TreeNode?
                init(_ value: Int) { self.value = value }
                func add(_ child: TreeNode) {
                    children.append(child)
                    child.parent = self
                }
            }
            final class Link {
                var next: Link?
                init() {}
            }
            #Playground {
                let root = TreeNode(1)
                root.add(TreeNode(2))
                print(root)
                let link = Link()
                link.next = link
                print(link)
                print([link])
                print("after", root.children.count)
            }
            """, model: nil)
        XCTAssertEqual(result.blocks.first?.status, .ok, result.blocks.first?.error ?? "")
        XCTAssertEqual(prints(result).last, "after 1")
    }
}
