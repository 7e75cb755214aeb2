extension Tokenizer {
    /// SentencePiece (llama.cpp's SPM): spaces become U+2581, the text splits
    /// into UTF-8 characters, and adjacent pieces merge while their
    /// concatenation is a token, highest score first (leftmost on ties).
    /// Pieces that are not tokens fall back to `<0xXX>` byte tokens.
    func tokenizeSPM(_ raw: UnsafeRawBufferPointer, spacePrefix: Bool, into output: inout [TokenID]) {
        var text: [UInt8] = []
        text.reserveCapacity(raw.count * 3 + 3)
        if spacePrefix { text.append(contentsOf: [0xE2, 0x96, 0x81]) }
        for b in raw {
            if b == 0x20 { text.append(contentsOf: [0xE2, 0x96, 0x81]) } else { text.append(b) }
        }
        guard !text.isEmpty else { return }

        var starts: [Int32] = []
        var lengths: [Int32] = []
        var next: [Int32] = []
        var prev: [Int32] = []
        var offset = 0
        while offset < text.count {
            let length = min(Self.utf8Length(text[offset]), text.count - offset)
            starts.append(Int32(offset))
            lengths.append(Int32(length))
            prev.append(Int32(starts.count - 2))
            offset += length
            next.append(offset == text.count ? -1 : Int32(starts.count))
        }

        var heap = BinaryHeap<SPMBigram>()
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.count)
        defer { buffer.deallocate() }
        _ = buffer.initialize(from: text)
        let base = UnsafePointer(buffer.baseAddress!)

        @inline(__always)
        func tryAdd(_ left: Int32, _ right: Int32, _ heap: inout BinaryHeap<SPMBigram>) {
            guard left >= 0, right >= 0 else { return }
            let start = Int(starts[Int(left)])
            let size = Int(lengths[Int(left)] + lengths[Int(right)])
            guard let id = texts.lookup(base + start, size) else { return }
            let score = scores.isEmpty ? 0 : scores[Int(id)]
            heap.push(SPMBigram(score: score, left: left, right: right, size: Int32(size)))
        }
        for i in 1..<max(starts.count, 1) { tryAdd(Int32(i - 1), Int32(i), &heap) }
        while let bigram = heap.pop() {
            let l = Int(bigram.left), r = Int(bigram.right)
            guard lengths[l] > 0, lengths[r] > 0, lengths[l] + lengths[r] == bigram.size else { continue }
            lengths[l] += lengths[r]
            lengths[r] = 0
            next[l] = next[r]
            if next[r] >= 0 { prev[Int(next[r])] = Int32(l) }
            tryAdd(prev[l], Int32(l), &heap)
            tryAdd(Int32(l), next[l], &heap)
        }
        var i: Int32 = 0
        while i >= 0 {
            let start = Int(starts[Int(i)]), length = Int(lengths[Int(i)])
            if let id = texts.lookup(base + start, length) {
                output.append(id)
            } else {
                for k in start..<(start + length) where byteTokens[Int(base[k])] >= 0 { output.append(byteTokens[Int(base[k])]) }
            }
            i = next[Int(i)]
        }
    }

    static func utf8Length(_ lead: UInt8) -> Int {
        let table = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4]
        return table[Int(lead >> 4)]
    }
}

struct SPMBigram: HeapOrdered {
    var score: Float
    var left: Int32
    var right: Int32
    var size: Int32

    @inline(__always)
    func precedes(_ other: SPMBigram) -> Bool {
        score != other.score ? score > other.score : left < other.left
    }
}
