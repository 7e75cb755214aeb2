import Foundation
import Kernels

/// Activation buffers for one forward pass of up to `maxBatch` tokens,
/// allocated once per session so the token loop does not allocate.
final class ForwardScratch {
    let maxBatch: Int
    let hidden: UnsafeMutablePointer<Float>        // [batch][embedding] residual stream
    let normed: UnsafeMutablePointer<Float>        // [batch][max(embedding, query)]
    let query: UnsafeMutablePointer<Float>         // [batch][query]
    let key: UnsafeMutablePointer<Float>           // [batch][keyValue]
    let value: UnsafeMutablePointer<Float>         // [batch][keyValue]
    let attention: UnsafeMutablePointer<Float>     // [batch][query]
    let projected: UnsafeMutablePointer<Float>     // [batch][embedding]
    let gate: UnsafeMutablePointer<Float>          // [batch][feedForward]
    let up: UnsafeMutablePointer<Float>            // [batch][feedForward]
    let scores: UnsafeMutablePointer<Float>        // [scoreSlots][query heads per KV head][contextCapacity]
    let scoreSlots: Int
    /// Positions a score row holds (the longest cache this scratch serves).
    let contextCapacity: Int
    let ropeCos: UnsafeMutablePointer<Float>       // [ropeTables][batch][ropeDimensions/2]
    let ropeSin: UnsafeMutablePointer<Float>
    /// Per score slot, `HalfAttention` scratch for one KV head's query group.
    let halfAttentionScratch: UnsafeMutableRawPointer
    let halfAttentionSlotBytes: Int
    /// `[logitRows][vocabulary]`: the output layer's results when a pass computes logits for several
    /// rows (batched decoding), before they are copied to each sequence; nil when `logitRows` is 1.
    let batchLogits: UnsafeMutablePointer<Float>?
    let logitRows: Int
    /// Per KV head, a prompt batch's cached keys in blocks of 16 transposed to F32 (`VectorOps.transposeKeys`) for
    /// the AVX-512 scores (`VectorOps.scores(transposedKeys:)`); nil where that kernel does not run
    /// or batches stay under `Transformer.halfAttentionTileRows`. Not initialized: only the columns
    /// a batch writes become resident.
    let transposedKeys: UnsafeMutablePointer<Float>?
    private let all: [UnsafeMutablePointer<Float>]

    init(configuration c: ModelConfiguration, maxBatch: Int, contextCapacity: Int, ropeTables: Int, threads: Int,
         logitRows: Int = 1, vocabularySize: Int = 0) {
        self.maxBatch = maxBatch
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
            pointer.initialize(repeating: 0, count: max(count, 1))
            return pointer
        }
        hidden = buffer(maxBatch * c.embeddingLength)
        normed = buffer(maxBatch * max(c.embeddingLength, c.queryDimension))
        query = buffer(maxBatch * c.queryDimension)
        key = buffer(maxBatch * c.keyValueDimension)
        value = buffer(maxBatch * c.keyValueDimension)
        attention = buffer(maxBatch * c.queryDimension)
        projected = buffer(maxBatch * c.embeddingLength)
        gate = buffer(maxBatch * c.feedForwardLength)
        up = buffer(maxBatch * c.feedForwardLength)
        scoreSlots = max(1, threads * 4)
        self.contextCapacity = contextCapacity
        scores = buffer(scoreSlots * contextCapacity * (c.headCount / c.headCountKV))
        ropeCos = buffer(ropeTables * maxBatch * c.ropeDimensions / 2)
        ropeSin = buffer(ropeTables * maxBatch * c.ropeDimensions / 2)
        self.logitRows = max(1, min(logitRows, maxBatch))
        batchLogits = self.logitRows > 1 ? buffer(self.logitRows * vocabularySize) : nil
        all = [hidden, normed, query, key, value, attention, projected, gate, up, scores, ropeCos, ropeSin] + (batchLogits.map { [$0] } ?? [])
        halfAttentionSlotBytes = (HalfAttention.scratchBytes(heads: c.headCount / c.headCountKV, headDimension: c.headDimension) + 63) / 64 * 64
        halfAttentionScratch = .allocate(byteCount: scoreSlots * halfAttentionSlotBytes, alignment: 64)
        transposedKeys = maxBatch >= Transformer.halfAttentionTileRows && VectorOps.canScoreTransposedKeys(dimension: c.headDimension)
            ? .allocate(capacity: c.headCountKV * VectorOps.transposedKeyCount(keys: contextCapacity, dimension: c.headDimension))
            : nil
    }

    deinit {
        for pointer in all { pointer.deallocate() }
        halfAttentionScratch.deallocate()
        transposedKeys?.deallocate()
    }
}

