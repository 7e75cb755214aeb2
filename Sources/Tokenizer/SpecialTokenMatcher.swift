/// Finds control and user-defined tokens written literally in text, before
/// the text is tokenized, with llama.cpp's precedence: longer token texts
/// first; for each token its occurrences left to right that do not overlap
/// a token already placed. With `parseSpecial` off, only user-defined
/// tokens are matched, so user text never yields control tokens.
struct SpecialTokenMatcher: Sendable {
    enum Fragment: Equatable {
        case text(Range<Int>)
        case token(TokenID)
    }

    private struct Node: Sendable {
        var children: [UInt8: Int32] = [:]
        var token: TokenID = -1
    }

    private var nodes: [Node] = [Node()]
    /// Priority of each special token: its position in the length-descending order.
    private var priority: [TokenID: Int32] = [:]
    private var userDefined: Set<TokenID> = []
    private var firstBytes = [Bool](repeating: false, count: 256)

    init(texts: TokenTextTable, attributes: [TokenAttributes]) {
        var special: [Int] = []
        for id in 0..<texts.count where !attributes[id].isDisjoint(with: TokenAttributes.special) && texts.length(id) > 0 {
            special.append(id)
        }
        special.sort { texts.length($0) != texts.length($1) ? texts.length($0) > texts.length($1) : $0 < $1 }
        for (rank, id) in special.enumerated() {
            let text = texts.text(id)
            // Duplicate texts: the id the vocabulary index resolves to wins.
            guard texts.lookup(Array(text)) == TokenID(id) else { continue }
            priority[TokenID(id)] = Int32(rank)
            if attributes[id].contains(.userDefined) { userDefined.insert(TokenID(id)) }
            firstBytes[Int(text.first!)] = true
            var node = 0
            for byte in text {
                if let child = nodes[node].children[byte] {
                    node = Int(child)
                } else {
                    nodes.append(Node())
                    nodes[node].children[byte] = Int32(nodes.count - 1)
                    node = nodes.count - 1
                }
            }
            nodes[node].token = TokenID(id)
        }
    }

    func partition(_ bytes: UnsafeRawBufferPointer, parseSpecial: Bool) -> [Fragment] {
        guard !bytes.isEmpty else { return [] }
        struct Occurrence { var priority: Int32; var start: Int; var length: Int; var token: TokenID }
        var occurrences: [Occurrence] = []
        for start in 0..<bytes.count where firstBytes[Int(bytes[start])] {
            var node = 0
            var p = start
            while p < bytes.count, let child = nodes[node].children[bytes[p]] {
                node = Int(child)
                p += 1
                let token = nodes[node].token
                if token >= 0, parseSpecial || userDefined.contains(token) {
                    occurrences.append(Occurrence(priority: priority[token]!, start: start, length: p - start, token: token))
                }
            }
        }
        guard !occurrences.isEmpty else { return [.text(0..<bytes.count)] }
        occurrences.sort { $0.priority != $1.priority ? $0.priority < $1.priority : $0.start < $1.start }
        var placed: [Occurrence] = []
        var covered = [Bool](repeating: false, count: bytes.count)
        for occurrence in occurrences {
            let range = occurrence.start..<(occurrence.start + occurrence.length)
            if range.contains(where: { covered[$0] }) { continue }
            for i in range { covered[i] = true }
            placed.append(occurrence)
        }
        placed.sort { $0.start < $1.start }
        var fragments: [Fragment] = []
        var position = 0
        for occurrence in placed {
            if occurrence.start > position { fragments.append(.text(position..<occurrence.start)) }
            fragments.append(.token(occurrence.token))
            position = occurrence.start + occurrence.length
        }
        if position < bytes.count { fragments.append(.text(position..<bytes.count)) }
        return fragments
    }
}
