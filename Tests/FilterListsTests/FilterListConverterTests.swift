// The converter: the url-filters it writes, the order of blocks, exceptions and important blocks, what it
// reports, and the decisions radarblock's model of WebKit then takes on requests whose ABP answer is known.

import AdblockSyntax
import ContentRules
@testable import FilterLists
import RuleBuilder
import RuleEngine
import TestSupport
import TrackerData
import XCTest

final class FilterListConverterTests: XCTestCase {
    func convert(_ text: String, target: EngineProfile = .default) throws -> FilterListConversion {
        FilterListConverter.convert(try FilterListParser.parse(Array(text.utf8), name: "t.txt"), target: target)
    }

    func engine(_ conversion: FilterListConversion) throws -> RuleEngine {
        let json = CanonicalRuleWriter.bytes(conversion.rules)
        return RuleEngine(lists: [try LoadedRuleList.compiling(json: json)])
    }

    func blocks(
        _ e: RuleEngine, _ url: String, top: String = "https://site.test/", frame: String? = nil,
        type: String = "script"
    ) throws -> Bool {
        try e.match(MatchRequest(url: url, topURL: top, frameURL: frame, resourceType: type)).isBlocked
    }

    func testURLFilters() throws {
        let c = try convert(
            """
            ||ads.example.com^
            /ads^
            |https://x.com/a|
            ||cdn.example.com/*.js^
            -banner-$match-case
            ads^|
            """)
        XCTAssertEqual(
            c.rules.dropLast().map(\.trigger.urlFilter),
            [
                "^[^:]+://+(([^/]+(/<)?)+\\.)?ads\\.example\\.com[:/]", "\\/ads([^a-zA-Z0-9_.%-].*)?$",
                "^https:\\/\\/x\\.com\\/a$",
                "^[^:]+://+([^/]+\\.)?cdn\\.example\\.com\\/.*\\.js([^a-zA-Z0-9_.%-].*)?$",
                "-banner-", "ads[^a-zA-Z0-9_.%-]?$",
            ])
        XCTAssertEqual(
            c.rules.map(\.trigger.urlFilterIsCaseSensitive), [true, false, false, false, true, false, false])
        XCTAssertNil(c.rules[0].trigger.resourceTypes)
        XCTAssertEqual(c.rules.last?.trigger.resourceTypes, ["top-document", "popup"])
        XCTAssertEqual(c.rules.last?.action, .ignorePreviousRules)
    }

    /// ABP's answers: `^` is a separator or the end, `||` a host boundary, option-less filters leave the page's
    /// own document alone.
    func testSeparatorAndHostBoundary() throws {
        let e = try engine(try convert("||ads.example.com^\n/track^\n"))
        XCTAssertTrue(try blocks(e, "https://ads.example.com/x.js"))
        XCTAssertTrue(try blocks(e, "https://a.ads.example.com:8080/x.js"))
        XCTAssertFalse(try blocks(e, "https://badads.example.com/x.js"))
        XCTAssertFalse(try blocks(e, "https://ads.example.com.evil.test/x.js"))
        // The subdomain run may hold ":" (PatternURLFilter.hostStart), yet never crosses the port into the path.
        XCTAssertFalse(try blocks(e, "https://q.test:8080/ads.example.com/x.js"))
        XCTAssertFalse(try blocks(e, "https://q.test:8080/a.ads.example.com:1/x.js"))
        XCTAssertTrue(try blocks(e, "https://q.test/track"))
        XCTAssertTrue(try blocks(e, "https://q.test/track?x"))
        XCTAssertFalse(try blocks(e, "https://q.test/track.js"))
        XCTAssertFalse(try blocks(e, "https://q.test/track%20"))
        XCTAssertFalse(try blocks(e, "https://ads.example.com/", top: "https://ads.example.com/", type: "top-document"))
    }