/// The forward pass of a decoder-only transformer over a KV cache.
struct Transformer: @unchecked Sendable {
    let configuration: ModelConfiguration
    let weights: TransformerWeights
    /// Distinct RoPE settings and, per block, which one it uses.
    let ropeSettings: [(base: Float, positionScale: Float)]
    let ropeSettingOfBlock: [Int]

    init(configuration: ModelConfiguration, weights: TransformerWeights) {
        self.configuration = configuration
        self.weights = weights
        var settings: [(base: Float, positionScale: Float)] = []
        var settingOfBlock: [Int] = []
        for block in configuration.blocks {
            if let index = settings.firstIndex(where: { $0.base == block.ropeBase && $0.positionScale == block.ropePositionScale }) {
                settingOfBlock.append(index)
            } else {
                settingOfBlock.append(settings.count)
                settings.append((block.ropeBase, block.ropePositionScale))
            }
        }
        ropeSettings = settings
        ropeSettingOfBlock = settingOfBlock
    }

    /// Runs `tokens` (at most `scratch.maxBatch`) at positions `cache.count...`,
    /// appends their keys/values to the cache and, when `logits` is given,
    /// writes the last token's logits (vocabularySize floats) there.
    func forward(tokens: UnsafeBufferPointer<Int32>, cache: KVCache, scratch s: ForwardScratch,
                 kernels: KernelContext, logits: UnsafeMutablePointer<Float>?) {
        precondition(tokens.count > 0 && tokens.count <= s.maxBatch && cache.count + tokens.count <= cache.capacity)
        forward(tokens: tokens, rows: BatchRows(cache: cache, start: cache.count), scratch: s, kernels: kernels,
                logits: logits.map { [(row: tokens.count - 1, destination: $0)] } ?? [])
    }

    /// Batched decoding: one token for each of several sequences (distinct caches) in one
    /// pass; token `i` goes to `caches[i]` at its next position, and its logits to `logits[i]`.
    /// Every row's result is bit for bit what `forward` gives for that sequence alone: the
    /// matrix products do not depend on the batch, and attention reads only the row's cache.
    func forward(tokens: UnsafeBufferPointer<Int32>, caches: [KVCache], scratch s: ForwardScratch,
                 kernels: KernelContext, logits: [UnsafeMutablePointer<Float>]) {
        precondition(tokens.count > 0 && tokens.count == caches.count && logits.count == caches.count && tokens.count <= s.maxBatch)
        precondition(Set(caches.map { ObjectIdentifier($0) }).count == caches.count, "one token per sequence")
        precondition(caches.allSatisfy { $0.count < $0.capacity && $0.type == caches[0].type })
        forward(tokens: tokens, rows: BatchRows(caches: caches), scratch: s, kernels: kernels,
                logits: logits.enumerated().map { (row: $0.offset, destination: $0.element) })
    }

    private func forward(tokens: UnsafeBufferPointer<Int32>, rows: BatchRows, scratch s: ForwardScratch,
                         kernels: KernelContext, logits: [(row: Int, destination: UnsafeMutablePointer<Float>)]) {
        let c = configuration
        let batch = tokens.count
        let embedding = c.embeddingLength

        for b in 0..<batch {
            let row = s.hidden + b * embedding
            weights.tokenEmbedding.dequantizeRow(Int(tokens[b]), into: row)
            if c.embeddingScale != 1 {
                for i in 0..<embedding { row[i] *= c.embeddingScale }
            }
        }
        fillRoPETables(rows: rows, batch: batch, scratch: s)

        for (blockIndex, block) in weights.blocks.enumerated() {
            attentionBranch(block, blockIndex: blockIndex, rows: rows, batch: batch, scratch: s, kernels: kernels)
            feedForwardBranch(block, batch: batch, scratch: s, kernels: kernels)
        }
        rows.append(tokens)
        outputLogits(logits, scratch: s, kernels: kernels)
    }

