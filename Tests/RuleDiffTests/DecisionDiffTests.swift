// Which requests flip between two sides, as the engine answers each request on its own.

import Foundation
import Provenance
import RuleEngine
import StrictJSON
import XCTest

@testable import RuleDiff

final class DecisionDiffTests: XCTestCase {
    func side(_ json: String) throws -> DecisionSide {
        DecisionSide(lists: [try LoadedRuleList.compiling(json: Array(json.utf8))])
    }

    /// A URL's parse is kept for the request after it when that request names the same URL. "é" as one scalar and
    /// as "e" with a combining accent are equal Strings but two URLs: /%C3%A9 and /e%CC%81. Only the second is blocked.
    func testEquivalentStringsAreStillTwoURLs() throws {
        let old = try side(#"[{"trigger":{"url-filter":"e%CC%81"},"action":{"type":"block"}}]"#)
        let new = try side(#"[{"trigger":{"url-filter":"never-in-a-url"},"action":{"type":"block"}}]"#)
        let composed = "https://a.example/\u{E9}", decomposed = "https://a.example/e\u{301}"
        XCTAssertEqual(composed, decomposed)
        let requests = [composed, decomposed, decomposed, composed].map {
            MatchRequest(url: $0, topURL: "https://site.example/", resourceType: "script")
        }
        // One worker's run over all four: a diff hands its workers blocks of requests, as small as one.
        var flips: [DecisionDiff.Flip] = []
        let invalid = requests.map(StreamedRequest.request).withUnsafeBufferPointer {
            DecisionDiff.evaluate($0[...], old: (old, old.engine.copy()), new: (new, new.engine.copy()), into: &flips)
        }
        XCTAssertEqual(invalid, 0)
        XCTAssertEqual(flips.map { Array($0.request.url.utf8) }, [Array(decomposed.utf8), Array(decomposed.utf8)])
        XCTAssertEqual(flips.map(\.old.kind), [.blocked, .blocked])
        XCTAssertEqual(flips.map(\.new.kind), [.allowed, .allowed])

        let diff = try DecisionDiff.compare(requests, old: old, new: new)
        XCTAssertEqual(diff.checked, 4)
        XCTAssertEqual(
            try diff.changed.changes().map { Array($0.request.url.utf8) },
            [Array(decomposed.utf8), Array(decomposed.utf8)])
    }

    /// A block that becomes a surrogate is a flip, though both sides block: the diff skips the deciding rules of a
    /// request that both sides block only when neither side replaces a block.
    func testABlockReplacedByASurrogateOnOneSideFlips() throws {
        let json = #"[{"trigger":{"url-filter":"tracker\\.example/sdk\\.js"},"action":{"type":"block"}}]"#
        let provenance = [[RuleProvenance(source: .tds, tracker: "tracker.example", part: .rule(0))]]
        let plain = DecisionSide(lists: [try LoadedRuleList.compiling(json: Array(json.utf8))], provenance: provenance)
        let replacing = DecisionSide(
            lists: [try LoadedRuleList.compiling(json: Array(json.utf8))], provenance: provenance,
            surrogates: [TDSRuleID(tracker: "tracker.example", index: 0): "sdk.js"])
        XCTAssertFalse(plain.replacesBlocks)
        XCTAssertTrue(replacing.replacesBlocks)
        let requests = ["https://tracker.example/sdk.js", "https://tracker.example/other.js"].map {
            MatchRequest(url: $0, topURL: "https://site.example/", resourceType: "script")
        }
        let flips = try DecisionDiff.compare(requests, old: plain, new: replacing).changed.changes()
        XCTAssertEqual(flips.map(\.request.url), ["https://tracker.example/sdk.js"])
        XCTAssertEqual(flips.map(\.old.outcome.rawValue), ["blocked"])
        XCTAssertEqual(flips.map(\.new.outcome.rawValue), ["surrogate"])
        XCTAssertEqual(try DecisionDiff.compare(requests, old: plain, new: plain).changed.count, 0)
    }

    /// URLs of every form the diff reads before parsing (a plain host followed by '/', '?', '#' or the end; a host
    /// to lowercase, a port, an IP, an invalid URL, a data: URL), each flip checked against matching every request
    /// on each side alone, and the summary counted while recording against one counted from the log afterwards.
    func testFlipsAndSummaryAgreeWithAnswersOneByOne() throws {
        let old = try side(
            #"""
            [{"trigger":{"url-filter":"tracker\\.example"},"action":{"type":"block"}},
             {"trigger":{"url-filter":"ads","resource-type":["image"]},"action":{"type":"block"}},
             {"trigger":{"url-filter":".*","if-top-url":["kept\\.example"]},"action":{"type":"ignore-previous-rules"}}]
            """#)
        let new = try side(
            #"""
            [{"trigger":{"url-filter":"tracker\\.example/x"},"action":{"type":"block"}},
             {"trigger":{"url-filter":"ads"},"action":{"type":"block"}},
             {"trigger":{"url-filter":"cdn\\.example:8080"},"action":{"type":"block"}}]
            """#)
        let urls = [
            "https://tracker.example/", "https://tracker.example/x", "https://tracker.example?q=1",
            "https://tracker.example#f", "https://tracker.example", "https://TRACKER.example/x", "http://ads.example/",
            "https://www.ads.example/ads", "https://cdn.example:8080/a", "https://cdn.example/a",
            "http://127.0.0.1/ads",
            "https://exa mple.com/ads", "data:text/plain,ads", "https://plain.example/nothing",
        ]
        let sites = ["https://site.example/", "https://kept.example/", "https://tracker.example/"]
        var requests: [MatchRequest] = []
        for (i, url) in urls.enumerated() {
            for site in sites {
                for type in ["script", "image"] {
                    requests.append(MatchRequest(url: url, topURL: site, resourceType: type))
                }
                if i % 3 == 0 { requests.append(MatchRequest(url: url, topURL: site, resourceType: "no-such-type")) }
            }
        }
        var expected: [(url: String, old: PageOutcome.Kind, new: PageOutcome.Kind)] = []
        for r in requests {
            guard let load = try? old.engine.resolve(r) else { continue }
            let x = old.outcome(old.engine.match(load)), y = new.outcome(new.engine.match(load))
            if x.kind != y.kind { expected.append((r.url, x.kind, y.kind)) }
        }
        XCTAssertGreaterThan(expected.count, 10)
        let diff = try DecisionDiff.compare(
            ArrayRequests(requests), old: old, new: new, attribution: FlipAttribution(datasets: []))
        let flips = try diff.changed.changes()
        XCTAssertEqual(flips.map(\.request.url), expected.map(\.url))
        XCTAssertEqual(flips.map(\.old.outcome), expected.map(\.old))
        XCTAssertEqual(flips.map(\.new.outcome), expected.map(\.new))

        let counted = try XCTUnwrap(diff.summary)
        let made = try FlipSummary.make(diff.changed, attribution: FlipAttribution(datasets: []))
        XCTAssertEqual(counted.jsonValue, made.jsonValue)
        XCTAssertEqual(counted.reach, made.reach)
        XCTAssertEqual(
            counted.trackers.map { $0.examples.map(\.request.url) },
            made.trackers.map { $0.examples.map(\.request.url) })
        XCTAssertGreaterThan(counted.trackers.count, 2)
        // Each group against counting its flips by hand (the URLs are ASCII: equal Strings are the same bytes).
        var byTracker: [String: (flips: Int, urls: Set<String>, pages: Set<String>)] = [:]
        for c in flips {
            let t = FlipAttribution(datasets: []).tracker(of: c)
            byTracker[t, default: (0, [], [])].flips += 1
            byTracker[t]!.urls.insert(c.request.url)
            byTracker[t]!.pages.insert(c.request.topURL)
        }
        XCTAssertEqual(counted.trackers.map(\.name).sorted(), byTracker.keys.sorted())
        for g in counted.trackers {
            let hand = try XCTUnwrap(byTracker[g.name])
            XCTAssertEqual(
                [g.counts.total, g.reach.urls, g.reach.pages], [hand.flips, hand.urls.count, hand.pages.count], g.name)
        }
        XCTAssertEqual(counted.trackers.map(\.counts.total), counted.trackers.map(\.counts.total).sorted(by: >))
        XCTAssertEqual(
            [counted.all.total, counted.reach.urls, counted.reach.pages],
            [flips.count, Set(flips.map(\.request.url)).count, Set(flips.map(\.request.topURL)).count])
        try assertLinesInPlaceDiffAsRequests(requests, old: old, new: new, diff: diff)
    }

    /// The same requests as a JSONL file, whose flat lines the diff reads in place (and one with escapes, which
    /// it decodes): the same flips, counts and summary as the requests built.
    func assertLinesInPlaceDiffAsRequests(
        _ requests: [MatchRequest], old: DecisionSide, new: DecisionSide, diff: DecisionDiff
    ) throws {
        var text = requests.map { String(decoding: JSONWriter.bytes($0.jsonValue), as: UTF8.self) }
        text.insert(
            #"{"url":"https:\/\/tracker.example\/","topURL":"https://site.example/","resourceType":"script"}"#, at: 5)
        var built = requests
        let escaped = MatchRequest(
            url: "https://tracker.example/", topURL: "https://site.example/", resourceType: "script")
        built.insert(escaped, at: 5)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("diff-\(UUID().uuidString).jsonl")
            .path
        try (text.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try JSONLRequests(path: path)
        defer { file.close() }
        let peek = try JSONLRequests(path: path)
        defer { peek.close() }
        var chunk: [StreamedRequest] = []
        _ = try peek.next(text.count, into: &chunk)
        XCTAssertEqual(chunk.filter { if case .line = $0 { return true } else { return false } }.count, requests.count)
        XCTAssertEqual(chunk.map(\.request), built)

        let attribution = FlipAttribution(datasets: [])
        let expected = try DecisionDiff.compare(ArrayRequests(built), old: old, new: new, attribution: attribution)
        // Chunks of 7 lines: a URL's parse is kept across a block's requests, never across chunks.
        let read = try DecisionDiff.compare(file, old: old, new: new, attribution: attribution, chunkSize: 7)
        XCTAssertGreaterThan(expected.changed.count, diff.changed.count)
        XCTAssertEqual([read.checked, read.invalid], [expected.checked, expected.invalid])
        XCTAssertEqual(try read.changed.changes().map(\.request), try expected.changed.changes().map(\.request))
        XCTAssertEqual(
            try read.changed.changes().map { [$0.old.jsonValue, $0.new.jsonValue] },
            try expected.changed.changes().map { [$0.old.jsonValue, $0.new.jsonValue] })
        XCTAssertEqual(read.summary?.jsonValue, expected.summary?.jsonValue)
    }
}
