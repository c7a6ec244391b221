// A diff's flips are held as compact records, a page in memory and the rest in a scratch file
// (FlipLog): what is read back must be exactly what was appended, in order, wherever it was held.

import Provenance
import RuleEngine
import StrictJSON
import XCTest

@testable import RuleDiff

final class FlipLogTests: XCTestCase {
    func change(_ i: Int) -> DecisionChange {
        let rules: [DecidingRuleRecord?] = [
            nil,
            .provenance(RuleProvenance(source: .tds, tracker: "t.example", part: .rule(3))),
            // The same members in another order is another rule: the report writes its bytes.
            .rule(.object(JSONObject([("rule", 3), ("tracker", "t.example"), ("source", "tds")]))),
            .rule(["action": ["type": "block"], "trigger": ["url-filter": "^https?://é\u{0}\"x"]]),
        ]
        let request = MatchRequest(
            url: "https://t\(i).example/\(String(repeating: "p", count: i % 300))?é=\u{1F600}",
            topURL: i % 4 == 0 ? "" : "https://site\(i % 7).example/",
            frameURL: i % 3 == 0 ? nil : "https://frame.example/\(i)",
            resourceType: ["script", "image", "raw"][i % 3],
            loadContext: i % 5 == 0 ? nil : (i % 2 == 0 ? "top-frame" : "child-frame"),
            requestMethod: i % 6 == 0 ? nil : "post")
        return DecisionChange(
            request: request,
            old: Decision(outcome: .allowed, surrogate: nil, rule: rules[i % 4]),
            new: Decision(
                outcome: i % 2 == 0 ? .blocked : .surrogate, surrogate: i % 2 == 0 ? nil : "s\(i % 5).js",
                rule: rules[(i + 1) % 4]))
    }

    func assertSame(_ a: DecisionChange, _ b: DecisionChange, _ i: Int) {
        XCTAssertEqual(a.request, b.request, "flip \(i)")
        XCTAssertEqual(a.old, b.old, "flip \(i)")
        XCTAssertEqual(a.new, b.new, "flip \(i)")
        XCTAssertEqual(
            a.old.rule.map { JSONWriter.string($0.jsonValue) }, b.old.rule.map { JSONWriter.string($0.jsonValue) },
            "flip \(i): key order kept")
        XCTAssertEqual(
            a.new.rule.map { JSONWriter.string($0.jsonValue) }, b.new.rule.map { JSONWriter.string($0.jsonValue) },
            "flip \(i): key order kept")
    }

    func testWhatIsReadBackIsWhatWasAppendedWhereverItIsHeld() throws {
        let expected = (0..<2_000).map(change)
        for pageBytes in [1, 777, 64 * 1024, FlipLog.defaultPageBytes] {
            var log = FlipLog(pageBytes: pageBytes)
            for c in expected { try log.append(c) }
            XCTAssertEqual(log.count, expected.count)
            if pageBytes < 64 * 1024 { XCTAssertGreaterThan(log.spilledPages, 1, "page bytes \(pageBytes)") }
            var pages: [[DecisionChange]] = []
            try log.forEachPage { page in
                pages.append(page.changes)
                XCTAssertEqual(page.ruleJSON.count, page.changes.count)
                for (c, json) in zip(page.changes, page.ruleJSON) {
                    XCTAssertEqual(json.old, c.old.rule.map { JSONWriter.bytes($0.jsonValue) })
                    XCTAssertEqual(json.new, c.new.rule.map { JSONWriter.bytes($0.jsonValue) })
                }
            }
            let read = pages.flatMap { $0 }
            XCTAssertEqual(read.count, expected.count)
            for (i, (a, b)) in zip(read, expected).enumerated() { assertSame(a, b, i) }
            let iterated = try log.changes()
            XCTAssertEqual(iterated.count, expected.count)
            for (i, (a, b)) in zip(iterated, expected).enumerated() { assertSame(a, b, i) }
        }
    }

    func testCopiesStayIndependentAfterSpilling() throws {
        var a = FlipLog(pageBytes: 100)
        for i in 0..<10 { try a.append(change(i)) }
        var b = a
        for i in 10..<20 { try a.append(change(i)) }
        for i in 100..<105 { try b.append(change(i)) }
        XCTAssertEqual(try a.changes().map(\.request.url), (0..<20).map { change($0).request.url })
        XCTAssertEqual(
            try b.changes().map(\.request.url), (Array(0..<10) + Array(100..<105)).map { change($0).request.url })
    }

    func testAnUnusableTemporaryDirectoryIsAnErrorNamingIt() throws {
        let saved = ProcessInfo.processInfo.environment["TMPDIR"]
        setenv("TMPDIR", "/nonexistent/radarblock-test", 1)
        defer { if let saved { setenv("TMPDIR", saved, 1) } else { unsetenv("TMPDIR") } }
        var log = FlipLog(pageBytes: 10)
        XCTAssertThrowsError(try log.append(change(1))) { error in
            XCTAssertTrue(String(describing: error).contains("/nonexistent/radarblock-test"), String(describing: error))
        }
    }
}
