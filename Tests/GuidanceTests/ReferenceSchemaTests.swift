import Guidance
import JSON
import Schema
import XCTest

/// The reference schemas and instances of the constrained-decoding anchors:
/// walking an instance token by token is always allowed, and at every step
/// the mask is exactly the set of tokens that keep the output valid.
final class ReferenceSchemaTests: XCTestCase {
    func testInstancesAreAcceptedAndMasksMatchBruteForce() throws {
        let vocabulary = SyntheticVocabulary.index
        for (name, json) in ReferenceSchemas.instances {
            let grammar = try ReferenceSchemas.grammar(name)
            let bytes = Array(json.utf8)
            XCTAssertTrue(grammar.matches(bytes), "\(name): instance rejected")
            let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
            var prefix: [UInt8] = []
            for token in SyntheticVocabulary.tokenize(bytes) + [SyntheticVocabulary.endOfSequence] {
                let mask = matcher.mask()
                let expected = bruteForceMask(grammar, vocabulary: vocabulary, prefix: prefix)
                XCTAssertEqual(Set(mask.allowedTokens), expected,
                               "\(name): mask differs after \(String(decoding: prefix, as: UTF8.self))")
                XCTAssertTrue(mask.contains(token), "\(name): instance token \(token) masked")
                XCTAssertTrue(matcher.accept(token: token), "\(name): instance token \(token) not accepted")
                if token != SyntheticVocabulary.endOfSequence { prefix += vocabulary.tokenBytes[token] }
            }
            XCTAssertEqual(matcher.generatedBytes, bytes)
        }
    }

    func testDeviationsAreRejected() throws {
        let deviations: [(String, String)] = [
            ("search_suggestions", #"{"searchTerms":["a","b","c"]}"#),
            ("search_suggestions", #"{"searchTerms":["a","b","c","d","e"]}"#),
            ("search_suggestions", #"{ "searchTerms":["a","b","c","d"]}"#),
            ("search_suggestions", #"{"searchTerm":["a","b","c","d"]}"#),
            ("itinerary", #"{"destination":"Kyoto","days":5.5,"budget":1,"rating":1,"requiresVisa":false,"activities":[],"emergencyContact":{"name":"a","phone":"b"},"kind":"cultural"}"#),
            ("itinerary", #"{"destination":"Kyoto","days":5,"budget":1,"rating":1,"requiresVisa":false,"activities":[],"emergencyContact":{"name":"a","phone":"b"},"kind":"boring"}"#),
            ("itinerary", #"{"days":5,"destination":"Kyoto","budget":1,"rating":1,"requiresVisa":false,"activities":[],"emergencyContact":{"name":"a","phone":"b"},"kind":"cultural"}"#),
            ("itinerary", #"{"destination":"Kyoto","days":05,"budget":1,"rating":1,"requiresVisa":false,"activities":[],"emergencyContact":{"name":"a","phone":"b"},"kind":"cultural"}"#),
            ("itinerary", #"{"destination":"Kyoto","days":5,"budget":1e3,"rating":1,"requiresVisa":false,"activities":[],"emergencyContact":{"name":"a","phone":"b"},"kind":"cultural"}"#),
            ("tool_call", #"{"name":"bookFlight","arguments":{"city":"Paris"}}"#),
            ("tool_call", #"{"name":"getWeather","arguments":{"city":"Paris","cuisine":"x"}}"#),
            ("tool_call", #"{"name":"findRestaurants","arguments":{"city":"Paris"}}"#),
        ]
        for (name, json) in deviations {
            XCTAssertFalse(try ReferenceSchemas.grammar(name).matches(Array(json.utf8)), "\(name) accepted \(json)")
        }
    }

    func testForcedTextAndEnd() throws {
        let grammar = try ReferenceSchemas.grammar("itinerary")
        let matcher = GrammarMatcher(grammar: grammar, vocabulary: SyntheticVocabulary.index)
        XCTAssertEqual(String(decoding: matcher.forcedBytes(), as: UTF8.self), #"{"destination":""#)
        let tokens = matcher.forcedTokens(tokenize: SyntheticVocabulary.tokenize)
        XCTAssertFalse(tokens.isEmpty)
        for token in tokens { XCTAssertTrue(matcher.accept(token: token)) }
        XCTAssertTrue(matcher.accept(bytes: Array("Kyoto\"".utf8)))
        XCTAssertEqual(String(decoding: matcher.forcedBytes(), as: UTF8.self), #","days":"#)
        XCTAssertTrue(matcher.accept(bytes: Array(#","days":5,"budget":1,"rating":2,"requiresVisa":"#.utf8)))
        XCTAssertEqual(matcher.forcedBytes(), [], "true or false: nothing forced")
        XCTAssertTrue(matcher.accept(bytes: Array("t".utf8)))
        XCTAssertEqual(String(decoding: matcher.forcedBytes(), as: UTF8.self), #"rue,"activities":["#)
        XCTAssertTrue(matcher.accept(bytes: Array(#"rue,"activities":[],"emergencyContact":{"name":"a","phone":"b"},"kind":"c"#.utf8)))
        XCTAssertEqual(String(decoding: matcher.forcedBytes(), as: UTF8.self), #"ultural"}"#)
        XCTAssertFalse(matcher.isComplete)
        XCTAssertTrue(matcher.accept(bytes: Array(#"ultural"}"#.utf8)))
        XCTAssertTrue(matcher.isComplete)
        XCTAssertTrue(matcher.isFinished)
        XCTAssertEqual(matcher.mask().allowedTokens, [SyntheticVocabulary.endOfSequence])
        XCTAssertTrue(matcher.accept(token: SyntheticVocabulary.endOfSequence))
    }

    func testNumberEndIsNotForcedAndEndOfSequenceWaitsForCompletion() throws {
        let grammar = try ByteGrammar.compile(GenerationSchema(root: .integer(NumberGuides(minimum: 0, maximum: 500))))
        let matcher = GrammarMatcher(grammar: grammar, vocabulary: SyntheticVocabulary.index)
        XCTAssertFalse(matcher.mask().contains(SyntheticVocabulary.endOfSequence))
        XCTAssertTrue(matcher.accept(bytes: Array("5".utf8)))
        let mask = matcher.mask()
        XCTAssertTrue(mask.contains(SyntheticVocabulary.endOfSequence))
        XCTAssertFalse(matcher.isFinished, "more digits may follow")
        XCTAssertTrue(matcher.accept(bytes: Array("00".utf8)))
        XCTAssertTrue(matcher.isFinished, "500 is the maximum: nothing may follow")
        XCTAssertFalse(matcher.accept(bytes: Array("0".utf8)))
    }

    func testRejectedTokenLeavesStateUnchanged() throws {
        let matcher = GrammarMatcher(grammar: try ReferenceSchemas.grammar("tool_call"), vocabulary: SyntheticVocabulary.index)
        XCTAssertTrue(matcher.accept(bytes: Array(#"{"name":"get"#.utf8)))
        XCTAssertFalse(matcher.accept(bytes: Array("Rest".utf8)))
        XCTAssertFalse(matcher.accept(token: 1), "special tokens are never text")
        XCTAssertTrue(matcher.accept(bytes: Array(#"Weather","arguments":{"city":"Oslo"}}"#.utf8)))
        XCTAssertTrue(matcher.isFinished)
    }
}
