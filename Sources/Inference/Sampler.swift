import Foundation

/// How the next token is chosen from the logits.
public struct SamplingParameters: Sendable, Equatable {
    /// 0 (or less) is greedy: the highest logit wins and no RNG is used.
    public var temperature: Float
    /// Keep the k most likely tokens; 0 disables.
    public var topK: Int
    /// Keep the smallest set of most likely tokens whose probability reaches p; 1 disables.
    public var topP: Float
    /// Drop tokens less likely than minP times the most likely one; 0 disables.
    public var minP: Float
    public var seed: UInt64

    public init(temperature: Float = 0.8, topK: Int = 40, topP: Float = 0.95, minP: Float = 0.05, seed: UInt64 = 0) {
        self.temperature = temperature
        self.topK = topK
        self.topP = topP
        self.minP = minP
        self.seed = seed
    }

    public static let greedy = SamplingParameters(temperature: 0, topK: 0, topP: 1, minP: 0)
}

/// xoshiro256** seeded through SplitMix64: small, fast and the same on every platform.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    public mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    /// A uniform Float in [0, 1).
    mutating func nextUnitFloat() -> Float {
        Float(next() >> 40) * (1.0 / Float(1 << 24))
    }
}

/// Chooses tokens from logits. Holds its RNG, so a sampler created with a
/// seed gives the same tokens for the same logits on every run.
///
/// Order of the steps (as llama.cpp's default chain): mask, top-k, top-p,
/// min-p, temperature, draw. Buffers are sized once for the vocabulary.
public struct Sampler: Sendable {
    public let parameters: SamplingParameters
    public let vocabularySize: Int
    private var generator: SeededGenerator
    private var candidateIds: [Int32]
    private var candidateValues: [Float]

    public init(parameters: SamplingParameters, vocabularySize: Int) {
        self.parameters = parameters
        self.vocabularySize = vocabularySize
        generator = SeededGenerator(seed: parameters.seed)
        candidateIds = Array(repeating: 0, count: vocabularySize)
        candidateValues = Array(repeating: 0, count: vocabularySize)
    }

    /// Picks a token from `logits` (vocabularySize values), restricted to
    /// `mask` when given. Throws when the mask allows nothing.
    public mutating func sample(logits: UnsafeBufferPointer<Float>, mask: TokenMask? = nil) throws(InferenceError) -> Int32 {
        precondition(logits.count >= vocabularySize)
        if parameters.temperature <= 0 {
            return try Self.argmax(logits: logits, count: vocabularySize, mask: mask)
        }
        let parameters = self.parameters
        let vocabularySize = self.vocabularySize
        return try candidateIds.withUnsafeMutableBufferPointer { ids throws(InferenceError) -> Int32 in
            try candidateValues.withUnsafeMutableBufferPointer { values throws(InferenceError) -> Int32 in
                // Mask.
                var count = 0
                for token in 0..<vocabularySize where mask?.contains(Int32(token)) ?? true {
                    ids[count] = Int32(token)
                    values[count] = logits[token]
                    count += 1
                }
                guard count > 0 else { throw .maskAllowsNoToken }
                // Top-k, then sort the survivors by logit, descending.
                if parameters.topK > 0, parameters.topK < count {
                    count = Self.selectTop(parameters.topK, ids: ids, values: values, count: count)
                } else if parameters.minP > 0 {
                    // Pre-filter by min-p before the full sort (min-p would drop them anyway).
                    var maximum = -Float.infinity
                    for i in 0..<count where values[i] > maximum { maximum = values[i] }
                    let threshold = maximum + logf(parameters.minP)
                    var kept = 0
                    for i in 0..<count where values[i] >= threshold {
                        ids[kept] = ids[i]
                        values[kept] = values[i]
                        kept += 1
                    }
                    count = kept
                }
                Self.sortDescending(ids: ids, values: values, count: count)
                // Top-p on the softmax of the remaining logits.
                if parameters.topP < 1 {
                    let maximum = values[0]
                    var total: Float = 0
                    for i in 0..<count { total += expf(values[i] - maximum) }
                    var cumulative: Float = 0
                    var kept = count
                    for i in 0..<count {
                        cumulative += expf(values[i] - maximum) / total
                        if cumulative >= parameters.topP { kept = i + 1; break }
                    }
                    count = kept
                }
                // Min-p relative to the most likely token.
                if parameters.minP > 0 {
                    let threshold = values[0] + logf(parameters.minP)
                    var kept = 1
                    while kept < count, values[kept] >= threshold { kept += 1 }
                    count = kept
                }
                // Temperature, softmax, draw.
                let maximum = values[0]
                var total: Float = 0
                for i in 0..<count {
                    let weight = expf((values[i] - maximum) / parameters.temperature)
                    values[i] = weight
                    total += weight
                }
                let target = generator.nextUnitFloat() * total
                var cumulative: Float = 0
                for i in 0..<count {
                    cumulative += values[i]
                    if target < cumulative { return ids[i] }
                }
                return ids[count - 1]
            }
        }
    }

