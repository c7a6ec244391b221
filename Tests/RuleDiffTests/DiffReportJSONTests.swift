// `diff --format json` writes the report flip by flip (DiffReport.writeJSON): the bytes must be those of
// the report's JSON value.

import RuleEngine
import StrictJSON
import XCTest

@testable import RuleDiff

final class DiffReportJSONTests: XCTestCase {
    func report(flips: Int?) -> DiffReport {
        var requests: DecisionDiff? = nil
        if let flips {
            var d = DecisionDiff()
            d.checked = 10
            d.invalid = 1
            for i in 0..<flips {
                d.changed.append(DecisionChange(
                    request: MatchRequest(url: "https://t\(i).example/a.js?q=\"\(i)\"", topURL: "https://site.example/", resourceType: "script"),
                    old: Decision(outcome: .allowed, surrogate: nil, rule: nil),
                    new: Decision(outcome: i % 2 == 0 ? .blocked : .surrogate, surrogate: i % 2 == 0 ? nil : "s.js",
                                  rule: ["source": "tds", "tracker": .string("t\(i).example"), "rule": .number(Double(i))])))
            }
            requests = d
        }
        return DiffReport(identifier: ValueChange(old: "a", new: nil), inputs: ["tds.sha256": ValueChange(old: "1", new: "2")],
                          dataset: nil, rules: RuleSetDiff.compare(old: [], new: []), requests: requests)
    }

    func testFlipByFlipBytesEqualTheJSONValue() {
        // 1,000 flips are written in shares, one per core: the shares must join into the same bytes.
        for flips in [nil, 0, 1, 3, 257, 1000] as [Int?] {
            let r = report(flips: flips)
            var written: [UInt8] = []
            r.writeJSON(into: &written)
            XCTAssertEqual(String(decoding: written, as: UTF8.self), JSONWriter.string(r.json), "flips: \(String(describing: flips))")
        }
        var three: [UInt8] = []
        report(flips: 3).writeJSON(into: &three)
        XCTAssertTrue(String(decoding: three, as: UTF8.self).contains(#""changed":[{"request":{"url":"https://t0.example/a.js?q=\"0\"""#))
    }
}
