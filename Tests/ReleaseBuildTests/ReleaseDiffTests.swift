import Foundation
@testable import ReleaseBuild
@testable import ReleaseDiff
import RuleDiff
import RuleEngine
import TestSupport
import XCTest

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
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        let side = try ReleaseComparison.load(work + "/a", options: DiffOptions())
        let report = try ReleaseComparison.compare(side, side, options: DiffOptions())
        XCTAssertTrue(report.isEmpty)
        XCTAssertGreaterThan(report.requests?.checked ?? 0, 100, "the derived corpus must not be empty")
        XCTAssertEqual(try report.text(), "no differences\n")
    }

    func testSavedPagesWhoseSubresourcesFlip() throws {
        let (flipped, tracker) = try flippedTDS()
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/old"))
        var o = sampleOptions(out: work + "/new")
        o.tds = flipped
        _ = try ReleaseBuilder.run(o)

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
}

final class PageCorpusTests: XCTestCase {
    func testExtractsSubresourcesWithTheirTypes() throws {
        let html = """
            <html><head><base href="https://cdn.example/assets/">
            <script src="a.js"></script><link rel="stylesheet" href="s.css">\
            <link rel="preload" as="font" href="f.woff2">
            <link rel="icon" href="/favicon.ico"></head>
            <body><img src="i.png"><iframe src="https://frame.example/f.html"></iframe><video src="v.mp4"></video>
            <img src="data:image/png;base64,AAAA"><script src="javascript:void 0"></script>\
            <img src="i.png"></body></html>
            """
        let requests = try PageCorpus.requests(
            html: Array(html.utf8), path: "page.html", pageURL: "https://site.example/page")
        XCTAssertEqual(
            requests.map { "\($0.resourceType) \($0.url)" },
            [
                "script https://cdn.example/assets/a.js",
                "style-sheet https://cdn.example/assets/s.css",
                "font https://cdn.example/assets/f.woff2",
                "other https://cdn.example/favicon.ico",
                "image https://cdn.example/assets/i.png",
                "child-document https://frame.example/f.html",
                "media https://cdn.example/assets/v.mp4",
            ])
        XCTAssertTrue(requests.allSatisfy { $0.topURL == "https://site.example/page" })
    }

    func testAPageWithoutAURLIsAnErrorNamingTheFile() {
        XCTAssertThrowsError(try PageCorpus.requests(html: Array("<script src=a.js></script>".utf8), path: "lost.html"))
        { error in
            XCTAssertTrue(String(describing: error).contains("lost.html"))
        }
    }

    func testBrokenHTMLIsParsedLeniently() throws {
        let html = "<!-- saved from url=(0020)https://site.example -->\n<div><script src='x.js'><img src=y.gif"
        let requests = try PageCorpus.requests(html: Array(html.utf8), path: "p.html")
        XCTAssertEqual(requests.map(\.url), ["https://site.example/x.js"])
    }
}
