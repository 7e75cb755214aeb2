import Guidance
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

/// The three reference schemas of /work/shared/reference/constrained-decoding as typed schemas.
enum ReferenceSchemas {
    static let searchSuggestions = GenerationSchema(
        root: .reference("SearchSuggestions"),
        definitions: [Definition(name: "SearchSuggestions", kind: .object([
            Property(name: "searchTerms", type: .array(element: .string(.none), guides: ArrayGuides(minimumCount: 4, maximumCount: 4))),
        ]))])

    static let itinerary = GenerationSchema(
        root: .reference("Itinerary"),
        definitions: [
            Definition(name: "Itinerary", kind: .object([
                Property(name: "destination", type: .string(.none)),
                Property(name: "days", type: .integer(.none)),
                Property(name: "budget", type: .number(.none)),
                Property(name: "rating", type: .number(.none)),
                Property(name: "requiresVisa", type: .boolean),
                Property(name: "activities", type: .array(element: .string(.none), guides: .none)),
                Property(name: "emergencyContact", type: .reference("Contact")),
                Property(name: "kind", type: .reference("Kind")),
            ])),
            Definition(name: "Contact", kind: .object([
                Property(name: "name", type: .string(.none)),
                Property(name: "phone", type: .string(.none)),
            ])),
            Definition(name: "Kind", kind: .enumeration([
                EnumCase(name: "relaxing"), EnumCase(name: "adventure"), EnumCase(name: "cultural"),
            ])),
        ])

    static let tools: [ToolSignature] = [
        ToolSignature(name: "getWeather", arguments: GenerationSchema(
            root: .reference("GetWeatherArguments"),
            definitions: [Definition(name: "GetWeatherArguments", kind: .object([Property(name: "city", type: .string(.none))]))])),
        ToolSignature(name: "findRestaurants", arguments: GenerationSchema(
            root: .reference("FindRestaurantsArguments"),
            definitions: [Definition(name: "FindRestaurantsArguments", kind: .object([
                Property(name: "city", type: .string(.none)), Property(name: "cuisine", type: .string(.none)),
            ]))])),
    ]

    static let instances: [(name: String, json: String)] = [
        ("search_suggestions", #"{"searchTerms":["best hiking trails near Zürich","Swiss Alps weather in October","affordable hotels in Interlaken","Swiss Travel Pass price 2025"]}"#),
        ("itinerary", #"{"destination":"Kyoto, Japan","days":5,"budget":2500.5,"rating":4.7,"requiresVisa":false,"activities":["Visit Fushimi Inari shrine at sunrise","Tea ceremony in Gion","Day trip to the deer park in Nara"],"emergencyContact":{"name":"Aiko Tanaka","phone":"+81 75-123-4567"},"kind":"cultural"}"#),
        ("tool_call", #"{"name":"findRestaurants","arguments":{"city":"San Francisco","cuisine":"Vietnamese"}}"#),
    ]

    static func grammar(_ name: String) throws -> ByteGrammar {
        switch name {
        case "search_suggestions": return try ByteGrammar.compile(searchSuggestions)
        case "itinerary": return try ByteGrammar.compile(itinerary)
        case "tool_call": return try ByteGrammar.toolCallObject(tools)
        default: fatalError("unknown reference schema \(name)")
        }
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

/// A deterministic generator (SplitMix64) for seeded random walks.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Generates with random choices among the allowed tokens until end of
/// sequence; fails the test if the mask is ever empty. Prefers ending once
/// the value is complete half the time so outputs stay short.
func randomMaskedWalk(_ grammar: ByteGrammar, vocabulary: VocabularyIndex, seed: UInt64, maximumTokens: Int = 400,
                      file: StaticString = #filePath, line: UInt = #line) -> [UInt8]? {
    var generator = SeededGenerator(seed: seed)
    let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
    var mask = TokenMask(vocabularySize: vocabulary.vocabularySize)
    for step in 0..<maximumTokens {
        matcher.fillMask(&mask)
        let allowed = mask.allowedTokens
        guard !allowed.isEmpty else {
            XCTFail("empty mask after \(String(decoding: matcher.generatedBytes, as: UTF8.self))", file: file, line: line)
            return nil
        }
        let endings = allowed.filter { vocabulary.endOfSequenceTokens.contains($0) }
        // Bias toward ending and toward short tokens late in the walk, so values finish.
        let token: Int
        if !endings.isEmpty, Bool.random(using: &generator) || step > maximumTokens / 2 {
            token = endings[0]
        } else {
            let closing = allowed.filter { id in
                let bytes = vocabulary.tokenBytes[id]
                return bytes.count == 1 && [0x22, 0x5D, 0x7D].contains(bytes[0])
            }
            if step > maximumTokens / 3, !closing.isEmpty, Int.random(in: 0..<3, using: &generator) == 0 {
                token = closing.randomElement(using: &generator)!
            } else {
                token = allowed.randomElement(using: &generator)!
            }
        }
        XCTAssertTrue(matcher.accept(token: token), "allowed token \(token) was not accepted", file: file, line: line)
        if vocabulary.endOfSequenceTokens.contains(token) { return matcher.generatedBytes }
    }
    return nil
}