    /// A `||HOST^` filter alone is written with HostPattern.onlyHostHead, its host lower-cased, case-sensitive
    /// (PatternURLFilter.ruleURLFilter); a host under $match-case with an upper-case letter, or a pattern that goes
    /// on past the host, keeps `hostStart`. The decisions are those of `hostStart`'s form on every URL as WebKit
    /// serializes it, but for an upper-case user name and an upper-case host of a custom scheme.
    /// The heads' scheme prefix is spelled in ContentRules (HostPattern), the TDS's in TrackerData, which does not
    /// depend on it: the same bytes.
    func testTheHeadsSchemePrefixIsTheTDSConventionsOne() {
        XCTAssertEqual(HostPattern.schemePrefix, TDSConventions.schemePrefix)
    }

    func testAHostRuleAloneIsCaseSensitiveAndItsRunMayCrossIntoALessThanSign() throws {
        let c = try convert(
            "||Ads.Example.com^\n@@||ok.ads.example.com^$script\n||Up.test^$match-case\n||a.test^*.js\n")
        XCTAssertEqual(
            c.rules.dropLast().map(\.trigger.urlFilter),
            [
                "^[^:]+://+(([^/]+(/<)?)+\\.)?ads\\.example\\.com[:/]", "^[^:]+://+([^/]+\\.)?Up\\.test[:/]",
                "^[^:]+://+([^/]+\\.)?a\\.test[:/].*\\.js", "^[^:]+://+(([^/]+(/<)?)+\\.)?ok\\.ads\\.example\\.com[:/]",
            ])
        XCTAssertEqual(c.rules.dropLast().map(\.trigger.urlFilterIsCaseSensitive), [true, true, false, true])
        let e = try engine(c)
        for url in ["https://ads.example.com/x", "https://a.ADS.example.com/x", "https://x.ads.example.com:8/?u=/<"] {
            XCTAssertTrue(try blocks(e, url), url)
        }
        XCTAssertFalse(try blocks(e, "https://q.test/a.ads.example.com/x"))
        XCTAssertFalse(try blocks(e, "https://ok.ads.example.com/x.js", type: "script"))
        XCTAssertTrue(try blocks(e, "https://ok.ads.example.com/x.png", type: "image"))
        // A serialized URL keeps upper case before the host's end in its user name, and in a custom scheme's host.
        XCTAssertFalse(try blocks(e, "https://ADS.example.com:pw@site.test/x"))
        XCTAssertTrue(try blocks(e, "https://ads.example.com:pw@site.test/x"))
        XCTAssertFalse(try blocks(e, "app://ADS.example.com/x"))
        XCTAssertTrue(try blocks(e, "app://ads.example.com/x"))
        XCTAssertTrue(try blocks(e, "wss://ADS.example.com/x", type: "websocket"))
    }

    func testExceptionsCancelTheirBlocksAndImportantOutranksThem() throws {
        let c = try convert(
            """
            ||a.test^
            @@||a.test/ok/$script
            ||b.test^$important
            @@||b.test^
            """)
        XCTAssertEqual(
            c.rules.map(\.action), [.block, .ignorePreviousRules, .ignorePreviousRules, .block, .ignorePreviousRules])
        XCTAssertEqual(c.provenance.map(\.roleText), ["block", "exception", "exception", "important", "navigations"])
        XCTAssertEqual(c.provenance[3].filterLines, [3])
        XCTAssertEqual(c.provenance[3].filter, "||b.test^$important")
        let e = try engine(c)
        XCTAssertTrue(try blocks(e, "https://a.test/x.js"))
        XCTAssertFalse(try blocks(e, "https://a.test/ok/x.js"))
        XCTAssertTrue(try blocks(e, "https://a.test/ok/x.png", type: "image"))
        XCTAssertTrue(try blocks(e, "https://b.test/x.js"))
    }

    /// `$domain` is the frame's document: a load from a frame of the site is judged by the frame, not the page.
    func testDomainJudgesTheFrame() throws {
        let c = try convert("||t.test^$domain=news.test\n||u.test^$domain=~shop.test\n")
        XCTAssertEqual(
            c.rules.map { $0.trigger.condition?.kind }, [.ifFrameURL, .ifTopURL, .unlessFrameURL, .unlessTopURL, nil])
        let e = try engine(c)
        XCTAssertTrue(try blocks(e, "https://t.test/x.js", top: "https://www.news.test/"))
        XCTAssertFalse(try blocks(e, "https://t.test/x.js", top: "https://other.test/"))
        XCTAssertTrue(
            try blocks(e, "https://t.test/x.js", top: "https://other.test/", frame: "https://news.test/frame"))
        XCTAssertFalse(
            try blocks(e, "https://t.test/x.js", top: "https://news.test/", frame: "https://other.test/frame"))
        XCTAssertFalse(try blocks(e, "https://u.test/x.js", top: "https://shop.test/"))
        XCTAssertTrue(try blocks(e, "https://u.test/x.js", top: "https://news.test/"))
    }