    /// One block's attention branch: norm, Q/K/V (biases, per-head norms, RoPE), the cache
    /// store, attention, the output projection, and the residual add.
    private func attentionBranch(_ block: BlockWeights, blockIndex: Int, rows: BatchRows, batch: Int, scratch s: ForwardScratch,
                                 kernels: KernelContext) {
        let c = configuration
        let embedding = c.embeddingLength
        let queryDimension = c.queryDimension
        let kvDimension = c.keyValueDimension
        let headDimension = c.headDimension
        forTokenRanges(batch, kernels) { range in
            VectorOps.rmsNorm(rows: range.count, s.hidden + range.lowerBound * embedding, stride: embedding, weight: block.attentionNorm,
                              epsilon: c.normEpsilon, into: s.normed + range.lowerBound * embedding, count: embedding)
        }
        kernels.matmul(MatmulTarget(block.query.view, output: s.query), MatmulTarget(block.key.view, output: s.key),
                       MatmulTarget(block.value.view, output: s.value), input: s.normed, tokens: batch)
        let table = ropeSettingOfBlock[blockIndex]
        // Per token: biases, per-head norms (the range's heads as rows), RoPE, the cache store.
        forTokenRanges(batch, kernels) { range in
            for b in range {
                if let bias = block.queryBias { VectorOps.addScaled(bias, scale: 1, into: s.query + b * queryDimension, count: queryDimension) }
                if let bias = block.keyBias { VectorOps.addScaled(bias, scale: 1, into: s.key + b * kvDimension, count: kvDimension) }
                if let bias = block.valueBias { VectorOps.addScaled(bias, scale: 1, into: s.value + b * kvDimension, count: kvDimension) }
            }
            if let queryNorm = block.queryNorm, let keyNorm = block.keyNorm {
                let q = s.query + range.lowerBound * queryDimension, k = s.key + range.lowerBound * kvDimension
                VectorOps.rmsNorm(rows: range.count * c.headCount, q, stride: headDimension, weight: queryNorm, epsilon: c.normEpsilon,
                                  into: q, count: headDimension)
                VectorOps.rmsNorm(rows: range.count * c.headCountKV, k, stride: headDimension, weight: keyNorm, epsilon: c.normEpsilon,
                                  into: k, count: headDimension)
            }
            for b in range {
                applyRoPE(s.query, heads: c.headCount, token: b, table: table, scratch: s)
                applyRoPE(s.key, heads: c.headCountKV, token: b, table: table, scratch: s)
                for head in 0..<c.headCountKV {
                    let offset = b * kvDimension + head * headDimension
                    rows.cache(b).store(block: blockIndex, head: head, position: rows.position(b), key: s.key + offset, value: s.value + offset)
                }
            }
        }
        attend(blockIndex: blockIndex, rows: rows, batch: batch, scratch: s, kernels: kernels)
        kernels.multiply(block.output, input: s.attention, output: s.projected, batch: batch)
        addBranch(block.postAttentionNorm, batch: batch, scratch: s, kernels: kernels)
    }

    /// One block's feed-forward branch: norm, gate and up, the gated activation, down, and the residual add.
    private func feedForwardBranch(_ block: BlockWeights, batch: Int, scratch s: ForwardScratch, kernels: KernelContext) {
        let c = configuration
        let embedding = c.embeddingLength
        forTokenRanges(batch, kernels) { range in
            VectorOps.rmsNorm(rows: range.count, s.hidden + range.lowerBound * embedding, stride: embedding, weight: block.feedForwardNorm,
                              epsilon: c.normEpsilon, into: s.normed + range.lowerBound * embedding, count: embedding)
        }
        kernels.matmul(MatmulTarget(block.gate.view, output: s.gate), MatmulTarget(block.up.view, output: s.up),
                       input: s.normed, tokens: batch)
        // Row by row, as ggml applies its gated activations (`ggml_vec_swiglu_f32` per row): each row's
        // last `width % 8` values take the scalar tail, whatever the batch or the thread split.
        let width = c.feedForwardLength, avx512Order = kernels.avx512Order
        forTokens(batch, kernels) { b in
            let gate = s.gate + b * width, up = s.up + b * width
            switch c.activation {
            case .silu: VectorOps.swiGLU(gate: gate, up: up, into: gate, count: width, avx512Order: avx512Order)
            case .geluTanh: VectorOps.geGLU(gate: gate, up: up, into: gate, count: width)
            }
        }
        kernels.multiply(block.down, input: s.gate, output: s.projected, batch: batch)
        addBranch(block.postFeedForwardNorm, batch: batch, scratch: s, kernels: kernels)
    }

