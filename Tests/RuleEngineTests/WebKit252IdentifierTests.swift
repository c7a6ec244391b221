import ContentRules
import RuleCompiler
import XCTest

@testable import RuleEngine

/// `_identifier` rules under the webkitgtk-2.52 profile, against WebKit's own expectations: every case of
/// TEST_F(ContentExtensionTest, ReportIdentifierAction) in Tools/TestWebKitAPI/Tests/WebCore/ContentExtensions.cpp
/// of the WebKitGTK 2.52.6 release tarball (lines 3433-3522). WebKit's test compares the action list of
/// ContentExtensionsBackend::actionsForResourceLoad, in order, which is what `match` reports.
///
/// The test's request helpers (same file, lines 199-214): `mainDocumentRequest(url, type = TopDocument)` is a
/// load whose URL, main-document URL and frame URL are all `url`; `subResourceRequest(url, main)` is a
/// ChildDocument load whose main-document URL and frame URL are `main`.
final class WebKit252IdentifierTests: XCTestCase {
    func engine(_ json: String, _ target: String = "webkitgtk-2.52") throws -> RuleEngine {
        let options = RuleListCompiler.Options(parser: RuleListParserOptions(target: EngineProfile.named(target)!))
        return RuleEngine(lists: [try LoadedRuleList.compiling(json: Array(json.utf8), options: options)])
    }

    /// WebKit's Action values in short form; ReportIdentifierAction { string, identifier } as "id:string:identifier".
    func render(_ r: MatchResult) -> [String] {
        r.actions.map { a in
            switch a.kind {
            case .reportIdentifier:
                let n = a.identifier == a.identifier.rounded() ? String(Int(a.identifier)) : String(a.identifier)
                return "id:\(a.text):\(n)"
            case .cssDisplayNone: return "css:" + a.text
            case .notify: return "notify:" + a.text
            default: return a.kind.typeName
            }
        }
    }

    func mainDocument(_ e: RuleEngine, _ url: String, _ type: String = "top-document") throws -> [String] {
        render(try e.match(MatchRequest(url: url, topURL: url, frameURL: url, resourceType: type)))
    }

    func subResource(_ e: RuleEngine, _ url: String, _ main: String) throws -> [String] {
        render(try e.match(MatchRequest(url: url, topURL: main, frameURL: main, resourceType: "child-document")))
    }

