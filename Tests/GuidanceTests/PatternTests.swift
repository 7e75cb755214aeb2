import Guidance
import Schema
import XCTest

/// The documented regex subset: each construct accepts and rejects what Swift's
/// own `Regex` (an independent implementation) says; unsupported constructs
/// are errors, never a silent pass.
final class PatternTests: XCTestCase {
    private func grammar(_ pattern: String) throws -> ByteGrammar {
        try ByteGrammar.compile(GenerationSchema(root: .string(StringGuides(pattern: pattern))))
    }

    func testSupportedConstructsAgreeWithSwiftRegex() throws {
        let cases: [(String, [String])] = [
            ("abc", ["abc", "ab", "abcd", ""]),
            (#"a\.b"#, ["a.b", "axb"]),
            ("[a-c]+x?", ["a", "abcx", "x", "abd", "cccx"]),
            ("[^0-9]{2}", ["ab", "a1", "é!", "abc"]),
            (#"\d{3}-\d{4}"#, ["555-1234", "55-1234", "5555-123"]),
            (#"\w+@\w+\.com"#, ["ann@example.com", "ann@example.org", "@x.com"]),
            (#"\s*hi\s*"#, ["hi", "  hi\t", "h i"]),
            (#"\D\W\S"#, ["a!b", "1!b", "a b"]),
            ("(ab|cd)*e", ["e", "abcde", "abce", "abcd"]),
            ("(?:x|y){1,3}", ["x", "xyx", "xyxy", ""]),
            ("(?<word>[a-z]+)!", ["hey!", "HEY!"]),
            ("^[A-Z][a-z]*$", ["Paris", "paris", "P"]),
            ("colou?r", ["color", "colour", "colouur"]),
            ("a{2,}", ["a", "aa", "aaaa"]),
            ("a{,2}b", ["b", "aab", "aaab"]),
            (".+", ["any thing", "", "line\nbreak"]),
            (#"[\]\-\\]+"#, ["]-\\", "a"]),
            (#"\x41\u0042\u{43}"#, ["ABC", "abc"]),
            (#"a+?b"#, ["aab", "b"]),
            (#"["\\]"#, ["\"", "\\", "a"]),
            ("[é-ë]ü", ["éü", "ëü", "eü"]),
        ]
        for (pattern, samples) in cases {
            let compiled = try grammar(pattern)
            let reference = try Regex(pattern)
            for sample in samples {
                let expected = (try? reference.wholeMatch(in: sample)) != nil
                let json = Array(JSONText.quoted(sample).utf8)
                XCTAssertEqual(compiled.matches(json), expected, "/\(pattern)/ on \(JSONText.quoted(sample))")
            }
        }
    }

    func testUnsupportedConstructsAreErrors() {
        let unsupported: [(String, String)] = [
            (#"(a)\1"#, "backreference"),
            ("(?=a)a", "lookaround"),
            ("(?!a)b", "lookaround"),
            ("(?<=a)b", "lookaround"),
            (#"\bword"#, "word boundaries"),
            ("(?i)abc", "inline options"),
            ("a++", "possessive"),
            (#"\p{L}+"#, "Unicode properties"),
            ("[[:alpha:]]", "POSIX"),
            ("[a-z&&[^aeiou]]", "set operations"),
            ("a^b", "'^'"),
            ("a$b", "'$'"),
            ("a{1000}", "repetition counts"),
            ("(ab", "missing ')'"),
            ("ab)", "unbalanced"),
            ("*a", "nothing to repeat"),
            ("[abc", "missing ']'"),
            ("[z-a]", "out of order"),
            (#"\q"#, "unknown escape"),
        ]
        for (pattern, fragment) in unsupported {
            XCTAssertThrowsError(try grammar(pattern), "/\(pattern)/ should be unsupported") { error in
                guard let error = error as? GuidanceError else { return XCTFail("not a GuidanceError") }
                XCTAssertEqual(error.kind, .unsupportedGuide)
                XCTAssertTrue(error.message.contains(fragment), "/\(pattern)/: \(error.message) should mention \(fragment)")
                XCTAssertTrue(error.message.contains("/\(pattern)/"), "the message names the pattern")
            }
        }
    }

    func testEmptyLanguageIsAnError() {
        XCTAssertThrowsError(try grammar(#"a[^\s\S]b"#)) { error in
            XCTAssertEqual((error as? GuidanceError)?.kind, .invalidSchema)
        }
    }
}