    /// A frame's own document loads in the new frame (about:blank, child-frame, as WebKit makes it): ABP judges it on
    /// the page holding the frame, so its part of a `$domain` filter reads the top URL; the other types the frame.
    func testDomainJudgesAFramesDocumentOnThePage() throws {
        let c = try convert(
            """
            ||f.test^$subdocument,domain=site.test
            ||g.test^$script,subdocument,domain=~shop.test
            ||h.test^$image,domain=site.test
            ||m.test^$subdocument,domain=a.test|~b.a.test

            """)
        XCTAssertEqual(c.issues, [])
        XCTAssertEqual(
            c.rules.map { $0.trigger.condition?.kind },
            [.ifTopURL, .unlessFrameURL, .unlessTopURL, .ifFrameURL, .ifTopURL, nil])
        let e = try engine(c)
        func frame(_ url: String, on top: String) throws -> Bool {
            try e.match(
                MatchRequest(
                    url: url, topURL: top, frameURL: "about:blank", resourceType: "sub_frame",
                    loadContext: "child-frame")
            ).isBlocked
        }
        XCTAssertTrue(try frame("https://f.test/ad.html", on: "https://www.site.test/page"))
        XCTAssertFalse(try frame("https://f.test/ad.html", on: "https://other.test/page"))
        XCTAssertFalse(try frame("https://g.test/ad.html", on: "https://shop.test/page"))
        XCTAssertTrue(try frame("https://g.test/ad.html", on: "https://news.test/page"))
        XCTAssertTrue(try blocks(e, "https://g.test/x.js", top: "https://shop.test/", frame: "https://news.test/f"))
        XCTAssertFalse(try frame("https://h.test/ad.html", on: "https://site.test/page"))
        XCTAssertTrue(try frame("https://m.test/ad.html", on: "https://a.test/page"))
        XCTAssertFalse(try frame("https://m.test/ad.html", on: "https://b.a.test/page"))
    }

    /// `$domain` mixing sites and ~sites under them: the frame's host decides as ABP's most specific entry does.
    func testMixedDomainsJudgeTheFrame() throws {
        let c = try convert("||t.test^$domain=a.test|~b.a.test|~other.test|c.test\n")
        XCTAssertEqual(c.issues, [])
        XCTAssertEqual(c.rules.first?.trigger.condition?.kind, .ifFrameURL)
        let e = try engine(c)
        let frames: [(String, Bool)] = [
            ("a.test", true), ("www.a.test", true), ("b.a.test", false), ("x.b.a.test", false),
            ("bb.a.test", true), ("ab.a.test", true), ("b.test", false), ("c.test", true), ("x.c.test", true),
            ("other.test", false), ("a.test.evil", false),
        ]
        for (host, expected) in frames {
            XCTAssertEqual(
                try blocks(e, "https://t.test/x.js", top: "https://top.test/", frame: "https://\(host)/f"),
                expected, host)
        }
    }

