import SwiftSyntax

/// Keeps syntax trees that are too deep away from everything after the parser.
///
/// The parser bounds bracket nesting (`NestingGuard`, `maximumNestingLevel`), but
/// some code is deep without brackets: 600 chained calls (`a.f().f()...`) are a
/// path of 1,200 nodes, and an operator sequence (`1 + 1 + ...`, `c ? 1 : c ? 1 : ...`)
/// becomes one level per operator once folded. Every later phase walks trees
/// recursively (our checkers, swift-syntax's visitors, SwiftOperators' folding,
/// the interpreter), so such a tree would overflow the stack.
///
/// After parsing, one iterative walk measures the depth of every path (an unfolded
/// sequence counts one level per operator). The outermost expression (or
/// declaration) holding a path deeper than `maximumDepth` is blanked to spaces,
/// which keeps every byte offset valid, the text is parsed again, and FM003
/// reports it. Real code stays far below the limit (the Examples reach ~40).
enum DepthGuard {
    static let maximumDepth = 512

    /// The byte ranges to blank (outermost, non-overlapping, in order), or [] when the tree is within the limit.
    static func tooDeep(_ tree: SourceFileSyntax, limit: Int = maximumDepth) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var stack: [(node: Syntax, depth: Int)] = [(Syntax(tree), 0)]
        while let (node, depth) = stack.popLast() {
            var level = depth + 1
            if let sequence = node.as(SequenceExprSyntax.self) { level += sequence.elements.count / 2 }
            if level > limit {
                let outer = outermost(node)
                found.append(outer.positionAfterSkippingLeadingTrivia.utf8Offset..<outer.endPositionBeforeTrailingTrivia.utf8Offset)
                continue
            }
            // Tokens are leaves: a path ends at its last node, so they need no visit of their own.
            for child in node.children(viewMode: .sourceAccurate) where child.kind != .token { stack.append((child, level)) }
        }
        return merged(found)
    }

    /// The largest node above `node` that is still part of one expression, type or
    /// declaration: the child of the nearest statement, member or initializer.
    private static func outermost(_ node: Syntax) -> Syntax {
        var current = node
        while let parent = current.parent {
            if parent.is(CodeBlockItemSyntax.self) || parent.is(MemberBlockItemSyntax.self) || parent.is(InitializerClauseSyntax.self)
                || parent.is(SourceFileSyntax.self) || parent.is(CodeBlockItemListSyntax.self) {
                break
            }
            current = parent
        }
        return current
    }

    private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound < last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// `bytes` with every byte in `ranges` replaced by a space (line breaks kept, so lines stay where they were).
    static func blank(_ bytes: [UInt8], _ ranges: [Range<Int>]) -> [UInt8] {
        var output = bytes
        for range in ranges {
            for index in range.clamped(to: 0..<output.count) where output[index] != 0x0A && output[index] != 0x0D {
                output[index] = UInt8(ascii: " ")
            }
        }
        return output
    }
}
