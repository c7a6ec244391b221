import ContentRules
import RuleCompiler
import XCTest

@testable import RuleEngine

/// Loads a browser never issues, answered as WebKit's backend answers them: with the URLs they were given.
///
/// The first five tests take their expectations from WebKit's unit tests TopURL and DomainTriggers
/// (Tools/TestWebKitAPI/Tests/WebCore/ContentExtensions.cpp, first read at commit 7acca1fe6dd6, where their
/// `subResourceRequest(url, mainDocumentURL)` was a ResourceType::Document load). In the WebKitGTK 2.50.6 and
/// 2.52.6 release files that helper is a ChildDocument load (lines 205-209 of 2.52.6) with frame URL = main
/// document URL, so every expectation is checked for both a child-document and a top-document load: those
/// rules do not look at the type, and a top-document load whose main document URL differs is the artificial one.
///
/// The frame-URL tests after them are TEST_F(ContentExtensionTest, IfFrameURL) and UnlessFrameURL of the 2.52.6
/// file (lines 3120-3177), whose `requestInTopAndFrameURLs(url, topURL, frameURL, type = TopDocument)` is exactly
/// such a load: a top-document load with a main document URL and a frame URL that differ from its URL.
final class ArtificialLoadTests: XCTestCase {
    let webkitTop = #""if-top-url":["^http://web.*kit.org"]"#

