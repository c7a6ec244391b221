// `diff --format json` writes the report flip by flip (DiffReport.writeJSON): the bytes must be those of
// the report's JSON value.

import Provenance
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
                try d.changed.append(
                    DecisionChange(
                        request: MatchRequest(
                            url: "https://t\(i).example/a.js?q=\"\(i)\"", topURL: "https://site.example/",
                            frameURL: i % 3 == 1 ? "https://frame.example/\\\u{1}" : nil, resourceType: "script",
                            loadContext: i % 4 == 1 ? "child-frame" : nil, requestMethod: i % 5 == 1 ? "post" : nil),
                        old: Decision(outcome: .allowed, surrogate: nil, rule: nil),
                        new: Decision(
                            outcome: i % 2 == 0 ? .blocked : .surrogate, surrogate: i % 2 == 0 ? nil : "s.js",
                            rule: .provenance(RuleProvenance(source: .tds, tracker: "t\(i).example", part: .rule(i))))))
            }
            requests = d
        }
        return DiffReport(
            identifier: ValueChange(old: "a", new: nil), inputs: ["tds.sha256": ValueChange(old: "1", new: "2")],
            dataset: nil, rules: rules, requests: requests)
    }

    /// Rules added and removed, as RuleSetDiff keeps them: canonical JSON texts, with or without provenance.
    var rules: RuleSetDiff {
        var d = RuleSetDiff()
        let texts: [JSONValue] = [
            [
                "trigger": [
                    "url-filter": "^https?://([^/]*\\.)?t\"é\u{2028}\u{1}\\.example[:/]", "if-top-url": ["a", "b"],
                ],
                "action": ["type": "block"],
            ],
            [
                "trigger": ["url-filter": ".*", "load-type": ["third-party"]],
                "action": ["type": "css-display-none", "selector": "#x > .y"],
            ],
        ]
        for (i, t) in texts.enumerated() {
            d.added.append(
                RuleSetDiff.Entry(
                    rule: JSONWriter.string(t), index: i * 1000 + 7,
                    provenance: i == 0
                        ? RuleProvenance(source: .tds, tracker: "t.example", part: .rule(1), role: .block) : nil))
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
                XCTAssertEqual(
                    String(decoding: written, as: UTF8.self), JSONWriter.string(try r.json()),
                    "flips: \(String(describing: flips)), page bytes: \(pageBytes)")
            }
        }
        var three: [UInt8] = []
        try report(flips: 3).writeJSON(into: &three)
        XCTAssertTrue(
            String(decoding: three, as: UTF8.self).contains(
                #""changed":[{"request":{"url":"https://t0.example/a.js?q=\"0\"""#))
    }

    func testTextAndMarkdownDoNotDependOnWhereFlipsAreHeld() throws {
        for flips in [0, 3, 11, 1000] {
            let held = try report(flips: flips), spilled = try report(flips: flips, pageBytes: 100)
            if flips >= 3 {
                XCTAssertGreaterThan(spilled.requests!.changed.spilledPages, 0, "the flips went to the scratch file")
            }
            for detail in [ReportDetail.summary, .full, .flips(5)] {
                XCTAssertEqual(try held.text(detail: detail), try spilled.text(detail: detail))
                XCTAssertEqual(try held.markdown(detail: detail), try spilled.markdown(detail: detail))
            }
            let listed = try held.text(detail: .full).components(separatedBy: "requests that changed outcome").last!
            XCTAssertEqual(
                flips == 0 ? 0 : listed.components(separatedBy: "\n  script ").count - 1, flips, "one line per flip")
        }
        let md = try report(flips: 11).markdown(detail: .full)
        XCTAssertTrue(md.contains("<details><summary>Requests that changed outcome (11 of 11)</summary>"), md)
        XCTAssertTrue(
            md.contains(
                #"- script https://t9.example/a.js?q="9" on https://site.example/: allowed -> surrogate (s.js); "#
                    + #"old by no rule; new by {"#
            ), md)
        XCTAssertTrue(
            try report(flips: 11).markdown(detail: .flips(2)).contains("Requests that changed outcome (2 of 11)"))
    }

    /// The summary leads with the verdict and counts each flip once, by tracker; it agrees with the JSON "summary".
    func testTheSummaryLeadsWithTheVerdictAndAgreesWithTheJSON() throws {
        var r = try report(flips: 7)
        r.corpus = CorpusDescription(kind: .derived)
        let md = try r.markdown()
        XCTAssertTrue(
            md.hasPrefix(
                "## Rule-set changes\n\n**7 of 10 requests change outcome: 7 newly blocked, 0 newly allowed, 0 with "
                    + "another surrogate.**"
            ), md)
        XCTAssertTrue(md.contains("SYNTHETIC"), "a derived corpus is labelled synthetic")
        XCTAssertTrue(md.contains("| t3.example | (no entity) | 1 | 0 | 0 | 1 |"), md)
        XCTAssertTrue(try r.text().contains("SYNTHETIC"))
        let json = try r.json()
        XCTAssertEqual(json["summary"]?["flips"]?.numberValue, 7)
        XCTAssertEqual(json["summary"]?["trackers"]?.arrayValue?.count, 7)
        XCTAssertEqual(json["requests"]?["corpus"]?["synthetic"], .bool(true))
        XCTAssertEqual(json["requests"]?["changed"]?.arrayValue?.first?["tracker"]?.stringValue, "t0.example")
    }

    /// However many flips, trackers and changes, the default Markdown fits one pull-request comment.
    func testTheDefaultMarkdownIsBounded() throws {
        var d = DecisionDiff()
        d.checked = 200_000
        let long = String(repeating: "x", count: 2000)
        for i in 0..<4000 {
            try d.changed.append(
                DecisionChange(
                    request: MatchRequest(
                        url: "https://t\(i % 1000).example/\(long)", topURL: "https://site.example/",
                        resourceType: "script"),
                    old: Decision(
                        outcome: .blocked, surrogate: nil,
                        rule: .provenance(RuleProvenance(source: .tds, tracker: "t\(i % 1000).example", part: .rule(1)))
                    ),
                    new: Decision(
                        outcome: .allowed, surrogate: nil, rule: .rule(["source": "temp-list", "note": .string(long)])))
            )
        }
        var dataset = DatasetDiff()
        dataset.trackersAdded = (0..<1000).map { "added\($0).example" + long }
        var rules = RuleSetDiff()
        rules.added = (0..<1000).map { RuleSetDiff.Entry(rule: "{\"x\":\"\(long)\"}", index: $0, provenance: nil) }
        let r = DiffReport(
            identifier: ValueChange(old: "a", new: "b"), inputs: [:], dataset: dataset, rules: rules, requests: d)
        let md = try r.markdown()
        XCTAssertLessThanOrEqual(md.count, ReportDetail.markdownLimit)
        XCTAssertTrue(
            md.contains("**4000 of 200000 requests change outcome: 0 newly blocked, 4000 newly allowed"),
            String(md.prefix(400)))
        XCTAssertTrue(md.contains("--full"), "the bounded report says how to get everything")
        XCTAssertGreaterThan(
            try r.markdown(detail: .flips(100)).count, 2 * ReportDetail.markdownLimit,
            "--max-flips lists past the bound")
    }
}

final class HTMLReportTests: XCTestCase {
    /// Dataset strings cannot close the data block, open a comment or add markup: in JSON data "<", ">" and "&"
    /// are \u escapes; in the page's text they are entities.
    func testHostileStringsStayData() throws {
        let evil = "</script><!--<img src=x onerror=alert(1)>&"
        var out: [UInt8] = []
        DiffReport.writeScriptJSON(.array([.string(evil)]), into: &out)
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertFalse(text.contains("<") || text.contains(">") || text.contains("&"), text)
        XCTAssertEqual(try JSONParser.parse(out), .array([.string(evil)]), "the data reads back as the string")
        XCTAssertEqual(DiffReport.escapeHTML(evil), "&lt;/script&gt;&lt;!--&lt;img src=x onerror=alert(1)&gt;&amp;")
    }
}
