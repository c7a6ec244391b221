// faithful mode, one semantic point per test, on small TDS fixtures written for these tests. Every expectation is
// checked through the WebKit model (WebKitSimulator): what matters is what WebKit does with the rules.

import ContentRules
import Provenance
import RuleBuilder
import StrictJSON
import TrackerData
import XCTest

final class FaithfulModeTests: XCTestCase {
    private let entities =
        #"{"Tracker Inc":{"domains":["tracker.com","tracker-cdn.net"]},"Site Co":{"domains":["site.com"]}}"#
    private let domains = #"{"tracker.com":"Tracker Inc","tracker-cdn.net":"Tracker Inc","site.com":"Site Co"}"#

    private func build(
        _ trackers: String, cnames: String = "{}", config: PrivacyConfig? = nil,
        unprotected: [String] = []
    ) -> (RuleBuildResult, WebKitSimulator) {
        let tds = TDSFixture.tds(trackers: trackers, entities: entities, domains: domains, cnames: cnames)
        let result = RuleBuilder.build(
            tds: tds, config: config, unprotectedSites: UnprotectedSites(hosts: unprotected), mode: .faithful)
        XCTAssertEqual(result.rules.count, result.provenance.count)
        return (result, WebKitSimulator(result.rules))
    }

    private func tracker(
        _ def: String, domain: String = "tracker.com", rules: String = "", owner: String = "Tracker Inc"
    ) -> String {
        "\"\(domain)\":{\"domain\":\"\(domain)\",\"default\":\"\(def)\",\"owner\":{\"name\":\"\(owner)\"},\"rules\":"
            + "[\(rules)]}"
    }

    /// Asserts nothing itself: every caller wraps it in XCTAssertTrue/False, which report the caller's line.
    private func blocked(
        _ sim: WebKitSimulator, _ url: String, on site: String = "https://news.example/", _ type: String = "script"
    ) -> Bool {
        sim.isBlocked(SimRequest(url: url, siteURL: site, type: type))
    }

