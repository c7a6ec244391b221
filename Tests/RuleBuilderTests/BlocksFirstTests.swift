// `blocksFirst` (BlocksFirst.swift): blocks move ahead of other trackers' exceptions, never ahead of an exception of
// their own scope or a nested one, never across a rule of no tracker; every decision stays (WebKitSimulator).

import ContentRules
import Provenance
@testable import RuleBuilder
import XCTest

final class BlocksFirstTests: XCTestCase {
    private func host(_ d: String) -> String { HostScope.domain(d).hostFilter }

    private func block(_ d: String) -> (ContentRule, RuleProvenance) {
        (
            ContentRule(trigger: Trigger(urlFilter: host(d)), action: .block),
            RuleProvenance(source: .tds, tracker: d, part: .default)
        )
    }

    private func exempt(_ d: String, on site: String) -> (ContentRule, RuleProvenance) {
        (
            ContentRule(
                trigger: Trigger(urlFilter: host(d), condition: .init(.ifDomain, ["*" + site])),
                action: .ignorePreviousRules),
            RuleProvenance(source: .tds, tracker: d, part: .entity)
        )
    }

    /// a.test and its nested tracker sub.a.test (after a.test's exception), b.test, then a shared `.*` exemption and
    /// c.test after it.
    private var list: [(ContentRule, RuleProvenance)] {
        [
            block("a.test"), exempt("a.test", on: "one.example"), block("sub.a.test"), block("b.test"),
            exempt("b.test", on: "two.example"),
            (
                ContentRule(
                    trigger: Trigger(urlFilter: ".*", condition: .init(.ifDomain, ["*three.example"])),
                    action: .ignorePreviousRules),
                RuleProvenance(source: .tds, part: .entity, role: .sameEntity, entity: "Three")
            ),
            block("c.test"), exempt("c.test", on: "one.example"), block("d.test"),
        ]
    }

    private func assertSameDecisions(
        _ a: [ContentRule], _ b: [ContentRule], _ same: Bool = true, file: StaticString = #filePath, line: UInt = #line
    ) {
        let (sa, sb) = (WebKitSimulator(a), WebKitSimulator(b))
        var differ = 0
        for target in ["a.test", "sub.a.test", "x.sub.a.test", "b.test", "c.test", "d.test", "other.test"] {
            for site in ["one.example", "two.example", "three.example", "four.example"] {
                let request = SimRequest(url: "https://\(target)/t.js", siteURL: "https://\(site)/", type: "script")
                if sa.isBlocked(request) != sb.isBlocked(request) { differ += 1 }
            }
        }
        if same {
            XCTAssertEqual(differ, 0, "decisions changed", file: file, line: line)
        } else {
            XCTAssertGreaterThan(differ, 0, "the corpus cannot tell the orders apart", file: file, line: line)
        }
    }

    func testBlocksMoveAheadOfOtherTrackersExceptionsOnly() {
        let (rules, provenance, moved) = BlocksFirst.reorder(list.map(\.0), list.map(\.1))
        XCTAssertEqual(
            zip(rules, provenance).map { "\($1.tracker ?? "*") \($0.action)" },
            [
                "a.test block", "b.test block", "a.test ignorePreviousRules", "sub.a.test block",
                "b.test ignorePreviousRules", "* ignorePreviousRules", "c.test block", "d.test block",
                "c.test ignorePreviousRules",
            ])
        XCTAssertEqual(moved, 2, "b.test's and d.test's blocks passed an exception")
        assertSameDecisions(list.map(\.0), rules)
    }

    func testTheCorpusSeesAReorderThatIsWrong() {
        // The control: every block first moves sub.a.test's block ahead of a.test's exception, which then cancels it
        // on one.example; and c.test's block ahead of the `.*` exemption.
        let all = list
        let wrong = all.filter { $0.0.action == .block } + all.filter { $0.0.action != .block }
        assertSameDecisions(all.map(\.0), wrong.map(\.0), false)
    }

    func testDuckDuckGosEncodingIsNotReordered() {
        let result = RuleBuildResult(rules: list.map(\.0), provenance: list.map(\.1))
        let (ddg, ddgReport) = RuleListOptimizer.optimize(result, mode: .ddg)
        XCTAssertEqual(ddg.rules, result.rules)
        XCTAssertNil(ddgReport.rewrites[RuleListOptimizer.blocksFirst])
        let (faithful, report) = RuleListOptimizer.optimize(result)
        XCTAssertNotEqual(faithful.rules, result.rules)
        XCTAssertEqual(report.rewrites[RuleListOptimizer.blocksFirst], 2)
    }
}
