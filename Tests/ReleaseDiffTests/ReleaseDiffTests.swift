// diff's sides (DiffSide: a release, a TDS converted as `build` converts it, a rule list) and their comparison.

import Conversion
import Foundation
import Release
import ReleaseBuild
@testable import ReleaseDiff
import RuleDiff
import RuleEngine
import TestSupport
import TrackerData
import XCTest

let sampleData = SampleData.directory

/// A build of the sample inputs (with `tds` instead of the sample TDS) into `out`.
func sampleBuild(out: String, tds: String = SampleData.tds) throws {
    var o = BuildOptions(out: out)
    (o.tds, o.config, o.surrogates, o.unprotected) = (
        tds, SampleData.config, SampleData.surrogates, SampleData.unprotected
    )
    _ = try ReleaseBuilder.run(o)
}

final class ReleaseDiffTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("diff") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    /// The sample TDS with one tracker's default action flipped from block to ignore.
    func flippedTDS() throws -> (path: String, tracker: String) {
        var json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sampleData + "/tds.json")))
            as! [String: Any]
        var trackers = json["trackers"] as! [String: Any]
        let domain = trackers.keys.sorted().first { (trackers[$0] as! [String: Any])["default"] as? String == "block" }!
        var t = trackers[domain] as! [String: Any]
        t["default"] = "ignore"
        trackers[domain] = t
        json["trackers"] = trackers
        let path = work + "/tds-flipped.json"
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return (path, domain)
    }

    func testADiffOfAReleaseWithItselfIsEmpty() throws {
        try sampleBuild(out: work + "/a")
        let side = try ReleaseComparison.load(work + "/a", options: DiffOptions())
        let report = try ReleaseComparison.compare(side, side, options: DiffOptions())
        XCTAssertTrue(report.isEmpty)
        XCTAssertGreaterThan(report.requests?.checked ?? 0, 100, "the derived corpus must not be empty")
        XCTAssertEqual(try report.text(), "no differences\n")
    }

    func testSavedPagesWhoseSubresourcesFlip() throws {
        let (flipped, tracker) = try flippedTDS()
        try sampleBuild(out: work + "/old")
        try sampleBuild(out: work + "/new", tds: flipped)

        try FileManager.default.createDirectory(atPath: work + "/pages", withIntermediateDirectories: true)
        let page = """
            <!DOCTYPE html>
            <!-- saved from url=(0030)https://www.news-site.example/ -->
            <html><head>
              <script src="https://\(tracker)/tag.js"></script>
              <link rel="stylesheet" href="/local.css">
            </head><body>
              <img src="//img.\(tracker)/pixel.gif">
              <script src="https://unrelated-cdn.example/lib.js"></script>
            </body></html>
            """
        try page.write(toFile: work + "/pages/news.html", atomically: true, encoding: .utf8)
        var options = DiffOptions()
        options.requests = try PageCorpus.requests(fromDirectory: work + "/pages")
        XCTAssertEqual(options.requests?.count, 4)

        let report = try ReleaseComparison.compare(
            try ReleaseComparison.load(work + "/old", options: options),
            try ReleaseComparison.load(work + "/new", options: options), options: options)
        let flippedURLs = try report.requests!.changed.changes().map(\.request.url).sorted()
        XCTAssertEqual(flippedURLs, ["https://\(tracker)/tag.js", "https://img.\(tracker)/pixel.gif"])
        for change in try report.requests!.changed.changes() {
            XCTAssertEqual(change.old.outcome, .blocked)
            XCTAssertEqual(change.new.outcome, .allowed)
            XCTAssertEqual(
                change.old.rule?.tracker, tracker, "the deciding rule is named with its provenance")
        }
        XCTAssertEqual(report.dataset?.trackersChanged.map(\.domain), [tracker])
        let markdown = try report.markdown()
        XCTAssertTrue(markdown.contains("**2 of 4 requests change outcome: 0 newly blocked, 2 newly allowed"), markdown)
    }

    /// A TDS side holds the lists `build` would write from it, named by their kind's files, and a release built
    /// from the same inputs holds the same lists under the same names.
    func testATDSSideHoldsTheListsABuildWritesUnderTheirReleaseNames() throws {
        var options = DiffOptions()
        options.config = sampleData + "/privacy-config.json"
        let side = try ReleaseComparison.load(sampleData + "/tds.json", options: options)
        let conversion = Conversion.convert(
            try ConversionInputs.load(
                tdsPath: sampleData + "/tds.json", configPath: options.config, unprotectedPath: nil, strict: false),
            options: ConversionOptions(splitAttribution: true))
        XCTAssertEqual(side.listRecords.map(\.name), conversion.lists.map(\.kind.rulesFile))
        XCTAssertEqual(side.listRecords.first?.name, ReleaseFiles.rules)
        XCTAssertEqual(side.lists.count, side.listRecords.count, "every list of a TDS side takes part in decisions")
    }
}