    func testFirstMatchingRuleWins() {
        // An earlier, more specific rule wins over a later, more general one (WebKit alone would let the later win).
        let (_, sim) = build(
            tracker("block", rules: #"{"rule":"tracker\\.com/ads/ok","action":"ignore"},{"rule":"tracker\\.com/ads"}"#)
                + ","
                + tracker(
                    "ignore", domain: "tracker-cdn.net",
                    rules: #"{"rule":"tracker-cdn\\.net/a","action":"ignore"},{"rule":"tracker-cdn\\.net/a/b"}"#))
        XCTAssertFalse(blocked(sim, "https://tracker.com/ads/ok.js"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/ads/bad.js"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/other"))
        XCTAssertFalse(blocked(sim, "https://tracker-cdn.net/a/b.js"), "the earlier ignore shadows the later block")
        XCTAssertFalse(blocked(sim, "https://tracker-cdn.net/zzz"))
    }

    func testOptionsThatDoNotMatchFallThrough() {
        let (_, sim) = build(
            tracker(
                "ignore",
                rules: """
                    {"rule":"tracker\\\\.com/s","options":{"domains":["a.com"]}},
                    {"rule":"tracker\\\\.com/script\\\\.js","action":"ignore","options":{"types":["image"]}},
                    {"rule":"tracker\\\\.com/script"}
                    """))
        XCTAssertTrue(blocked(sim, "https://tracker.com/s.js", on: "https://www.a.com/"), "options match")
        XCTAssertFalse(blocked(sim, "https://tracker.com/s.js", on: "https://b.com/"), "falls through to the default")
        XCTAssertTrue(
            blocked(sim, "https://tracker.com/script.js", on: "https://b.com/"),
            "falls through twice, then rule 3 blocks")
        XCTAssertFalse(
            blocked(sim, "https://tracker.com/script.js", on: "https://b.com/", "image"),
            "rule 2 (ignore for images) matches")
        XCTAssertFalse(
            blocked(sim, "https://tracker.com/s.js", on: "https://nota.com/"), "a.com is not a suffix of nota.com")
    }

    func testExceptionsApplyOnlyWhereTheirRuleMatched() {
        let (result, sim) = build(
            tracker(
                "block",
                rules: """
                    {"rule":"tracker\\\\.com/p","options":{"domains":["a.com"],"types":["image","script"]},\
                    "exceptions":{"domains":["x.a.com","b.com"],"types":["image"]}},
                    {"rule":"tracker\\\\.com/q","exceptions":{"types":["stylesheet"]}}
                    """))
        XCTAssertTrue(blocked(sim, "https://tracker.com/p", on: "https://a.com/", "image"))
        XCTAssertFalse(
            blocked(sim, "https://tracker.com/p", on: "https://x.a.com/", "image"), "options and exceptions hold")
        XCTAssertTrue(
            blocked(sim, "https://tracker.com/p", on: "https://x.a.com/", "script"), "exception types do not hold")
        XCTAssertTrue(
            blocked(sim, "https://tracker.com/p", on: "https://b.com/", "image"),
            "options do not hold for b.com, so the exception does not either: the default blocks")
        XCTAssertFalse(blocked(sim, "https://tracker.com/q", on: "https://b.com/", "stylesheet"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/q", on: "https://b.com/", "image"))
        // The exception's if-domain is the intersection (x.a.com), not b.com.
        let exception = result.rules.indices.first {
            result.provenance[$0].part == .rule(0) && result.provenance[$0].roleText?.hasPrefix("exception") == true
        }
        XCTAssertEqual(
            exception.flatMap { result.rules[$0].trigger.condition },
            .init(.ifTopURL, [#"^[^:]+://([^/]*\.)?x\.a\.com[:/]"#]))
        XCTAssertEqual(exception.flatMap { result.rules[$0].trigger.resourceTypes }, ["image"])
    }

    func testSiteConditionsJudgeTheTopURLsOwnHost() {
        // WebKit's if-domain would also hold when the site is only named later in the top URL; faithful's anchored
        // top-URL conditions judge the page's own host (TopSiteConditions.swift).
        let (result, sim) = build(tracker("block"), unprotected: ["broken.example"])
        XCTAssertFalse(
            result.rules.contains { $0.trigger.condition?.kind.isDomainList == true },
            "no if-domain / unless-domain left")
        XCTAssertFalse(
            blocked(sim, "https://tracker.com/t.js", on: "https://www.tracker-cdn.net/"), "same entity: first party")
        XCTAssertTrue(
            blocked(sim, "https://tracker.com/t.js", on: "https://news.example/?next=https://www.tracker-cdn.net/"),
            "an entity domain in the query does not make the page the entity's")
        XCTAssertFalse(
            blocked(sim, "https://tracker.com/t.js", on: "https://u:p@shop.broken.example:8443/a"),
            "user-unprotected site, subdomain")
        XCTAssertTrue(blocked(sim, "https://tracker.com/t.js", on: "https://news.example/r?u=https://broken.example/"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/t.js", on: "https://broken.example.news.example/"))
        XCTAssertFalse(blocked(sim, "https://tracker.com/t.js", on: "web3site://broken.example/"), "any scheme")
    }

    func testTheTrackersOwnSiteNeedsNoSameEntityCondition() {
        // load-type third-party already exempts pages of the tracker's own site: the exemption names only the
        // entity's other sites, and a tracker whose entity has no other site gets no exemption rule at all.
        let (result, sim) = build(tracker("block") + "," + tracker("block", domain: "site.com", owner: "Site Co"))
        let exemptions = result.rules.indices.filter { result.provenance[$0].role == .sameEntity }
        XCTAssertEqual(
            exemptions.map { result.provenance[$0].tracker }, ["tracker.com"], "Site Co has no site but site.com")
        XCTAssertEqual(
            exemptions.first.flatMap { result.rules[$0].trigger.condition },
            .init(.ifTopURL, [#"^[^:]+://([^/]*\.)?tracker-cdn\.net[:/]"#]))
        XCTAssertFalse(blocked(sim, "https://cdn.tracker.com/t.js", on: "https://www.tracker.com/"))
        XCTAssertFalse(blocked(sim, "https://cdn.tracker.com/t.js", on: "https://tracker-cdn.net/"))
        XCTAssertTrue(blocked(sim, "https://cdn.tracker.com/t.js", on: "https://news.example/"))
        XCTAssertFalse(blocked(sim, "https://a.site.com/t.js", on: "https://b.site.com/"))
        XCTAssertTrue(blocked(sim, "https://a.site.com/t.js", on: "https://tracker.com/"))
    }

    func testAnEntitysTrackersShareOneExemptionAndDecideAsWithOnePerTracker() {
        // Rot owns four trackers and a fifth site; CDN's tracker sits under one of Rot's, and one of Rot's under
        // Host's (it cannot move to the front, so it keeps its own exemption).
        let entities =
            #"{"Rot":{"domains":["r1.com","r2.net","r3.org","r4.io","rot-home.com"]},"CDN":{"domains":["cdn-co.com"]},"#
            + #""Host":{"domains":["host.com"]}}"#
        let domains =
            #"{"r1.com":"Rot","r2.net":"Rot","r3.org":"Rot","r4.io":"Rot","rot-home.com":"Rot","cdn.r1.com":"CDN","#
            + #""cdn-co.com":"CDN","host.com":"Host","r.host.com":"Rot"}"#
        let trackers = [
            tracker("block", domain: "r1.com", owner: "Rot"), tracker("block", domain: "r2.net", owner: "Rot"),
            tracker(
                "ignore", domain: "r3.org", rules: #"{"rule":"r3\\.org/ad"},{"rule":"r3\\.org/ok","action":"ignore"}"#,
                owner: "Rot"),
            tracker("block", domain: "r4.io", owner: "Rot"), tracker("block", domain: "cdn.r1.com", owner: "CDN"),
            tracker("ignore", domain: "host.com", owner: "Host"), tracker("block", domain: "r.host.com", owner: "Rot"),
            tracker("block", domain: "cdn-co.com", owner: "CDN"),
        ].joined(separator: ",")
        let tds = TDSFixture.tds(trackers: trackers, entities: entities, domains: domains, cnames: "{}")
        let shared = RuleBuilder.build(tds: tds, mode: .faithful)
        let perTracker = RuleBuilder.build(tds: tds, mode: .faithful, sameEntity: .perTracker)

        let exemption = shared.provenance.firstIndex { $0.isSharedEntityExemption }
        XCTAssertEqual(exemption.map { shared.provenance[$0].entity }, "Rot")
        XCTAssertEqual(
            shared.provenance[..<(exemption ?? 0)].compactMap(\.tracker),
            ["r1.com", "r2.net", "r3.org", "r3.org", "r3.org", "r3.org", "r4.io"],
            "Rot's movable trackers lead the list (r3.org: its two rules, host and in-URL form each)")
        XCTAssertEqual(exemption.map { shared.rules[$0].trigger.urlFilter }, ".*")
        XCTAssertEqual(
            exemption.flatMap { shared.rules[$0].trigger.condition?.values.count }, 6, "each of Rot's sites once")
        XCTAssertEqual(
            shared.provenance.filter { $0.role == .sameEntity && $0.tracker != nil }.compactMap(\.tracker),
            ["cdn-co.com", "cdn.r1.com", "r.host.com"], "the others keep their own, parents first")
        XCTAssertFalse(perTracker.provenance.contains { $0.isSharedEntityExemption })

        let (a, b) = (WebKitSimulator(shared.rules), WebKitSimulator(perTracker.rules))
        let hosts = [
            "r1.com", "www.r2.net", "r3.org", "r4.io", "cdn.r1.com", "x.cdn.r1.com", "host.com", "r.host.com",
            "cdn-co.com",
        ]
        let sites = hosts + ["rot-home.com", "www.rot-home.com", "news.example", "news.example/?u=https://r1.com/"]
        var decided = Set<Bool>()
        for host in hosts {
            for path in ["/", "/ad/x.js", "/ok/y.js"] {
                for site in sites {
                    let request = SimRequest(url: "https://\(host)\(path)", siteURL: "https://\(site)", type: "script")
                    XCTAssertEqual(a.isBlocked(request), b.isBlocked(request), "\(request)")
                    decided.insert(a.isBlocked(request))
                }
            }
        }
        XCTAssertEqual(decided, [true, false], "the grid holds blocked and allowed requests")
        XCTAssertFalse(a.isBlocked(SimRequest(url: "https://r1.com/a.js", siteURL: "https://r2.net/", type: "script")))
        XCTAssertTrue(
            a.isBlocked(SimRequest(url: "https://cdn.r1.com/a.js", siteURL: "https://r2.net/", type: "script")))
    }

    func testATrackerOnAPublicSuffixKeepsItsSameEntityCondition() {
        // blogspot.com is a public suffix: a.blogspot.com and b.blogspot.com are different sites to WebKit, so only
        // the exemption keeps the entity's own pages from blocking it.
        let entities = #"{"Blog Co":{"domains":["blogspot.com"]}}"#
        let tds = TDSFixture.tds(
            trackers: tracker("block", domain: "blogspot.com", owner: "Blog Co"), entities: entities,
            domains: #"{"blogspot.com":"Blog Co"}"#, cnames: "{}")
        let result = RuleBuilder.build(tds: tds, mode: .faithful)
        let sim = WebKitSimulator(result.rules)
        XCTAssertTrue(result.provenance.contains { $0.role == .sameEntity })
        XCTAssertFalse(blocked(sim, "https://b.blogspot.com/t.js", on: "https://a.blogspot.com/"))
        XCTAssertTrue(blocked(sim, "https://b.blogspot.com/t.js", on: "https://news.example/"))
    }

    func testPortsAreIgnored() {
        let (_, sim) = build(
            tracker("ignore", rules: #"{"rule":"tracker\\.com/track"},{"rule":"tracker\\.com"}"#)
                + ","
                + tracker(
                    "block", domain: "tracker-cdn.net", rules: #"{"rule":"tracker-cdn\\.net\\/ok","action":"ignore"}"#))
        XCTAssertTrue(blocked(sim, "https://cdn.tracker.com:8443/track.js"))
        XCTAssertTrue(blocked(sim, "http://tracker.com:8080/other"), "a rule without a path")
        XCTAssertFalse(blocked(sim, "https://tracker-cdn.net:8080/ok"))
        XCTAssertTrue(blocked(sim, "https://tracker-cdn.net:8080/bad"))
    }

    func testRulesAreScopedToTheTrackersHosts() {
        let (_, sim) = build(
            tracker("ignore", rules: #"{"rule":"tracker\\.com/ads"},{"rule":"format.com/x"}"#)
                + "," + tracker("ignore", domain: "format.com", rules: #"{"rule":"format.com/x"}"#, owner: "Format"))
        XCTAssertFalse(blocked(sim, "https://nottracker.com/ads.js"), "not a tracker host")
        XCTAssertFalse(blocked(sim, "https://tracker.com.evil.example/ads.js"))
        XCTAssertTrue(blocked(sim, "https://a.b.tracker.com/ads.js"))
        XCTAssertTrue(blocked(sim, "https://format.com/x"))
        XCTAssertFalse(blocked(sim, "https://formatXcom/x"), "an unescaped dot never leaves the tracker's hosts")
    }

    func testRegexIsFoundAnywhereInTheURL() {
        // TDS rules are unanchored regexes over the whole URL.
        let (result, sim) = build(tracker("block", rules: #"{"rule":"tracker\\.com/ok","action":"ignore"}"#))
        XCTAssertFalse(blocked(sim, "https://tracker.com/x?next=https://tracker.com/ok"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/x?next=https://elsewhere.com/ok"))
        XCTAssertTrue(result.provenance.contains { $0.roleText == "ignore in-url" })
    }

    func testSubdomainPartOfARuleMatchesFromAnyPosition() {
        let (_, sim) = build(tracker("ignore", rules: #"{"rule":"sub1.sub2\\.tracker\\.com/t\\.js"}"#))
        XCTAssertTrue(blocked(sim, "https://sub1.sub2.tracker.com/t.js"))
        XCTAssertTrue(blocked(sim, "https://a.sub1xsub2.tracker.com/t.js"), "unescaped dot")
        XCTAssertTrue(
            blocked(sim, "https://xsub1.sub2.tracker.com/t.js"), "unanchored: the match may start inside a label")
        XCTAssertFalse(blocked(sim, "https://sub2.tracker.com/t.js"))
    }

    func testTheCNAMECopiesOfALeadingEntitysTrackersShareItsExemption() {
        let entities =
            #"{"Rot":{"domains":["r1.com","r2.net","rot-home.com"]},"CDN":{"domains":["cdn-co.com"]},"#
            + #""Client":{"domains":["client.com"]}}"#
        let domains =
            #"{"r1.com":"Rot","r2.net":"Rot","rot-home.com":"Rot","cdn-co.com":"CDN","client.com":"Client"}"#
        let trackers = [
            tracker("block", domain: "r1.com", rules: #"{"rule":"r1\\.com/ok","action":"ignore"}"#, owner: "Rot"),
            tracker("block", domain: "r2.net", owner: "Rot"), tracker("block", domain: "cdn-co.com", owner: "CDN"),
        ].joined(separator: ",")
        let cnames = #"{"m.client.com":"x.r1.com","n.client.com":"cdn-co.com","o.client.com":"r2.net"}"#
        let tds = TDSFixture.tds(trackers: trackers, entities: entities, domains: domains, cnames: cnames)
        let shared = RuleBuilder.build(tds: tds, mode: .faithful)
        let perTracker = RuleBuilder.build(tds: tds, mode: .faithful, sameEntity: .perTracker)

        let exemption = shared.provenance.firstIndex { $0.isSharedEntityExemption } ?? 0
        XCTAssertEqual(shared.provenance[exemption].entity, "Rot")
        XCTAssertEqual(
            Set(shared.provenance[..<exemption].compactMap(\.cnameAlias)), ["m.client.com", "o.client.com"],
            "the copies of Rot's trackers precede the shared exemption")
        XCTAssertEqual(
            shared.provenance.filter { $0.role == .sameEntity && !$0.isSharedEntityExemption }.map(\.cnameAlias),
            ["n.client.com"], "CDN's copy keeps its own (its tracker needs none on its only site)")

        let (a, b) = (WebKitSimulator(shared.rules), WebKitSimulator(perTracker.rules))
        let hosts = ["m.client.com", "n.client.com", "o.client.com", "x.m.client.com", "r1.com", "cdn-co.com"]
        let sites = ["r1.com", "www.rot-home.com", "cdn-co.com", "client.com", "news.example"]
        var decided = Set<Bool>()
        for host in hosts {
            for path in ["/", "/ok/y.js"] {
                for site in sites {
                    let request = SimRequest(url: "https://\(host)\(path)", siteURL: "https://\(site)/", type: "script")
                    XCTAssertEqual(a.isBlocked(request), b.isBlocked(request), "\(request)")
                    decided.insert(a.isBlocked(request))
                }
            }
        }
        XCTAssertEqual(decided, [true, false], "the grid holds blocked and allowed requests")
        XCTAssertFalse(
            a.isBlocked(SimRequest(url: "https://m.client.com/c", siteURL: "https://rot-home.com/", type: "script")))
        XCTAssertTrue(
            a.isBlocked(SimRequest(url: "https://m.client.com/c", siteURL: "https://client.com/", type: "script")))
    }

    func testCNAMECloakedRequestsUseTheRealTrackersRules() {
        let (result, sim) = build(
            tracker(
                "block",
                rules:
                    #"{"rule":"tracker\\.com/breakage","action":"ignore"},{"rule":"x\\.tracker\\.com/only-x","action":"#
                    + #""ignore"},{"rule":"y\\.tracker\\.com/only-y","action":"ignore"}"#
            )
                + "," + tracker("ignore", domain: "tracker-cdn.net"),
            cnames: #"{"metrics.site.com":"x.tracker.com","other.tracker-cdn.net":"x.tracker.com"}"#)
        XCTAssertTrue(
            blocked(sim, "https://metrics.site.com/collect", on: "https://site.com/"),
            "first party by URL, tracker by CNAME")
        XCTAssertTrue(blocked(sim, "https://metrics.site.com:8080/collect", on: "https://news.example/"))
        XCTAssertFalse(
            blocked(sim, "https://metrics.site.com/breakage", on: "https://site.com/"),
            "the tracker's ignore rule, on the alias")
        XCTAssertFalse(
            blocked(sim, "https://metrics.site.com/only-x", on: "https://site.com/"),
            "the rule's host part matches the cloaked target")
        XCTAssertTrue(
            blocked(sim, "https://metrics.site.com/only-y", on: "https://site.com/"), "this rule names another host")
        XCTAssertFalse(
            blocked(sim, "https://sub.metrics.site.com/collect", on: "https://site.com/"),
            "only the exact alias is uncloaked")
        XCTAssertFalse(
            blocked(sim, "https://metrics.site.com/collect", on: "https://tracker.com/"),
            "same entity as the cloaked tracker")
        // An alias under a tracker is judged as that tracker; it gets no CNAME rules.
        XCTAssertFalse(result.provenance.contains { $0.cnameAlias == "other.tracker-cdn.net" })
        XCTAssertTrue(result.issues.contains { $0.message.contains("alias is itself under tracker tracker-cdn.net") })
        XCTAssertTrue(result.provenance.contains { $0.cnameAlias == "metrics.site.com" && $0.part == .rule(0) })
    }

    func testSameEntityIsFirstParty() {
        let (_, sim) = build(tracker("block", rules: #"{"rule":"tracker\\.com/x"}"#))
        XCTAssertFalse(blocked(sim, "https://tracker.com/x", on: "https://www.tracker-cdn.net/"))
        XCTAssertFalse(blocked(sim, "https://tracker.com/y", on: "https://tracker.com/"), "same site")
        XCTAssertTrue(blocked(sim, "https://tracker.com/x", on: "https://site.com/"))
    }

    func testLongestTrackerHostWins() {
        let (_, sim) = build(
            tracker("block", rules: #"{"rule":"tracker\\.com/a"}"#)
                + ","
                + tracker(
                    "ignore", domain: "cdn.tracker.com", rules: #"{"rule":"cdn\\.tracker\\.com/b"}"#, owner: "CDN")
                + ","
                + tracker(
                    "block", domain: "img.tracker.com", rules: #"{"rule":"img\\.tracker\\.com/ok","action":"ignore"}"#,
                    owner: "Img"))
        XCTAssertFalse(
            blocked(sim, "https://cdn.tracker.com/a"), "cdn.tracker.com decides (default ignore), not tracker.com")
        XCTAssertFalse(blocked(sim, "https://x.cdn.tracker.com/zzz"))
        XCTAssertTrue(blocked(sim, "https://cdn.tracker.com/b"))
        XCTAssertTrue(blocked(sim, "https://www.tracker.com/a"))
        XCTAssertFalse(blocked(sim, "https://img.tracker.com/ok"))
        XCTAssertTrue(blocked(sim, "https://img.tracker.com/a"))
    }

    func testResourceTypesMapToWebKits() {
        let (result, sim) = build(
            tracker(
                "ignore",
                rules: """
                    {"rule":"tracker\\\\.com/xhr","options":{"types":["xmlhttprequest"]}},
                    {"rule":"tracker\\\\.com/frame","options":{"types":["subdocument","sub_frame"]}},
                    {"rule":"tracker\\\\.com/obj","options":{"types":["object"]}},
                    {"rule":"tracker\\\\.com/mixed","options":{"types":["object","image","first-party"]}}
                    """))
        XCTAssertTrue(blocked(sim, "https://tracker.com/xhr", on: "https://a.com/", "fetch"))
        XCTAssertFalse(blocked(sim, "https://tracker.com/xhr", on: "https://a.com/", "websocket"), "fetch, not raw")
        XCTAssertTrue(blocked(sim, "https://tracker.com/frame", on: "https://a.com/", "child-document"))
        XCTAssertFalse(blocked(sim, "https://tracker.com/obj", on: "https://a.com/", "image"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/mixed", on: "https://a.com/", "image"))
        XCTAssertFalse(
            result.rules.contains { $0.trigger.urlFilter.contains("obj") },
            "a rule for an unrecognisable type never matches")
        XCTAssertTrue(result.issues.contains { $0.kind == .neverApplies && $0.ruleIndex == 2 })
        XCTAssertTrue(
            result.issues.contains {
                $0.kind == .resourceType && $0.ruleIndex == 3 && $0.message.contains("first-party")
            })
        XCTAssertEqual(
            result.issues.first { $0.ruleIndex == 3 }.map { "\($0.location)" },
            #"tds $.trackers["tracker.com"].rules[3].options.types"#)
    }

    func testTopLevelNavigationsAndPopupsAreNeverBlocked() {
        let (_, sim) = build(tracker("block"), cnames: #"{"metrics.site.com":"x.tracker.com"}"#)
        XCTAssertFalse(blocked(sim, "https://tracker.com/", on: "https://news.example/", "popup"))
        XCTAssertFalse(blocked(sim, "https://metrics.site.com/", on: "https://metrics.site.com/", "top-document"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/", on: "https://news.example/", "subdocument"))
    }

    func testTempListUserSitesAndAllowlistWin() {
        let config = PrivacyConfig(
            contentBlockingExceptions: ["broken.com"],
            trackerAllowlist: TrackerAllowlist(
                enabled: true, state: "enabled",
                entries: [
                    AllowlistEntry(
                        trackerDomain: "tracker.com", rule: "tracker.com/widget/.*/w.js",
                        sites: .domains(["partner.com"])),
                    AllowlistEntry(trackerDomain: "tracker.com", rule: "cdn.tracker.com/api", sites: .all),
                    AllowlistEntry(trackerDomain: "tracker.com", rule: "https://login.tracker.com/sso", sites: .all),
                ]))
        let (result, sim) = build(tracker("block"), config: config, unprotected: ["www.mine.org"])
        XCTAssertFalse(
            blocked(sim, "https://tracker.com/x", on: "https://a.broken.com/"), "temp list covers subdomains")
        XCTAssertFalse(blocked(sim, "https://tracker.com/x", on: "https://www.mine.org/"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/x", on: "https://mine.org/"), "user sites are exact hosts")
        XCTAssertFalse(
            blocked(sim, "https://tracker.com/widget/v2/w.js", on: "https://shop.partner.com/"), ".* is a wildcard")
        XCTAssertTrue(blocked(sim, "https://tracker.com/widget/v2/w.js", on: "https://other.com/"))
        XCTAssertTrue(
            blocked(sim, "https://tracker.com/widget/v2?x=/w.js", on: "https://partner.com/"),
            "the query is not part of the match")
        XCTAssertFalse(blocked(sim, "https://a.cdn.tracker.com:8443/api/v1?q=1", on: "https://any.com/"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/api", on: "https://any.com/"))
        XCTAssertFalse(blocked(sim, "https://login.tracker.com/sso/start", on: "https://any.com/"))
        XCTAssertTrue(
            blocked(sim, "https://x.login.tracker.com/sso/start", on: "https://any.com/"),
            "a full-URL entry names one host")
        XCTAssertTrue(result.provenance.contains { $0.source == .allowlist && $0.allowlistIndex == 2 })
        XCTAssertEqual(result.provenance.last?.source, .topLevel)
    }

    func testDisabledAllowlistIsNotApplied() {
        let config = PrivacyConfig(
            trackerAllowlist: TrackerAllowlist(
                enabled: false, state: "disabled",
                entries: [
                    AllowlistEntry(trackerDomain: "tracker.com", rule: "tracker.com/a", sites: .all)
                ]))
        let (_, sim) = build(tracker("block"), config: config)
        XCTAssertTrue(blocked(sim, "https://tracker.com/a"))
    }

    func testRegexesOutsideWebKitsSubsetAreRewrittenOrReported() {
        let (result, sim) = build(
            tracker(
                "ignore",
                rules: """
                    {"rule":"tracker\\\\.com/(ads|track)/x"},
                    {"rule":"tracker\\\\.com/id\\\\d{2}\\\\.js"},
                    {"rule":"tracker\\\\.com/(?!safe)z"},
                    {"rule":"tracker\\\\.com/\\\\bword"},
                    {"rule":"tracker\\\\.com/ü"},
                    {"rule":"tracker\\\\.com/[unclosed"}
                    """))
        XCTAssertTrue(blocked(sim, "https://tracker.com/ads/x"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/track/x"))
        XCTAssertFalse(blocked(sim, "https://tracker.com/other/x"))
        XCTAssertTrue(blocked(sim, "https://tracker.com/id42.js"))
        XCTAssertFalse(blocked(sim, "https://tracker.com/id4.js"))
        for rule in result.rules {
            XCTAssertTrue(
                URLFilter.parse(rule.trigger.urlFilter, caseSensitive: false).status.isSupported, rule.trigger.urlFilter
            )
        }
        let byIndex = Dictionary(
            grouping: result.issues.filter { $0.tracker == "tracker.com" }, by: { $0.ruleIndex ?? -1 })
        XCTAssertEqual(byIndex[0]?.map(\.kind), [.rewrittenRegex])
        XCTAssertEqual(byIndex[1]?.map(\.kind), [.rewrittenRegex])
        XCTAssertEqual(byIndex[2]?.map(\.kind), [.unexpressibleRegex])
        XCTAssertTrue(byIndex[2]?.first?.message.contains("lookahead") == true)
        XCTAssertEqual(byIndex[3]?.map(\.kind), [.unexpressibleRegex])
        XCTAssertEqual(byIndex[4]?.map(\.kind), [.neverApplies])
        XCTAssertEqual(byIndex[5]?.map(\.kind), [.unexpressibleRegex])
        XCTAssertEqual(byIndex[5]?.first.map { "\($0.location)" }, #"tds $.trackers["tracker.com"].rules[5].rule"#)
    }

    func testDomainsAreNormalisedForWebKit() {
        let tds = TDSFixture.decode(
            """
            {"trackers":{"Tracker.COM":{"domain":"Tracker.COM","default":"block","owner":{"name":"T"},
               "rules":[{"rule":"tracker\\\\.com/a","options":{"domains":["Bücher.example","SHOP.com"]}}]}},
             "entities":{"T":{"domains":["Tracker.com","Bücher-T.example"]}},"domains":{}}
            """, allowIssues: true)
        let result = RuleBuilder.build(tds: tds, mode: .faithful)
        let conditionValues = result.rules.flatMap { $0.trigger.condition?.values ?? [] }
        XCTAssertTrue(conditionValues.contains(#"^[^:]+://([^/]*\.)?xn--bcher-kva\.example[:/]"#))
        XCTAssertTrue(conditionValues.contains(#"^[^:]+://([^/]*\.)?shop\.com[:/]"#))
        XCTAssertTrue(conditionValues.contains(#"^[^:]+://([^/]*\.)?xn--bcher-t-n2a\.example[:/]"#))
        for v in conditionValues { XCTAssertEqual(v, v.lowercased()); XCTAssertTrue(v.utf8.allSatisfy { $0 < 0x80 }) }
        XCTAssertTrue(
            result.rules.contains { $0.trigger.urlFilter.hasPrefix("^[^:]+://+([^:/]+\\.)?tracker\\.com[:/]") })
    }

    func testUnknownActionsAreReportedAndTheRuleDropped() throws {
        let (tds, issues) = try TrackerDataSet.decode(
            bytes: Array(
                """
                {"trackers":{"t.com":{"domain":"t.com","default":"ignore","owner":{"name":"T"},
                   "rules":[{"rule":"t\\\\.com/a","action":"unsupported-action"},{"rule":"t\\\\.com/b"}]}},"entities":{\
                },"domains":{}}
                """.utf8), source: "fixture")
        XCTAssertTrue(
            issues.contains { $0.description.contains("rules[0]") && $0.description.contains("unsupported-action") })
        let result = RuleBuilder.build(tds: tds, decodeIssues: issues)
        let sim = WebKitSimulator(result.rules)
        XCTAssertFalse(
            sim.isBlocked(SimRequest(url: "https://t.com/a", siteURL: "https://x.com/", type: "script")),
            "default ignore decides")
        XCTAssertTrue(sim.isBlocked(SimRequest(url: "https://t.com/b", siteURL: "https://x.com/", type: "script")))
        // Provenance names the rule by its index in the file, although the decoder dropped rule 0.
        let parts = Set(result.provenance.compactMap { $0.tracker == "t.com" ? $0.part : nil })
        XCTAssertTrue(parts.contains(.rule(1)) && !parts.contains(.rule(0)), "\(parts)")
    }

    func testEveryEmittedRuleIsValidForWebKit() throws {
        let tds = try Shared.tds(Shared.iosTDS)
        let config = try Shared.config(Shared.iosConfig)
        let result = RuleBuilder.build(tds: tds, config: config, mode: .faithful)
        let json = CanonicalRuleWriter.bytes(result.rules)
        let parsed = try RuleListParser.parse(bytes: json)
        XCTAssertEqual(parsed.rules.count, result.rules.count)
        for rule in result.rules {
            let status = URLFilter.parse(rule.trigger.urlFilter, caseSensitive: false).status
            XCTAssertTrue(status == .ok || (rule.trigger.urlFilter == ".*"), "\(rule.trigger.urlFilter): \(status)")
        }
        XCTAssertEqual(result.provenance.count, result.rules.count)
    }

    func testSameInputGivesTheSameBytes() throws {
        let path = try Shared.path(Shared.iosTDS)
        let config = try Shared.config(Shared.iosConfig)
        let (a, _) = try TrackerDataSet.load(path: path)
        let (b, _) = try TrackerDataSet.load(path: path)
        for mode in RuleBuildMode.allCases {
            let ra = RuleBuilder.build(tds: a, config: config, mode: mode)
            let rb = RuleBuilder.build(tds: b, config: config, mode: mode)
            XCTAssertEqual(CanonicalRuleWriter.bytes(ra.rules), CanonicalRuleWriter.bytes(rb.rules), "\(mode)")
            XCTAssertEqual(ra.provenance, rb.provenance)
            XCTAssertEqual(ra.issues, rb.issues)
        }
        // Key order in the input does not matter either.
        let t1 = TDSFixture.tds(
            trackers: tracker("block") + ","
                + tracker("ignore", domain: "tracker-cdn.net", rules: #"{"rule":"tracker-cdn\\.net/x"}"#))
        let t2 = TDSFixture.tds(
            trackers: tracker("ignore", domain: "tracker-cdn.net", rules: #"{"rule":"tracker-cdn\\.net/x"}"#) + ","
                + tracker("block"))
        XCTAssertEqual(
            CanonicalRuleWriter.bytes(RuleBuilder.build(tds: t1).rules),
            CanonicalRuleWriter.bytes(RuleBuilder.build(tds: t2).rules))
    }
}