    /// The final norm and the output matrix for the rows that want logits.
    private func outputLogits(_ logits: [(row: Int, destination: UnsafeMutablePointer<Float>)], scratch s: ForwardScratch,
                              kernels: KernelContext) {
        let c = configuration
        let embedding = c.embeddingLength
        if logits.count > 1, let batchLogits = s.batchLogits, logits.count <= s.logitRows {
            // Several sequences' logits: one product reads the output matrix once for all of them
            // (each row's result is the one a single-row product gives, bit for bit).
            for (index, (row, _)) in logits.enumerated() {
                VectorOps.rmsNorm(s.hidden + row * embedding, weight: weights.outputNorm, epsilon: c.normEpsilon,
                                  into: s.normed + index * embedding, count: embedding)
            }
            let vocabulary = weights.output.view.rows
            kernels.multiply(weights.output, input: s.normed, output: batchLogits, batch: logits.count)
            for (index, (_, destination)) in logits.enumerated() {
                destination.update(from: batchLogits + index * vocabulary, count: vocabulary)
            }
            return
        }
        for (row, destination) in logits {
            VectorOps.rmsNorm(s.hidden + row * embedding, weight: weights.outputNorm, epsilon: c.normEpsilon, into: s.normed, count: embedding)
            kernels.multiply(weights.output, input: s.normed, output: destination, batch: 1)
        }
    }

    /// `body(b)` for every token of the batch: on the pool for prompt batches (each token's work
    /// is its own, so the results do not depend on the split), inline for small batches.
    @inline(__always)
    private func forTokens(_ batch: Int, _ kernels: KernelContext, _ body: (Int) -> Void) {
        forTokenRanges(batch, kernels) { range in for b in range { body(b) } }
    }

    /// `forTokens` a range of tokens at a time (ranges of multiples of 8 tokens, for the row-group kernels).
    @inline(__always)
    private func forTokenRanges(_ batch: Int, _ kernels: KernelContext, _ body: (Range<Int>) -> Void) {
        if batch >= 16 {
            kernels.pool.parallelFor(batch, grain: 8, body)
        } else {
            body(0..<batch)
        }
    }

    /// hidden += postNorm?(projected)
    private func addBranch(_ postNorm: UnsafePointer<Float>?, batch: Int, scratch s: ForwardScratch, kernels: KernelContext) {
        let embedding = configuration.embeddingLength
        forTokenRanges(batch, kernels) { range in
            if let postNorm {
                let branch = s.projected + range.lowerBound * embedding
                VectorOps.rmsNorm(rows: range.count, branch, stride: embedding, weight: postNorm, epsilon: configuration.normEpsilon,
                                  into: branch, count: embedding)
            }
            for b in range {
                VectorOps.addScaled(s.projected + b * embedding, scale: 1, into: s.hidden + b * embedding, count: embedding)
            }
        }
    }

    /// Cosines and sines per position and rotated pair, computed in F32 as ggml does:
    /// the angle starts at the position and is multiplied by `base^(-2/dims)` from pair
    /// to pair, divided by the pair's frequency factor and scaled by the position scale.
    private func fillRoPETables(rows: BatchRows, batch: Int, scratch s: ForwardScratch) {
        let half = configuration.ropeDimensions / 2
        let factors = weights.ropeFrequencyFactors
        for (table, setting) in ropeSettings.enumerated() {
            let thetaScale = powf(setting.base, -2 / Float(configuration.ropeDimensions))
            for b in 0..<batch {
                let offset = (table * s.maxBatch + b) * half
                var theta = Float(rows.position(b))
                for i in 0..<half {
                    let angle = setting.positionScale * (theta / (factors?[i] ?? 1))
                    s.ropeCos[offset + i] = cosf(angle)
                    s.ropeSin[offset + i] = sinf(angle)
                    theta *= thetaScale
                }
            }
        }
    }

