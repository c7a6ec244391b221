// Privacy-config features that decide blocking: contentBlocking state, the scope of every kind of exception,
// the request blocklist (valid and invalid entries) and click-to-load lists. Checked through the WebKit model,
// in both modes where the behaviour is shared.

import ContentRules
import RuleBuilder
import StrictJSON
import TrackerData
import XCTest

final class ConfigFeatureTests: XCTestCase {
    private let tds = TDSFixture.tds(
        trackers:
            #""tracker.com":{"domain":"tracker.com","default":"block","owner":{"name":"Tracker Inc"},"rules":[{"rule":"#
            + #""tracker\\.com/widget","action":"block-ctl-w"},{"rule":"tracker\\.com/other-ctl","action":"#
            + #""block-ctl-x"}]}"#,
        entities: #"{"Tracker Inc":{"domains":["tracker.com","tracker-site.com"]}}"#,
        domains: #"{"tracker.com":"Tracker Inc","tracker-site.com":"Tracker Inc"}"#)

    private func config(_ features: String, top: String = "") throws -> (PrivacyConfig, [DecodeIssue]) {
        try PrivacyConfig.decode(bytes: Array("{\(top)\"features\":{\(features)}}".utf8), source: "config.json")
    }

    private let enabled = #""contentBlocking":{"state":"enabled","exceptions":[{"domain":"cb-exception.com"}]}"#

    private func blocked(_ rules: [ContentRule], _ url: String, on site: String, _ type: String = "image") -> Bool {
        WebKitSimulator(rules).isBlocked(SimRequest(url: url, siteURL: site, type: type))
    }

    // MARK: feature state

    func testDisabledContentBlockingBlocksNothingInBothModes() throws {
        for state in [#""state":"disabled""#, #""state":"preview""#, ""] {
            let (c, _) = try config(
                #""contentBlocking":{\#(state)},"requestBlocklist":{"state":"enabled","settings":{"blockedRequests":"#
                    + #"{"rb.com":{"rules":[{"rule":"rb.com/x","domains":["<all>"]}]}}}}"#
            )
            for mode in RuleBuildMode.allCases {
                let r = RuleBuilder.build(tds: tds, config: c, mode: mode)
                XCTAssertEqual(r.rules.count, 1, "\(state) \(mode)")
                XCTAssertEqual(r.rules.first?.action, .ignorePreviousRules)
                XCTAssertTrue(r.clickToLoadLists.isEmpty)
                XCTAssertFalse(blocked(r.rules, "https://tracker.com/a.js", on: "https://news.com/", "script"))
                XCTAssertFalse(blocked(r.rules, "https://rb.com/x", on: "https://news.com/"))
                XCTAssertTrue(r.issues.contains { $0.message.contains("blocks nothing") })
            }
        }
        let (on, _) = try config(enabled)
        XCTAssertTrue(
            blocked(
                RuleBuilder.build(tds: tds, config: on).rules, "https://tracker.com/a.js", on: "https://news.com/",
                "script"))
    }

    func testDisabledRequestBlocklistAndClickToLoadAddNothing() throws {
        let (c, _) = try config(
            enabled
                + #","requestBlocklist":{"state":"disabled","settings":{"blockedRequests":{"rb.com":{"rules":[{"rule":"#
                + #""rb.com/x","domains":["<all>"]}]}}}},"clickToLoad":{"state":"disabled","settings":{"Tracker "#
                + #"Inc":{"state":"enabled","ruleActions":["block-ctl-w"]}}}"#
        )
        let r = RuleBuilder.build(tds: tds, config: c)
        XCTAssertFalse(blocked(r.rules, "https://rb.com/x", on: "https://news.com/"))
        XCTAssertTrue(r.clickToLoadLists.isEmpty)
        XCTAssertFalse(
            blocked(r.rules, "https://tracker.com/widget", on: "https://news.com/", "script"),
            "an unsupported action is not blocked")
    }

    // MARK: exception scope: every kind covers subdomains

    func testEveryKindOfExceptionCoversSubdomains() throws {
        let (c, _) = try config(
            enabled + ","
                + #""requestBlocklist":{"state":"enabled","exceptions":[{"domain":"rb-exception.com"}],"settings":"#
                + #"{"blockedRequests":{"rb.com":{"rules":[{"rule":"rb.com/x","domains":["<all>"]}]}}}},"#
                + #""trackerAllowlist":{"state":"enabled","exceptions":[{"domain":"al-exception.com"}],"settings":"#
                + #"{"allowlistedTrackers":{"tracker.com":{"rules":[{"rule":"tracker.com/lib.js","domains":"#
                + #"["<all>"]}]}}}},"#
                + #""clickToLoad":{"state":"enabled","exceptions":[{"domain":"ctl-exception.com"}],"settings":"#
                + #"{"Tracker Inc":{"state":"enabled","ruleActions":["block-ctl-w"]}}}"#,
            top: #""unprotectedTemporary":[{"domain":"temp.com"}],"#)
        for mode in RuleBuildMode.allCases {
            let r = RuleBuilder.build(
                tds: tds, config: c, unprotectedSites: UnprotectedSites(hosts: ["user.com"]), mode: mode)
            for site in ["temp.com", "cb-exception.com", "user.com"] {
                for host in [site, "sub." + site, "a.b." + site] {
                    XCTAssertFalse(
                        blocked(r.rules, "https://tracker.com/a.js", on: "https://\(host)/", "script"),
                        "\(mode) \(host)")
                    XCTAssertFalse(blocked(r.rules, "https://rb.com/x", on: "https://\(host)/"), "\(mode) \(host)")
                }
            }
            for host in ["rb-exception.com", "sub.rb-exception.com"] {
                XCTAssertFalse(blocked(r.rules, "https://rb.com/x", on: "https://\(host)/"), "\(mode) \(host)")
                XCTAssertTrue(
                    blocked(r.rules, "https://tracker.com/a.js", on: "https://\(host)/", "script"),
                    "the request blocklist's exception only")
            }
            XCTAssertTrue(blocked(r.rules, "https://rb.com/x", on: "https://news.com/"))
            let ctl = try XCTUnwrap(r.clickToLoadLists.first)
            XCTAssertTrue(blocked(ctl.rules, "https://tracker.com/widget", on: "https://news.com/", "script"))
            for host in [
                "ctl-exception.com", "sub.ctl-exception.com", "temp.com", "sub.user.com", "www.tracker-site.com",
            ] {
                XCTAssertFalse(
                    blocked(ctl.rules, "https://tracker.com/widget", on: "https://\(host)/", "script"),
                    "\(mode) \(host)")
            }
        }
        // The allowlist's own exceptions (faithful mode; ddg mode keeps TrackerRadarKit, which ignores them).
        let faithful = RuleBuilder.build(tds: tds, config: c).rules
        XCTAssertFalse(blocked(faithful, "https://tracker.com/lib.js", on: "https://news.com/", "script"))
        for host in ["al-exception.com", "sub.al-exception.com"] {
            XCTAssertTrue(blocked(faithful, "https://tracker.com/lib.js", on: "https://\(host)/", "script"), host)
        }
    }

    // MARK: request blocklist

    func testRequestBlocklistMatching() throws {
        let (c, issues) = try config(
            enabled + #","requestBlocklist":{"state":"enabled","settings":{"blockedRequests":{"rb.com":{"rules":["#
                + #"{"rule":"rb.com/a*/b","domains":["<all>"],"reason":"r"},{"rule":"rb.com:8080/p","domains":"#
                + #"["<all>"]},"#
                + #"{"rule":"rb.com/Case","domains":["site.com","x.other.com"]},{"rule":"rb.com/q*z","domains":"#
                + #"["<all>"]}]}}}}"#
        )
        XCTAssertEqual(issues, [])
        for mode in RuleBuildMode.allCases {
            let r = RuleBuilder.build(tds: tds, config: c, mode: mode)
            let rules = r.rules
            XCTAssertTrue(blocked(rules, "https://rb.com/a/x/b", on: "https://news.com/"))
            XCTAssertTrue(
                blocked(rules, "https://sub.rb.com/a/b/more", on: "https://news.com/"), "subdomains and the open end")
            XCTAssertTrue(blocked(rules, "https://rb.com/a/b", on: "https://rb.com/"), "first party too")
            XCTAssertFalse(blocked(rules, "https://notrb.com/a/b", on: "https://news.com/"))
            XCTAssertTrue(blocked(rules, "https://rb.com:8080/p", on: "https://news.com/"))
            XCTAssertFalse(blocked(rules, "https://rb.com/p", on: "https://news.com/"), "the written port only")
            XCTAssertTrue(blocked(rules, "https://rb.com/Case", on: "https://www.site.com/"))
            XCTAssertFalse(blocked(rules, "https://rb.com/case", on: "https://site.com/"), "the path is case-sensitive")
            XCTAssertTrue(blocked(rules, "https://rb.com/Case", on: "https://a.x.other.com/"))
            XCTAssertFalse(blocked(rules, "https://rb.com/Case", on: "https://other.com/"))
            XCTAssertTrue(blocked(rules, "https://rb.com/q?y=z", on: "https://news.com/"), "the query is matched")
            XCTAssertFalse(
                blocked(rules, "https://rb.com/a/b", on: "https://rb.com/a/b", "top-document"), "never a navigation")
            let names = zip(rules, r.provenance).filter { $0.1.source == .requestBlocklist && $0.0.action == .block }
                .compactMap { $0.1.jsonValue["name"]?.stringValue }
            XCTAssertEqual(
                names,
                [
                    "requestBlocklist/rb.com/0", "requestBlocklist/rb.com/1", "requestBlocklist/rb.com/2",
                    "requestBlocklist/rb.com/3",
                ])
        }
    }

    func testEveryInvalidRequestBlocklistEntryIsSkippedAndReported() throws {
        let entries: [(String, String, String)] = [
            (#"{"rule":"rb.com/.*/(a|b)","domains":["<all>"]}"#, "rules[0].rule", "regex or adblock syntax"),
            (#"{"rule":"||rb.com^x","domains":["<all>"]}"#, "rules[1].rule", "adblock filter syntax"),
            (#"{"rule":"rb.com/no-domains"}"#, "rules[2].domains", "missing \"domains\""),
            (#"{"rule":"rb.com/extra","domains":["<all>"],"unknown":1}"#, "rules[3].unknown", "unknown key"),
            (#"{"rule":"rb.com:443/p","domains":["<all>"]}"#, "rules[4].rule", "default port"),
            (#"{"rule":"other.com/p","domains":["<all>"]}"#, "rules[5].rule", "not under rb.com"),
            (#"{"domains":["<all>"]}"#, "rules[6].rule", "missing \"rule\""),
            (#"{"rule":"rb.com/p","domains":[]}"#, "rules[7].domains", "non-empty array"),
            (#""not an object""#, "rules[8]", "expected an object"),
        ]
        let json =
            enabled + #","requestBlocklist":{"state":"enabled","settings":{"blockedRequests":{"rb.com":{"rules":["#
            + entries.map(\.0).joined(separator: ",")
            + #"]},"sub.rb.com":{"rules":[{"rule":"sub.rb.com/s","domains":["<all>"]}]}}}}"#
        let (c, issues) = try config(json)
        XCTAssertEqual(c.requestBlocklist.rules, [], "every entry is invalid")
        XCTAssertEqual(issues.count, entries.count + 1)
        for (i, (_, path, words)) in entries.enumerated() {
            XCTAssertEqual(
                issues[i].path?.description, #"$.features.requestBlocklist.settings.blockedRequests["rb.com"]."# + path)
            XCTAssertTrue(
                issues[i].message.contains(words) && issues[i].message.hasSuffix("rule skipped"), issues[i].message)
        }
        XCTAssertEqual(
            issues.last?.path?.description, #"$.features.requestBlocklist.settings.blockedRequests["sub.rb.com"]"#)
        XCTAssertTrue(issues.last!.message.contains("registrable domain"))
        let rules = RuleBuilder.build(tds: tds, config: c).rules
        for path in ["/p", "/no-domains", "/extra", "/s", "/x"] {
            XCTAssertFalse(blocked(rules, "https://sub.rb.com" + path, on: "https://news.com/"), path)
        }
        XCTAssertThrowsError(
            try PrivacyConfig.decode(bytes: Array("{\"features\":{\(json)}}".utf8), source: "c.json", strict: true))
    }

    // MARK: click-to-load

    func testClickToLoadListsSplitTheBlocks() throws {
        let (c, _) = try config(
            enabled
                + #","clickToLoad":{"state":"enabled","settings":{"Tracker Inc":{"state":"enabled","ruleActions":"#
                + #"["block-ctl-w","block-ctl-x"]}}}"#
        )
        for mode in RuleBuildMode.allCases {
            let r = RuleBuilder.build(tds: tds, config: c, mode: mode)
            XCTAssertEqual(r.clickToLoadLists.map(\.ruleAction), ["block-ctl-w", "block-ctl-x"])
            XCTAssertEqual(r.clickToLoadLists.map(\.entity), ["Tracker Inc", "Tracker Inc"])
            let w = r.clickToLoadLists[0].rules, x = r.clickToLoadLists[1].rules
            XCTAssertTrue(blocked(w, "https://tracker.com/widget", on: "https://news.com/", "script"))
            XCTAssertFalse(
                blocked(w, "https://tracker.com/other-ctl", on: "https://news.com/", "script"),
                "another action's list blocks that")
            XCTAssertTrue(blocked(x, "https://tracker.com/other-ctl", on: "https://news.com/", "script"))
            XCTAssertFalse(
                blocked(x, "https://tracker.com/a.js", on: "https://news.com/", "script"),
                "the default is the main list's")
            XCTAssertEqual(r.clickToLoadLists[0].rules.count, r.clickToLoadLists[0].provenance.count)
        }
        let main = RuleBuilder.build(tds: tds, config: c).rules
        XCTAssertFalse(
            blocked(main, "https://tracker.com/widget", on: "https://news.com/", "script"),
            "dropping the list unblocks it")
        XCTAssertTrue(blocked(main, "https://tracker.com/a.js", on: "https://news.com/", "script"))
    }
}
