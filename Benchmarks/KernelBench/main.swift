// Kernel microbenchmark: GB/s and GFLOP/s of the matrix products at the
// shapes of SmolLM2-135M (Q4_1 layers, Q8_0 output), plus a per-token
// estimate for the whole model's matrix products. Built and run by
// Benchmarks/kernels.sh (the Kernels sources compiled into one module with
// the package's flags), never in CI.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// With one thread the benchmark times the thread's CPU time, which does not
/// count the time other processes on this shared machine take from it.
var clock = CLOCK_MONOTONIC
func now() -> Double {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

struct Shape { let name: String; let rows: Int; let columns: Int; let format: QuantFormat; let perLayer: Double }

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String, _ fallback: Int) -> Int {
    if let i = arguments.firstIndex(of: name), arguments.index(after: i) < arguments.endIndex, let v = Int(arguments[arguments.index(after: i)]) { return v }
    return fallback
}
let threadCounts = arguments.contains("--threads") ? [option("--threads", 2)] : [1, 2]
let promptTokens = option("--tokens", 512)
/// `--only NAME` times the shapes whose name starts with NAME; `--no-matmul` skips the prompt products.
let onlyShape = arguments.firstIndex(of: "--only").flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
let skipMatmul = arguments.contains("--no-matmul")
/// `--row-major` times the output matrix and the Q4_0/Q4_1 layers as the file stores them (the loader
/// interleaves their rows, `TransformerWeights.interleaveRows`); `--interleave-all` interleaves every matrix that can be.
let interleaveOutput = !arguments.contains("--row-major")
let interleaveAll = arguments.contains("--interleave-all")
/// `--llamacpp` times llama.cpp's exact summation orders (`KernelContext.ggmlOrder`, `Numerics.llamaCpp`).
let ggmlOrder = arguments.contains("--llamacpp")
/// `--cold` times matrix-vector products from memory, as in a model (whose layers do not fit in
/// the caches): each call reads the next of enough copies of the matrix to fill 256 MB.
let cold = arguments.contains("--cold")
let minimumSeconds = 1.0
let layerFormat = arguments.contains("--q8") ? QuantFormat.q8_0
    : arguments.contains("--q4k") ? QuantFormat.q4_K : arguments.contains("--q5") ? QuantFormat.q5_0 : QuantFormat.q4_1

let gemma = arguments.contains("--gemma")
let shapes = gemma ? [
    // Gemma 3 270M Q4_K_M: 640-column matrices fall back to Q5_0/Q8_0 (640 is not a multiple of 256).
    Shape(name: "attn_q", rows: 1024, columns: 640, format: .q5_0, perLayer: 1),
    Shape(name: "attn_k", rows: 256, columns: 640, format: .q5_0, perLayer: 1),
    // Half the blocks store attn_v as Q5_0, half as Q8_0; ffn_down is Q4_K in half, Q6_K in the others.
    Shape(name: "attn_v", rows: 256, columns: 640, format: .q8_0, perLayer: 0.5),
    Shape(name: "attn_v", rows: 256, columns: 640, format: .q5_0, perLayer: 0.5),
    Shape(name: "attn_output", rows: 640, columns: 1024, format: .q4_K, perLayer: 1),
    Shape(name: "ffn_gate/ffn_up", rows: 2048, columns: 640, format: .q5_0, perLayer: 2),
    Shape(name: "ffn_down", rows: 640, columns: 2048, format: .q6_K, perLayer: 0.5),
    Shape(name: "ffn_down", rows: 640, columns: 2048, format: .q4_K, perLayer: 0.5),
    Shape(name: "output (token_embd)", rows: 262144, columns: 640, format: .q8_0, perLayer: 0),
] : [
    Shape(name: "attn_q/attn_output", rows: 576, columns: 576, format: layerFormat, perLayer: 2),
    Shape(name: "attn_k/attn_v", rows: 192, columns: 576, format: layerFormat, perLayer: 2),
    Shape(name: "ffn_gate/ffn_up", rows: 1536, columns: 576, format: layerFormat, perLayer: 2),
    Shape(name: "ffn_down", rows: 576, columns: 1536, format: layerFormat, perLayer: 1),
    Shape(name: "output (token_embd)", rows: 49152, columns: 576, format: .q8_0, perLayer: 0),
]
let layers = gemma ? 18 : 30

var seed: UInt64 = 42
func nextRandom() -> Float {
    seed = seed &* 6364136223846793005 &+ 1442695040888963407
    return Float(Int64(bitPattern: seed >> 11) % 2_000_001 - 1_000_000) / 1_000_000
}

/// Seconds per call of `body`: the fastest of many calls. The machine is
/// shared and noisy, so the minimum is the stable figure (it is what the code
/// can do when it has the cores); the median is printed for the noise.
var lastMedian = 0.0
func measure(_ body: () -> Void) -> Double {
    body()
    var times: [Double] = []
    let start = now()
    while times.count < 5 || (now() - start < minimumSeconds && times.count < 2000) {
        let t0 = now()
        body()
        times.append(now() - t0)
    }
    times.sort()
    lastMedian = times[times.count / 2]
    return times[0]
}