    /// Rotates token `b`'s `heads` vectors.
    private func applyRoPE(_ vectors: UnsafeMutablePointer<Float>, heads: Int, token b: Int, table: Int, scratch s: ForwardScratch) {
        let headDimension = configuration.headDimension
        let half = configuration.ropeDimensions / 2
        let cosines = s.ropeCos + (table * s.maxBatch + b) * half
        let sines = s.ropeSin + (table * s.maxBatch + b) * half
        for head in 0..<heads {
            let x = vectors + (b * heads + head) * headDimension
            switch configuration.ropeOrdering {
            case .adjacentPairs:
                for i in 0..<half {
                    let x0 = x[2 * i], x1 = x[2 * i + 1]
                    x[2 * i] = Transformer.rotatedFirst(x0, x1, cosines[i], sines[i])
                    x[2 * i + 1] = Transformer.rotatedSecond(x0, x1, cosines[i], sines[i])
                }
            case .halves:
                for i in 0..<half {
                    let x0 = x[i], x1 = x[i + half]
                    x[i] = Transformer.rotatedFirst(x0, x1, cosines[i], sines[i])
                    x[i + half] = Transformer.rotatedSecond(x0, x1, cosines[i], sines[i])
                }
            }
        }
    }

    /// `x0*cos - x1*sin` as ggml's `rotate_pairs` computes it: GCC contracts it to
    /// `fma(x0, cos, -(x1*sin))` (the product `x1*sin` rounded first).
    @inline(__always)
    static func rotatedFirst(_ x0: Float, _ x1: Float, _ cos: Float, _ sin: Float) -> Float {
        (-(x1 * sin)).addingProduct(x0, cos)
    }

    /// `x0*sin + x1*cos` as ggml computes it: `fma(x0, sin, x1*cos)`.
    @inline(__always)
    static func rotatedSecond(_ x0: Float, _ x1: Float, _ cos: Float, _ sin: Float) -> Float {
        (x1 * cos).addingProduct(x0, sin)
    }

    /// Causal (optionally windowed) attention of the batch's queries over the cache.
    /// One work item is a (token, KV head) pair: the query heads sharing that
    /// KV head (GQA) read each cached key and value once.
    ///
    /// F16 caches follow llama.cpp's CPU flash attention, which picks its path by the
    /// number of query tokens in a batch: under 64, one query row at a time with an F16
    /// query and an F16 value accumulator (`HalfAttention`); from 64 on, tiles with the
    /// query, scores and accumulators in F32 over the F16 keys/values, i.e. a plain
    /// softmax attention (what `softmaxAttention` computes). F32 caches always take the
    /// plain softmax.
    private func attend(blockIndex: Int, rows: BatchRows, batch: Int, scratch s: ForwardScratch, kernels: KernelContext) {
        let c = configuration
        let headDimension = c.headDimension
        let group = c.headCount / c.headCountKV
        let window = c.blocks[blockIndex].slidingWindow
        let scale = c.attentionScale
        let items = batch * c.headCountKV
        let chunks = min(items, s.scoreSlots)
        switch rows.cache(0).type {
        case .f16 where batch < Transformer.halfAttentionTileRows:
            // llama.cpp applies Gemma 3's attention scale to Q in the graph, before
            // flash attention rounds Q to F16; the others scale each Q·K product.
            let queryScale: Float = c.architecture == .gemma3 ? scale : 1
            let scoreScale: Float = c.architecture == .gemma3 ? 1 : scale
            let slotBytes = s.halfAttentionSlotBytes
            let avx512Order = kernels.avx512Order
            kernels.pool.parallelFor(chunks) { range in
                for chunk in range {
                    let scratch = s.halfAttentionScratch + chunk * slotBytes
                    for item in Swift.stride(from: chunk, to: items, by: chunks) {
                        let b = item / c.headCountKV
                        let kvHead = item % c.headCountKV
                        let position = rows.position(b)
                        let cache = rows.cache(b)
                        let first = window.map { max(0, position - $0 + 1) } ?? 0
                        let firstHead = b * c.headCount + kvHead * group
                        HalfAttention.attend(queries: s.query + firstHead * headDimension, heads: group, headDimension: headDimension,
                                             keys: cache.halfKeys(block: blockIndex, head: kvHead) + first * headDimension,
                                             values: cache.halfValues(block: blockIndex, head: kvHead) + first * headDimension,
                                             count: position - first + 1, queryScale: queryScale, scoreScale: scoreScale,
                                             avx512Order: avx512Order,
                                             output: s.attention + firstHead * headDimension, scratch: scratch)
                    }
                }
            }
        case .f16:
            softmaxAttention(keys: { rows.cache($0).halfKeys(block: blockIndex, head: $1) },
                             values: { rows.cache($0).halfValues(block: blockIndex, head: $1) },
                             window: window, rows: rows, batch: batch, scratch: s, kernels: kernels)
        case .f32:
            softmaxAttention(keys: { rows.cache($0).keys(block: blockIndex, head: $1) },
                             values: { rows.cache($0).values(block: blockIndex, head: $1) },
                             window: window, rows: rows, batch: batch, scratch: s, kernels: kernels)
        }
    }

