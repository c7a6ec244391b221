// The deciding rule reported by the engine (MatchResult.decidedBy, from the automata and the rule-index
// table) against the rule-by-rule reference (Explain.decidingRule), on hand-made lists where rules share
// action locations, and on random lists and loads.

import ContentRules
import RuleCompiler
import XCTest

@testable import RuleEngine

final class DecidingRuleTests: XCTestCase {
    /// (list, JSON index) of the deciding rule, from the engine.
    func decided(_ engine: RuleEngine, url: String, top: String, type: String = "script") throws -> [Int]? {
        let load = try engine.resolve(MatchRequest(url: url, topURL: top, resourceType: type))
        var result = MatchResult()
        engine.match(load, into: &result, deciding: .all)
        let reference = Explain.decidingRule(engine.lists, try engine.lists.map { try Explain.explain($0, load) })
        XCTAssertEqual(result.decidedBy, reference, "engine vs Explain for \(url) on \(top)")
        return result.decidedBy.map { [$0.list, Int(engine.lists[$0.list].compiled.rules[$0.rule].sourceIndex)] }
    }

    func testTheLastMatchingBlockDecidesAmongRulesSharingOneAction() throws {
        // Rules 0, 1 and 2 share one block action (same flags, no ignore rule between them).
        let engine = try makeEngine(
            list(rule("tracker", block), rule("tracker\\.com/ads", block), rule("other", block)))
        let list = engine.lists[0]
        XCTAssertEqual(Set(list.compiled.rules.map(\.actionLocation)).count, 1, "the three rules must share a location")
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/ads/x.js", top: "https://site.example/"), [0, 1])
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/p.js", top: "https://site.example/"), [0, 0])
        XCTAssertEqual(try decided(engine, url: "https://other.com/tracker", top: "https://site.example/"), [0, 2])
        XCTAssertNil(try decided(engine, url: "https://fine.example/", top: "https://site.example/"))
    }

    func testAnIgnorePreviousRulesDecidesWhenItCancelsTheBlock() throws {
        let engine = try makeEngine(
            list(rule("tracker", block), rule("tracker\\.com/ok", ignorePrevious), rule("tracker\\.com/ok/bad", block)))
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/ok/x", top: "https://site.example/"), [0, 1])
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/ok/bad", top: "https://site.example/"), [0, 2])
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/else", top: "https://site.example/"), [0, 0])
    }

    func testRulesAfterAnIgnoreFollowingRulesDecideNothing() throws {
        let engine = try makeEngine(
            list(rule("tracker", block), rule("stop", ignoreFollowing), rule("tracker", ignorePrevious)))
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/stop", top: "https://site.example/"), [0, 0])
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/", top: "https://site.example/"), [0, 2])
    }

    func testConditionsAndUniversalRulesAndListsInOrder() throws {
        let engine = try makeEngine(
            list(rule(".*", block), rule("tracker", ignorePrevious, "\"unless-domain\":[\"blocked.example\"]")),
            list(rule("tracker", block, "\"if-domain\":[\"blocked.example\"]"), rule("css", css(".a"))))
        // A universal block (no automaton names it) and the next list's conditional block.
        XCTAssertEqual(try decided(engine, url: "https://x.example/", top: "https://site.example/"), [0, 0])
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/", top: "https://site.example/"), [0, 1])
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/", top: "https://blocked.example/"), [1, 0])
    }

    func testAListThatReportsNothingForTheHostIsSkippedOnlyWhenItCannotDecide() throws {
        // A release's further list: one tracker's rules and a global exemption with flags (as the TDS lists' "never
        // block a top-level document"). For other hosts it reports no action, yet its exemption can decide a load.
        let engine = try makeEngine(
            list(rule("tracker", block)),
            list(rule("other\\.com", block), rule(".*", ignorePrevious, "\"resource-type\":[\"image\"]")))
        XCTAssertEqual(try decided(engine, url: "https://tracker.com/", top: "https://site.example/"), [0, 0])
        XCTAssertNil(try decided(engine, url: "https://fine.example/", top: "https://site.example/"))
        XCTAssertEqual(
            try decided(engine, url: "https://fine.example/", top: "https://site.example/", type: "image"), [1, 1])
        XCTAssertEqual(
            try decided(engine, url: "https://tracker.com/", top: "https://site.example/", type: "image"), [0, 0])
        let load = try engine.resolve(
            MatchRequest(url: "https://other.com/", topURL: "https://site.example/", resourceType: "script"))
        var result = MatchResult()
        engine.match(load, into: &result)
        XCTAssertTrue(result.isBlocked)
    }

    func testEngineAgreesWithExplainOnRandomListsAndLoads() throws {
        var g = CorpusGenerator(seed: 20261201)
        var checked = 0, named = 0
        for listNumber in 0..<150 {
            let jsons = (0..<Int.random(in: 1...2, using: &g.rng)).map { _ in g.ruleList() }
            guard let lists = try? jsons.map({ try LoadedRuleList.compiling(json: Array($0.utf8)) }) else { continue }
            let engine = RuleEngine(lists: lists)
            var result = MatchResult(), plain = MatchResult(), blocks = MatchResult()
            for _ in 0..<40 {
                let request = g.request()
                let load = try engine.resolve(request)
                engine.match(load, into: &result, deciding: .all)
                engine.match(load, into: &plain)
                engine.match(load, into: &blocks, deciding: .blocks)
                XCTAssertEqual(result.entries, plain.entries, "asking for the deciding rule must not change the answer")
                XCTAssertEqual(blocks.entries, plain.entries)
                XCTAssertNil(plain.decidedBy)
                // A blocked load's deciding rule without the lists that report nothing; none for an allowed one.
                XCTAssertEqual(blocks.decidedBy, result.isBlocked ? result.decidedBy : nil, "\(jsons)\n\(request)")
                let reference = Explain.decidingRule(lists, try lists.map { try Explain.explain($0, load) })
                XCTAssertEqual(result.decidedBy, reference, "list \(listNumber)\n\(jsons)\n\(request)")
                if result.isBlocked {
                    XCTAssertNotNil(result.decidedBy, "a blocked load names its rule")
                }
                checked += 1
                if result.decidedBy != nil { named += 1 }
            }
        }
        XCTAssertGreaterThan(checked, 4000)
        XCTAssertGreaterThan(named, checked / 5, "the corpus should exercise deciding rules")
    }
}
