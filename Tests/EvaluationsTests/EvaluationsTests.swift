import Evaluations
import FoundationModelsRuntime
import JSON
import XCTest

final class MetricAndAggregationTests: XCTestCase {
    func testDoubleValuesFollowTheDocumentation() {
        let m = Metric("Match")
        XCTAssertEqual(m.passing().doubleValue, 1)
        XCTAssertEqual(m.failing().doubleValue, 0)
        XCTAssertEqual(m.scoring(2.5).doubleValue, 2.5)
        XCTAssertNil(m.ignore().doubleValue)
        XCTAssertNil(m.value, "the factories leave the receiver unchanged")
    }

    func testStatistics() {
        let m = Metric("x")
        let values: [Double] = [1, 2, 2, 7]
        XCTAssertEqual(AggregationOperation.mean(of: m).compute(values), 3)
        XCTAssertEqual(AggregationOperation.median(of: m).compute(values), 2)
        XCTAssertEqual(AggregationOperation.median(of: m).compute([3, 1, 2]), 2)
        XCTAssertEqual(AggregationOperation.mode(of: m).compute(values), 2)
        XCTAssertEqual(AggregationOperation.mode(of: m).compute([3, 1]), 1, "ties go to the smallest value")
        XCTAssertEqual(AggregationOperation.minimum(of: m).compute(values), 1)
        XCTAssertEqual(AggregationOperation.maximum(of: m).compute(values), 7)
        XCTAssertEqual(AggregationOperation.variance(of: m).compute(values)!, 22.0 / 3, accuracy: 1e-12)  // sample variance: (4+1+1+16) / 3
        XCTAssertEqual(AggregationOperation.standardDeviation(of: m).compute(values)!, (22.0 / 3).squareRoot(), accuracy: 1e-12)
        XCTAssertEqual(AggregationOperation.variance(of: m).compute([4]), 0)
        XCTAssertNil(AggregationOperation.mean(of: m).compute([]))
        XCTAssertEqual(AggregationOperation.mean(of: Metric("Accuracy")).label, "Mean of Accuracy")
    }

    func report(_ rows: [[Metric]], aggregator: MetricsAggregator) async throws -> EvaluationReport {
        let samples = rows.enumerated().map { index, metrics in
            SampleOutcome(index: index, prompt: "p\(index)", expected: .string("e"), response: .string("r\(index)"),
                          responseText: "r\(index)", metrics: metrics)
        }
        return try await EvaluationReport.summarize(name: "E", info: [("v", "1")], samples: samples, aggregator: aggregator)
    }

    func testIgnoredResultsAreLeftOutOfAggregatesAndPassRates() async throws {
        let match = Metric("Match")
        let aggregator = MetricsAggregator()
        aggregator.add(.mean(of: match), group: "Accuracy")
        aggregator.add(.mean(of: Metric("Missing")), group: nil)
        let r = try await report([[match.passing()], [match.failing(rationale: "no")], [match.passing()], [match.ignore()]],
                                 aggregator: aggregator)
        XCTAssertEqual(r.aggregateValue(.mean(of: match)), 2.0 / 3.0)
        XCTAssertEqual(r.aggregateValue(.median(of: match)), -1, "not declared: -1")
        XCTAssertEqual(r.aggregateValue(.mean(of: Metric("Missing"))), -1, "no values: -1")
        XCTAssertEqual(r.errors.metricsNotFound, ["Missing"])
        XCTAssertEqual(r.passRate, 2.0 / 3.0)
        XCTAssertEqual(r.tallies.first?.ignored, 1)
        XCTAssertEqual(r.groupedSummary, "Mean of Missing: n/a\nAccuracy\n  Mean of Match: 0.6666666666666666")
        XCTAssertEqual(r.headline, "E: 2/3 passed (66.7%) · 4 samples")
        XCTAssertTrue(r.text.contains("failing samples:\n  #2 \"p1\"\n    response: \"r1\""), r.text)
    }

    func testCustomAggregate() async throws {
        let score = Metric("Score")
        let aggregator = MetricsAggregator()
        aggregator.addCustom(of: score, label: "Share above 2", group: nil) { values in
            Double(values.filter { $0 > 2 }.count) / Double(values.count)
        }
        let r = try await report([[score.scoring(1)], [score.scoring(3)], [score.scoring(4)], [score.scoring(2)]], aggregator: aggregator)
        XCTAssertEqual(r.aggregateValue(.custom(label: "Share above 2")), 0.5)
        XCTAssertNil(r.passRate, "scores alone have no pass rate")
    }

    func testJSONRoundTrip() async throws {
        let match = Metric("Match")
        let aggregator = MetricsAggregator()
        aggregator.add(.mean(of: match), group: "G")
        aggregator.add(.standardDeviation(of: match), group: nil)
        var r = try await report([[match.passing()], [match.failing(rationale: "why")]], aggregator: aggregator)
        r.samples[1].subjectError = nil
        r.samples[1].evaluatorErrors = ["Evaluator: boom"]
        let back = EvaluationReport(json: try JSONValue.parse(r.json.serialized()))
        XCTAssertEqual(back?.json, r.json)
        XCTAssertEqual(back?.text, r.text)
    }
}