    /// Query rows from which llama.cpp's CPU flash attention takes its tiled F32 path (`GGML_FA_TILE_Q`).
    static let halfAttentionTileRows = 64

    /// Plain attention: all scores in F32, softmax, F32 weighted sum of the values
    /// (read as F32 or F16 through `CachedElement`).
    private func softmaxAttention<Element: CachedElement>(
        keys keysOfHead: (_ row: Int, _ head: Int) -> UnsafeMutablePointer<Element>,
        values valuesOfHead: (_ row: Int, _ head: Int) -> UnsafeMutablePointer<Element>,
        window: Int?, rows: BatchRows, batch: Int, scratch s: ForwardScratch, kernels: KernelContext
    ) {
        // Score rows are as long as the longest cache (the scratch holds `contextCapacity`, at least that).
        let capacity = s.contextCapacity
        let c = configuration
        let headDimension = c.headDimension
        let group = c.headCount / c.headCountKV
        let scale = c.attentionScale
        let items = batch * c.headCountKV
        let chunks = min(items, s.scoreSlots)
        // A prompt batch over an F16 cache, with AVX-512: the keys once as F32 columns, then 16 keys a vector.
        var transposed: (keys: UnsafeMutablePointer<Float>, stride: Int)? = nil
        if Element.self == Float16.self, let buffer = s.transposedKeys, rows.isSingleSequence {
            let positions = rows.position(batch - 1) + 1
            let stride = VectorOps.transposedKeyCount(keys: positions, dimension: headDimension)
            if positions <= capacity {
                kernels.pool.parallelFor(c.headCountKV) { heads in
                    for kvHead in heads {
                        let keys = UnsafeRawPointer(keysOfHead(0, kvHead)).assumingMemoryBound(to: Float16.self)
                        VectorOps.transposeKeys(keys, count: positions, dimension: headDimension, into: buffer + kvHead * stride)
                    }
                }
                transposed = (buffer, stride)
            }
        }
        kernels.pool.parallelFor(chunks) { range in
            for chunk in range {
                let scores = s.scores + chunk * capacity * group
                for item in Swift.stride(from: chunk, to: items, by: chunks) {
                    let b = item / c.headCountKV
                    let kvHead = item % c.headCountKV
                    let position = rows.position(b)
                    let first = window.map { max(0, position - $0 + 1) } ?? 0
                    let count = position - first + 1
                    let firstHead = b * c.headCount + kvHead * group
                    let keys = keysOfHead(b, kvHead) + first * headDimension
                    if let transposed {
                        VectorOps.scores(transposedKeys: transposed.keys + kvHead * transposed.stride, first: first, count: count, queries: s.query + firstHead * headDimension, heads: group,
                                         dimension: headDimension, scale: scale, into: scores, scoreStride: capacity)
                    } else {
                        Element.scores(keys: keys, count: count, queries: s.query + firstHead * headDimension, heads: group,
                                       dimension: headDimension, scale: scale, into: scores, scoreStride: capacity)
                    }
                    for g in 0..<group {
                        VectorOps.softmax(scores + g * capacity, count: count)
                    }
                    Element.weightedSum(values: valuesOfHead(b, kvHead) + first * headDimension, count: count, dimension: headDimension,
                                        heads: group, weights: scores, weightStride: capacity,
                                        into: s.attention + firstHead * headDimension)
                }
            }
        }
    }
}

