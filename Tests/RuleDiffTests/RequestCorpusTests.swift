// The derived corpus: which requests it holds and in which order, each once, and the same requests however
// a diff reads the stream.

import RuleEngine
import TrackerData
import XCTest

@testable import RuleDiff

final class RequestCorpusTests: XCTestCase {
    /// s.com's rule example is a URL of t.com, which t.com's own rule gives too; t.com's entity owns another
    /// domain; one CNAME alias.
    let tds = TrackerDataSet(
        trackers: [
            "s.com": Tracker(domain: "s.com", rules: [TrackerRule(rule: "t\\.com\\/s\\.com")]),
            "t.com": Tracker(domain: "t.com", owner: Owner(name: "T"), rules: [TrackerRule(rule: "t\\.com\\/s\\.com")]),
        ],
        entities: ["T": Entity(domains: ["t.com", "t-cdn.com"])],
        cnames: ["m.site.com": "x.t.com"])

    func testEachTrackersURLsFromEachOfItsSitesOnceAsAScriptAndAnImageThenTheAliases() {
        let third = "https://news-site.radarblock.test/"
        let sURLs = [
            "https://s.com/radarblock-probe.js", "https://cdn.s.com:8443/p/radarblock-probe.gif", "https://t.com/s.com",
            "https://t.com/s.com-near-miss",
        ]
        let tOwn = ["https://t.com/radarblock-probe.js", "https://cdn.t.com:8443/p/radarblock-probe.gif"]
        let tURLs = tOwn + ["https://t.com/s.com", "https://t.com/s.com-near-miss"]
        var pairs: [(String, String)] = []
        for site in [third, "https://www.s.com/"] { pairs += sURLs.map { ($0, site) } }
        // s.com loaded the shared URLs from the third-party site already.
        pairs += tOwn.map { ($0, third) }
        for site in ["https://www.t.com/", "https://t-cdn.com/"] { pairs += tURLs.map { ($0, site) } }
        var expected = pairs.flatMap { url, site in
            ["script", "image"].map { MatchRequest(url: url, topURL: site, resourceType: $0) }
        }
        for site in ["https://site.com/", third] {
            expected.append(
                MatchRequest(url: "https://m.site.com/radarblock-probe.js", topURL: site, resourceType: "script"))
        }
        XCTAssertEqual(RequestCorpus.derive(from: [tds]), expected)
    }

    /// Rules whose examples are equal Strings but not the same bytes give two URLs, each loaded.
    func testEquivalentURLsAreTwoURLs() {
        let tds = TrackerDataSet(trackers: [
            "s.com": Tracker(
                domain: "s.com",
                rules: [TrackerRule(rule: "s\\.com\\/\u{E9}"), TrackerRule(rule: "s\\.com\\/e\u{301}")])
        ])
        let urls = Set(RequestCorpus.derive(from: [tds]).map { Array($0.url.utf8) })
        XCTAssertTrue(urls.contains(Array("https://s.com/\u{E9}".utf8)))
        XCTAssertTrue(urls.contains(Array("https://s.com/e\u{301}".utf8)))
        XCTAssertEqual(urls.count, 6)
    }

    func testTwoDatasetsGiveEachRequestOnce() {
        var other = tds
        other.trackers["u.com"] = Tracker(domain: "u.com", rules: [TrackerRule(rule: "u\\.com\\/x")])
        other.cnames["n.site.com"] = "x.u.com"
        let corpus = RequestCorpus.derive(from: [tds, other])
        XCTAssertEqual(Set(corpus).count, corpus.count)
        XCTAssertEqual(Set(corpus), Set(RequestCorpus.derive(from: [tds])).union(RequestCorpus.derive(from: [other])))
    }

    /// A chunk never holds more than asked, and any chunk size gives the whole corpus in its order: a URL's
    /// two requests may fall into two chunks.
    func testAnyChunkSizeGivesTheSameRequests() {
        let whole = RequestCorpus.derive(from: [tds])
        for limit in [1, 2, 3, 5, 37, 1000] {
            let stream = RequestCorpus.stream(from: [tds])
            var read: [MatchRequest] = []
            var more = true
            while more {
                let before = read.count
                more = stream.next(limit, into: &read)
                XCTAssertLessThanOrEqual(read.count - before, limit)
            }
            XCTAssertEqual(read, whole, "chunks of \(limit)")
            XCTAssertFalse(stream.next(limit, into: &read))
            XCTAssertEqual(read.count, whole.count, "an exhausted stream appends nothing")
        }
    }
}