    /// `@@...$document` switches blocking off on the pages it matches (top page or the load's frame), after
    /// every block, `$important` and `$document` blocks included; its other types stay an ordinary exception.
    func testDocumentExceptionsSwitchBlockingOffOnTheirPages() throws {
        let c = try convert(
            """
            ||t.test^
            ||f.test^
            ||i.test^$important
            ||safe.test^$document
            @@||safe.test^$document
            @@||f.test/ok^$document,subdocument
            """)
        XCTAssertEqual(c.issues, [])
        XCTAssertEqual(c.provenance.suffix(4).map(\.roleText), Array(repeating: "exception", count: 4))
        let e = try engine(c)
        for url in ["https://t.test/x.js", "https://i.test/x.js"] {
            XCTAssertFalse(try blocks(e, url, top: "https://www.safe.test/a"), url)
            XCTAssertFalse(try blocks(e, url, top: "https://top.test/", frame: "https://safe.test/f"), url)
            XCTAssertTrue(try blocks(e, url, top: "https://top.test/"), url)
            XCTAssertTrue(try blocks(e, url, top: "https://top.test/", frame: "https://f.test/other"), url)
            XCTAssertFalse(try blocks(e, url, top: "https://top.test/", frame: "https://f.test/ok/page"), url)
        }
        XCTAssertFalse(try blocks(e, "https://safe.test/", top: "https://safe.test/", type: "top-document"))
        XCTAssertFalse(try blocks(e, "https://f.test/ok/x", top: "https://top.test/", type: "child-document"))
        XCTAssertTrue(try blocks(e, "https://t.test/f", top: "https://top.test/", type: "child-document"))
        let reported = try convert("@@||a.test^$document,domain=b.test\n@@||a.test^$genericblock\n")
        XCTAssertEqual(reported.issues.map(\.line), [1, 2])
    }

    /// A `$document` block blocks the page itself, after the reset that keeps other filters off navigations.
    func testDocumentBlocksComeAfterTheNavigationReset() throws {
        let c = try convert("||a.test^$document,script\n||b.test^\n")
        XCTAssertEqual(c.provenance.map(\.roleText), ["block", "block", "navigations", "block document"])
        let e = try engine(c)
        XCTAssertTrue(try blocks(e, "https://a.test/", top: "https://a.test/", type: "top-document"))
        XCTAssertTrue(try blocks(e, "https://a.test/x.js"))
        XCTAssertFalse(try blocks(e, "https://a.test/x.png", type: "image"))
        XCTAssertFalse(try blocks(e, "https://b.test/", top: "https://b.test/", type: "top-document"))
        XCTAssertFalse(try blocks(e, "https://b.test/", type: "popup"))
        XCTAssertTrue(try blocks(e, "https://b.test/f.html", type: "child-document"))
    }

    func testTypesAndParty() throws {
        let c = try convert("||a.test^$script,subdocument,third-party\n||b.test^$~image\n")
        XCTAssertEqual(c.rules[0].trigger.resourceTypes, ["script", "child-document"])
        XCTAssertEqual(c.rules[0].trigger.loadTypes, ["third-party"])
        XCTAssertFalse(c.rules[1].trigger.resourceTypes!.contains("image"))
        let e = try engine(c)
        XCTAssertTrue(try blocks(e, "https://a.test/x.js"))
        XCTAssertTrue(try blocks(e, "https://a.test/f.html", type: "child-document"))
        XCTAssertFalse(try blocks(e, "https://a.test/x.js", top: "https://www.a.test/"))
        XCTAssertFalse(try blocks(e, "https://b.test/x.png", type: "image"))
        XCTAssertTrue(try blocks(e, "https://b.test/x.css", type: "style-sheet"))
    }

    func testReportedWithLineAndReasonNeverApproximated() throws {
        let c = try convert(
            """
            ||a.test^$redirect=noop.js
            ||a.test^$ping
            ||a.test^$domain=b.a.test|~a.test
            /ad\\d+/
            @@||a.test^$genericblock
            ||a.test^$popup
            example.com##.ad
            ||ok.test^
            /a\u{01}b
            ||gone.test^
            ||gone.test^$badfilter
            """)
        XCTAssertEqual(c.rules.count, 2)
        XCTAssertEqual(c.disabledByBadfilter, 1)
        XCTAssertEqual(c.issues.map(\.line), [1, 2, 3, 4, 5, 6, 9])
        XCTAssertEqual(c.cosmetic.provenance.map(\.filterLines), [[7]])
        let reasons = c.issues.map(\.reason)
        XCTAssertTrue(reasons[0].hasPrefix("$redirect:"), reasons[0])
        XCTAssertTrue(reasons[1].hasPrefix("$ping:"), reasons[1])
        XCTAssertTrue(reasons[2].contains("lies at or under a ~site"), reasons[2])
        XCTAssertTrue(reasons[3].contains("Character class is not supported."), reasons[3])
        XCTAssertTrue(reasons[4].hasPrefix("$genericblock:"), reasons[4])
        XCTAssertTrue(reasons[6].contains("control characters"), reasons[6])
        XCTAssertEqual(c.issues[0].text, "||a.test^$redirect=noop.js")
    }

