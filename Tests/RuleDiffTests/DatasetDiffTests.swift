import Foundation
import TestSupport
import XCTest
import TrackerData
@testable import RuleDiff

func loadSharedTDS(_ name: String) throws -> TrackerDataSet {
    try TrackerDataSet.load(path: SharedFiles.path("tds/" + name), strict: false).0
}

final class DatasetDiffTests: XCTestCase {
    func testSharedIOSDatasetsAddedRemovedChanged() throws {
        let old = try loadSharedTDS("ios-tds_embedded_2025-02-17.json")
        let new = try loadSharedTDS("ios-tds_v5_2025-06-17.json")
        let diff = DatasetDiff.compare(old, new)
        XCTAssertEqual(diff.trackersAdded.count, 627)
        XCTAssertEqual(diff.trackersRemoved.count, 463)
        XCTAssertEqual(diff.trackersChanged.count, 474)
        XCTAssertEqual(diff.trackersAdded, diff.trackersAdded.sorted(by: byteOrder))
    }

    func testDiffWithItselfIsEmpty() throws {
        let tds = try loadSharedTDS("ios-tds_v5_2025-06-17.json")
        XCTAssertTrue(DatasetDiff.compare(tds, tds).isEmpty)
    }

    func testTrackerLevelDetails() {
        let r1 = TrackerRule(rule: "a\\.com/x")
        let r2 = TrackerRule(rule: "a\\.com/y", surrogate: "noop.js")
        let r2b = TrackerRule(rule: "a\\.com/y", surrogate: "other.js", options: RuleMatcher(domains: ["s.com"]))
        let r3 = TrackerRule(rule: "a\\.com/z")
        let old = TrackerDataSet(
            trackers: [
                "a.com": Tracker(domain: "a.com", owner: Owner(name: "A"), defaultAction: .block, rules: [r1, r2]),
                "b.com": Tracker(domain: "b.com", defaultAction: .ignore, rules: [r1, r3]),
                "gone.com": Tracker(domain: "gone.com"),
            ], cnames: ["m.site.com": "x.a.com", "n.site.com": "x.a.com"])
        let new = TrackerDataSet(
            trackers: [
                "a.com": Tracker(domain: "a.com", owner: Owner(name: "A2"), defaultAction: .ignore, rules: [r2b, r3]),
                "b.com": Tracker(domain: "b.com", defaultAction: .ignore, rules: [r3, r1]),
                "new.com": Tracker(domain: "new.com"),
            ], cnames: ["m.site.com": "y.b.com", "o.site.com": "x.a.com"])
        let diff = DatasetDiff.compare(old, new)
        XCTAssertEqual(diff.trackersAdded, ["new.com"])
        XCTAssertEqual(diff.trackersRemoved, ["gone.com"])
        XCTAssertEqual(diff.trackersChanged.map(\.domain), ["a.com", "b.com"])
        let a = diff.trackersChanged[0]
        XCTAssertEqual(a.defaultAction, ValueChange(old: "block", new: "ignore"))
        XCTAssertEqual(a.owner, ValueChange(old: "A", new: "A2"))
        XCTAssertEqual(a.rulesAdded.map(\.rule), [r3.rule])
        XCTAssertEqual(a.rulesRemoved.map(\.rule), [r1.rule])
        XCTAssertEqual(a.rulesEdited.map(\.fields), [["options", "surrogate"]])
        let b = diff.trackersChanged[1]
        XCTAssertTrue(b.rulesReordered, "first match wins, so a reorder is a behaviour change")
        XCTAssertTrue(b.rulesAdded.isEmpty && b.rulesRemoved.isEmpty)
        XCTAssertEqual(diff.cnamesAdded, ["o.site.com": "x.a.com"])
        XCTAssertEqual(diff.cnamesRemoved, ["n.site.com": "x.a.com"])
        XCTAssertEqual(diff.cnamesRetargeted["m.site.com"], ValueChange(old: "x.a.com", new: "y.b.com"))
    }
}
