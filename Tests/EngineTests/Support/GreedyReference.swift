import Foundation
import JSON

/// One case of a llama.cpp `greedy.json`: prompt ids, the greedy tokens and
/// the top-5 log-probabilities at every step.
struct GreedyReferenceCase {
    struct Step {
        let token: Int32
        /// (token, logprob), best first.
        let top: [(Int32, Double)]
        var topTwoGap: Double { top[0].1 - top[1].1 }
    }

    let id: String
    let promptIds: [Int32]
    /// Tokens other llama.cpp configurations (the case's `variants`) chose at
    /// the step where they first left the default continuation.
    let variantChoices: [Int: Set<Int32>]
    let steps: [Step]

    static func load(_ path: String) throws -> [GreedyReferenceCase] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let root = try JSONValue.parse(Array(data))
        guard let cases = root["cases"]?.arrayValue else { throw ReferenceFormatError(path: path, what: "no 'cases' array") }
        return try cases.map { item in
            guard let id = item["id"]?.stringValue,
                  let prompt = item["prompt_ids"]?.arrayValue?.compactMap({ $0.intValue.map(Int32.init) }),
                  let steps = item["top5_logprobs_per_step"]?.arrayValue
            else { throw ReferenceFormatError(path: path, what: "case without id/prompt_ids/top5_logprobs_per_step") }
            let generated = item["generated_ids"]?.arrayValue?.compactMap { $0.intValue.map(Int32.init) } ?? []
            var variantChoices: [Int: Set<Int32>] = [:]
            for (_, variant) in item["variants"]?.objectValue ?? [:] {
                guard let ids = variant["generated_ids"]?.arrayValue?.compactMap({ $0.intValue.map(Int32.init) }) else { continue }
                if let step = zip(ids, generated).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                    variantChoices[step, default: []].insert(ids[step])
                }
            }
            return GreedyReferenceCase(id: id, promptIds: prompt, variantChoices: variantChoices, steps: try steps.map { step in
                guard let token = step["id"]?.intValue, let top = step["top5"]?.arrayValue else {
                    throw ReferenceFormatError(path: path, what: "step without id/top5 in case \(id)")
                }
                return Step(token: Int32(token), top: top.compactMap { pair in
                    guard let token = pair[0]?.intValue, let logprob = pair[1]?.doubleValue else { return nil }
                    return (Int32(token), logprob)
                })
            })
        }
    }
}

struct ReferenceFormatError: Error, CustomStringConvertible {
    let path: String
    let what: String
    var description: String { "\(path): \(what)" }
}