    /// `Disabled` compares a filter's text length with the disabled keys' lengths before it computes the filter's key:
    /// sound only while the key of every filter that is not `$badfilter` is its text, which holds because the parser
    /// refuses an empty option (the key drops them). A parser that kept `||x.test^$script,,image` would break it.
    func testEveryFilterButBadfilterIsItsOwnBadfilterKey() throws {
        let list = try FilterListParser.parse(
            Array(
                """
                ||x.test^$script,,image
                ||y.test^$
                ||z.test^$script,image
                ||z.test^$script,image,badfilter
                @@||w.test^$~third-party,domain=a.test|~b.a.test
                /ads?[0-9]/$match-case,important
                """.utf8), name: "t.txt")
        XCTAssertEqual(list.issues.map(\.line), [1, 2], "empty options are refused")
        XCTAssertTrue(list.issues.allSatisfy { $0.reason.contains("empty option") }, "\(list.issues.map(\.reason))")
        for filter in list.network where !filter.options.badfilter {
            XCTAssertEqual(FilterListConverter.badfilterKey(filter), filter.text)
        }
        let disabled = FilterListConverter.Disabled([list])
        XCTAssertEqual(list.network.filter { !$0.options.badfilter && disabled.contains($0) }.map(\.line), [3])
    }

    /// A regex whose automaton explodes is reported alone; the rest of the list converts and compiles.
    func testCatastrophicRegexIsReportedAndTheListStillCompiles() throws {
        let explosive = "/[ab]*a" + String(repeating: "[ab]", count: 22) + "/"
        let c = try convert("||ok.test^\n\(explosive)\n/(a+)+$/\n/track\\/[0-9]+\\.gif/\n")
        XCTAssertEqual(c.issues.map(\.line), [2])
        XCTAssertTrue(c.issues[0].reason.contains("DFA states"), c.issues[0].reason)
        let e = try engine(c)
        XCTAssertTrue(try blocks(e, "https://ok.test/x"))
        XCTAssertTrue(try blocks(e, "https://q.test/track/12.gif"))
        XCTAssertTrue(try blocks(e, "https://q.test/baaa"))
    }

    func testDomainNeedsFrameConditionsOnTheTarget() throws {
        let old = try XCTUnwrap(EngineProfile.all.first { !$0.readsFrameURLConditions && $0.readsLoadContext })
        let c = try convert("||t.test^$domain=news.test\n", target: old)
        XCTAssertEqual(c.rules.count, 2, "the navigation reset as document + load-context top-frame")
        XCTAssertTrue(c.targetIssues.isEmpty, "\(c.targetIssues)")
        XCTAssertTrue(c.issues[0].reason.contains("if-frame-url"), c.issues[0].reason)
    }

    func testATargetThatCannotSeparateNavigationsGetsEveryFilterReported() throws {
        let old = try XCTUnwrap(EngineProfile.all.first { !$0.readsLoadContext })
        let c = try convert("||t.test^\n@@||t.test/ok^\n", target: old)
        XCTAssertEqual(c.rules, [])
        XCTAssertEqual(c.issues.map(\.line), [1, 2])
        XCTAssertTrue(c.issues[0].reason.contains("cannot tell the page's own document"), c.issues[0].reason)
    }

    func testEasyListsConvertAndWebKitsParserAcceptsThem() throws {
        for name in ["easyprivacy.txt", "easylist.txt"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: try FilterListFiles.path(name))))
            let c = FilterListConverter.convert(try FilterListParser.parse(bytes, name: name), target: .default)
            XCTAssertGreaterThan(c.rules.count, 40_000, name)
            XCTAssertEqual(c.rules.count, c.provenance.count)
            XCTAssertTrue(c.targetIssues.isEmpty, "\(c.targetIssues.prefix(3))")
            XCTAssertNoThrow(
                try EngineProfile.default.checkGenerated(CanonicalRuleWriter.bytes(c.rules), ruleCount: c.rules.count))
        }
    }
}