    /// The allowed token with the highest logit (the lowest id on ties).
    public static func argmax(logits: UnsafeBufferPointer<Float>, count: Int, mask: TokenMask?) throws(InferenceError) -> Int32 {
        var best: Int32 = -1
        var bestValue = -Float.infinity
        if let mask {
            for (wordIndex, word) in mask.words.enumerated() where word != 0 {
                var bits = word
                while bits != 0 {
                    let token = wordIndex * 64 + bits.trailingZeroBitCount
                    bits &= bits - 1
                    if token < count, best < 0 || logits[token] > bestValue {
                        best = Int32(token)
                        bestValue = logits[token]
                    }
                }
            }
            guard best >= 0 else { throw .maskAllowsNoToken }
            return best
        }
        best = 0
        bestValue = logits[0]
        for token in 1..<count where logits[token] > bestValue {
            best = Int32(token)
            bestValue = logits[token]
        }
        return best
    }

    /// Moves the k largest values to the front (unsorted), with a min-heap. Returns k.
    private static func selectTop(_ k: Int, ids: UnsafeMutableBufferPointer<Int32>, values: UnsafeMutableBufferPointer<Float>, count: Int) -> Int {
        // Heap over indices 0..<k, smallest value at the root. Ties prefer lower ids.
        func less(_ a: Int, _ b: Int) -> Bool {
            values[a] < values[b] || (values[a] == values[b] && ids[a] > ids[b])
        }
        func swapAt(_ a: Int, _ b: Int) {
            ids.swapAt(a, b)
            values.swapAt(a, b)
        }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < k, less(left, smallest) { smallest = left }
                if right < k, less(right, smallest) { smallest = right }
                if smallest == parent { return }
                swapAt(parent, smallest)
                parent = smallest
            }
        }
        for i in stride(from: k / 2 - 1, through: 0, by: -1) { siftDown(i) }
        for i in k..<count where less(0, i) {
            ids[0] = ids[i]
            values[0] = values[i]
            siftDown(0)
        }
        return k
    }

    /// Sorts the first `count` candidates by value descending, then id
    /// ascending, in place (heapsort: no allocation).
    private static func sortDescending(ids: UnsafeMutableBufferPointer<Int32>, values: UnsafeMutableBufferPointer<Float>, count: Int) {
        guard count > 1 else { return }
        // A min-heap by (value, -id): popping the minimum to the back leaves
        // the array in descending order.
        func less(_ a: Int, _ b: Int) -> Bool {
            values[a] < values[b] || (values[a] == values[b] && ids[a] > ids[b])
        }
        func siftDown(_ start: Int, _ end: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < end, less(left, smallest) { smallest = left }
                if right < end, less(right, smallest) { smallest = right }
                if smallest == parent { return }
                ids.swapAt(parent, smallest)
                values.swapAt(parent, smallest)
                parent = smallest
            }
        }
        for i in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(i, count) }
        for end in stride(from: count - 1, to: 0, by: -1) {
            ids.swapAt(0, end)
            values.swapAt(0, end)
            siftDown(0, end)
        }
    }
}
