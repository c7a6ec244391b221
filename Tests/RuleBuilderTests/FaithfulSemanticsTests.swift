// The semantics fixture (Fixtures/semantics-*, our own data): every case through the WebKit model, in faithful
// mode (all must hold) and in ddg mode (documents the gap). The same cases ran in real WebKit (Fixtures/README.md).

import ContentRules
import Foundation
import RuleBuilder
import StrictJSON
import TrackerData
import XCTest

final class FaithfulSemanticsTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures"
    ).path

    private func load() throws -> (TrackerDataSet, PrivacyConfig, UnprotectedSites, [JSONValue]) {
        let (tds, i1) = try TrackerDataSet.load(path: Self.fixtures + "/semantics-tds.json")
        let (config, i2) = try PrivacyConfig.load(path: Self.fixtures + "/semantics-config.json")
        let (sites, i3) = try UnprotectedSites.load(path: Self.fixtures + "/semantics-unprotected.txt")
        XCTAssertEqual(i1 + i2 + i3, [])
        let cases = try XCTUnwrap(
            try JSONParser.parse(Array(Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/semantics-cases.json"))))
                .arrayValue,
            "semantics-cases.json is not an array")
        return (tds, config, sites, cases)
    }

    private func failures(_ mode: RuleBuildMode) throws -> (failed: [String], total: Int) {
        let (tds, config, sites, cases) = try load()
        let sim = WebKitSimulator(
            RuleBuilder.build(tds: tds, config: config, unprotectedSites: sites, mode: mode).rules)
        var failed: [String] = []
        for c in cases {
            let expected = c["blocked"]?.boolValue ?? false
            let got = sim.isBlocked(
                SimRequest(
                    url: c["url"]?.stringValue ?? "", siteURL: c["site"]?.stringValue ?? "",
                    type: c["type"]?.stringValue ?? ""))
            if got != expected {
                failed.append(
                    "\(c["why"]?.stringValue ?? ""): \(c["url"]?.stringValue ?? "") on \(c["site"]?.stringValue ?? "")")
            }
        }
        return (failed, cases.count)
    }

    func testFaithfulModeHoldsEveryCase() throws {
        let (failed, total) = try failures(.faithful)
        XCTAssertEqual(total, 47)
        XCTAssertEqual(failed, [])
    }

    func testDDGModeGap() throws {
        let (failed, total) = try failures(.ddg)
        XCTAssertEqual(total - failed.count, 34, "\(failed)")
    }
}
