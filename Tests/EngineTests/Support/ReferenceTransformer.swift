import Foundation

/// A plain, readable F32 transformer: the specification the engine is
/// checked against. No KV cache, no batching, no SIMD: every position is
/// recomputed from the token sequence, in Double where it is free to.
struct ReferenceTransformer {
    let spec: TinyModelSpec
    let weights: [String: [Float]]

    init(_ model: TinyModel) {
        spec = model.spec
        weights = model.weights
    }

    private func w(_ name: String) -> [Float] {
        guard let value = weights[name] else { fatalError("reference: no weight \(name)") }
        return value
    }

    /// rows x columns matrix (row-major, as GGUF stores it) times a vector.
    private func multiply(_ name: String, _ x: [Float]) -> [Float] {
        let matrix = w(name)
        let columns = x.count
        let rows = matrix.count / columns
        return (0..<rows).map { r in
            var sum = 0.0
            for c in 0..<columns { sum += Double(matrix[r * columns + c]) * Double(x[c]) }
            return Float(sum)
        }
    }

    private func rmsNorm(_ x: [Float], _ weight: [Float]) -> [Float] {
        let meanSquare = x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)
        let scale = 1 / (meanSquare + Double(spec.normEpsilon)).squareRoot()
        return x.indices.map { Float(Double(x[$0]) * scale * Double(weight[$0])) }
    }

    private var isGemma: Bool { spec.architecture == "gemma3" }
    private var neox: Bool { spec.architecture != "llama" }

    private func isGlobal(_ block: Int) -> Bool { !isGemma || block % 6 == 5 }

    private func rope(_ head: [Float], position: Int, base: Double) -> [Float] {
        var out = head
        let n = head.count
        for i in 0..<n / 2 {
            let angle = Double(position) * pow(base, -2.0 * Double(i) / Double(n))
            let (a, b) = neox ? (i, i + n / 2) : (2 * i, 2 * i + 1)
            let x0 = Double(head[a]), x1 = Double(head[b])
            out[a] = Float(x0 * cos(angle) - x1 * sin(angle))
            out[b] = Float(x0 * sin(angle) + x1 * cos(angle))
        }
        return out
    }

    /// Logits at every position of `tokens`.
    func logits(_ tokens: [Int32]) -> [[Float]] {
        let d = spec.embeddingLength
        let hd = spec.headDimension
        let embedding = w("token_embd.weight")
        var hidden: [[Float]] = tokens.map { token in
            let row = Array(embedding[Int(token) * d..<(Int(token) + 1) * d])
            return isGemma ? row.map { $0 * Float(d).squareRoot() } : row
        }
        for block in 0..<spec.blockCount {
            let p = "blk.\(block)."
            let base = isGemma && !isGlobal(block) ? 10_000 : Double(spec.ropeBase)
            var keys: [[[Float]]] = []   // [position][kvHead][hd]
            var values: [[[Float]]] = []
            var queries: [[[Float]]] = []
            for (position, x) in hidden.enumerated() {
                let normed = rmsNorm(x, w(p + "attn_norm.weight"))
                var q = multiply(p + "attn_q.weight", normed)
                var k = multiply(p + "attn_k.weight", normed)
                var v = multiply(p + "attn_v.weight", normed)
                if spec.architecture == "qwen2" {
                    q = zip(q, w(p + "attn_q.bias")).map(+)
                    k = zip(k, w(p + "attn_k.bias")).map(+)
                    v = zip(v, w(p + "attn_v.bias")).map(+)
                }
                func heads(_ x: [Float], _ count: Int) -> [[Float]] {
                    (0..<count).map { Array(x[$0 * hd..<($0 + 1) * hd]) }
                }
                var qHeads = heads(q, spec.headCount)
                var kHeads = heads(k, spec.headCountKV)
                if weights[p + "attn_q_norm.weight"] != nil {
                    qHeads = qHeads.map { rmsNorm($0, w(p + "attn_q_norm.weight")) }
                    kHeads = kHeads.map { rmsNorm($0, w(p + "attn_k_norm.weight")) }
                }
                queries.append(qHeads.map { rope($0, position: position, base: base) })
                keys.append(kHeads.map { rope($0, position: position, base: base) })
                values.append(heads(v, spec.headCountKV))
            }
            for position in hidden.indices {
                var attention: [Float] = []
                for head in 0..<spec.headCount {
                    let kvHead = head / (spec.headCount / spec.headCountKV)
                    let first = isGlobal(block) ? 0 : max(0, position - spec.slidingWindow + 1)
                    let scale = 1 / Double(hd).squareRoot()
                    let scores = (first...position).map { j in
                        zip(queries[position][head], keys[j][kvHead]).reduce(0.0) { $0 + Double($1.0) * Double($1.1) } * scale
                    }
                    let maximum = scores.max()!
                    let exps = scores.map { exp($0 - maximum) }
                    let total = exps.reduce(0, +)
                    var out = [Double](repeating: 0, count: hd)
                    for (offset, j) in (first...position).enumerated() {
                        for i in 0..<hd { out[i] += exps[offset] / total * Double(values[j][kvHead][i]) }
                    }
                    attention += out.map(Float.init)
                }
                var branch = multiply(p + "attn_output.weight", attention)
                if isGemma { branch = rmsNorm(branch, w(p + "post_attention_norm.weight")) }
                hidden[position] = zip(hidden[position], branch).map(+)
            }
            for position in hidden.indices {
                let normed = rmsNorm(hidden[position], w(p + "ffn_norm.weight"))
                let gate = multiply(p + "ffn_gate.weight", normed)
                let up = multiply(p + "ffn_up.weight", normed)
                let activated = zip(gate, up).map { g, u -> Float in
                    let x = Double(g)
                    let a = isGemma
                        ? 0.5 * x * (1 + tanh((2 / Double.pi).squareRoot() * (x + 0.044715 * x * x * x)))
                        : x / (1 + exp(-x))
                    return Float(a * Double(u))
                }
                var branch = multiply(p + "ffn_down.weight", activated)
                if isGemma { branch = rmsNorm(branch, w(p + "post_ffw_norm.weight")) }
                hidden[position] = zip(hidden[position], branch).map(+)
            }
        }
        let output = spec.tiedEmbeddings ? "token_embd.weight" : "output.weight"
        return hidden.map { multiply(output, rmsNorm($0, w("output_norm.weight"))) }
    }
}
