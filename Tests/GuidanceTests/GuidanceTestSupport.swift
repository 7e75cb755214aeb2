import Guidance
import Inference
import JSON
import Schema
import XCTest

/// A small byte-level vocabulary: every single byte, JSON punctuation runs,
/// words of the reference instances and tokens that straddle value
/// boundaries (`",`, `"},{"`, `5,"`), so masks exercise frame returns.
enum SyntheticVocabulary {
    static let endOfSequence = 0
    static let specialNames = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    static let pieces: [String] = [
        "{\"", "\":\"", "\",\"", "\"}", "\":", ",\"", "\"]", "[\"", "}}", "\"},", "\"},{\"", "\"]}", "\"}}", "\",", "\")",
        "\":[", "\":{\"", "\":[\"", "],\"", "},\"", "]}", "[]", "{}", "\\n", "\\\"", "\\u", "\\u00", "\"\"",
        "true", "false", "null", "tr", "fa", "0", "00", "12", "25", "5,", "5}", "0.", ".5", ".7", "4.", "-1", "1e",
        "name", "arguments", "city", "cuisine", "getWeather", "findRestaurants", "find", "Rest", "aur", "ants",
        "search", "Terms", "searchTerms", "destination", "days", "budget", "rating", "requires", "Visa", "requiresVisa",
        "activities", "emergency", "Contact", "emergencyContact", "phone", "kind", "cultural", "relax", "adventure",
        "Kyoto", ", Japan", " Japan", "Visit", " the", " in", " to", " at", " of", " best", " hiking", " trails", " near",
        "Z", "ü", "rich", "Swiss", " Alps", " weather", " October", "hotels", " hotels", "Inter", "laken", " Travel",
        " Pass", " price", " 2025", "San", " Francisco", "Viet", "namese", "Aiko", " Tanaka", "+81", " 75", "-123",
        "-4567", "Tea", " ceremony", " Gion", "Day", " trip", " deer", " park", " Nara", "Fush", "imi", " Inari",
        " shrine", " sunrise", "Shrine", "\"name\":\"", "\",\"arguments\":{\"", "ab", "abc", "a\"b", "x\"}", "é", "日本",
        "\u{1F600}", " ", "  ", "\n", "<tool", "_call", ">\n", "</", "<tool_call>", "</tool_call>", "Hello", " world",
    ]

    static let tokens: [[UInt8]] = {
        var tokens = specialNames.map { Array($0.utf8) }
        tokens += (0...255).map { [UInt8($0)] }
        var seen = Set(tokens)
        for piece in pieces where seen.insert(Array(piece.utf8)).inserted { tokens.append(Array(piece.utf8)) }
        return tokens
    }()

    static let index = VocabularyIndex(tokens: tokens, specialTokens: [0, 1, 2], endOfSequence: [endOfSequence])

    /// Greedy longest-match tokenization (good enough to walk an instance).
    static func tokenize(_ bytes: [UInt8]) -> [Int] {
        var lookup: [[UInt8]: Int] = [:]
        for (id, token) in tokens.enumerated() where id > 2 { lookup[token] = lookup[token] ?? id }
        var result: [Int] = []
        var position = 0
        while position < bytes.count {
            var length = min(24, bytes.count - position)
            while length > 0 {
                if let id = lookup[Array(bytes[position..<position + length])] {
                    result.append(id)
                    position += length
                    break
                }
                length -= 1
            }
            precondition(length > 0, "every byte is a token")
        }
        return result
    }
}

/// The three reference schemas and instances of the constrained-decoding anchors.
enum ReferenceSchemas {
    static let searchSuggestions = ReferenceWorkloads.searchSuggestions
    static let itinerary = ReferenceWorkloads.itinerary
    static let tools = ReferenceWorkloads.tools
    static let instances = ReferenceWorkloads.workloads.map { (name: $0.name, json: $0.instance) }

    static func grammar(_ name: String) throws -> ByteGrammar {
        try ReferenceWorkloads.workloads.first { $0.name == name }!.compile()
    }
}

/// The allowed tokens computed the slow way: a token is allowed when the
/// bytes so far plus its bytes are still a prefix of a valid value.
func bruteForceMask(_ grammar: ByteGrammar, vocabulary: VocabularyIndex, prefix: [UInt8]) -> Set<Int> {
    var allowed = Set<Int>()
    for (id, bytes) in vocabulary.tokenBytes.enumerated() {
        if vocabulary.endOfSequenceTokens.contains(id) {
            if grammar.matches(prefix) { allowed.insert(id) }
        } else if !vocabulary.isSpecial(id), grammar.isPrefix(prefix + bytes) {
            allowed.insert(id)
        }
    }
    return allowed
}


