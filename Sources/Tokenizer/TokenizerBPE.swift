extension Tokenizer {
    /// Byte-level BPE over one text fragment: pre-tokenize into words, then
    /// merge each word's bytes by merge rank (lowest rank first, leftmost on ties).
    func tokenizeBPE(_ raw: UnsafeRawBufferPointer, into output: inout [TokenID]) {
        let text = CodepointText(raw)
        let ends = (preTokenizer ?? .default).split(text)
        var symbols = BPESymbols()
        var start = 0
        text.bytes.withUnsafeBufferPointer { bytes in
            for end in ends {
                let word = UnsafeBufferPointer(rebasing: bytes[text.offsets[start]..<text.offsets[end]])
                start = end
                if word.isEmpty { continue }
                if ignoreMerges, let whole = wholeWordToken(word) {
                    output.append(whole)
                    continue
                }
                mergeWord(word, symbols: &symbols, into: &output)
            }
        }
    }

    private func wholeWordToken(_ word: UnsafeBufferPointer<UInt8>) -> TokenID? {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(word.count * 2)
        for b in word { encoded.append(contentsOf: byteLevelText[Int(b)]) }
        return texts.lookup(encoded)
    }

    @inline(__always)
    private func mergeRank(_ left: TokenID, _ right: TokenID) -> (rank: Int32, result: TokenID)? {
        guard left >= 0, right >= 0,
              let value = merges.value(UInt64(UInt32(left)) << 32 | UInt64(UInt32(right))) else { return nil }
        return (Int32(truncatingIfNeeded: value >> 32), TokenID(truncatingIfNeeded: value & 0xFFFF_FFFF))
    }

    private func mergeWord(_ word: UnsafeBufferPointer<UInt8>, symbols s: inout BPESymbols, into output: inout [TokenID]) {
        let n = word.count
        s.reset(count: n)
        for i in 0..<n {
            s.ids[i] = byteTokens[Int(word[i])]
            s.prev[i] = Int32(i - 1)
            s.next[i] = i + 1 < n ? Int32(i + 1) : -1
        }
        if n > 1 {
            for i in 0..<(n - 1) {
                if let m = mergeRank(s.ids[i], s.ids[i + 1]) {
                    s.heap.push(BPEBigram(rank: m.rank, left: Int32(i), right: Int32(i + 1), leftID: s.ids[i], rightID: s.ids[i + 1]))
                }
            }
        }
        while let bigram = s.heap.pop() {
            let l = Int(bigram.left), r = Int(bigram.right)
            // Skip bigrams made stale by an earlier merge.
            guard s.ids[l] == bigram.leftID, s.ids[r] == bigram.rightID, s.next[l] == bigram.right,
                  let m = mergeRank(bigram.leftID, bigram.rightID) else { continue }
            s.ids[l] = m.result
            s.ids[r] = -2 // merged away
            let after = s.next[r]
            s.next[l] = after
            if after >= 0 { s.prev[Int(after)] = Int32(l) }
            let before = s.prev[l]
            if before >= 0, let mb = mergeRank(s.ids[Int(before)], s.ids[l]) {
                s.heap.push(BPEBigram(rank: mb.rank, left: before, right: Int32(l), leftID: s.ids[Int(before)], rightID: s.ids[l]))
            }
            if after >= 0, let ma = mergeRank(s.ids[l], s.ids[Int(after)]) {
                s.heap.push(BPEBigram(rank: ma.rank, left: Int32(l), right: after, leftID: s.ids[l], rightID: s.ids[Int(after)]))
            }
        }
        var i: Int32 = 0
        while i >= 0 {
            let id = s.ids[Int(i)]
            if id >= 0 { output.append(id) } // bytes with no token are dropped, as in llama.cpp
            i = s.next[Int(i)]
        }
    }
}

protocol HeapOrdered {
    /// Whether `self` comes out of the heap before `other`.
    func precedes(_ other: Self) -> Bool
}

struct BPEBigram: HeapOrdered {
    var rank: Int32
    var left: Int32
    var right: Int32
    var leftID: TokenID
    var rightID: TokenID

    @inline(__always)
    func precedes(_ other: BPEBigram) -> Bool {
        rank != other.rank ? rank < other.rank : left < other.left
    }
}

/// Scratch space for merging one word, reused across words.
struct BPESymbols {
    var ids: [TokenID] = []
    var prev: [Int32] = []
    var next: [Int32] = []
    var heap = BinaryHeap<BPEBigram>()

    mutating func reset(count: Int) {
        if ids.count < count {
            ids = [TokenID](repeating: 0, count: count)
            prev = [Int32](repeating: 0, count: count)
            next = [Int32](repeating: 0, count: count)
        }
        heap.removeAll()
    }
}

/// A binary heap: the top element precedes all others.
struct BinaryHeap<Element: HeapOrdered> {
    private var items: [Element] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    @inline(__always)
    mutating func push(_ element: Element) {
        items.append(element)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard element.precedes(items[parent]) else { break }
            items[child] = items[parent]
            child = parent
        }
        items[child] = element
    }

    @inline(__always)
    mutating func pop() -> Element? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        let count = items.count
        guard count > 0 else { return top }
        // Sift the last element down from the root.
        var parent = 0
        while true {
            let left = 2 * parent + 1
            if left >= count { break }
            var child = left
            if left + 1 < count, items[left + 1].precedes(items[left]) { child = left + 1 }
            guard items[child].precedes(last) else { break }
            items[parent] = items[child]
            parent = child
        }
        items[parent] = last
        return top
    }
}
