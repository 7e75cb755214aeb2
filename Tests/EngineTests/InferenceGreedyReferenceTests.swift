import Foundation
import Inference
import XCTest

/// Greedy decoding of real models against llama.cpp's greedy continuations.
/// Tokens must match exactly up to the first step where llama.cpp's top-2
/// log-probability gap is under 0.3 (there its own configurations disagree);
/// at that step our token must be one of its top two, or the token another
/// llama.cpp configuration recorded in the reference (`variants`) chose
/// there. Up to there, our
/// log-probability of the chosen token must be within 0.3 of llama.cpp's.
///
/// The variant clause is still needed for Gemma 3 `japan_title` step 17 (gap 0.185;
/// llama.cpp: 126836 -3.437, 125204 -3.621, 217716 -3.800; all three recorded variants
/// pick 217716). With the F16 cache, ggml's flash-attention numerics and llama.cpp's
/// activation roundings our top three there are 217716 -3.443, 126836 -3.459,
/// 125204 -3.574 (before: 217716 -2.914, 121536 -3.382, 125204 -3.387), i.e. 0.016 short.
/// `FMPLAY_GREEDY_TRACE=1` prints every step's log-probabilities and our top three at
/// the stopping step.
///
/// Measured on this machine (see Reference/llamacpp-gemma3/MEASURED.md): the same
/// llama.cpp commit with the same default settings picks 126836 at that step when
/// ggml-cpu is built with AVX-512 (as the reference was), but 217716 when it is built
/// for AVX2 only, the instruction set this engine targets; that AVX2 run's whole
/// 64-token continuation equals ours character for character. The step-17 choice
/// thus depends on llama.cpp's own SIMD path.
final class InferenceGreedyReferenceTests: XCTestCase {
    func testSmolLM2GreedyMatchesLlamaCpp() throws {
        try checkGreedy(modelPath: try InferenceTestModels.smolLM2Path(),
                        reference: InferenceTestModels.referenceDirectory + "/llamacpp/greedy.json")
    }

    func testGemma3GreedyMatchesLlamaCpp() throws {
        try checkGreedy(modelPath: try InferenceTestModels.gemma3Path(),
                        reference: InferenceTestModels.referenceDirectory + "/llamacpp-gemma3/greedy.json")
    }

    /// With `Numerics.llamaCppAVX512` (llama.cpp's summation orders as its AVX-512 build, with
    /// which the reference was recorded, computes them; see ARCHITECTURE.md), SmolLM2's greedy
    /// tokens equal llama.cpp's at every step of every case, past the near-ties (the smallest
    /// top-2 gap on the way is 0.0048).
    /// `Numerics.llamaCpp`, the AVX2 build's order, gives logits bit-identical to llama.cpp built
    /// for an AVX2 machine (measured on this one: equal at every step of all four cases), which
    /// leaves the AVX-512 reference at japan_title step 9 and capital_france step 16 as that build does.
    func testSmolLM2GreedyEqualsLlamaCppToTheEnd() throws {
        try checkExact(modelPath: try InferenceTestModels.smolLM2Path(),
                       reference: InferenceTestModels.referenceDirectory + "/llamacpp/greedy.json")
    }

    /// The same for Gemma 3 270M Q4_K_M: its Q4_K products in llama.cpp's repacked `q4_K_8x8`
    /// orders (a batch's groups of four tokens and the rest differ), Q6_K in `ggml_vec_dot_q6_K_q8_K`'s
    /// order below 8 tokens and per superblock from 8 on, Q5_0/Q8_0 in `ggml_vec_dot`'s. Every step of
    /// all three cases, past the near-ties (the smallest top-2 gap on the way is 0.015, raw_text step 4).
    /// Measured with `Numerics.llamaCpp` against llama.cpp 0c1e570 built for this AVX2 machine
    /// (llama-cpp-python 0.3.36, whole prompt in one batch, flash attention, F16 cache, 2 threads):
    /// logits equal bit for bit at all 64 steps of the three cases.
    func testGemma3GreedyEqualsLlamaCppToTheEnd() throws {
        try checkExact(modelPath: try InferenceTestModels.gemma3Path(),
                       reference: InferenceTestModels.referenceDirectory + "/llamacpp-gemma3/greedy.json")
    }

