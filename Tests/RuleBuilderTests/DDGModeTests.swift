// ddg mode against TrackerRadarKit's own output on the shared data (golden files made by DuckDuckGo's converter,
// ../shared/data/ddg/trackerradarkit-output): the same multiset of rules, string lists inside a rule compared as sets.

import ContentRules
import Provenance
import RuleBuilder
import StrictJSON
import TrackerData
import XCTest

final class DDGModeTests: XCTestCase {
    private func assertSameMultiset(
        tds: String, config: String?, golden: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let data = try Shared.tds(tds)
        let cfg = try config.map(Shared.config)
        let result = RuleBuilder.build(tds: data, config: cfg, mode: .ddg, splitAttribution: true)
        guard case .array(let expected) = try JSONParser.parse(Shared.gunzip(golden)) else {
            return XCTFail("golden file is not an array")
        }
        // The golden files are TrackerRadarKit on the whole TDS; the apps' splitter (the iOS config enables
        // adClickAttribution) moves the attribution trackers' rules into the attribution list, which repeats the
        // main list's exceptions.
        var moved: [ContentRule] = []
        if let list = result.attributionList {
            moved = zip(list.rules, list.provenance).filter { $0.1.source == .tds }.map(\.0)
            let exceptions = { (rules: [ContentRule], provenance: [RuleProvenance]) in
                RuleListNormalizer.multiset(
                    zip(rules, provenance).filter { $0.1.source != .tds && $0.1.source != .requestBlocklist }.map(\.0))
            }
            XCTAssertEqual(
                exceptions(list.rules, list.provenance), exceptions(result.rules, result.provenance),
                "the attribution list's exceptions", file: file, line: line)
        }
        let ours = RuleListNormalizer.multiset(result.rules + moved)
        let theirs = RuleListNormalizer.multiset(expected)
        XCTAssertEqual(result.rules.count + moved.count, expected.count, "rule count", file: file, line: line)
        let missing = theirs.filter { ours[$0.key, default: 0] < $0.value }
        let extra = ours.filter { theirs[$0.key, default: 0] < $0.value }
        XCTAssertTrue(
            missing.isEmpty, "rules TrackerRadarKit emits that we do not (first 3): \(missing.keys.sorted().prefix(3))",
            file: file, line: line)
        XCTAssertTrue(
            extra.isEmpty, "rules we emit that TrackerRadarKit does not (first 3): \(extra.keys.sorted().prefix(3))",
            file: file, line: line)
        XCTAssertEqual(result.provenance.count, result.rules.count, file: file, line: line)
    }

    func testIOSTDSWithoutConfigMatchesTrackerRadarKit() throws {
        try assertSameMultiset(
            tds: Shared.iosTDS, config: nil, golden: "trackerradarkit-output/ios-tds_v5.noconfig.trk-rules.json.gz")
    }

    func testIOSTDSWithEmbeddedConfigMatchesTrackerRadarKit() throws {
        try assertSameMultiset(
            tds: Shared.iosTDS, config: Shared.iosConfig,
            golden: "trackerradarkit-output/ios-tds_v5.embedded-config.trk-rules.json.gz")
    }

    func testReferenceTDSMatchesTrackerRadarKit() throws {
        try assertSameMultiset(
            tds: Shared.referenceDir + "/tracker_radar_reference.json", config: nil,
            golden: "trackerradarkit-output/reference-tds.trk-rules.json.gz")
    }

