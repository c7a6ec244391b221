// The optimization stage (RuleListOptimizer): each rewrite keeps every decision and the provenance. Decisions are
// checked through the WebKit model (WebKitSimulator) on URLs that reach each form of a rule: the host form, the
// in-URL form, ports, subdomains, and the regex in the path or query of another URL.

import ContentRules
import Provenance
@testable import RuleBuilder
import TrackerData
import XCTest

final class RuleListOptimizerTests: XCTestCase {
    private let entities =
        #"{"Tracker Inc":{"domains":["tracker.com","tracker-cdn.net"]},"Site Co":{"domains":["site.com"]}}"#
    private let domains = #"{"tracker.com":"Tracker Inc","tracker-cdn.net":"Tracker Inc","site.com":"Site Co"}"#
    private let trackers = #"""
        "tracker.com":{"domain":"tracker.com","default":"ignore","owner":{"name":"Tracker Inc"},"rules":[
          {"rule":"tracker\\.com\\/ads\\/ok","action":"ignore"},
          {"rule":"tracker\\.com\\/ads","exceptions":{"domains":["shop.example"]}},
          {"rule":"cdn\\.tracker\\.com\\/px","options":{"types":["image"]}},
          {"rule":"tracker\\.com\\/collect\\?id=[0-9]+"}]},
        "tracker-cdn.net":{"domain":"tracker-cdn.net","default":"block","owner":{"name":"Tracker Inc"},"rules":[
          {"rule":"tracker-cdn\\.net\\/lib\\.js","exceptions":{"types":["script"]}}]}
        """#

    private func built(config: PrivacyConfig? = nil) -> RuleBuildResult {
        let tds = TDSFixture.tds(trackers: trackers, entities: entities, domains: domains, cnames: "{}")
        return RuleBuilder.build(tds: tds, config: config, mode: .faithful)
    }

    private let urls = [
        "https://tracker.com/ads/x.js", "https://tracker.com/ads/ok.js", "https://tracker.com:8443/ads/x.js",
        "https://a.b.tracker.com/ads/x.js", "https://tracker.com/r?u=tracker.com/ads/x.js",
        "https://tracker.com/r/tracker.com/ads/ok", "https://tracker.com:8080/r?u=tracker.com/ads/1",
        "https://tracker.com:8080/r?u=tracker.com:9/ads/1", "https://news.example/?u=tracker.com/ads/x.js",
        "https://cdn.tracker.com/px.gif", "https://cdn.tracker.com:81/px.gif",
        "https://tracker.com/?cdn.tracker.com/px",
        "https://tracker.com/collect?id=42", "https://tracker.com/x?tracker.com/collect?id=7",
        "https://tracker-cdn.net/lib.js", "https://www.tracker-cdn.net:444/lib.js",
        "https://tracker-cdn.net/a?tracker-cdn.net/lib.js",
        "https://nottracker.com/ads/x.js", "https://tracker.com.evil.example/ads/x.js", "https://tracker.com/",
    ]

    private func assertSameDecisions(
        _ a: [ContentRule], _ b: [ContentRule], file: StaticString = #filePath, line: UInt = #line
    ) {
        let (sa, sb) = (WebKitSimulator(a), WebKitSimulator(b))
        for url in urls {
            for site in ["https://news.example/", "https://shop.example/", "https://site.com/", "https://tracker.com/"]
            {
                for type in ["script", "image", "xmlhttprequest", "main_frame"] {
                    let request = SimRequest(url: url, siteURL: site, type: type)
                    XCTAssertEqual(
                        sa.isBlocked(request), sb.isBlocked(request), "\(url) on \(site) as \(type)", file: file,
                        line: line)
                }
            }
        }
    }

    func testDecisionsAndProvenanceSurvive() {
        let plain = built()
        let (optimized, report) = RuleListOptimizer.optimize(plain)
        XCTAssertLessThan(optimized.rules.count, plain.rules.count)
        XCTAssertEqual(report.rulesIn - report.rulesOut, report.rewrites[RuleListOptimizer.hostAndInURLUnion])
        XCTAssertEqual(optimized.rules.count, optimized.provenance.count)
        XCTAssertEqual(optimized.issues, plain.issues)
        assertSameDecisions(plain.rules, optimized.rules)
        // Every TDS rule that had a host and an in-URL form now has one rule naming both.
        let joined = optimized.provenance.filter { $0.roleText?.hasSuffix("host+in-url") == true }
        XCTAssertEqual(joined.count, report.rewrites[RuleListOptimizer.hostAndInURLUnion])
        XCTAssertTrue(
            joined.contains { $0.tracker == "tracker.com" && $0.part == .rule(1) && $0.roleText == "block host+in-url" }
        )
        XCTAssertTrue(
            joined.contains {
                $0.tracker == "tracker.com" && $0.part == .rule(1) && $0.roleText == "exception host+in-url"
            })
        // Nothing from the input is lost: each input provenance is one output provenance (roles joined).
        let unjoined = Set(
            optimized.provenance.map { $0.description.replacingOccurrences(of: "host+in-url", with: "host") })
        for p in plain.provenance {
            XCTAssertTrue(unjoined.contains(p.description.replacingOccurrences(of: "in-url", with: "host")), "\(p)")
        }
    }

    func testUnionIsExactlyBothLanguages() throws {
        let x = HostScope.domain("tracker.com").hostPrefix
        let hostForm = HostForm(x, path: #"\/ads"#)
        let inURLForm = InURLForm(hostPrefix: x, gap: .any, hostPart: #"tracker\.com"#, path: #"\/ads"#)
        let host = hostForm.filter, inURL = inURLForm.filter
        XCTAssertEqual(host, #"^[^:]+://+([^:/]+\.)?tracker\.com(:[0-9]+)?\/ads"#)
        XCTAssertEqual(inURL, #"^[^:]+://+([^:/]+\.)?tracker\.com[:/].*tracker\.com\/ads"#)
        let union = try XCTUnwrap(InURLUnionProbe.union(hostForm, inURLForm))
        XCTAssertEqual(union, #"^[^:]+://+([^:/]+\.)?tracker\.com(:[0-9]+)?([:/].*tracker\.com)?\/ads"#)
        let allowHostForm = HostForm(x, path: #"\/w"#)
        let allowInURLForm = InURLForm(hostPrefix: x, gap: .beforeQuery, hostPart: #"tracker\.com"#, path: #"\/w"#)
        let allowHost = allowHostForm.filter, allowInURL = allowInURLForm.filter
        XCTAssertEqual(allowInURL, #"^[^:]+://+([^:/]+\.)?tracker\.com[:/][^?;#]*tracker\.com\/w"#)
        let allowUnion = try XCTUnwrap(InURLUnionProbe.union(allowHostForm, allowInURLForm))
        let filters = [host, inURL, union, allowHost, allowInURL, allowUnion].map {
            URLFilter.parse($0, caseSensitive: false)
        }
        for f in filters { XCTAssertEqual(f.status, .ok) }
        let probes = [
            "https://tracker.com/ads", "https://tracker.com:1/ads", "https://x.tracker.com/ads/1",
            "https://tracker.com/?tracker.com/ads",
            "https://tracker.com:2/z/tracker.com/ads", "https://tracker.com/z/tracker.com:3/ads",
            "https://tracker.comx/ads",
            "https://tracker.com/w", "https://tracker.com/q?tracker.com/w", "https://tracker.com/p;tracker.com/w",
            "https://tracker.com/p/tracker.com/w", "https://tracker.com:5/p/tracker.com/w",
            "https://tracker.com/#tracker.com/w",
            "http://a.tracker.com:80/tracker.com/ads", "https://other.com/tracker.com/ads",
        ]
        for url in probes {
            let bytes = Array(url.utf8)
            XCTAssertEqual(filters[2].matches(bytes), filters[0].matches(bytes) || filters[1].matches(bytes), url)
            XCTAssertEqual(filters[5].matches(bytes), filters[3].matches(bytes) || filters[4].matches(bytes), url)
        }
    }

    func testOnlyAdjacentTwinsWithTheSameTriggerAndProvenanceAreJoined() {
        let plain = built()
        guard let i = plain.provenance.firstIndex(where: { $0.roleText == "block host" }),
            plain.provenance[i + 1].roleText == "block in-url"
        else {
            return XCTFail("the fixture has a host form followed by its in-URL form")
        }
        let pair = Array(plain.rules[i...i + 1]), pairProvenance = Array(plain.provenance[i...i + 1])
        // Different conditions: not joined.
        var typed = pair
        typed[1].trigger.resourceTypes = ["image"]
        XCTAssertEqual(
            RuleListOptimizer.optimize(RuleBuildResult(rules: typed, provenance: pairProvenance)).0.rules.count, 2)
        // Different action: not joined.
        var acting = pair
        acting[1].action = .ignorePreviousRules
        XCTAssertEqual(
            RuleListOptimizer.optimize(RuleBuildResult(rules: acting, provenance: pairProvenance)).0.rules.count, 2)
        // Different provenance (another TDS rule): not joined, so provenance stays exact.
        var other = pairProvenance
        other[1].part = .rule(99)
        XCTAssertEqual(RuleListOptimizer.optimize(RuleBuildResult(rules: pair, provenance: other)).0.rules.count, 2)
        // A rule in between: not joined.
        let between = [pair[0], ContentRule(trigger: Trigger(urlFilter: ".*"), action: .ignorePreviousRules), pair[1]]
        let betweenProvenance = [pairProvenance[0], RuleProvenance(source: .topLevel), pairProvenance[1]]
        XCTAssertEqual(
            RuleListOptimizer.optimize(RuleBuildResult(rules: between, provenance: betweenProvenance)).0.rules.count, 3)
        // The pair itself: joined.
        XCTAssertEqual(
            RuleListOptimizer.optimize(RuleBuildResult(rules: pair, provenance: pairProvenance)).0.rules.count, 1)
    }

    func testFormsJoinOnlyWithTheSameHostPrefixAndPath() {
        let x = HostScope.domain("tracker.com").hostPrefix
        let host = HostForm(x, path: #"\/ads"#)
        let inURL = InURLForm(hostPrefix: x, gap: .any, hostPart: #"tracker\.com"#, path: #"\/ads"#)
        XCTAssertNotNil(InURLUnionProbe.union(host, inURL))
        var otherPath = inURL
        otherPath.path = #"\/ad"#
        XCTAssertNil(InURLUnionProbe.union(host, otherPath))
        var otherHost = inURL
        otherHost.hostPrefix = HostScope.alias("a.example", target: "tracker.com").hostPrefix
        XCTAssertNil(InURLUnionProbe.union(host, otherHost))
        var noHostPart = inURL
        noHostPart.hostPart = nil
        XCTAssertNil(InURLUnionProbe.union(host, noHostPart))
        var notHostText = inURL
        notHostText.hostPart = "[a-z]+"
        XCTAssertNil(InURLUnionProbe.union(host, notHostText))
        XCTAssertNil(
            InURLUnionProbe.union(HostForm(x, path: nil as String?), inURL), "a rule without a path has no port piece")
    }

    func testRoleIsTheRoleThenTheFormName() {
        let x = HostScope.domain("tracker.com").hostPrefix
        let host = FilterForm.host(HostForm(x, path: #"\/ads"#))
        let inURL = FilterForm.inURL(InURLForm(hostPrefix: x, gap: .any, hostPart: nil, path: "ads"))
        let origin = RuleProvenance(source: .tds, tracker: "tracker.com", part: .rule(2), role: .exception)
        XCTAssertEqual(origin.with(host).roleText, "exception host")
        XCTAssertEqual(
            origin.with(inURL).description,
            #"{"source":"tds","tracker":"tracker.com","rule":2,"role":"exception in-url"}"#)
        XCTAssertEqual(RuleProvenance(source: .allowlist, tracker: "tracker.com").with(host).roleText, "host")
        XCTAssertEqual(origin.roleText, "exception")
    }

    func testDisabledStageKeepsTheList() {
        let plain = built()
        let (same, report) = RuleListOptimizer.optimize(plain, if: false)
        XCTAssertEqual(same.rules, plain.rules)
        XCTAssertEqual(report.rulesIn, report.rulesOut)
        XCTAssertTrue(report.rewrites.isEmpty)
    }
}

/// The union rewrite on two url-filter forms, through the stage (one adjacent pair of block rules).
private enum InURLUnionProbe {
    static func union(_ host: HostForm, _ inURL: InURLForm) -> String? {
        let origin = RuleProvenance(source: .tds, tracker: "tracker.com", part: .rule(0), role: .block)
        let p = origin.with(.host(host)), q = origin.with(.inURL(inURL))
        let rules = [
            ContentRule(trigger: Trigger(urlFilter: host.filter), action: .block),
            ContentRule(trigger: Trigger(urlFilter: inURL.filter), action: .block),
        ]
        let (out, _) = RuleListOptimizer.optimize(RuleBuildResult(rules: rules, provenance: [p, q]))
        return out.rules.count == 1 ? out.rules[0].trigger.urlFilter : nil
    }
}