/// A KV cache element type the plain attention reads (F32 or F16).
protocol CachedElement {
    /// `VectorOps.scores` for `count` keys of this type (key p's scores at `scores + p`).
    static func scores(keys: UnsafePointer<Self>, count: Int, queries: UnsafePointer<Float>, heads: Int, dimension: Int,
                       scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int)
    /// `VectorOps.weightedSum` over values of this type.
    static func weightedSum(values: UnsafePointer<Self>, count: Int, dimension: Int, heads: Int,
                            weights: UnsafePointer<Float>, weightStride: Int, into output: UnsafeMutablePointer<Float>)
}

extension Float: CachedElement {
    @inline(__always) static func scores(keys: UnsafePointer<Float>, count: Int, queries: UnsafePointer<Float>, heads: Int, dimension: Int,
                                         scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        for p in 0..<count {
            VectorOps.scores(key: keys + p * dimension, queries: queries, heads: heads, dimension: dimension, scale: scale,
                             into: scores + p, scoreStride: scoreStride)
        }
    }
    @inline(__always) static func weightedSum(values: UnsafePointer<Float>, count: Int, dimension: Int, heads: Int,
                                              weights: UnsafePointer<Float>, weightStride: Int, into output: UnsafeMutablePointer<Float>) {
        VectorOps.weightedSum(values: values, count: count, dimension: dimension, heads: heads,
                              weights: weights, weightStride: weightStride, into: output)
    }
}

extension Float16: CachedElement {
    @inline(__always) static func scores(keys: UnsafePointer<Float16>, count: Int, queries: UnsafePointer<Float>, heads: Int, dimension: Int,
                                         scale: Float, into scores: UnsafeMutablePointer<Float>, scoreStride: Int) {
        VectorOps.scores(keys: keys, count: count, queries: queries, heads: heads, dimension: dimension, scale: scale,
                         into: scores, scoreStride: scoreStride)
    }
    @inline(__always) static func weightedSum(values: UnsafePointer<Float16>, count: Int, dimension: Int, heads: Int,
                                              weights: UnsafePointer<Float>, weightStride: Int, into output: UnsafeMutablePointer<Float>) {
        VectorOps.weightedSum(values: values, count: count, dimension: dimension, heads: heads,
                              weights: weights, weightStride: weightStride, into: output)
    }
}

/// Which sequence and position each row of a forward pass belongs to: either one
/// sequence's consecutive positions (a prompt batch) or one token per sequence
/// (batched decoding).
struct BatchRows {
    private let single: KVCache?
    private let start: Int
    private let caches: [KVCache]
    private let positions: [Int]

    init(cache: KVCache, start: Int) {
        single = cache
        self.start = start
        caches = []
        positions = []
    }

    init(caches: [KVCache]) {
        single = nil
        start = 0
        self.caches = caches
        positions = caches.map(\.count)
    }

    @inline(__always) func cache(_ row: Int) -> KVCache { single ?? caches[row] }
    /// One sequence's consecutive positions (a prompt batch), not one token per sequence.
    var isSingleSequence: Bool { single != nil }
    @inline(__always) func position(_ row: Int) -> Int { single == nil ? positions[row] : start + row }

    /// Records the rows' tokens in their caches.
    func append(_ tokens: UnsafeBufferPointer<Int32>) {
        if let single {
            single.append(tokens)
        } else {
            for (row, cache) in caches.enumerated() {
                cache.append(UnsafeBufferPointer(rebasing: tokens[row...row]))
            }
        }
    }
}
