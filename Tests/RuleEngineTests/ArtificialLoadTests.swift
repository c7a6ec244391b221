import ContentRules
import RuleCompiler
import XCTest

@testable import RuleEngine

/// Loads a browser never issues, answered as WebKit's backend answers them. The expectations are those of
/// WebKit's own unit tests (Tools/TestWebKitAPI/Tests/WebCore/ContentExtensions.cpp, tests TopURL and
/// DomainTriggers, read at commit 7acca1fe6dd6): their `subResourceRequest(url, mainDocumentURL)` is a
/// document load in the top frame (ResourceType::Document, today's top-document) whose main document URL
/// differs from its URL, and the frame URL is the main document URL.
final class ArtificialLoadTests: XCTestCase {
    let webkitTop = #""if-top-url":["^http://web.*kit.org"]"#

    func topDocument(_ e: RuleEngine, _ url: String, on top: String) throws -> [String] {
        try actions(e, url: url, top: top, type: "top-document")
    }

    func testIfTopURLUsesTheGivenMainDocumentURL() throws {
        let e = try makeEngine(list(rule("test\\.html", block, webkitTop)))
        XCTAssertEqual(try topDocument(e, "http://not_webkit.org/test.html", on: "http://webkit.org/not_test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://not_webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://webkit.org/test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://example.com/#http://webkit.org/test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://example.com/#http://webkit.org/test.html", on: "http://webkit.org/test.html"), ["block"])
    }

    func testUnlessTopURLUsesTheGivenMainDocumentURL() throws {
        let e = try makeEngine(list(rule("test\\.html", block, #""unless-top-url":["^http://web.*kit.org"]"#)))
        XCTAssertEqual(try topDocument(e, "http://not_webkit.org/test.html", on: "http://webkit.org/not_test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://not_webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/not_test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org/test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://webkit.org/test.html"), [])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://example.com/#http://webkit.org/test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://example.com/#http://webkit.org/test.html", on: "http://webkit.org/test.html"), [])
    }

    func testMixedConditionsOnADocumentLoad() throws {
        let e = try makeEngine(list(rule("test\\.html", block, webkitTop),
                                    rule("test\\.html", blockCookies, #""resource-type":["document"],"unless-top-url":["^http://web.*kit.org"]"#)))
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://webkit.org/test.html"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://not_webkit.org/test.html", on: "http://not_webkit.org/test.html"), ["block-cookies"])
        XCTAssertEqual(try topDocument(e, "http://webkit.org/test.html", on: "http://not_webkit.org"), ["block-cookies"])
    }

    func testDomainConditionsUseTheGivenMainDocumentURL() throws {
        let e = try makeEngine(list(rule("test_block_load", block, #""if-domain":["webkit.org"]"#),
                                    rule("test_block_cookies", blockCookies, #""unless-domain":["webkit.org"]"#)))
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/test_block_load.html", on: "http://webkit.org/"), ["block"])
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/shouldnt_match.html", on: "http://webkit.org/"), [])
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/test_block_load.html", on: "http://not_webkit.org/"), [])
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/test_block_cookies.html", on: "http://webkit.org/"), [])
        XCTAssertEqual(try topDocument(e, "http://whatwg.org/test_block_cookies.html", on: "http://not_webkit.org/path/to/main/document.html"),
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
            XCTAssertEqual(try actions(e, url: "https://ads.example/a.js", top: "https://site.example/", frame: "https://other.example/"),
                           expected, target)
            XCTAssertEqual(try actions(e, url: "https://ads.example/a.js", top: "https://site.example/", frame: "https://frame.example/x"),
                           ["block"], target)
        }
    }

    func testIdentifierRulesReportUnder252Only() throws {
        let json = #"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"},"_identifier":4,"_rulesetIdentifier":"set"}]"#
        XCTAssertEqual(try actions(try engine(json, "webkitgtk-2.52"), url: "https://ads.example/", top: "https://site.example/"),
                       ["block", "report-identifier"])
        XCTAssertEqual(try actions(try engine(json, "webkitgtk-2.50"), url: "https://ads.example/", top: "https://site.example/"), ["block"])
    }
}
