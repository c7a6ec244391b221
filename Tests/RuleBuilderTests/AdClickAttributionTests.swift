// Ad-click attribution: the split of `build` and the attributed variant. ddg mode against a hand-written golden of
// what DuckDuckGo's splitter and mutator feed TrackerRadarKit (our own small reference config; rules compared as a
// multiset); faithful mode through the WebKit model (the two lists decide as the unsplit list did).

import ContentRules
import Provenance
import RuleBuilder
import StrictJSON
import TrackerData
import XCTest

final class AdClickAttributionTests: XCTestCase {
    static let tds = TDSFixture.tds(
        trackers: """
            "tracker.com":{"domain":"tracker.com","default":"block","owner":{"name":"Tracker Inc"},
              "rules":[{"rule":"tracker\\\\.com/pixel","exceptions":{"domains":["shop.com"]}}]},
            "conv.net":{"domain":"conv.net","default":"block","owner":{"name":"Conv Co"},
              "rules":[{"rule":"conv\\\\.net/ignore","action":"ignore"}]},
            "other.org":{"domain":"other.org","default":"block","owner":{"name":"Other"}}
            """,
        entities: """
            {"Tracker Inc":{"domains":["tracker.com"]},"Conv Co":{"domains":["conv.net","conv-owned.com"]},"Other":{\
            "domains":["other.org"]}}
            """,
        domains: #"{"tracker.com":"Tracker Inc","conv.net":"Conv Co","conv-owned.com":"Conv Co","other.org":"Other"}"#,
        cnames: #"{"metrics.site.com":"x.conv.net"}"#)

    static func config(attribution state: String = "enabled", contentBlocking: String = "enabled") -> (
        PrivacyConfig, [DecodeIssue]
    ) {
        let json = """
            {"features":{"contentBlocking":{"state":"\(contentBlocking)","exceptions":[{"domain":"broken.com"}]},
             "trackerAllowlist":{"state":"enabled","settings":{"allowlistedTrackers":{"conv.net":{"rules":[{"rule":\
            "conv.net/ok","domains":["<all>"]}]}}}},
             "adClickAttribution":{"state":"\(state)","settings":{"allowlist":[
               {"blocklistEntry":"conv.net","host":"bat.conv.net"},
               {"blocklistEntry":"notatracker.com","host":"x.notatracker.com"},
               {"blocklistEntry":"other.org","host":"elsewhere.com"}],
               "navigationExpiration":1800,"totalExpiration":604800}}}}
            """
        return try! PrivacyConfig.decode(bytes: Array(json.utf8), source: "config")
    }

    let p = "^[^:]+://+([^:/]+\\.)?"
    let tp = ["third-party"], all = ["first-party", "third-party"]

    func r(
        _ f: String, _ a: Action, types: [String]? = nil, load: [String], ctx: [String]? = nil,
        _ c: TriggerCondition? = nil
    ) -> ContentRule {
        ContentRule(
            trigger: Trigger(urlFilter: f, resourceTypes: types, loadTypes: load, loadContexts: ctx, condition: c),
            action: a)
    }

    /// Both lists end with the exceptions the apps append to every list.
    var exceptionRules: [ContentRule] {
        [
            r(".*", .ignorePreviousRules, load: all, .init(.ifDomain, ["*broken.com"])),
            r(p + "conv\\.net(:[0-9]+)?\\/ok.*", .ignorePreviousRules, load: all),
        ]
    }

    func assertSameMultiset(
        _ ours: [ContentRule], _ golden: [ContentRule], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(RuleListNormalizer.multiset(ours), RuleListNormalizer.multiset(golden), file: file, line: line)
    }

    func testDDGSplitEqualsTheAppsSplitterAndTrackerRadarKit() {
        let (config, issues) = Self.config()
        XCTAssertEqual(
            issues.map(\.description).filter {
                $0.contains("elsewhere.com is not under the blocklist entry other.org; entry skipped")
            }.count, 1,
            "\(issues)")
        let result = RuleBuilder.build(tds: Self.tds, config: config, mode: .ddg, splitAttribution: true)
        // The main list: the TDS without conv.net (its CNAME alias finds no tracker any more), with the exceptions.
        assertSameMultiset(
            result.rules,
            [
                r(p + "other\\.org[:/]", .block, load: tp, .init(.unlessDomain, ["*other.org"])),
                r(p + "other\\.org[:/]", .ignorePreviousRules, types: ["popup"], load: tp, ctx: ["top-frame"]),
                r(p + "tracker\\.com[:/]", .block, load: tp, .init(.unlessDomain, ["*tracker.com"])),
                r(p + "tracker\\.com[:/]", .ignorePreviousRules, types: ["popup"], load: tp, ctx: ["top-frame"]),
                r(p + "tracker\\.com/pixel", .ignorePreviousRules, load: tp, .init(.ifDomain, ["*shop.com"])),
            ] + exceptionRules)
        // The blocking attribution list: conv.net with its entity's domains, no CNAMEs, the same exceptions.
        let list = try! XCTUnwrap(result.attributionList)
        XCTAssertEqual(list.entries.map(\.blocklistEntry), ["conv.net"])
        XCTAssertEqual(list.tds.cnames, [:])
        let blocking =
            [
                r(p + "conv\\.net[:/]", .block, load: tp, .init(.unlessDomain, ["*conv.net", "*conv-owned.com"])),
                r(p + "conv\\.net[:/]", .ignorePreviousRules, types: ["popup"], load: tp, ctx: ["top-frame"]),
                r(p + "conv\\.net/ignore", .ignorePreviousRules, load: tp),
            ] + exceptionRules
        assertSameMultiset(list.rules, blocking)
        XCTAssertEqual(list.provenance.count, list.rules.count)
        XCTAssertTrue(
            result.issues.contains {
                $0.description.contains("notatracker.com is not a tracker of the TDS; entry skipped")
            }, "\(result.issues)")
        // The attributed variant: the mutator's first rule `host(:[0-9]+)?/.*`, block with an exception for the
        // vendor, which TrackerRadarKit writes as one ignore-previous-rules for the vendor's sites.
        let attributed = RuleBuilder.attributed(tds: list.tds, config: config, mode: .ddg, vendor: "shop.example")
        assertSameMultiset(
            attributed.rules,
            blocking + [
                r(
                    p + "bat\\.conv\\.net(:[0-9]+)?/.*", .ignorePreviousRules, load: tp,
                    .init(.ifDomain, ["*shop.example"]))
            ])
        XCTAssertTrue(attributed.provenance.contains { $0.source == .adClickAttribution })
    }

    func testFeatureOrContentBlockingDisabledSplitsNothing() {
        let absent = PrivacyConfig.decodeForTest(
            #"{"features":{"contentBlocking":{"state":"enabled","exceptions":[{"domain":"broken.com"}]},"#
                + #""trackerAllowlist":{"state":"enabled","settings":{"allowlistedTrackers":{"conv.net":{"rules":"#
                + #"[{"rule":"conv.net/ok","domains":["<all>"]}]}}}}}}"#
        )
        for mode in RuleBuildMode.allCases {
            let without = RuleBuilder.build(tds: Self.tds, config: absent, mode: mode)
            let disabled = RuleBuilder.build(
                tds: Self.tds, config: Self.config(attribution: "disabled").0, mode: mode, splitAttribution: true)
            XCTAssertNil(disabled.attributionList)
            XCTAssertEqual(
                CanonicalRuleWriter.bytes(disabled.rules), CanonicalRuleWriter.bytes(without.rules), "\(mode)")
            XCTAssertEqual(disabled.provenance, without.provenance)
            XCTAssertNil(
                RuleBuilder.build(tds: Self.tds, config: Self.config().0, mode: mode).attributionList,
                "convert keeps one list")
            let off = RuleBuilder.build(
                tds: Self.tds, config: Self.config(contentBlocking: "disabled").0, mode: mode, splitAttribution: true)
            XCTAssertNil(off.attributionList)
        }
    }

    /// Faithful: the main list and the attribution list together decide every request as the unsplit list did;
    /// the attributed variant lets the conversion host load on the vendor's sites only.
    func testFaithfulListsKeepTheTDSMeaning() {
        let (config, _) = Self.config()
        let unsplit = RuleBuilder.build(tds: Self.tds, config: Self.config(attribution: "disabled").0)
        let split = RuleBuilder.build(tds: Self.tds, config: config, splitAttribution: true)
        let list = try! XCTUnwrap(split.attributionList)
        XCTAssertEqual(
            list.tds.cnames, ["metrics.site.com": "x.conv.net"], "faithful keeps the CNAME aliases of its trackers")
        let before = WebKitSimulator(unsplit.rules), main = WebKitSimulator(split.rules),
            attribution = WebKitSimulator(list.rules)
        let attributed = WebKitSimulator(
            RuleBuilder.attributed(tds: list.tds, config: config, vendor: "shop.example").rules)
        let urls = [
            "https://conv.net/x.js", "https://bat.conv.net/action/0?ti=1", "https://bat.conv.net:8443/a",
            "https://a.bat.conv.net/p",
            "https://conv.net/ignore/x", "https://bat.conv.net/ignore", "https://conv.net/ok",
            "https://bat.conv.net/ok",
            "https://metrics.site.com/t.js", "https://tracker.com/pixel", "https://tracker.com/a.js",
            "https://other.org/x",
            "https://www.conv.net.evil.com/bat.conv.net/",
        ]
        let sites = [
            "https://shop.example/", "https://www.shop.example/cart", "https://other-shop.example/",
            "https://conv-owned.com/",
            "https://broken.com/", "https://site.com/", "https://shop.com/",
            "https://news.example/?u=https://shop.example/",
        ]
        for url in urls {
            for site in sites {
                for type in ["script", "image"] {
                    let q = SimRequest(url: url, siteURL: site, type: type)
                    let was = before.isBlocked(q)
                    XCTAssertEqual(main.isBlocked(q) || attribution.isBlocked(q), was, "\(url) on \(site) \(type)")
                    let conversion =
                        url.contains("bat.conv.net") && !url.contains("evil") && !site.contains("conv-owned")
                        && !site.contains("broken")
                        && !url.contains("/ok")
                    let expected =
                        conversion
                        ? !(site.hasPrefix("https://shop.example") || site.hasPrefix("https://www.shop.example")) : was
                    XCTAssertEqual(
                        main.isBlocked(q) || attributed.isBlocked(q), expected, "attributed: \(url) on \(site) \(type)")
                }
            }
        }
    }

    /// A moved tracker nested under a tracker that stays, and a tracker nested under a moved one: the longest host
    /// still decides (faithful).
    func testFaithfulNestedTrackers() {
        let tds = TDSFixture.tds(
            trackers: """
                "big.com":{"domain":"big.com","default":"block","owner":{"name":"Big"}},
                "ads.big.com":{"domain":"ads.big.com","default":"ignore","owner":{"name":"Big"},"rules":[{"rule":\
                "ads\\\\.big\\\\.com/px"}]},
                "cdn.ads.big.com":{"domain":"cdn.ads.big.com","default":"ignore","owner":{"name":"Big"}}
                """, entities: #"{"Big":{"domains":["big.com"]}}"#, domains: #"{"big.com":"Big"}"#)
        let config = PrivacyConfig.decodeForTest(
            #"{"features":{"contentBlocking":{"state":"enabled"},"adClickAttribution":{"state":"enabled","settings":"#
                + #"{"allowlist":[{"blocklistEntry":"ads.big.com","host":"ads.big.com"}]}}}}"#
        )
        let unsplit = WebKitSimulator(RuleBuilder.build(tds: tds).rules)
        let split = RuleBuilder.build(tds: tds, config: config, splitAttribution: true)
        let main = WebKitSimulator(split.rules),
            attribution = WebKitSimulator(try! XCTUnwrap(split.attributionList).rules)
        let attributed = WebKitSimulator(
            RuleBuilder.attributed(tds: split.attributionList!.tds, config: config, vendor: "v.example").rules)
        for url in [
            "https://big.com/a", "https://ads.big.com/px", "https://ads.big.com/other", "https://cdn.ads.big.com/px",
            "https://x.cdn.ads.big.com/y",
        ] {
            for site in ["https://v.example/", "https://w.example/"] {
                let q = SimRequest(url: url, siteURL: site, type: "script")
                XCTAssertEqual(main.isBlocked(q) || attribution.isBlocked(q), unsplit.isBlocked(q), "\(url) on \(site)")
                let conversion = url.hasPrefix("https://ads.big.com/")
                XCTAssertEqual(
                    main.isBlocked(q) || attributed.isBlocked(q),
                    conversion ? site != "https://v.example/" : unsplit.isBlocked(q),
                    "attributed: \(url) on \(site)")
            }
        }
    }
}

extension AdClickAttributionTests {
    /// Malformed features and entries are reported with their JSON path and skipped; nothing else changes.
    func testBadFeatureInputsAreReportedAndSkipped() throws {
        for (json, expected) in [
            (#"{"adClickAttribution":[]}"#, "$.features.adClickAttribution: expected an object"),
            (
                #"{"adClickAttribution":{"state":"enabled","settings":7}}"#,
                "$.features.adClickAttribution.settings: expected an object"
            ),
            (
                #"{"adClickAttribution":{"state":"enabled","settings":{"allowlist":{}}}}"#,
                "allowlist: expected an array"
            ),
            (
                #"{"adClickAttribution":{"state":"enabled","settings":{"allowlist":[{"blocklistEntry":"a.com"}]}}}"#,
                "allowlist[0]: expected an object with string \"blocklistEntry\" and \"host\"; entry skipped"
            ),
            (
                #"{"adClickAttribution":{"state":"enabled","settings":{"allowlist":[{"blocklistEntry":"a.com","host":"#
                    + #""a.com.evil"}]}}}"#,
                "allowlist[0].host: the host a.com.evil is not under the blocklist entry a.com; entry skipped"
            ),
            (
                #"{"adClickAttribution":{"state":"enabled","settings":{"allowlist":[{"blocklistEntry":"a b","host":"#
                    + #""a.com"}]}}}"#,
                "allowlist[0].blocklistEntry:"
            ),
        ] {
            let (config, issues) = try PrivacyConfig.decode(bytes: Array(#"{"features":\#(json)}"#.utf8), source: "c")
            XCTAssertTrue(issues.contains { $0.description.contains(expected) }, "\(json): \(issues)")
            XCTAssertEqual(config.adClickAttribution.allowlist, [], json)
        }
    }
}

extension AdClickAttributionTests {
    /// An entity whose trackers share one same-entity exemption in the main list: the moved tracker is not one of them.
    func testFaithfulSharedEntityExemptionLeavesTheMovedTrackerOut() {
        let tds = TDSFixture.tds(
            trackers: """
                "a.com":{"domain":"a.com","default":"block","owner":{"name":"Big"}},
                "b.com":{"domain":"b.com","default":"block","owner":{"name":"Big"}},
                "c.com":{"domain":"c.com","default":"block","owner":{"name":"Big"}}
                """, entities: #"{"Big":{"domains":["a.com","b.com","c.com","big-site.com"]}}"#,
            domains: #"{"a.com":"Big","b.com":"Big","c.com":"Big","big-site.com":"Big"}"#)
        let config = PrivacyConfig.decodeForTest(
            #"{"features":{"contentBlocking":{"state":"enabled"},"adClickAttribution":{"state":"enabled","settings":"#
                + #"{"allowlist":[{"blocklistEntry":"a.com","host":"px.a.com"}]}}}}"#
        )
        let unsplit = RuleBuilder.build(tds: tds)
        XCTAssertTrue(
            unsplit.provenance.contains { $0.role == .sameEntity && $0.entity == "Big" },
            "the fixture exercises the shared exemption")
        let split = RuleBuilder.build(tds: tds, config: config, splitAttribution: true)
        XCTAssertFalse(split.provenance.contains { $0.tracker == "a.com" }, "a.com is in the attribution list only")
        let before = WebKitSimulator(unsplit.rules), main = WebKitSimulator(split.rules)
        let attribution = WebKitSimulator(try! XCTUnwrap(split.attributionList).rules)
        let attributed = WebKitSimulator(
            RuleBuilder.attributed(tds: split.attributionList!.tds, config: config, vendor: "v.example").rules)
        for url in ["https://a.com/x", "https://px.a.com/y", "https://b.com/z", "https://c.com/w"] {
            for site in ["https://v.example/", "https://big-site.com/", "https://w.example/"] {
                let q = SimRequest(url: url, siteURL: site, type: "image")
                XCTAssertEqual(main.isBlocked(q) || attribution.isBlocked(q), before.isBlocked(q), "\(url) on \(site)")
                let allowedByAttribution = url.hasPrefix("https://px.a.com/") && site == "https://v.example/"
                XCTAssertEqual(
                    main.isBlocked(q) || attributed.isBlocked(q), before.isBlocked(q) && !allowedByAttribution,
                    "attributed: \(url) on \(site)")
            }
        }
    }
}

extension PrivacyConfig {
    static func decodeForTest(_ json: String) -> PrivacyConfig {
        try! decode(bytes: Array(json.utf8), source: "config").0
    }
}