    /// A worked example, rule for rule (our own fixture).
    func testWorkedExample() {
        let tds = TDSFixture.tds(
            trackers: """
                "tracker.com":{"domain":"tracker.com","default":"block","owner":{"name":"Tracker Inc"},
                  "rules":[{"rule":"tracker\\\\.com/ads\\\\.js","surrogate":"noop.js"},
                           {"rule":"tracker\\\\.com/pixel","exceptions":{"domains":["shop.com"],"types":["image"]}},
                           {"rule":"tracker\\\\.com/login","action":"ignore"}]},
                "cdn.net":{"domain":"cdn.net","default":"ignore","owner":{"name":"CDN Co"},
                  "rules":[{"rule":"cdn\\\\.net/track"},
                           {"rule":"cdn\\\\.net/ab","options":{"domains":["news.com"],"types":["script"]}}]}
                """,
            entities: """
                {"Tracker Inc":{"domains":["tracker.com","tracker-owned.com"]},"CDN Co":{"domains":["cdn.net"]}}
                """, domains: #"{"tracker.com":"Tracker Inc","tracker-owned.com":"Tracker Inc","cdn.net":"CDN Co"}"#,
            cnames: #"{"metrics.site.com":"x.tracker.com"}"#)
        let config = PrivacyConfig(
            contentBlockingExceptions: ["broken.com"],
            trackerAllowlist: TrackerAllowlist(
                enabled: true, state: "enabled",
                entries: [
                    AllowlistEntry(
                        trackerDomain: "tracker.com", rule: "tracker.com/widget.js", sites: .domains(["partner.com"])),
                    AllowlistEntry(trackerDomain: "tracker.com", rule: "tracker.com/api", sites: .all),
                ]))
        let result = RuleBuilder.build(
            tds: tds, config: config, unprotectedSites: UnprotectedSites(hosts: ["www.mysite.org"]), mode: .ddg)
        let p = "^[^:]+://+([^:/]+\\.)?"
        let ent = ["*tracker.com", "*tracker-owned.com"]
        let tp = ["third-party"], all = ["first-party", "third-party"]
        func r(
            _ f: String, _ a: Action, types: [String]? = nil, load: [String], ctx: [String]? = nil,
            _ c: TriggerCondition? = nil
        ) -> ContentRule {
            ContentRule(
                trigger: Trigger(urlFilter: f, resourceTypes: types, loadTypes: load, loadContexts: ctx, condition: c),
                action: a)
        }
        let expected: [ContentRule] = [
            // cdn.net sorts before tracker.com (same label count, byte order).
            r(p + "cdn\\.net/track", .block, load: tp, .init(.unlessDomain, ["*cdn.net"])),
            r(p + "cdn\\.net/track", .ignorePreviousRules, types: ["popup"], load: tp, ctx: ["top-frame"]),
            r(p + "cdn\\.net/ab", .block, types: ["script"], load: tp, .init(.ifDomain, ["*news.com"])),
            r(p + "tracker\\.com[:/]", .block, load: tp, .init(.unlessDomain, ent)),
            r(p + "tracker\\.com[:/]", .ignorePreviousRules, types: ["popup"], load: tp, ctx: ["top-frame"]),
            r(p + "tracker\\.com/ads\\.js", .block, load: tp, .init(.unlessDomain, ent)),
            r(
                p + "tracker\\.com/pixel", .ignorePreviousRules, types: ["image"], load: tp,
                .init(.ifDomain, ["*shop.com"])),
            r(p + "tracker\\.com/login", .ignorePreviousRules, load: tp),
            r(p + "metrics\\.site\\.com[:/]", .block, load: all, .init(.unlessDomain, ent)),
            r(p + "metrics\\.site\\.com[:/]", .ignorePreviousRules, types: ["popup"], load: all, ctx: ["top-frame"]),
            r(p + "tracker\\.com/ads\\.js", .block, load: all, .init(.unlessDomain, ent)),
            r(
                p + "tracker\\.com/pixel", .ignorePreviousRules, types: ["image"], load: all,
                .init(.ifDomain, ["*shop.com"])),
            r(p + "tracker\\.com/login", .ignorePreviousRules, load: all),
            // User sites cover subdomains (reference tests), unlike TRK.
            r(".*", .ignorePreviousRules, load: all, .init(.ifDomain, ["*www.mysite.org", "*broken.com"])),
            r(
                p + "tracker\\.com(:[0-9]+)?\\/widget\\.js.*", .ignorePreviousRules, load: all,
                .init(.ifDomain, ["*partner.com"])),
            r(p + "tracker\\.com(:[0-9]+)?\\/api.*", .ignorePreviousRules, load: all),
        ]
        XCTAssertEqual(result.rules.count, expected.count)
        for (i, (a, b)) in zip(result.rules, expected).enumerated() {
            XCTAssertEqual(a, b, "rule \(i): \(CanonicalRuleWriter.string([a]))")
        }
        XCTAssertEqual(result.provenance[5], RuleProvenance(source: .tds, tracker: "tracker.com", part: .rule(0)))
        XCTAssertEqual(
            result.provenance[10],
            RuleProvenance(source: .tds, tracker: "tracker.com", part: .rule(0), cnameAlias: "metrics.site.com"))
        XCTAssertEqual(
            result.provenance[15],
            RuleProvenance(
                source: .allowlist, tracker: "tracker.com", allowlistIndex: 1, allowlistRule: "tracker.com/api"))
    }

    /// Groups are sorted by size (stable), and exact duplicates within a tracker are dropped (as TrackerRadarKit does).
    func testGroupSortAndDedupe() {
        let tds = TDSFixture.tds(
            trackers: """
                "t.com":{"domain":"t.com","default":"block","owner":{"name":"T"},
                  "rules":[{"rule":"t\\\\.com/a"},{"rule":"t\\\\.com/b","options":{"domains":["x.com"]}},{"rule":\
                "t\\\\.com/a"}]}
                """, entities: #"{"T":{"domains":["t.com"]}}"#)
        let result = RuleBuilder.build(tds: tds, mode: .ddg)
        let filters = result.rules.map { "\($0.action.typeName) \($0.trigger.urlFilter)" }
        let p = "^[^:]+://+([^:/]+\\.)?"
        XCTAssertEqual(
            filters,
            [
                "block \(p)t\\.com[:/]", "ignore-previous-rules \(p)t\\.com[:/]",
                "ignore-previous-rules \(p)t\\.com/b", "block \(p)t\\.com/b", // the 2-rule group first
                "block \(p)t\\.com/a", // rule 2 is an exact duplicate of rule 0
            ])
        XCTAssertEqual(result.provenance.map(\.part), [.default, .popup, .rule(1), .rule(1), .rule(0)])
    }

    /// What TrackerRadarKit would write but WebKit rejects is repaired or left out, and reported.
    func testRulesWebKitRejectsAreNeverWritten() {
        let tds = TDSFixture.tds(
            trackers: """
                "t.com":{"domain":"t.com","default":"ignore","owner":{"name":"Empty"},
                  "rules":[{"rule":"t\\\\.com/(a|b)"},{"rule":"t\\\\.com/c","options":{"domains":[]}},{"rule":\
                "t\\\\.com/d"}]}
                """, entities: #"{"Empty":{"domains":[]}}"#)
        let result = RuleBuilder.build(tds: tds, mode: .ddg)
        for rule in result.rules {
            XCTAssertTrue(
                URLFilter.parse(rule.trigger.urlFilter, caseSensitive: false).status.isSupported, rule.trigger.urlFilter
            )
            XCTAssertNotEqual(rule.trigger.condition?.values, [], "empty condition list written")
        }
        XCTAssertFalse(result.rules.contains { $0.trigger.urlFilter.contains("(a|b)") })
        XCTAssertTrue(
            result.issues.contains { $0.ruleIndex == 0 && $0.message.contains("Disjunctions") }, "\(result.issues)")
        XCTAssertTrue(
            result.issues.contains { $0.ruleIndex == 1 && $0.message.contains("empty if-domain") }, "\(result.issues)")
        XCTAssertTrue(
            result.issues.contains { $0.ruleIndex == 2 && $0.message.contains("empty unless-domain") },
            "\(result.issues)")
        // Rule 2 keeps its block, without the (empty) exemption.
        XCTAssertTrue(
            result.rules.contains {
                $0.trigger.urlFilter.hasSuffix("t\\.com/d") && $0.action == .block && $0.trigger.condition == nil
            })
    }

    func testUnknownCTLActionAndUnmappedTypesAreReported() {
        let tds = TDSFixture.tds(
            trackers: """
                "t.com":{"domain":"t.com","default":"block","owner":{"name":"T"},
                  "rules":[{"rule":"t\\\\.com/yt","action":"block-ctl-yt"},{"rule":"t\\\\.com/fb","action":\
                "block-ctl-fb"},
                           {"rule":"t\\\\.com/f","exceptions":{"types":["font"]}}]}
                """, entities: #"{"T":{"domains":["t.com"]}}"#)
        let result = RuleBuilder.build(tds: tds, mode: .ddg)
        XCTAssertFalse(result.rules.contains { $0.trigger.urlFilter.hasSuffix("/yt") })
        XCTAssertTrue(result.rules.contains { $0.trigger.urlFilter.hasSuffix("/fb") && $0.action == .block })
        XCTAssertTrue(result.rules.contains { $0.trigger.urlFilter.hasSuffix("/f") && $0.trigger.resourceTypes == [] })
        XCTAssertTrue(result.issues.contains { $0.kind == .ignoredInput && $0.ruleIndex == 0 })
        XCTAssertTrue(
            result.issues.contains {
                $0.kind == .ddgDeviation && $0.ruleIndex == 2 && $0.message.contains("every type")
            })
    }
}
