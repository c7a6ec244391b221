// Automaton budgets (issue 16): a pathological url-filter is an error naming the rule, the family and the
// budget, never a runaway compilation; budgets never change the output of a list that fits them.

import ContentRules
import XCTest

@testable import RuleCompiler

private func rule(_ filter: String, _ extra: String = "") -> String {
    #"{"trigger":{"url-filter":""# + filter + #"""# + extra + #"},"action":{"type":"block"}}"#
}

private func list(_ rules: [String]) -> [UInt8] { Array(("[" + rules.joined(separator: ",") + "]").utf8) }

/// `[ab]*a` then k × `[ab]`: its DFA must remember the last k + 1 letters, 2^(k+1) states.
private func exponential(_ k: Int) -> String { "[ab]*a" + String(repeating: "[ab]", count: k) }

final class CompileBudgetTests: XCTestCase {
    func budgetErrors(_ json: [UInt8], _ budget: CompileBudget) -> CompileBudgetErrors? {
        do {
            _ = try RuleListCompiler.compile(json: json, options: .init(budget: budget))
            return nil
        } catch let e as CompileBudgetErrors {
            return e
        } catch {
            XCTFail("unexpected error \(error)")
            return nil
        }
    }

    func testASinglePatternOverTheStateBudgetNamesTheRuleTheFamilyAndTheBudget() throws {
        let json = list([rule("good"), rule(exponential(12)), rule("fine")])
        let e = try XCTUnwrap(budgetErrors(json, CompileBudget(states: 2_000)))
        XCTAssertEqual(e.exceeded.count, 1)
        let x = e.exceeded[0]
        XCTAssertEqual(x.rule, 1)
        XCTAssertEqual(x.family, "url-filter")
        XCTAssertEqual(x.kind, .states)
        XCTAssertTrue(e.isRuleLevel)
        XCTAssertTrue(x.description.contains("rule 1:"), x.description)
        XCTAssertTrue(x.description.contains("url-filter"), x.description)
        XCTAssertTrue(x.description.contains("2000 DFA states"), x.description)
        XCTAssertTrue(x.description.contains("--max-dfa-states"), x.description)
        // The same pattern fits a larger budget (2^13 states) and then compiles.
        XCTAssertNoThrow(
            try RuleListCompiler.compile(json: json, options: .init(budget: CompileBudget(states: 20_000))))
    }

    func testEveryOffenderOfEveryFamilyIsReportedAtOnce() throws {
        let json = list([rule(exponential(11)), rule("x"), rule("y", #","if-top-url":[""# + exponential(11) + #""]"#)])
        let e = try XCTUnwrap(budgetErrors(json, CompileBudget(states: 1_000)))
        XCTAssertEqual(e.rules, [0, 2])
        XCTAssertEqual(Set(e.exceeded.map(\.family)), ["url-filter", "top-url"])
    }

    func testTheByteBudgetStopsQuadraticStateSets() throws {
        // Self-overlapping like a long literal, but the last set keeps it off LiteralDFA's linear path.
        let e = try XCTUnwrap(
            budgetErrors(list([rule(String(repeating: "a", count: 10_000) + "[ab]")]), CompileBudget(bytes: 2 << 20)))
        XCTAssertEqual(e.exceeded.map(\.kind), [.bytes])
        XCTAssertTrue(e.description.contains("--max-dfa-mb"), e.description)
    }

    func testCombinedPatternsAreSplitNotBlamed() throws {
        // Each pattern alone is tiny; together they multiply. A small state budget splits the batch.
        let rules = (0..<10).map { i in
            rule(".*\(Character(UnicodeScalar(97 + i)!)).*q.*\(Character(UnicodeScalar(98 + i)!))z")
        }
        let bounded = try RuleListCompiler.compile(
            json: list(rules), options: .init(budget: CompileBudget(states: 2_000)))
        let unbounded = try RuleListCompiler.compile(json: list(rules), options: .init(budget: .unlimited))
        let engineURLs = ["https://x.example/aqbz", "https://x.example/cqd", "https://x.example/lqmz"]
        for u in engineURLs {
            XCTAssertEqual(
                bounded.urlMatcher.match(Array(u.utf8), requestFlags: 0).sorted(),
                unbounded.urlMatcher.match(Array(u.utf8), requestFlags: 0).sorted(), u)
        }
    }

    func testTheTotalStateBudgetFailsTheFamily() throws {
        let rules = (0..<150).map { i in rule(".*k\(i).*q\(i % 7).*z\(i % 13)") }
        let e = try XCTUnwrap(budgetErrors(list(rules), CompileBudget(totalStates: 500)))
        XCTAssertEqual(e.exceeded.map(\.kind), [.totalStates])
        XCTAssertFalse(e.isRuleLevel, "no single rule is to blame")
        XCTAssertTrue(e.description.contains("--max-total-dfa-states"), e.description)
    }

    func testTheTimeBudgetFailsTheFamily() throws {
        let e = try XCTUnwrap(budgetErrors(list([rule(exponential(22))]), CompileBudget(seconds: 0.2)))
        XCTAssertEqual(e.exceeded.map(\.kind), [.seconds])
        XCTAssertTrue(e.description.contains("--max-compile-seconds"), e.description)
    }

    func testDefaultBudgetsLeaveTheGoldenListByteIdentical() throws {
        let json = try goldenRules()
        let bounded = try RuleListCompiler.compile(
            json: json, options: .init(name: "golden", toolVersion: "0.0.0-golden", embedSource: true))
        let unbounded = try RuleListCompiler.compile(
            json: json,
            options: .init(
                name: "golden", toolVersion: "0.0.0-golden", embedSource: true,
                budget: .unlimited))
        XCTAssertEqual(RBCFile.bytes(bounded), RBCFile.bytes(unbounded))
    }

    func testWebKitPainIsPredictedForWebKitsUnboundedDFAOnly() throws {
        let painful = try RuleListParser.parse(bytes: list([rule("ok"), rule(exponential(11))]))
        let warnings = try RuleListCompiler.webKitPain(painful, states: 2_000, members: .max)
        XCTAssertEqual(warnings.map(\.rule), [1])
        XCTAssertTrue(
            warnings[0].description.contains("rule 1: WebKit's compiler will not finish"), warnings[0].description)
        // Many small `.*x.*y.*z` patterns: WebKit builds one small NFA per pattern and merges only DFAs of
        // fewer than 100 nodes, so it never builds their product.
        let many = try RuleListParser.parse(bytes: list((0..<200).map { i in rule(".*k\(i).*q\(i % 7).*z\(i % 13)") }))
        XCTAssertEqual(try RuleListCompiler.webKitPain(many, states: 2_000, members: .max), [])
        // A long self-overlapping literal: few states, quadratic state sets.
        let literal = try RuleListParser.parse(bytes: list([rule(String(repeating: "a", count: 1_500))]))
        XCTAssertEqual(try RuleListCompiler.webKitPain(literal, states: .max, members: 300_000).count, 1)
        XCTAssertEqual(try RuleListCompiler.webKitPain(literal, states: .max, members: 3_000_000).count, 0)
    }
}
