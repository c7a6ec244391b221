// Filter lists' cosmetic filters: the second list's rules, decided by radarblock's model of WebKit on a page's own
// document load (the selectors its actions and global style sheet hide) against ABP's element-hiding rules, and
// what is reported.

import AdblockSyntax
import ContentRules
import FilterLists
import RuleEngine
import XCTest

final class CosmeticConverterTests: XCTestCase {
    func convert(_ text: String, target: EngineProfile = .default) throws -> CosmeticConversion {
        FilterListConverter.convert(try FilterListParser.parse(Array(text.utf8), name: "t.txt"), target: target)
            .cosmetic
    }

    /// The selectors WebKit applies to the page at `top`.
    func hidden(_ c: CosmeticConversion, on top: String) throws -> Set<String> {
        let e = RuleEngine(lists: [try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(c.rules))])
        let r = try e.match(MatchRequest(url: top, topURL: top, frameURL: nil, resourceType: "top-document"))
        // The style sheet is CSS: `a, b{display:none !important;}` per rule.
        let sheet = r.stylesheet.components(separatedBy: "}").map { $0.components(separatedBy: "{")[0] }
        let texts = r.actions.filter { $0.kind == .cssDisplayNone }.map(\.text) + sheet
        return Set(texts.flatMap { $0.components(separatedBy: ", ") }.map { $0.trimmingCharacters(in: .whitespaces) })
            .subtracting([""])
    }

    func testSitesExceptionsAndPageExceptionsAsABPSays() throws {
        let c = try convert(
            """
            ##.ad
            a.test,~b.a.test##.site
            ~c.test##.not-c
            a.test#@#.ad
            @@||d.test^$generichide
            @@||e.test^$elemhide
            @@||f.test^$document
            d.test,e.test##.specific
            @@||g.test^$script
            """)
        XCTAssertEqual(try hidden(c, on: "https://x.test/"), [".ad", ".not-c"])
        XCTAssertEqual(try hidden(c, on: "https://www.a.test/"), [".site", ".not-c"])
        XCTAssertEqual(try hidden(c, on: "https://b.a.test/"), [".not-c"])
        XCTAssertEqual(try hidden(c, on: "https://c.test/"), [".ad"])
        XCTAssertEqual(try hidden(c, on: "https://d.test/"), [".specific"])
        XCTAssertEqual(try hidden(c, on: "https://e.test/"), [])
        XCTAssertEqual(try hidden(c, on: "https://f.test/"), [])
        // A network exception switches no cosmetic filter off (SafariConverterLib #70).
        XCTAssertEqual(try hidden(c, on: "https://g.test/"), [".ad", ".not-c"])
        XCTAssertEqual(c.pageExceptions, 3)
        XCTAssertTrue(c.issues.isEmpty, "\(c.issues)")
    }

    func testMixedCaseNamesAreWrittenForQuirksMode() throws {
        let c = try convert("##.MixedClass\na.test###BannerId")
        XCTAssertEqual(try hidden(c, on: "https://a.test/"), ["[class~=\"MixedClass\"]", "[id=\"BannerId\"]"])
    }

    func testWhatIsNotElementHidingIsReportedWithItsLine() throws {
        let c = try convert(
            """
            a.test#?#div:-abp-has(.x)
            a.test##div:-abp-contains(ad)
            a.test#$#abort-on-property-read x
            a.test##+js(set-constant, x, 1)
            a.test##^script:has-text(ad)
            a.test##div:fancy-unknown(1)
            @@||a.test^$specifichide
            amazon.*##.ad
            ##.kept
            """)
        XCTAssertEqual(c.issues.map(\.line), [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertTrue(c.issues.allSatisfy { $0.kind == .notConverted })
        let reasons = c.issues.map(\.reason)
        XCTAssertTrue(reasons[0].hasPrefix("procedural filter (#?#)"), reasons[0])
        XCTAssertTrue(reasons[1].contains("extended CSS"), reasons[1])
        XCTAssertTrue(reasons[3].hasPrefix("uBO scriptlet"), reasons[3])
        XCTAssertTrue(reasons[5].contains("WebKit's selector parser rejects"), reasons[5])
        XCTAssertTrue(reasons[6].hasPrefix("$specifichide"), reasons[6])
        XCTAssertEqual(c.issues[7].text, "amazon.*##.ad")
        XCTAssertEqual(c.selectors, 1)
    }
}
