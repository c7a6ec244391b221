// diff with filter-list sides: a list file detected by its content, the filters added and removed, and the
// requests of the derived corpus that flip, each side naming the filter and line that decided.

import FilterLists
import Foundation
import Provenance
@testable import ReleaseDiff
import RuleDiff
import RuleEngine
import StrictJSON
import TestSupport
import XCTest

final class FilterListDiffTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("fldiff") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    func write(_ name: String, _ text: String) throws -> String {
        let path = work + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    let oldList = """
        [Adblock Plus 2.0]
        ! Title: test
        ||tracker.example^
        ||ads.example^$script
        @@||ads.example/ok.js
        """
    let newList = """
        [Adblock Plus 2.0]
        ! Title: test
        ||ads.example^$script
        @@||ads.example/ok.js
        ||pixel.example^$image,third-party
        """

    func testDetectedByContent() {
        for text in ["[Adblock Plus 2.0]\n||a^", "! comment\n||a^", "||a.example^", "\n  example.com##.ad"] {
            XCTAssertTrue(FilterListSide.isFilterList(Array(text.utf8)), text)
        }
        for text in ["{\"trackers\":{}}", "[{\"trigger\":{}}]", " [\n]", "", "[1]"] {
            XCTAssertFalse(FilterListSide.isFilterList(Array(text.utf8)), text)
        }
    }

    func testFiltersAddedRemovedAndFlips() throws {
        let (old, new) = try ReleaseComparison.loadBoth(
            try write("old.txt", oldList), try write("new.txt", newList), options: DiffOptions())
        XCTAssertEqual(old.filterLists.map(\.name), ["old.txt"])
        let report = try ReleaseComparison.compare(old, new, requests: ReleaseComparison.derivedCorpus(old, new))
        let filters = try XCTUnwrap(report.filters)
        XCTAssertEqual(filters.added.map(\.text), ["new.txt:5: ||pixel.example^$image,third-party"])
        XCTAssertEqual(filters.removed.map(\.text), ["old.txt:3: ||tracker.example^"])
        let requests = try XCTUnwrap(report.requests)
        var flips: [DecisionChange] = []
        try requests.changed.forEachPage { flips += $0.changes }
        XCTAssertFalse(flips.isEmpty)
        for c in flips {
            let decided = try XCTUnwrap(c.new.outcome == .allowed ? c.old.rule : c.new.rule)
            guard case .provenance(let p) = decided else { return XCTFail("no provenance: \(decided)") }
            XCTAssertEqual(p.source, .filterList)
            let host = CanonicalURL.parse(c.request.url)?.host ?? ""
            if host.hasSuffix("tracker.example") {
                XCTAssertEqual(c.new.outcome, .allowed)
                XCTAssertEqual([p.list, p.filter], ["old.txt", "||tracker.example^"])
                XCTAssertEqual(p.filterLines, [3])
            } else {
                XCTAssertTrue(host.hasSuffix("pixel.example"), c.request.url)
                XCTAssertEqual([c.old.outcome, c.new.outcome], [.allowed, .blocked])
                XCTAssertEqual([p.list, p.filter], ["new.txt", "||pixel.example^$image,third-party"])
                XCTAssertEqual(c.request.resourceType, "image")
            }
        }
        XCTAssertTrue(flips.contains { $0.request.url.contains("tracker.example") })
        XCTAssertTrue(flips.contains { $0.request.url.contains("pixel.example") })
        // Every format says it: the JSON's "filters", the text's lists.
        let json = try report.json()
        XCTAssertEqual(json["filters"]?["added"], .number(1))
        XCTAssertEqual(json["filters"]?["removedFilters"]?.arrayValue?.first?["line"], .number(3))
        let text = try report.text()
        XCTAssertTrue(text.contains("filters: 1 added, 1 removed"), text)
        XCTAssertTrue(text.contains("- old.txt:3: ||tracker.example^"), text)
        XCTAssertTrue(try report.markdown().contains("Filters added (1)"))
        XCTAssertTrue(try report.html().contains("id=\"filters-removed\""))
    }

    func testAListAgainstItselfIsEmpty() throws {
        let path = try write("same.txt", oldList)
        let (old, new) = try ReleaseComparison.loadBoth(path, path, options: DiffOptions())
        let report = try ReleaseComparison.compare(old, new, requests: ReleaseComparison.derivedCorpus(old, new))
        XCTAssertTrue(report.isEmpty)
        XCTAssertEqual(report.filters, FilterListDiff())
        XCTAssertEqual(report.requests?.checked, FilterCorpus.derive(from: old.filterLists).count)
    }

    func testAddedFilterListBesideAnotherSide() throws {
        var side = try DiffSide.load(try write("a.txt", oldList), options: DiffOptions())
        let extra = try FilterListParser.parse(Array(newList.utf8), name: "extra.txt")
        try side.add(FilterListSide(converting: extra), file: "extra.json")
        XCTAssertEqual(side.lists.count, 2)
        XCTAssertEqual(side.listRecords.map(\.name), ["rules.json", "extra.json"])
        XCTAssertEqual(side.filterLists.map(\.name), ["a.txt", "extra.txt"])
    }
}
