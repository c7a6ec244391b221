// `diff --format json` writes the report flip by flip (DiffReport.writeJSON): the bytes must be those of
// the report's JSON value.

import RuleEngine
import StrictJSON
import XCTest

@testable import RuleDiff

final class DiffReportJSONTests: XCTestCase {
    func report(flips: Int?, pageBytes: Int = FlipLog.defaultPageBytes) throws -> DiffReport {
        var requests: DecisionDiff? = nil
        if let flips {
            var d = DecisionDiff()
            d.checked = 10
            d.invalid = 1
            d.changed = FlipLog(pageBytes: pageBytes)
            for i in 0..<flips {
                try d.changed.append(DecisionChange(
                    request: MatchRequest(url: "https://t\(i).example/a.js?q=\"\(i)\"", topURL: "https://site.example/",
                                          frameURL: i % 3 == 1 ? "https://frame.example/\\\u{1}" : nil, resourceType: "script",
                                          loadContext: i % 4 == 1 ? "child-frame" : nil, requestMethod: i % 5 == 1 ? "post" : nil),
                    old: Decision(outcome: .allowed, surrogate: nil, rule: nil),
                    new: Decision(outcome: i % 2 == 0 ? .blocked : .surrogate, surrogate: i % 2 == 0 ? nil : "s.js",
                                  rule: ["source": "tds", "tracker": .string("t\(i).example"), "rule": .number(Double(i))])))
            }
            requests = d
        }
        return DiffReport(identifier: ValueChange(old: "a", new: nil), inputs: ["tds.sha256": ValueChange(old: "1", new: "2")],
                          dataset: nil, rules: rules, requests: requests)
    }

    /// Rules added and removed, as RuleSetDiff keeps them: canonical JSON texts, with or without provenance.
    var rules: RuleSetDiff {
        var d = RuleSetDiff()
        let texts: [JSONValue] = [
            ["trigger": ["url-filter": "^https?://([^/]*\\.)?t\"é\u{2028}\u{1}\\.example[:/]", "if-top-url": ["a", "b"]],
             "action": ["type": "block"]],
            ["trigger": ["url-filter": ".*", "load-type": ["third-party"]], "action": ["type": "css-display-none", "selector": "#x > .y"]],
        ]
        for (i, t) in texts.enumerated() {
            d.added.append(RuleSetDiff.Entry(rule: JSONWriter.string(t), index: i * 1000 + 7, provenance: i == 0 ? ["tracker": "t.example", "rule": 1.5] : nil))
            d.removed.append(RuleSetDiff.Entry(rule: JSONWriter.string(t), index: i, provenance: nil))
        }
        return d
    }

    func testFlipByFlipBytesEqualTheJSONValue() throws {
        // 1,000 flips are written in shares, one per core: the shares must join into the same bytes. With
        // small pages, most flips are read back from the scratch file, a page at a time.
        for pageBytes in [FlipLog.defaultPageBytes, 1, 500] {
            for flips in [nil, 0, 1, 3, 257, 1000] as [Int?] {
                let r = try report(flips: flips, pageBytes: pageBytes)
                var written: [UInt8] = []
                try r.writeJSON(into: &written)
                XCTAssertEqual(String(decoding: written, as: UTF8.self), JSONWriter.string(try r.json()),
                               "flips: \(String(describing: flips)), page bytes: \(pageBytes)")
            }
        }
        var three: [UInt8] = []
        try report(flips: 3).writeJSON(into: &three)
        XCTAssertTrue(String(decoding: three, as: UTF8.self).contains(#""changed":[{"request":{"url":"https://t0.example/a.js?q=\"0\"""#))
    }

    func testTextAndMarkdownDoNotDependOnWhereFlipsAreHeld() throws {
        for flips in [0, 3, 11, 1000] {
            let held = try report(flips: flips), spilled = try report(flips: flips, pageBytes: 100)
            if flips >= 3 { XCTAssertGreaterThan(spilled.requests!.changed.spilledPages, 0, "the flips went to the scratch file") }
            XCTAssertEqual(try held.text(), try spilled.text())
            XCTAssertEqual(try held.markdown(), try spilled.markdown())
            XCTAssertEqual(try held.text().components(separatedBy: "\n  ").count - 1, flips, "one line per flip")
        }
        let md = try report(flips: 11).markdown()
        XCTAssertTrue(md.contains("<details><summary>Requests that changed outcome (11)</summary>"), md)
        XCTAssertTrue(md.contains("- script https://t9.example/a.js?q=\"9\" on https://site.example/: allowed -> surrogate (s.js)"), md)
        XCTAssertTrue(try report(flips: 3).markdown().contains("### Requests that changed outcome (3)\n\n- script"))
    }
}
