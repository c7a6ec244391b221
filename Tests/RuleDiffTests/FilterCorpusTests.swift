// The corpus derived from filter lists (FilterCorpus, FilterURL) and the filters added and removed
// (FilterListDiff): URLs a filter matches and near misses, on its sites and others, deterministic and bounded.

import AdblockSyntax
import FilterLists
import RuleEngine
@testable import RuleDiff
import XCTest

final class FilterCorpusTests: XCTestCase {
    func list(_ text: String, name: String = "test.txt") throws -> FilterList {
        try FilterListParser.parse(Array(text.utf8), name: name)
    }

    func testHostFilterGivesItsHostAndANearMiss() throws {
        let requests = FilterCorpus.requests(for: try list("||tracker.example^").network[0])
        XCTAssertEqual(requests.count, 4)
        let hosts = requests.map { FilterURL.host(of: $0.url) }
        XCTAssertTrue(hosts[0].hasSuffix("tracker.example"), hosts[0])
        XCTAssertEqual(hosts[0], hosts[1], "a URL is loaded on its own ground and elsewhere")
        XCTAssertFalse(hosts[2].hasSuffix("tracker.example"), "the near miss changes a letter: \(hosts[2])")
        for r in requests where r.resourceType != "main_frame" {
            XCTAssertTrue(r.url.hasPrefix("https://"), r.url)
        }
    }

    func testDomainSitesAndExcludedSites() throws {
        let f = try list("||ads.example^$script,domain=news.example|~sport.news.example").network[0]
        var rng = CorpusRandom(seed: 1)
        let own = FilterCorpus.page(
            of: "https://ads.example/", domains: f.options.domains, thirdParty: nil, own: true, rng: &rng)
        XCTAssertTrue(own == "https://news.example/page" || own == "https://www.news.example/page", own)
        let other = FilterCorpus.page(
            of: "https://ads.example/", domains: f.options.domains, thirdParty: nil, own: false, rng: &rng)
        XCTAssertEqual(other, "https://sport.news.example/page")
        let requests = FilterCorpus.requests(for: f)
        XCTAssertEqual(
            requests.filter { $0.resourceType == "script" && ($0.frameURL ?? $0.topURL).contains("news.example") }
                .isEmpty, false)
    }

    /// A frame's own document is loaded as WebKit makes it: in the new frame (about:blank, child-frame) of the page.
    func testFrameDocumentLoadsAreTheWebKitWay() throws {
        let f = try list("||frames.example^$subdocument,domain=news.example").network[0]
        let requests = FilterCorpus.requests(for: f)
        XCTAssertFalse(requests.isEmpty)
        for r in requests {
            XCTAssertEqual(r.resourceType, "sub_frame")
            XCTAssertEqual(r.frameURL, "about:blank")
            XCTAssertEqual(r.loadContext, "child-frame")
            XCTAssertFalse(r.topURL.contains("portal"), "a frame of a frame is not drawn: \(r.topURL)")
        }
        XCTAssertTrue(requests.contains { $0.topURL.contains("news.example") })
    }

    func testPartyOptions() throws {
        var rng = CorpusRandom(seed: 2)
        for _ in 0..<20 {
            XCTAssertEqual(
                FilterCorpus.page(of: "https://a.example/x", domains: [], thirdParty: false, own: true, rng: &rng),
                "https://a.example/page")
            XCTAssertTrue(
                FilterCorpus.page(of: "https://a.example/x", domains: [], thirdParty: false, own: false, rng: &rng)
                    .hasSuffix(".test/page"))
        }
    }

    func testPatternsWithoutExample() throws {
        var rng = CorpusRandom(seed: 3)
        for text in ["/ads[0-9]+/", "||a..b^", "||é.example^"] {
            XCTAssertNil(FilterURL.example(try list(text).network[0].pattern, miss: false, rng: &rng), text)
        }
        let start = try list("|https://cdn.example/lib.js|").network[0].pattern
        XCTAssertEqual(FilterURL.example(start, miss: false, rng: &rng), "https://cdn.example/lib.js")
        let path = try list("/banner/*/ad.gif").network[0].pattern
        let url = try XCTUnwrap(FilterURL.example(path, miss: false, rng: &rng))
        XCTAssertTrue(url.hasPrefix("https://site") && url.contains("/banner/") && url.contains("/ad.gif"), url)
    }

    func testDeterministicPerFilterAndDeduplicated() throws {
        let a = try list("||one.example^\n||two.example^$image\n||one.example^\n")
        let b = try list("! header\n||two.example^$image\n")
        let corpus = FilterCorpus.derive(from: [a])
        XCTAssertEqual(corpus, FilterCorpus.derive(from: [a]))
        XCTAssertEqual(corpus.count, 8, "the repeated filter counts once")
        // A filter gives the same requests whatever list holds it and wherever.
        XCTAssertEqual(Array(corpus[4...]), FilterCorpus.derive(from: [b]))
        XCTAssertNotEqual(FilterCorpus.derive(from: [a], seed: 7), corpus)
    }

    func testBadfilterLeftOut() throws {
        XCTAssertEqual(FilterCorpus.derive(from: [try list("||a.example^$badfilter")]), [])
    }

    func testFilterListDiffByText() throws {
        let old = try list("! v1\n||a.example^\n||b.example^\n||b.example^\nexample.com##.ad\n", name: "old.txt")
        let new = try list("! v2\n||b.example^\n||c.example^$script\nexample.com##.ad\n", name: "new.txt")
        let d = FilterListDiff.compare(old: [old], new: [new])
        XCTAssertEqual(d.added, [.init(list: "new.txt", line: 3, filter: "||c.example^$script")])
        XCTAssertEqual(
            d.removed,
            [
                .init(list: "old.txt", line: 2, filter: "||a.example^"),
                .init(list: "old.txt", line: 4, filter: "||b.example^"),
            ])
        XCTAssertTrue(FilterListDiff.compare(old: [old], new: [old]).isEmpty)
        XCTAssertEqual(d.added[0].text, "new.txt:3: ||c.example^$script")
    }
}