    /// The answer for a top-document load on `top`, after checking that the child-document load of WebKit's
    /// `subResourceRequest` (frame URL = `top`) gets the same one.
    func topDocument(_ e: RuleEngine, _ url: String, on top: String, file: StaticString = #filePath, line: UInt = #line)
        throws -> [String]
    {
        let answer = try actions(e, url: url, top: top, type: "top-document")
        XCTAssertEqual(
            try actions(e, url: url, top: top, frame: top, type: "child-document"), answer, "child-document",
            file: file, line: line)
        return answer
    }

    /// WebKit's `requestInTopAndFrameURLs(url, topURL, frameURL, type)`.
    func inTopAndFrame(_ e: RuleEngine, _ url: String, _ top: String, _ frame: String, _ type: String = "top-document")
        throws -> [String]
    {
        try actions(e, url: url, top: top, frame: frame, type: type)
    }

    // TEST_F(ContentExtensionTest, IfFrameURL)
    func testIfFrameURLOnArtificialTopDocumentLoads() throws {
        let basic = try makeEngine(list(rule("https", block, #""if-frame-url":["whatwg"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(basic, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"), ["block"])
        XCTAssertEqual(
            try inTopAndFrame(basic, "https://example.com/", "https://webkit.org/", "https://webkit.org/"), [])

        let caseSensitivity = try makeEngine(
            list(rule("https", block, #""if-frame-url":["whatwg"],"frame-url-filter-is-case-sensitive":true"#)))
        XCTAssertEqual(
            try inTopAndFrame(basic, "https://example.com/", "https://webkit.org/", "https://example.com/wHaTwG"),
            ["block"])
        XCTAssertEqual(
            try inTopAndFrame(
                caseSensitivity, "https://example.com/", "https://webkit.org/", "https://example.com/wHaTwG"), [])

        let otherFlags = try makeEngine(
            list(rule("https", block, #""if-frame-url":["whatwg"],"resource-type":["image"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(otherFlags, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"), [])
        XCTAssertEqual(
            try inTopAndFrame(
                otherFlags, "https://example.com/", "https://webkit.org/", "https://whatwg.org/", "image"), ["block"])

        let otherRulesWithConditions = try makeEngine(
            list(
                rule("https", block, #""if-frame-url":["whatwg"]"#),
                rule("https", blockCookies, #""if-top-url":["example"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(
                otherRulesWithConditions, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"),
            ["block"])
        XCTAssertEqual(
            try inTopAndFrame(
                otherRulesWithConditions, "https://example.com/", "https://example.com/", "https://webkit.org/"),
            ["block-cookies"])
        XCTAssertEqual(
            try inTopAndFrame(
                otherRulesWithConditions, "https://example.com/", "https://example.com/", "https://whatwg.org/"),
            ["block", "block-cookies"])

        let matchingEverything = try makeEngine(list(rule("https", block, #""if-frame-url":[".*"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(matchingEverything, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"),
            ["block"])
        XCTAssertEqual(
            try inTopAndFrame(matchingEverything, "http://example.com/", "https://webkit.org/", "https://webkit.org/"),
            [])
    }

    // TEST_F(ContentExtensionTest, UnlessFrameURL)
    func testUnlessFrameURLOnArtificialTopDocumentLoads() throws {
        let basic = try makeEngine(list(rule("https", block, #""unless-frame-url":["whatwg"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(basic, "https://example.com/", "https://webkit.org/", "https://webkit.org/"), ["block"])
        XCTAssertEqual(
            try inTopAndFrame(basic, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"), [])

        let caseSensitivity = try makeEngine(
            list(rule("https", block, #""unless-frame-url":["whatwg"],"frame-url-filter-is-case-sensitive":true"#)))
        XCTAssertEqual(
            try inTopAndFrame(basic, "https://example.com/", "https://webkit.org/", "https://example.com/wHaTwG"), [])
        XCTAssertEqual(
            try inTopAndFrame(
                caseSensitivity, "https://example.com/", "https://webkit.org/", "https://example.com/wHaTwG"), ["block"]
        )

        let otherFlags = try makeEngine(
            list(rule("https", block, #""unless-frame-url":["whatwg"],"resource-type":["image"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(otherFlags, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"), [])
        XCTAssertEqual(
            try inTopAndFrame(
                otherFlags, "https://example.com/", "https://webkit.org/", "https://whatwg.org/", "image"), [])
        XCTAssertEqual(
            try inTopAndFrame(otherFlags, "https://example.com/", "https://webkit.org/", "https://www.w3.org/"), [])
        XCTAssertEqual(
            try inTopAndFrame(
                otherFlags, "https://example.com/", "https://webkit.org/", "https://www.w3.org/", "image"), ["block"])

        let otherRulesWithConditions = try makeEngine(
            list(
                rule("https", block, #""unless-frame-url":["whatwg"]"#),
                rule("https", blockCookies, #""if-top-url":["example"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(
                otherRulesWithConditions, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"), [])
        XCTAssertEqual(
            try inTopAndFrame(
                otherRulesWithConditions, "https://example.com/", "https://webkit.org/", "https://www.w3.org/"),
            ["block"])
        XCTAssertEqual(
            try inTopAndFrame(
                otherRulesWithConditions, "https://example.com/", "https://example.com/", "https://webkit.org/"),
            ["block", "block-cookies"])
        XCTAssertEqual(
            try inTopAndFrame(
                otherRulesWithConditions, "https://example.com/", "https://example.com/", "https://whatwg.org/"),
            ["block-cookies"])

        let matchingNothing = try makeEngine(list(rule("https", block, #""unless-frame-url":[".*"]"#)))
        XCTAssertEqual(
            try inTopAndFrame(matchingNothing, "https://example.com/", "https://webkit.org/", "https://whatwg.org/"), []
        )
        XCTAssertEqual(
            try inTopAndFrame(matchingNothing, "http://example.com/", "https://webkit.org/", "https://webkit.org/"), [])
    }

    func testIfTopURLUsesTheGivenMainDocumentURL() throws {
        let e = try makeEngine(list(rule("test\\.html", block, webkitTop)))
        XCTAssertEqual(
            try topDocument(e, "http://not_webkit.org/test.html", on: "http://webkit.org/not_test.html"), ["block"])
        XCTAssertEqual(
            try topDocument(e, "http://not_webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://webkit.org/test.html"), ["block"])
        XCTAssertEqual(
            try topDocument(e, "http://webkit.org/test.html", on: "http://example.com/#http://webkit.org/test.html"), []
        )
        XCTAssertEqual(
            try topDocument(e, "http://example.com/#http://webkit.org/test.html", on: "http://webkit.org/test.html"),
            ["block"])
    }

    func testUnlessTopURLUsesTheGivenMainDocumentURL() throws {
        let e = try makeEngine(list(rule("test\\.html", block, #""unless-top-url":["^http://web.*kit.org"]"#)))
        XCTAssertEqual(try topDocument(e, "http://not_webkit.org/test.html", on: "http://webkit.org/not_test.html"), [])
        XCTAssertEqual(
            try topDocument(e, "http://not_webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), ["block"])
        XCTAssertEqual(
            try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), ["block"])
        XCTAssertEqual(
            try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://webkit.org/test.html"), [])
        XCTAssertEqual(
            try topDocument(e, "http://webkit.org/test.html", on: "http://example.com/#http://webkit.org/test.html"),
            ["block"])
        XCTAssertEqual(
            try topDocument(e, "http://example.com/#http://webkit.org/test.html", on: "http://webkit.org/test.html"), []
        )
    }

    func testMixedConditionsOnADocumentLoad() throws {
        let e = try makeEngine(
            list(
                rule("test\\.html", block, webkitTop),
                rule(
                    "test\\.html", blockCookies,
                    #""resource-type":["document"],"unless-top-url":["^http://web.*kit.org"]"#)))
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://webkit.org/test.html"), ["block"])
        XCTAssertEqual(
            try topDocument(e, "http://not_webkit.org/test.html", on: "http://not_webkit.org/test.html"),
            ["block-cookies"])
        XCTAssertEqual(
            try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org"), ["block-cookies"])
    }

    func testDomainConditionsUseTheGivenMainDocumentURL() throws {
        let e = try makeEngine(
            list(
                rule("test_block_load", block, #""if-domain":["webkit.org"]"#),
                rule("test_block_cookies", blockCookies, #""unless-domain":["webkit.org"]"#)))
        XCTAssertEqual(
            try topDocument(e, "http://whatwg.org/test_block_load.html", on: "http://webkit.org/"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/shouldnt_match.html", on: "http://webkit.org/"), [])
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/test_block_load.html", on: "http://not_webkit.org/"), [])
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/test_block_cookies.html", on: "http://webkit.org/"), [])
        XCTAssertEqual(
            try topDocument(
                e, "http://whatwg.org/test_block_cookies.html", on: "http://not_webkit.org/path/to/main/document.html"),
            ["block-cookies"])
    }

    func testLoadTypeOfAnArtificialTopDocumentComesFromTheGivenMainDocument() throws {
        // ResourceLoadInfo::getResourceFlags: third party unless the load's host is under the main document's
        // registrable domain, whatever the type.
        let e = try makeEngine(list(rule(".*", notify("3p"), #""load-type":["third-party"]"#)))
        XCTAssertEqual(try topDocument(e, "https://page.com/", on: "https://other.org/"), ["notify:3p"])
        XCTAssertEqual(try topDocument(e, "https://page.com/", on: "https://page.com/"), [])
    }
}

/// `match --target`: a list is read the way the target engine reads it.
final class TargetSemanticsTests: XCTestCase {
    func engine(_ json: String, _ target: String) throws -> RuleEngine {
        let options = RuleListCompiler.Options(parser: RuleListParserOptions(target: EngineProfile.named(target)!))
        return RuleEngine(lists: [try LoadedRuleList.compiling(json: Array(json.utf8), options: options)])
    }

    func testAnEngineWithoutFrameURLConditionsBlocksInEveryFrame() throws {
        let json = list(rule("ads", block, #""if-frame-url":["^https://frame\\.example/"]"#))
        for (target, expected) in [("safari-15", ["block"]), ("safari-17", []), ("webkitgtk-2.50", [])] {
            let e = try engine(json, target)
            XCTAssertEqual(
                try actions(
                    e, url: "https://ads.example/a.js", top: "https://site.example/", frame: "https://other.example/"),
                expected, target)
            XCTAssertEqual(
                try actions(
                    e, url: "https://ads.example/a.js", top: "https://site.example/", frame: "https://frame.example/x"),
                ["block"], target)
        }
    }

    func testUnlessFrameURLIsIgnoredBeforeSafari26() throws {
        let json = list(rule("ads", block, #""unless-frame-url":["^https://frame\\.example/"]"#))
        for (target, expected) in [
            ("safari-18", ["block"]), ("webkitgtk-2.46", ["block"]), ("safari-26", []), ("webkitgtk-2.48", []),
        ] {
            XCTAssertEqual(
                try actions(
                    try engine(json, target), url: "https://ads.example/a.js", top: "https://site.example/",
                    frame: "https://frame.example/x"), expected, target)
        }
    }

    func testIdentifierRulesReportUnder252Only() throws {
        let json =
            #"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"},"_identifier":4,"_rulesetIdentifier":"set"}]"#
        XCTAssertEqual(
            try actions(try engine(json, "webkitgtk-2.52"), url: "https://ads.example/", top: "https://site.example/"),
            ["block", "report-identifier"])
        XCTAssertEqual(
            try actions(try engine(json, "webkitgtk-2.50"), url: "https://ads.example/", top: "https://site.example/"),
            ["block"])
    }
}