    func rule(_ filter: String, _ action: String, _ extra: String = "", id: Int? = nil, ruleset: String? = nil)
        -> String
    {
        var s = #"{"action":\#(action),"trigger":{"url-filter":"\#(filter)"\#(extra.isEmpty ? "" : "," + extra)}"#
        if let id { s += #","_identifier":\#(id)"# }
        if let ruleset { s += #","_rulesetIdentifier":"\#(ruleset)""# }
        return s + "}"
    }

    // "Different identifiers"
    func testDifferentIdentifiers() throws {
        let e = try engine(
            list(
                rule("https://www.example.com/first", block, id: 1, ruleset: "Test Ruleset 1"),
                rule("https://www.example.com/second", block, id: 2, ruleset: "Test Ruleset 2")))
        XCTAssertEqual(try mainDocument(e, "https://www.example.com/first"), ["block", "id:Test Ruleset 1:1"])
        XCTAssertEqual(try mainDocument(e, "https://www.example.com/second"), ["block", "id:Test Ruleset 2:2"])
    }

    // "Different action types and identifiers": the css-display-none action comes after its report, because
    // WebKit serializes pending display-none groups at the end of the list.
    func testDifferentActionTypes() throws {
        let e = try engine(
            list(
                rule("cookies", blockCookies, id: 1, ruleset: "Test Ruleset"),
                rule("css", css(".hidden"), id: 2, ruleset: "Test Ruleset"),
                rule("notify", notify("test"), id: 3, ruleset: "Test Ruleset")))
        XCTAssertEqual(try mainDocument(e, "https://example.com/cookies"), ["block-cookies", "id:Test Ruleset:1"])
        XCTAssertEqual(try mainDocument(e, "https://example.com/css"), ["id:Test Ruleset:2", "css:.hidden"])
        XCTAssertEqual(try mainDocument(e, "https://example.com/notify"), ["notify:test", "id:Test Ruleset:3"])
    }

    // "With and without identifiers": no _rulesetIdentifier reports the empty string.
    func testWithAndWithoutIdentifiers() throws {
        let e = try engine(list(rule("with-id", block, id: 1), rule("without-id", block)))
        XCTAssertEqual(try mainDocument(e, "https://example.com/with-id"), ["block", "id::1"])
        XCTAssertEqual(try mainDocument(e, "https://example.com/without-id"), ["block"])
    }

    // "Multiple matches with one request"
    func testMultipleMatchesWithOneRequest() throws {
        let e = try engine(
            list(
                rule("test", block, id: 1, ruleset: "Test Ruleset"),
                rule("multi", blockCookies, id: 2, ruleset: "Test Ruleset"),
                rule("multi", css(".ad"), id: 3, ruleset: "Test Ruleset")))
        XCTAssertEqual(
            try mainDocument(e, "https://example.com/multi-test"),
            ["block", "id:Test Ruleset:1", "block-cookies", "id:Test Ruleset:2", "id:Test Ruleset:3", "css:.ad"])
    }

    // "With conditions"
    func testWithConditions() throws {
        let e = try engine(
            list(
                rule("ads", block, #""if-domain":["example.com"]"#, id: 1, ruleset: "Test Ruleset"),
                rule("ads", block, #""unless-domain":["trusted.com"]"#, id: 2, ruleset: "Test Ruleset")))
        XCTAssertEqual(
            try subResource(e, "https://cdn.com/ads.js", "https://example.com/"),
            ["block", "id:Test Ruleset:1", "block", "id:Test Ruleset:2"])
        XCTAssertEqual(
            try subResource(e, "https://cdn.com/ads.js", "https://other.com/"), ["block", "id:Test Ruleset:2"])
        XCTAssertEqual(try subResource(e, "https://cdn.com/ads.js", "https://trusted.com/"), [])
    }

    // "With resource types"
    func testWithResourceTypes() throws {
        let e = try engine(
            list(
                rule("track", block, #""resource-type":["script"]"#, id: 1, ruleset: "Test Ruleset"),
                rule("track", block, #""resource-type":["image"]"#, id: 2, ruleset: "Test Ruleset")))
        XCTAssertEqual(try mainDocument(e, "https://example.com/track.js", "script"), ["block", "id:Test Ruleset:1"])
        XCTAssertEqual(try mainDocument(e, "https://example.com/track.png", "image"), ["block", "id:Test Ruleset:2"])
        XCTAssertEqual(try mainDocument(e, "https://example.com/track.html"), [])
    }

    // "With ignore rules": ignore-previous-rules drops the first rule and its report, and the list's
    // stylesheet (WebKit's actionsEqual(..., true) expects no identifiersApplyingStylesheets).
    func testWithIgnoreRules() throws {
        let e = try engine(
            list(
                rule("block-me", block, id: 1, ruleset: "Test Ruleset"),
                rule("ignore-previous", ignorePrevious),
                rule("block-me", block, id: 2, ruleset: "Test Ruleset")))
        XCTAssertEqual(
            try mainDocument(e, "https://example.com/block-me"),
            ["block", "id:Test Ruleset:1", "block", "id:Test Ruleset:2"])
        let ignored = try e.match(
            MatchRequest(
                url: "https://example.com/ignore-previous-block-me",
                topURL: "https://example.com/ignore-previous-block-me",
                resourceType: "top-document"))
        XCTAssertEqual(render(ignored), ["block", "id:Test Ruleset:2"])
        XCTAssertEqual(ignored.stylesheetLists, [])
    }

    // "With load types"
    func testWithLoadTypes() throws {
        let e = try engine(
            list(
                rule("analytics", block, #""load-type":["third-party"]"#, id: 1, ruleset: "Test Ruleset"),
                rule("analytics", block, #""load-type":["first-party"]"#, id: 2, ruleset: "Test Ruleset")))
        XCTAssertEqual(
            try subResource(e, "https://analytics.com/track.js", "https://example.com/"),
            ["block", "id:Test Ruleset:1"])
        XCTAssertEqual(try mainDocument(e, "https://example.com/analytics"), ["block", "id:Test Ruleset:2"])
    }

    // "With complex regex"
    func testWithComplexRegex() throws {
        let e = try engine(
            list(
                rule(#"^https://[a-z]+\\.ads\\.com/"#, block, id: 1, ruleset: "Test Ruleset"),
                rule(#"\\.jpg\\?.*tracking"#, block, id: 2, ruleset: "Test Ruleset")))
        XCTAssertEqual(try mainDocument(e, "https://cdn.ads.com/banner"), ["block", "id:Test Ruleset:1"])
        XCTAssertEqual(
            try mainDocument(e, "https://example.com/image.jpg?tracking=123"), ["block", "id:Test Ruleset:2"])
    }

    // The same list under the installed engine's profile: WebKitGTK 2.50.6's parser has no _identifier code
    // (diff of Source/WebCore/contentextensions 2.50.6..2.52.6), so the reports disappear and nothing else changes.
    func testTheSameListUnder250HasNoReports() throws {
        let json = list(
            rule("test", block, id: 1, ruleset: "Test Ruleset"),
            rule("multi", blockCookies, id: 2, ruleset: "Test Ruleset"),
            rule("multi", css(".ad"), id: 3, ruleset: "Test Ruleset"))
        XCTAssertEqual(
            try mainDocument(try engine(json, "webkitgtk-2.50"), "https://example.com/multi-test"),
            ["block", "block-cookies", "css:.ad"])
    }
}
