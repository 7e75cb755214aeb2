import PromptLanguage
import XCTest

/// Standard-library and Foundation entries that have one implementation each in `PlaygroundLibrary/` and no
/// swiftc twin (fmplay's seeded generator, members Swift lacks that prompt files accept, values the
/// front end cannot type): `Differential/stdlib-table-members.fmplay` and
/// `Differential/calendar-number-formatter.fmplay` cover the rest against swiftc.
final class StandardLibraryTableTests: XCTestCase {
    private func lintErrors(_ source: String) -> [String] {
        PromptAnalyzer.analyze(source).diagnostics.filter { $0.severity == .error }.map(\.message)
    }

    /// Members prompt files accept on Int literals (evaluated as Double), CGFloat as Double, formatting.
    func testNumberMembersRunAsTheTableDocuments() async {
        let source = """
        #Playground {
            print(Int(9).squareRoot(), Int(4).rounded(), Int(7).truncatingRemainder(dividingBy: 2))
            print(1234567.formatted(), 1234.5678.formatted(), CGFloat.pi == Double.pi)
            print("hello".indices, Date(timeIntervalSinceNow: 60).timeIntervalSince(Date()))
            let x = Float.random(in: 0.5...1.5)
            print(x >= 0.5 && x <= 1.5)
        }
        """
        XCTAssertEqual(lintErrors(source), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["3.0 4.0 1.0", "1,234,567 1,234.568 true", "0..<5 60.0", "true"])
    }

    /// The seeded generator: shuffles are permutations, the same seed repeats, elements come from the receiver.
    func testSeededRandomMembersRepeatRunToRun() async {
        let source = """
        #Playground {
            var deck = [1, 2, 3, 4, 5, 6]
            deck.shuffle()
            print(deck.sorted(), (1...6).shuffled().sorted(), String("swift".shuffled().sorted()))
            print("abc".contains("abc".randomElement()!), (3..<9).contains((3..<9).randomElement()!), [Bool.random()].count)
            print(deck, (1...6).shuffled(), "swift".shuffled(), Bool.random(), Int.random(in: 1...100))
        }
        """
        XCTAssertEqual(lintErrors(source), [])
        let first = await evaluate(source, seed: 7), second = await evaluate(source, seed: 7)
        let printed = prints(first)
        XCTAssertEqual(Array(printed.prefix(2)), ["[1, 2, 3, 4, 5, 6] [1, 2, 3, 4, 5, 6] fistw", "true true 1"])
        XCTAssertEqual(printed, prints(second))
        let other = await evaluate(source, seed: 8)
        XCTAssertNotEqual(prints(other).last, printed.last, "another seed shuffles differently")
    }

    /// A Double range's type at run time is Range: its bounds and contains(_:) through Range's entries,
    /// an unknown member with Range's did-you-mean, count (integer ranges only) a run-time error.
    func testDoubleRangesDispatchThroughRangeEntries() async throws {
        let result = await evaluate("""
        #Playground {
            let r = 0.5...2.5
            print(r.lowerBound, r.upperBound, r.contains(1.0), r.contains(3.0), (0.0..<1.0).contains(1.0), r.description)
        }
        #Playground {
            let r = 0.5...2.5
            print(r.uperBound)
        }
        #Playground {
            let r = 0.5...2.5
            print(r.count)
        }
        """)
        XCTAssertEqual(prints(result), ["0.5 2.5 true false false 0.5...2.5"])
        XCTAssertTrue(result.blocks[1].error?.contains("did you mean 'upperBound'?") == true, result.blocks[1].error ?? "")
        XCTAssertTrue(result.blocks[2].error?.contains("'count' is not available") == true, result.blocks[2].error ?? "")
    }

    /// Generated array content is an Array at run time: Array's methods by its runtime type.
    func testGeneratedArrayContentAnswersArrayMethods() async {
        let result = await evaluate("""
        #Playground {
            let content = GeneratedContent(["b", "a"])
            print(content.enumerated().map { $0.offset }, content.map { $0.description }.sorted())
        }
        """)
        XCTAssertEqual(prints(result), ["[0, 1] [\"a\", \"b\"]"])
    }

    /// A transcript's sequence members are the shared algorithms over its entries (closures, key paths).
    func testTranscriptSequenceMembers() async {
        let result = await evaluate("""
        import FoundationModels
        #Playground {
            let session = LanguageModelSession(instructions: "Be brief.")
            _ = try await session.respond(to: "One")
            _ = try await session.respond(to: "Two")
            let t = session.transcript
            print(t.map { $0.description.prefix(8) }.count, t.filter { $0.description.contains("Two") }.count, t.compactMap(\\.description).count)
            print(t.contains(where: { $0.description.contains("One") }), t.first(where: { $0.description.contains("Scripted") }) != nil)
            print(t.last(where: { $0.description.contains("One") })?.description.contains("One") ?? false, t.allSatisfy { !$0.description.isEmpty })
            var n = 0
            t.forEach { _ in n += 1 }
            print(n, t.count(where: { $0.description.contains("Scripted") }), t.firstIndex(where: { $0.description.contains("Two") }) ?? -1)
            print(t.enumerated().map { $0.offset })
        }
        """)
        XCTAssertEqual(prints(result), ["5 2 5", "true true", "true true", "5 2 3", "[0, 1, 2, 3, 4]"])
    }

    /// Calendar and NumberFormatter are table types: a misspelt member or case is FM310 with a did-you-mean.
    func testCalendarAndNumberFormatterMisspellingsAreFM310() {
        let diagnostics = PromptAnalyzer.analyze("""
        import Foundation
        #Playground {
            let calendar = Calendar.current
            print(calendar.componnt(.day, from: Date()))
            print(calendar.component(.dya, from: Date()))
            let formatter = NumberFormatter()
            formatter.numberStyle = .decimall
            print(formatter.strin(from: 3))
        }
        """).diagnostics.filter { $0.code == .unknownMember }.map(\.message)
        XCTAssertEqual(diagnostics.count, 4, "\(diagnostics)")
        for expected in ["'component'", "'day'", "'decimal'", "'string'"] {
            XCTAssertTrue(diagnostics.contains { $0.contains("did you mean \(expected)") }, "\(expected) not suggested in \(diagnostics)")
        }
    }

    /// The global functions are table entries: checked by their labels in lint, run by their one implementation,
    /// callable inside an extension of a built-in type, and `abs(Int.min)` is an overflow error, not a crash.
    func testGlobalFunctionsAreTableEntries() async {
        let misspelt = PromptAnalyzer.analyze("""
        #Playground {
            print(stride(from: 0, too: 5, by: 1))
        }
        """).diagnostics.filter { $0.code == .unknownMember }.map(\.message)
        XCTAssertEqual(misspelt.count, 1, "\(misspelt)")
        XCTAssertTrue(misspelt.first?.contains("to:") == true, "\(misspelt)")
        let source = """
        extension Double {
            func halved() -> Double { round(self / 2) }
        }
        #Playground {
            print(max(3, 9, 4), min([5, 2, 8]), abs(-4), abs(-2.5), zip([1, 2], ["a", "b"]).count, type(of: "x"), 5.0.halved())
        }
        #Playground {
            print(abs(Int.min))
        }
        """
        XCTAssertEqual(lintErrors(source), [])
        let result = await evaluate(source)
        XCTAssertEqual(prints(result), ["9 2 4 2.5 2 String 3.0"])
        XCTAssertTrue(result.blocks[1].error?.contains("overflow") == true, result.blocks[1].error ?? "")
    }
}