    /// Greedy decoding with `Numerics.llamaCppAVX512`: every step's token equals the reference's,
    /// and at every step the gaps between the top-5 logits equal the gaps between the reference's
    /// top-5 log-probabilities to 1e-5 (a gap does not depend on the log-softmax normalisation,
    /// which llama.cpp's server computes in F32, shifting its Gemma log-probabilities by up to
    /// 1.4e-3; measured: at most 6.9e-7, the rounding of the stored F32 log-probabilities).
    private func checkExact(modelPath: String, reference: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let model = try InferenceModel(path: modelPath)
        let cases = try GreedyReferenceCase.load(reference)
        XCTAssertFalse(cases.isEmpty)
        for referenceCase in cases {
            let session = model.makeSession(contextSize: 512, numerics: .llamaCppAVX512)
            try session.prefill(referenceCase.promptIds)
            var sampler = Sampler(parameters: .greedy, vocabularySize: model.vocabularySize)
            var largestGapDifference: Float = 0
            for (index, step) in referenceCase.steps.enumerated() {
                let token = try session.sample(&sampler)
                let logits = try session.logits
                guard token == step.token else {
                    XCTFail("\(referenceCase.id) step \(index) (top-2 gap \(step.topTwoGap)): token \(token), llama.cpp chose \(step.token); ours \(Self.topLogprobs(logits, count: 3)), llama.cpp \(step.top.prefix(3))",
                            file: file, line: line)
                    break
                }
                for (id, logprob) in step.top.dropFirst() {
                    let ours = logits[Int(token)] - logits[Int(id)]
                    largestGapDifference = max(largestGapDifference, abs(ours - Float(step.top[0].1 - logprob)))
                }
                if index + 1 < referenceCase.steps.count { try session.evaluate([token]) }
            }
            if ProcessInfo.processInfo.environment["FMPLAY_GREEDY_TRACE"] != nil {
                print("\(referenceCase.id): largest top-5 gap difference \(largestGapDifference)")
            }
            XCTAssertLessThan(largestGapDifference, 1e-5, "\(referenceCase.id): largest difference of a top-5 logit gap",
                              file: file, line: line)
        }
    }

    private func checkGreedy(modelPath: String, reference: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let model = try InferenceModel(path: modelPath)
        let cases = try GreedyReferenceCase.load(reference)
        XCTAssertFalse(cases.isEmpty)
        for referenceCase in cases {
            let session = model.makeSession(contextSize: 512)
            try session.prefill(referenceCase.promptIds)
            var sampler = Sampler(parameters: .greedy, vocabularySize: model.vocabularySize)
            for (index, step) in referenceCase.steps.enumerated() {
                let token = try session.sample(&sampler)
                let logits = try session.logits
                let logprob = Self.logSoftmax(logits, at: Int(token))
                if step.topTwoGap < 0.3 {
                    if ProcessInfo.processInfo.environment["FMPLAY_GREEDY_TRACE"] != nil {
                        print("\(referenceCase.id) step \(index) (gap \(step.topTwoGap)): ours \(Self.topLogprobs(logits, count: 3)), llama.cpp \(step.top.prefix(3))")
                    }
                    let variantTokens = referenceCase.variantChoices[index] ?? []
                    XCTAssertTrue(step.top.prefix(2).contains { $0.0 == token } || variantTokens.contains(token),
                                  "\(referenceCase.id) step \(index): token \(token) is not in llama.cpp's top 2 \(step.top.prefix(2)) nor a variant's choice \(variantTokens)",
                                  file: file, line: line)
                    break
                }
                guard token == step.token else {
                    XCTFail("\(referenceCase.id) step \(index): token \(token) (logprob \(logprob)), llama.cpp chose \(step.token); its top 5: \(step.top)",
                            file: file, line: line)
                    break
                }
                if ProcessInfo.processInfo.environment["FMPLAY_GREEDY_TRACE"] != nil {
                    print("\(referenceCase.id) step \(index): logprob \(logprob) llama.cpp \(step.top[0].1) diff \(logprob - step.top[0].1)")
                }
                XCTAssertEqual(logprob, step.top[0].1, accuracy: 0.3, "\(referenceCase.id) step \(index): logprob of \(token)",
                               file: file, line: line)
                try session.evaluate([token])
            }
        }
    }

    /// The `count` most likely tokens with their log-probabilities, best first.
    static func topLogprobs(_ logits: [Float], count: Int) -> [(Int32, Double)] {
        let best = logits.indices.sorted { logits[$0] > logits[$1] }.prefix(count)
        return best.map { (Int32($0), logSoftmax(logits, at: $0)) }
    }

    static func logSoftmax(_ logits: [Float], at index: Int) -> Double {
        let maximum = Double(logits.max()!)
        let total = logits.reduce(0.0) { $0 + exp(Double($1) - maximum) }
        return Double(logits[index]) - maximum - log(total)
    }
}