/// Generates with random choices among the allowed tokens until end of
/// sequence; fails the test if the mask is ever empty. Prefers ending once
/// the value is complete half the time so outputs stay short.
func randomMaskedWalk(_ grammar: ByteGrammar, vocabulary: VocabularyIndex, seed: UInt64, maximumTokens: Int = 400,
                      file: StaticString = #filePath, line: UInt = #line) -> [UInt8]? {
    var generator = SeededGenerator(seed: seed)
    let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
    var mask = TokenMask(vocabularySize: vocabulary.vocabularySize)
    let endOfSequence = vocabulary.endOfSequenceTokens[0]
    let closingTokens = vocabulary.tokenBytes.indices.filter { id in
        let bytes = vocabulary.tokenBytes[id]
        return bytes.count == 1 && [0x22, 0x5D, 0x7D].contains(bytes[0]) && !vocabulary.isSpecial(id)
    }
    for step in 0..<maximumTokens {
        matcher.fillMask(&mask)
        // Bias toward ending and closing late in the walk, so values finish.
        var token: Int? = nil
        let need = matcher.minimumCompletionBytes()
        if need > 0, need + 2 >= maximumTokens - step {
            // Out of budget: only tokens that bring the value closer to complete.
            token = mask.allowedTokens.shuffled(using: &generator).first { candidate in
                (matcher.completionBytes(after: candidate) ?? .max) < need
            }
            XCTAssertNotNil(token, "no token lowers the completion distance \(need)", file: file, line: line)
        } else if mask.contains(endOfSequence), Bool.random(using: &generator) || step > maximumTokens / 2 {
            token = endOfSequence
        } else if step > maximumTokens / 3, Int.random(in: 0..<3, using: &generator) == 0 {
            token = closingTokens.filter { mask.contains($0) }.randomElement(using: &generator)
        }
        if token == nil {
            // Rejection sampling is cheap when many tokens are allowed.
            for _ in 0..<64 {
                let candidate = Int.random(in: 0..<vocabulary.vocabularySize, using: &generator)
                if mask.contains(candidate), !vocabulary.endOfSequenceTokens.contains(candidate) { token = candidate; break }
            }
        }
        if token == nil {
            let allowed = mask.allowedTokens
            guard !allowed.isEmpty else {
                XCTFail("empty mask after \(String(decoding: matcher.generatedBytes, as: UTF8.self))", file: file, line: line)
                return nil
            }
            token = allowed.randomElement(using: &generator)!
        }
        // Never take a token after which the value cannot be finished within the budget.
        if let chosen = token, !vocabulary.endOfSequenceTokens.contains(chosen),
           (matcher.completionBytes(after: chosen) ?? .max) > maximumTokens - step - 2 {
            token = mask.allowedTokens.shuffled(using: &generator).first { candidate in
                (matcher.completionBytes(after: candidate) ?? .max) < need
            } ?? (need == 0 ? endOfSequence : nil)
            XCTAssertNotNil(token, "no token lowers the completion distance \(need)", file: file, line: line)
        }
        XCTAssertTrue(matcher.accept(token: token!), "allowed token \(token!) was not accepted", file: file, line: line)
        if vocabulary.endOfSequenceTokens.contains(token!) { return matcher.generatedBytes }
    }
    return nil
}

/// Runs Benchmarks/validate_guidance_corpus.py (python-jsonschema) over `folder`
/// (one sub-folder per schema with `schema*.json` and `output-*.json`); skips when
/// python3 or jsonschema is missing.
func runPythonValidator(_ folder: URL) throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/validate_guidance_corpus.py")
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import jsonschema"]
    probe.standardError = FileHandle.nullDevice
    try probe.run()
    probe.waitUntilExit()
    guard probe.terminationStatus == 0 else {
        throw XCTSkip("python3 with jsonschema is not installed (make setup installs it); Swift validation passed")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, folder.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "jsonschema rejected outputs:\n\(output)")
}

/// Guidance writes masks in the engine's `TokenMask` layout; these are the
/// conveniences the tests use.
extension GrammarMatcher {
    func mask() -> TokenMask {
        var mask = TokenMask(vocabularySize: vocabulary.vocabularySize)
        fillMask(&mask)
        return mask
    }

    func fillMask(_ mask: inout TokenMask) {
        mask.withUnsafeMutableWords { fillMask($0) }
    }
}

extension TokenMask {
    func contains(_ token: Int) -> Bool { contains(Int32(token)) }

    var allowedTokens: [Int] { (0..<vocabularySize).filter { contains($0) } }
}