print("Kernel benchmark (\(gemma ? "Gemma 3 270M Q4_K_M shapes" : "layers \(layerFormat)"), output Q8_0\(interleaveOutput ? " (and Q4_0/Q4_1 layers) with interleaved rows" : "")\(interleaveAll ? ", every matrix interleaved" : "")\(ggmlOrder ? ", llama.cpp order" : "")); prompt batch \(promptTokens) tokens")
for threads in threadCounts {
    let context = KernelContext(threads: threads)
    context.ggmlOrder = ggmlOrder
    clock = threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC
    print("\nthreads \(threads) (\(threads == 1 ? "thread CPU time" : "wall time"), fastest call)")
    print("shape".padding(toLength: 22, withPad: " ", startingAt: 0), "fmt ", "   matvec µs   GB/s  GFLOP/s", "   matmul ms GFLOP/s")
    var tokenSeconds = 0.0, promptSeconds = 0.0
    for shape in shapes where onlyShape.map({ shape.name.hasPrefix($0) }) ?? true {
        let values = (0..<(shape.rows * shape.columns)).map { _ in nextRandom() }
        let rowBytes = shape.format.rowBytes(columns: shape.columns)
        let weights = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * shape.rows, alignment: 64)
        values.withUnsafeBufferPointer { v in
            for r in 0..<shape.rows { Quantize.row(shape.format, from: v.baseAddress! + r * shape.columns, to: weights + r * rowBytes, count: shape.columns) }
        }
        var view = MatrixView(format: shape.format, rows: shape.rows, columns: shape.columns, base: weights)
        let interleavedCopy = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * shape.rows, alignment: 64)
        defer { interleavedCopy.deallocate() }
        let interleavedByLoader = shape.perLayer == 0 || shape.format == .q4_0 || shape.format == .q4_1
        if interleaveAll || (interleaveOutput && interleavedByLoader), view.canInterleaveRows {
            view = view.interleavingRows(into: interleavedCopy)
        }
        let matrixBytes = rowBytes * shape.rows
        let copyCount = cold ? max(1, (256 << 20) / matrixBytes) : 1
        let copies = UnsafeMutableRawPointer.allocate(byteCount: matrixBytes * copyCount, alignment: 64)
        defer { copies.deallocate() }
        let rowMajor = MatrixView(format: shape.format, rows: shape.rows, columns: shape.columns, base: weights)
        let coldViews = (0..<copyCount).map { c in
            let base = copies + c * matrixBytes
            if view.interleavedRows { return rowMajor.interleavingRows(into: base) }
            base.copyMemory(from: weights, byteCount: matrixBytes)
            return MatrixView(format: shape.format, rows: shape.rows, columns: shape.columns, base: base)
        }
        var nextCopy = 0
        let batch = shape.perLayer > 0 ? promptTokens : 1
        let x = (0..<(batch * shape.columns)).map { _ in nextRandom() }
        var y = [Float](repeating: 0, count: batch * shape.rows)
        let vecSeconds = measure {
            context.matvec(cold ? coldViews[nextCopy] : view, input: x, output: &y)
            nextCopy = (nextCopy + 1) % copyCount
        }
        let flopPerToken = 2.0 * Double(shape.rows * shape.columns)
        var line = shape.name.padding(toLength: 22, withPad: " ", startingAt: 0) + " " + shape.format.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)
        line += String(format: "%10.1f %7.1f %8.1f", vecSeconds * 1e6, Double(rowBytes * shape.rows) / vecSeconds / 1e9, flopPerToken / vecSeconds / 1e9)
        if cold { line += String(format: " (median %.1f µs)", lastMedian * 1e6) }
        if shape.perLayer > 0 && !skipMatmul {
            let matSeconds = measure { context.matmul(view, input: x, tokens: batch, output: &y) }
            line += String(format: "%12.2f %7.1f", matSeconds * 1e3, flopPerToken * Double(batch) / matSeconds / 1e9)
            tokenSeconds += vecSeconds * shape.perLayer * Double(layers)
            promptSeconds += matSeconds * shape.perLayer * Double(layers)
        } else if shape.perLayer > 0 {
            tokenSeconds += vecSeconds * shape.perLayer * Double(layers)
        } else {
            tokenSeconds += vecSeconds
            promptSeconds += vecSeconds   // logits only for the last prompt token
        }
        print(line)
        weights.deallocate()
    }
    let pool = context.pool
    let sink = UnsafeMutablePointer<Int>.allocate(capacity: 64)
    let loopSeconds = measure { pool.parallelFor(64, grain: 8) { range in for i in range { sink[i] = i } } }
    print(String(format: "parallelFor of 8 tiny chunks: %.2f µs per loop (fastest)", loopSeconds * 1e6))
    sink.deallocate()
    print(String(format: "model matrix products only: tg %.0f tok/s, pp%d %.0f tok/s (llama.cpp whole model at 2 threads: tg128 147, pp512 385)",
                 1 / tokenSeconds, promptTokens, Double(promptTokens) / promptSeconds))
}