final class TrajectoryTests: XCTestCase {
    let calls = [
        ObservedToolCall(name: "authenticate", arguments: ["user": "ann"]),
        ObservedToolCall(name: "getWeather", arguments: ["city": "Paris, France", "days": 3]),
        ObservedToolCall(name: "log", arguments: [:]),
    ]

    func check(_ e: TrajectoryExpectation) async throws -> TrajectoryCheck {
        try await TrajectoryMatching.check(e, calls: calls, naturalLanguage: nil)
    }

    func testOrderedStepsAndArguments() async throws {
        var result = try await check(TrajectoryExpectation(ordered: [
            ToolExpectation("authenticate"),
            ToolExpectation("getWeather", arguments: [.exact(argumentName: "city", value: "Paris, France"),
                                                      .range(argumentName: "days", minimum: 1, maximum: 5)]),
        ]))
        XCTAssertTrue(result.allPass)
        result = try await check(TrajectoryExpectation(ordered: [ToolExpectation("getWeather"), ToolExpectation("authenticate")]))
        XCTAssertFalse(result.allPass)
        XCTAssertEqual(result.fraction, 0.5)
        XCTAssertEqual(result.failures.count, 1)
        result = try await check(TrajectoryExpectation(expected: "getWeather", arguments: [.exact(argumentName: "city", value: "Rome")]))
        XCTAssertFalse(result.allPass)
    }

    func testAnyOrderUnorderedDisallowedAndAdditionalCalls() async throws {
        var result = try await check(TrajectoryExpectation(ordered: [.anyOrder([ToolExpectation("getWeather"), ToolExpectation("authenticate")])]))
        XCTAssertTrue(result.allPass)
        result = try await check(TrajectoryExpectation(unordered: [ToolExpectation("log"), ToolExpectation("search")]))
        XCTAssertEqual(result.passed, 1)
        XCTAssertEqual(result.total, 2)
        result = try await check(TrajectoryExpectation(ordered: [], unordered: [], disallowed: [ToolExpectation("log")]))
        XCTAssertFalse(result.allPass)
        result = try await check(TrajectoryExpectation(ordered: [ToolExpectation("authenticate")], unordered: [], allowsAdditionalToolCalls: false))
        XCTAssertEqual(result.passed, 1)
        XCTAssertEqual(result.total, 2)
        XCTAssertTrue(result.failures[0].contains("unexpected calls: getWeather, log"), result.failures[0])
    }

    func testMatchers() async throws {
        let args: JSONValue = ["city": "Paris, France", "n": 2, "unit": "celsius"]
        func ok(_ m: ArgumentMatcher) async throws -> Bool { try await TrajectoryMatching.argumentMatches(m, args, nil) }
        let passing: [ArgumentMatcher] = [
            .keyOnly(argumentName: "unit"), .oneOf(argumentName: "unit", allowedValues: ["celsius", "kelvin"]),
            .exact(argumentName: "n", value: .double(2)), .pattern(argumentName: "city", regex: "^Par"),
            .contains(argumentName: "city", substring: "is, F"), .hasPrefix(argumentName: "city", prefix: "Paris"),
            .hasSuffix(argumentName: "city", suffix: "France"),
        ]
        for m in passing { let r = try await ok(m); XCTAssertTrue(r, m.description) }
        let failing: [ArgumentMatcher] = [
            .keyOnly(argumentName: "missing"), .exact(argumentName: "n", value: "2"), .range(argumentName: "n", minimum: 3, maximum: nil),
            .naturalLanguage(argumentName: "city", criteria: "a city"),
        ]
        for m in failing { let r = try await ok(m); XCTAssertFalse(r, m.description) }
        let semantic = try await TrajectoryMatching.argumentMatches(.naturalLanguage(argumentName: "city", criteria: "a city"), args) { _, _ in true }
        XCTAssertTrue(semantic)
    }
}

final class ModelJudgeTests: XCTestCase {
    func testJudgeScoresEachDimensionWithGuidedOutput() async throws {
        let model = ScriptedLanguageModel(script: [.text(#"{"rationale":"All tags fit","Relevance":"4","Safe":"pass"}"#)])
        let judge = ModelJudge(dimensions: [
            ScoreDimension("Relevance", description: "Do the tags describe the dish?", scale: .numeric([(4, "All"), (1, "None")])),
            ScoreDimension("Safe", scale: .passFail(passDescription: "safe", failDescription: "unsafe")),
        ], judge: model)
        let metrics = try await judge.score(request: "Beef stew", response: "beef, stew", baseline: nil, reference: [("Expected Tags", "beef")])
        XCTAssertEqual(metrics, [Metric("Relevance").scoring(4, rationale: "All tags fit"), Metric("Safe").passing(rationale: "All tags fit")])
        let prompt = model.receivedRequests[0].transcript.description
        XCTAssertTrue(prompt.contains("Expected Tags:\nbeef"), prompt)
        XCTAssertTrue(prompt.contains("4 = All"), prompt)
        XCTAssertEqual(judge.verdictSchema.definitions.first?.name, "JudgeVerdict")
    }
}
