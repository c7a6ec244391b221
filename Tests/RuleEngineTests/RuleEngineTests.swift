// Matching semantics of WebKit's content-extension backend (ContentExtensionsBackend.cpp, ContentExtension.cpp).

import XCTest

@testable import RuleEngine

final class RuleEngineTests: XCTestCase {
    let top = "https://news.example/"

    func testBlockAndNoMatch() throws {
        let e = try makeEngine(list(rule("tracker\\.com", block)))
        XCTAssertEqual(try answer(e, url: "https://tracker.com/x.js", top: top), #"{"actions":[{"type":"block"}]}"#)
        XCTAssertEqual(try answer(e, url: "https://other.com/x.js", top: top), #"{"actions":[]}"#)
    }

    func testSharedLocationsDeduplicateSameFlags() throws {
        // Two block rules with the same flags share one action: one "block".
        let e = try makeEngine(list(rule("a", block), rule("b", block)))
        XCTAssertEqual(try actions(e, url: "https://ab.com/", top: top), ["block"])
        // Different flags: separate actions, both reported.
        let f = try makeEngine(list(rule("a", block), rule("b", block, #""resource-type":["image"]"#)))
        XCTAssertEqual(try actions(f, url: "https://ab.com/", top: top, type: "image"), ["block", "block"])
        XCTAssertEqual(try actions(f, url: "https://ab.com/", top: top, type: "script"), ["block"])
    }

    func testOrderIsFirstAppearanceOfTheSharedAction() throws {
        let e = try makeEngine(list(rule("x", notify("A")), rule("y", block), rule("z", notify("B")), rule("w", block)))
        // "w" shares the block location of "y", so block stays between A and B.
        XCTAssertEqual(try actions(e, url: "https://xzw.com/", top: top), ["notify:A", "block", "notify:B"])
    }

    func testNotifySharedByTextAndFlags() throws {
        let e = try makeEngine(
            list(
                rule("a", notify("N")), rule("b", notify("N")), rule("c", notify("N"), #""load-type":["third-party"]"#))
        )
        XCTAssertEqual(try actions(e, url: "https://abc.com/", top: top), ["notify:N", "notify:N"])
    }

    func testCSSDisplayNoneMergedAtTheEndOfTheList() throws {
        let e = try makeEngine(list(rule("ads", css(".a")), rule("ads", block), rule("ads", css(".b"))))
        XCTAssertEqual(try actions(e, url: "https://ads.com/", top: top), ["block", "css:.a,.b"])
    }

    func testCSSGroupsFlushedAtIgnoreRules() throws {
        let e = try makeEngine(
            list(rule("ads", css(".a")), rule("nomatch", ignorePrevious), rule("ads", block), rule("ads", css(".b"))))
        XCTAssertEqual(try actions(e, url: "https://ads.com/", top: top), ["css:.a", "block", "css:.b"])
    }

    func testCSSWithDifferentTriggersStaySeparate() throws {
        let e = try makeEngine(
            list(rule("ads", css(".a")), rule("ads", css(".b"), #""url-filter-is-case-sensitive":true"#)))
        XCTAssertEqual(try actions(e, url: "https://ads.com/", top: top).sorted(), ["css:.a", "css:.b"])
    }

    func testIgnorePreviousRules() throws {
        let e = try makeEngine(
            list(
                rule(".*", css(".g")), rule("tracker", block), rule("tracker", notify("n")),
                rule("allowed", ignorePrevious), rule("tracker", blockCookies)))
        XCTAssertEqual(try actions(e, url: "https://tracker.com/", top: top), ["block", "notify:n", "block-cookies"])
        XCTAssertEqual(try stylesheet(e, url: "https://tracker.com/", top: top), ".g{display:none !important;}")
        // ignore-previous-rules cancels the earlier actions and withholds the global stylesheet.
        XCTAssertEqual(
            try answer(e, url: "https://tracker.com/allowed", top: top), #"{"actions":[{"type":"block-cookies"}]}"#)
    }

    func testIgnoreFollowingRulesCutsBeforeIgnorePrevious() throws {
        let e = try makeEngine(
            list(rule("t", block), rule("stop", ignoreFollowing), rule("t", notify("after")), rule("t", ignorePrevious))
        )
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top), [])
        // With ignore-following-rules matching, the later ignore-previous-rules is itself cut off.
        XCTAssertEqual(try actions(e, url: "https://t.com/stop", top: top), ["block"])
    }

    func testConsecutiveIgnorePreviousRulesShareAndAreNotReported() throws {
        let e = try makeEngine(
            list(rule("t", block), rule("a", ignorePrevious), rule("b", ignorePrevious), rule("t", notify("x"))))
        XCTAssertEqual(try actions(e, url: "https://t.com/ab", top: top), ["notify:x"])
        XCTAssertEqual(try actions(e, url: "https://t.com/b", top: top), ["notify:x"])
    }

    func testGlobalStylesheetOnlyForFlagFreeUniversalCSSBeforeTheFirstIgnoreRule() throws {
        let e = try makeEngine(
            list(
                rule(".*", css(".one")), rule(".*", css(".two")),
                rule(".*", css(".img"), #""resource-type":["image"]"#),
                rule("zzz", ignorePrevious), rule(".*", css(".late"))))
        let a = try engine(e, "https://x.com/")
        XCTAssertEqual(a.actions, ["css:.late"])
        // Selectors of one group are merged (",") into one action; the sheet joins actions with ",".
        XCTAssertEqual(a.stylesheet, ".one,.two{display:none !important;}")
        XCTAssertEqual(try actions(e, url: "https://x.com/", top: top, type: "image"), ["css:.img", "css:.late"])
    }

    private func engine(_ e: RuleEngine, _ url: String) throws -> (actions: [String], stylesheet: String) {
        (try actions(e, url: url, top: top), try stylesheet(e, url: url, top: top))
    }

    func testUniversalLocationSharedWithAnotherRuleIsReportedTwice() throws {
        // WebKit quirk: the universal block comes from the list's universal set and again from the automaton.
        let e = try makeEngine(list(rule(".*", block), rule("foo", block)))
        XCTAssertEqual(try actions(e, url: "https://foo.com/", top: top), ["block", "block"])
        XCTAssertEqual(try actions(e, url: "https://bar.com/", top: top), ["block"])
    }

    func testIfAndUnlessDomain() throws {
        let e = try makeEngine(
            list(
                rule("t", notify("if"), #""if-domain":["example.com"]"#),
                rule("t", notify("ifsub"), #""if-domain":["*example.com"]"#),
                rule("t", notify("unless"), #""unless-domain":["*example.com"]"#)))
        XCTAssertEqual(
            try actions(e, url: "https://t.com/", top: "https://example.com/"), ["notify:if", "notify:ifsub"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://www.example.com/path"), ["notify:ifsub"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://example.community/"), ["notify:unless"])
        // Ports are part of the match: "example.com[:/]".
        XCTAssertEqual(
            try actions(e, url: "https://t.com/", top: "https://example.com:8443/"), ["notify:if", "notify:ifsub"])
        // Quirk: unanchored, so the pattern may match later in the top URL.
        XCTAssertEqual(
            try actions(e, url: "https://t.com/", top: "https://other.org/?u=https://example.com/"),
            ["notify:if", "notify:ifsub"])
    }

    func testTopURLConditionsAreCaseInsensitiveUnlessAsked() throws {
        let e = try makeEngine(
            list(
                rule("t", notify("ci"), #""if-top-url":["PATH"]"#),
                rule("t", notify("cs"), #""if-top-url":["PATH"],"top-url-filter-is-case-sensitive":true"#)))
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://a.com/path"), ["notify:ci"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://a.com/PATH"), ["notify:ci", "notify:cs"])
    }

    func testUnlessTopURLAndFrameURLConditions() throws {
        let e = try makeEngine(
            list(
                rule("t", notify("ut"), #""unless-top-url":["^https://safe\\.com/"]"#),
                rule("t", notify("if"), #""if-frame-url":["frame\\.com"]"#),
                rule("t", notify("uf"), #""unless-frame-url":["frame\\.com"]"#)))
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://safe.com/"), ["notify:uf"])
        XCTAssertEqual(
            try actions(e, url: "https://t.com/", top: "https://safe.com/", frame: "https://frame.com/f"), ["notify:if"]
        )
        XCTAssertEqual(
            try actions(e, url: "https://t.com/", top: "https://a.com/", frame: "https://frame.com/f"),
            ["notify:ut", "notify:if"])
    }

    func testRequestMethodWithConditionQuirk() throws {
        // Condition automata run with AllResourceFlags, whose method bits equal no method: if-* never holds,
        // unless-* never excludes.
        let e = try makeEngine(
            list(
                rule("t", notify("if"), #""if-domain":["a.com"],"request-method":"get""#),
                rule("t", notify("unless"), #""unless-domain":["a.com"],"request-method":"get""#),
                rule("t", notify("plain"), #""request-method":"post""#)))
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://a.com/", method: "get"), ["notify:unless"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://a.com/", method: "POST"), ["notify:plain"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "https://a.com/"), [])
    }

    func testLoadTypeUsesRegistrableDomains() throws {
        let e = try makeEngine(
            list(
                rule("t", notify("3p"), #""load-type":["third-party"]"#),
                rule("t", notify("1p"), #""load-type":["first-party"]"#)))
        XCTAssertEqual(
            try actions(e, url: "https://t.example.co.uk/", top: "https://www.example.co.uk/"), ["notify:1p"])
        XCTAssertEqual(try actions(e, url: "https://t.other.co.uk/", top: "https://www.example.co.uk/"), ["notify:3p"])
        XCTAssertEqual(try actions(e, url: "https://t.com:8080/", top: "https://www.t.com/"), ["notify:1p"])
        XCTAssertEqual(try actions(e, url: "http://127.0.0.1:8000/t", top: "http://127.0.0.1/"), ["notify:1p"])
        XCTAssertEqual(try actions(e, url: "http://127.0.0.2/t", top: "http://127.0.0.1/"), ["notify:3p"])
        XCTAssertEqual(try actions(e, url: "http://localhost/t", top: "http://localhost:8080/"), ["notify:1p"])
        XCTAssertEqual(try actions(e, url: "http://a.localhost/t", top: "http://localhost/"), ["notify:1p"])
        // A main document without a host (about:blank) makes every hosted resource third party.
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: "about:blank"), ["notify:3p"])
        // A look-alike is not a subdomain.
        XCTAssertEqual(try actions(e, url: "https://not-t.com/t", top: "https://t.com/"), ["notify:3p"])
    }

    func testTopDocumentIsEvaluatedWithTheTopURLItWasGiven() throws {
        // WebKit's backend takes the main document URL from the load; it does not substitute the request URL.
        let e = try makeEngine(list(rule("page", notify("1p"), #""load-type":["first-party"]"#)))
        XCTAssertEqual(
            try actions(e, url: "https://page.com/", top: "https://page.com/", type: "main_frame"), ["notify:1p"])
        XCTAssertEqual(try actions(e, url: "https://page.com/", top: "https://elsewhere.org/", type: "main_frame"), [])
        XCTAssertEqual(
            try actions(e, url: "https://page.com/", top: "https://elsewhere.org/", type: "child-document"), [])
    }

    func testResourceTypesAndBrowserExtensionNames() throws {
        let e = try makeEngine(
            list(
                rule("t", notify("raw"), #""resource-type":["raw"]"#),
                rule("t", notify("doc"), #""resource-type":["document"]"#),
                rule("t", notify("css"), #""resource-type":["style-sheet"]"#)))
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top, type: "xmlhttprequest"), ["notify:raw"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top, type: "beacon"), ["notify:raw"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top, type: "sub_frame"), ["notify:doc"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top, type: "stylesheet"), ["notify:css"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top, type: "image"), [])
        XCTAssertThrowsError(try actions(e, url: "https://t.com/", top: top, type: "bogus"))
    }

    func testLoadContext() throws {
        let e = try makeEngine(
            list(
                rule("t", notify("top"), #""load-context":["top-frame"]"#),
                rule("t", notify("child"), #""load-context":["child-frame"]"#)))
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top), ["notify:top"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top, frame: top), ["notify:top"])
        XCTAssertEqual(try actions(e, url: "https://t.com/", top: top, frame: "https://frame.org/"), ["notify:child"])
        XCTAssertEqual(
            try actions(e, url: "https://t.com/", top: top, frame: "https://frame.org/", context: "top-frame"),
            ["notify:top"])
    }

    func testDataAndInvalidURLsGetNothingAtAll() throws {
        let e = try makeEngine(list(rule(".*", css(".g")), rule(".*", block)))
        XCTAssertEqual(try answer(e, url: "data:text/html,hello", top: top), #"{"actions":[]}"#)
        XCTAssertEqual(try answer(e, url: "http://exa mple.com/", top: top), #"{"actions":[]}"#)
        XCTAssertEqual(try answer(e, url: "not a url", top: top), #"{"actions":[]}"#)
        XCTAssertEqual(
            try answer(e, url: "https://x.com/", top: top),
            #"{"actions":[{"type":"block"}],"stylesheet":".g{display:none !important;}"}"#)
    }

    func testURLsAreMatchedInCanonicalForm() throws {
        let e = try makeEngine(
            list(rule("^https://example\\.com/b\\?q#frag$", block, #""url-filter-is-case-sensitive":true"#)))
        XCTAssertEqual(try actions(e, url: "HTTPS://EXAMPLE.com:443/a/../b?q#frag", top: top), ["block"])
        let idn = try makeEngine(list(rule("^https://xn--bcher-kva\\.example/$", block)))
        XCTAssertEqual(try actions(idn, url: "https://bücher.example", top: top), ["block"])
    }

    func testSeveralListsInOrder() throws {
        let e = try makeEngine(
            list(rule("t", notify("one")), rule(".*", css(".s1"))),
            list(rule("t", notify("two")), rule("t", ignorePrevious), rule("t", block)),
            list(rule(".*", css(".s3"))))
        let r = try e.match(MatchRequest(url: "https://t.com/", topURL: top, resourceType: "image"))
        XCTAssertEqual(r.actions.map(\.kind.typeName), ["notify", "block"])
        XCTAssertEqual(r.stylesheet, ".s1{display:none !important;}\n.s3{display:none !important;}")
    }

    func testRedirectAndModifyHeadersRoundTrip() throws {
        let e = try makeEngine(
            #"""
            [{"trigger":{"url-filter":"r"},"action":{"type":"redirect","redirect":{"url":"https://example.com/x"}}},
             {"trigger":{"url-filter":"m"},"action":{"type":"modify-headers","priority":2,\#
            "request-headers":[{"operation":"set","header":"A","value":"1"}]}}]
            """#)
        XCTAssertEqual(
            try answer(e, url: "https://rm.com/", top: top),
            #"{"actions":[{"type":"redirect","redirect":{"url":"https://example.com/x"}},{"type":"modify-headers","#
                + #""priority":2,"request-headers":[{"header":"A","operation":"set","value":"1"}]}]}"#
        )
    }

    func testMakeHTTPSAndBlockCookiesAreReported() throws {
        let e = try makeEngine(list(rule("t", makeHTTPS), rule("t", blockCookies)))
        XCTAssertEqual(try actions(e, url: "http://t.com/", top: top), ["make-https", "block-cookies"])
    }
}
