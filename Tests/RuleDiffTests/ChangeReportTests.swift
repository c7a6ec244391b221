// The change report for people (issue 41): a tracker's examples cover both directions and several URLs, a flip
// count stands beside the distinct URLs and pages it covers, each example names both sides' deciding rules, and
// trackers added, removed and changed are listed with their rules (Markdown, text and HTML).

import Provenance
import RuleEngine
import StrictJSON
import TrackerData
import XCTest

@testable import RuleDiff

final class ChangeReportTests: XCTestCase {
    static let tracker = "tracker.example"

    /// A tracker's flips as a derived corpus gives them: each URL as script and image on several pages, the
    /// newly blocked URLs first (a rule added), then a newly allowed one (a rule removed).
    func flips() throws -> FlipLog {
        var log = FlipLog()
        let rule = DecidingRuleRecord.provenance(RuleProvenance(source: .tds, tracker: Self.tracker, part: .rule(0)))
        let allowed = Decision(outcome: .allowed, surrogate: nil, rule: nil)
        let blocked = Decision(outcome: .blocked, surrogate: nil, rule: rule)
        func add(_ path: String, _ old: Decision, _ new: Decision) throws {
            for site in ["https://a.example/", "https://b.example/"] {
                for type in ["script", "image"] {
                    try log.append(
                        DecisionChange(
                            request: MatchRequest(
                                url: "https://\(Self.tracker)/\(path)", topURL: site, resourceType: type),
                            old: old, new: new))
                }
            }
        }
        for path in ["new1.js", "new2.js", "new3.js"] { try add(path, allowed, blocked) }
        try add("gone.js", blocked, allowed)
        return log
    }

    func report() throws -> DiffReport {
        var requests = DecisionDiff()
        requests.checked = 100
        requests.changed = try flips()
        let old = TrackerDataSet(
            trackers: [
                Self.tracker: Tracker(domain: Self.tracker, defaultAction: .ignore, rules: [TrackerRule(rule: "gone")]),
                "removed.example": Tracker(
                    domain: "removed.example", defaultAction: .block,
                    rules: [TrackerRule(rule: "removed\\.example/x")]),
            ], entities: [:], domains: [:])
        let new = TrackerDataSet(
            trackers: [
                Self.tracker: Tracker(domain: Self.tracker, defaultAction: .ignore, rules: [TrackerRule(rule: "new")]),
                "added.example": Tracker(
                    domain: "added.example", defaultAction: .ignore,
                    rules: [TrackerRule(rule: "added\\.example/p", surrogate: "s.js")]),
            ], entities: [:], domains: [:])
        var report = DiffReport(
            identifier: ValueChange(old: "a", new: "b"), inputs: [:], dataset: DatasetDiff.compare(old, new),
            rules: RuleSetDiff(), requests: requests)
        report.attribution = FlipAttribution(datasets: [new, old])
        report.corpus = CorpusDescription(kind: .derived)
        return report
    }

    func testExamplesCoverBothDirectionsAndDistinctURLs() throws {
        let summary = try report().flipSummary()
        let group = try XCTUnwrap(summary.trackers.first { $0.name == Self.tracker })
        XCTAssertEqual(group.examples.count, FlipSummary.examplesPerTracker)
        XCTAssertEqual(Set(group.examples.map(\.request.url)).count, group.examples.count, "one example per URL")
        let kinds = group.examples.map(FlipKind.init)
        XCTAssertTrue(kinds.contains(.newlyBlocked) && kinds.contains(.newlyAllowed), "\(kinds)")
    }

    func testFlipCountsStandBesideDistinctURLsAndPages() throws {
        let r = try report()
        let summary = try r.flipSummary()
        XCTAssertEqual(summary.all.total, 16)
        XCTAssertEqual(summary.reach, FlipReach(urls: 4, pages: 2))
        XCTAssertEqual(summary.trackers.first?.reach, FlipReach(urls: 4, pages: 2))
        let json = try r.json()
        XCTAssertEqual(json["summary"]?["urls"], 4)
        XCTAssertEqual(json["summary"]?["trackers"]?.arrayValue?.first?["pages"], 2)
        let markdown = try r.markdown()
        XCTAssertTrue(markdown.contains("the 16 flips are 4 distinct URLs on 2 pages"), markdown)
        XCTAssertTrue(markdown.contains("| tracker.example | (no entity) | 12 | 4 | 0 | 16 | 4 | 2 |"), markdown)
        XCTAssertTrue(try r.text().contains("12 / 4 / 0 / 16 / 4 / 2  tracker.example"))
        XCTAssertTrue(try r.html().contains("the 16 flips are 4 distinct URLs on 2 pages"))
    }

    func testEachSideNamesItsDecidingRule() throws {
        let r = try report()
        let markdown = try r.markdown()
        let example = try XCTUnwrap(
            markdown.split(separator: "\n").first { $0.contains("new1.js") && $0.contains("allowed -> blocked") })
        XCTAssertTrue(example.contains("old by no rule; new by {"), String(example))
        XCTAssertTrue(example.contains("\"tracker\":\"tracker.example\""), String(example))
        let html = try r.html()
        XCTAssertTrue(html.contains("<th>old deciding rule</th><th>new deciding rule</th>"))
        XCTAssertTrue(html.contains("\"no rule\""), "the flip rows carry each side's rule")
    }

    func testTrackersAddedRemovedAndChangedWithTheirRules() throws {
        let r = try report()
        for (form, text) in [("markdown", try r.markdown()), ("text", try r.text()), ("html", try r.html())] {
            let unescaped = text.replacingOccurrences(of: "\\", with: "")
            XCTAssertTrue(
                unescaped.contains("added.example (default ignore): rules /added.example/p/ (surrogate s.js)"), form)
            XCTAssertTrue(unescaped.contains("removed.example (default block): rules /removed.example/x/"), form)
            XCTAssertTrue(
                unescaped.contains("tracker.example: 1 rule(s) added: /new/; 1 rule(s) removed: /gone/"), form)
        }
        let html = try r.html()
        for id in ["trackers-added", "trackers-removed", "trackers-changed", "examples"] {
            XCTAssertTrue(html.contains("id=\"\(id)\""), id)
        }
    }
}
