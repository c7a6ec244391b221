// DuckDuckGo's privacy reference tests (TR-domain-matching), run through the WebKit model on our conversion of
// the reference TDS: all 134 cases (domainTests + surrogateTests) blocked-or-not as expected in faithful mode,
// and the tracker-allowlist suite. Real WebKit runs the same cases through scripts/webkit-check.

import ContentRules
import RuleBuilder
import StrictJSON
import TestSupport
import TrackerData
import XCTest

struct ReferenceCase {
    var name: String
    var site: String
    var request: String
    var type: String
    var expectBlocked: Bool
}

enum ReferenceSuite {
    static func domainCases() throws -> [ReferenceCase] {
        let json = try Shared.json(Shared.referenceDir + "/domain_matching_tests.json")
        var out: [ReferenceCase] = []
        for group in ["domainTests", "surrogateTests"] {
            let tests = try XCTUnwrap(
                json[group]?["tests"]?.arrayValue, "domain_matching_tests.json: no \(group).tests array")
            for t in tests {
                guard let name = t["name"]?.stringValue, let site = t["siteURL"]?.stringValue,
                    let request = t["requestURL"]?.stringValue,
                    let type = t["requestType"]?.stringValue
                else { throw MalformedFixture("domain_matching_tests.json: malformed case \(JSONWriter.string(t))") }
                let action = t["expectAction"]?.stringValue // absent: the request loads
                out.append(
                    ReferenceCase(
                        name: name, site: site, request: request, type: type,
                        expectBlocked: action == "block" || action == "redirect"))
            }
        }
        return out
    }

    static func failures(_ rules: [ContentRule], _ cases: [ReferenceCase]) -> [String] {
        let sim = WebKitSimulator(rules)
        return cases.compactMap { c in
            let blocked = sim.isBlocked(SimRequest(url: c.request, siteURL: c.site, type: c.type))
            return blocked == c.expectBlocked
                ? nil : "\(c.name) (expected \(c.expectBlocked ? "blocked" : "not blocked"))"
        }
    }
}

final class ReferenceSuiteTests: XCTestCase {
    func testFaithfulModePassesAllReferenceCases() throws {
        let tds = try Shared.tds(Shared.referenceDir + "/tracker_radar_reference.json")
        let cases = try ReferenceSuite.domainCases()
        XCTAssertEqual(cases.count, 134)
        let result = RuleBuilder.build(tds: tds, mode: .faithful)
        let failures = ReferenceSuite.failures(result.rules, cases)
        XCTAssertEqual(failures, [], "faithful: \(cases.count - failures.count)/\(cases.count)")
    }

    /// TrackerRadarKit's algorithm fails the cases DuckDuckGo excepts for iOS; the count documents the gap.
    func testDDGModeReproducesTrackerRadarKitGaps() throws {
        let tds = try Shared.tds(Shared.referenceDir + "/tracker_radar_reference.json")
        let cases = try ReferenceSuite.domainCases()
        let result = RuleBuilder.build(tds: tds, mode: .ddg)
        let failures = ReferenceSuite.failures(result.rules, cases)
        // Every failure is one DuckDuckGo itself excepts on iOS.
        let json = try Shared.json(Shared.referenceDir + "/domain_matching_tests.json")
        var excepted = Set<String>()
        for t in json["domainTests"]?["tests"]?.arrayValue ?? []
        where (t["exceptPlatforms"]?.arrayValue ?? []).contains(.string("ios-browser")) {
            excepted.insert(t["name"]?.stringValue ?? "")
        }
        // The two surrogate cases (options2/3 with a surrogate) fail because the unconditional ignore TrackerRadarKit
        // emits after them wipes the block (P2); surrogate tests carry no platform exceptions.
        let surrogateGap: Set = [
            "options2 - block on matching options with surrogate",
            "options3 - block on matching options with surrogate",
        ]
        for f in failures {
            let name = String(f[..<(f.range(of: " (expected")?.lowerBound ?? f.endIndex)])
            XCTAssertTrue(
                excepted.contains(name) || surrogateGap.contains(name),
                "ddg mode fails a case DuckDuckGo does not except on iOS: \(f)")
        }
        XCTAssertEqual(
            cases.count - failures.count, 104,
            "ddg mode in the model: \(cases.count - failures.count)/134; failures: \(failures)")
    }

    func testFaithfulModePassesTrackerAllowlistSuite() throws {
        let tds = try Shared.tds(Shared.referenceDir + "/tracker_allowlist_tds_reference.json")
        let (allowlist, issues) = try TrackerAllowlist.decode(
            allowlistedTrackers: Array(
                Data(
                    contentsOf: URL(
                        fileURLWithPath: Shared.path(Shared.referenceDir + "/tracker_allowlist_reference.json")))),
            source: "tracker_allowlist_reference.json")
        XCTAssertEqual(issues, [])
        let config = PrivacyConfig(trackerAllowlist: allowlist)
        let result = RuleBuilder.build(tds: tds, config: config, mode: .faithful)
        let sim = WebKitSimulator(result.rules)
        guard case .array(let tests) = try Shared.json(Shared.referenceDir + "/tracker_allowlist_matching_tests.json")
        else { return XCTFail() }
        XCTAssertEqual(tests.count, 25)
        var failures: [String] = []
        for t in tests {
            // Every request goes to a default-block tracker of an entity none of the sites belongs to:
            // allowlisted means not blocked.
            let allowlisted = t["isAllowlisted"]?.boolValue ?? false
            let blocked = sim.isBlocked(
                SimRequest(url: t["request"]?.stringValue ?? "", siteURL: t["site"]?.stringValue ?? "", type: "script"))
            if blocked == allowlisted { failures.append(t["description"]?.stringValue ?? "") }
        }
        XCTAssertEqual(failures, [], "allowlist: \(tests.count - failures.count)/\(tests.count)")
    }
}
