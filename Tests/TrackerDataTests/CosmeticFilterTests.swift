import StrictJSON
import TestSupport
import XCTest
@testable import TrackerData

final class CosmeticFilterTests: XCTestCase {
    func testKindsSitesAndLineNumbers() {
        let list = CosmeticFilterList.parse(
            "[Adblock Plus 2.0]\n! comment\n###a\r\nA.com,~b.a.com##.b\nc.com#@#.b\nd.com#?#.x:-abp-has(.y)\n")
        XCTAssertEqual(list.commentLines, 2) // header, comment
        XCTAssertEqual(list.filters.map(\.line), [3, 4, 5, 6])
        XCTAssertEqual(list.filters.map(\.kind), [.hide, .hide, .exception, .extended])
        XCTAssertEqual(list.filters[0].sites, [])
        XCTAssertEqual(list.filters[0].selector, "#a")
        XCTAssertEqual(
            list.filters[1].sites, [.init(domain: "a.com", include: true), .init(domain: "b.a.com", include: false)])
        XCTAssertTrue(list.issues.isEmpty)
    }

    func testMalformedAndOutOfScopeLinesAreReportedWithTheirNumber() {
        let list = CosmeticFilterList.parse(
            "##.ok\n||ads.example^\nbad site!##.x\na.com##\na..b##.x\nx.com#$#log 1\n,##.x\nd.com#?#.y\n")
        XCTAssertEqual(list.filters.map(\.selector), [".ok", ".y"])
        XCTAssertEqual(list.issues.map(\.line), [2, 3, 4, 5, 6, 7])
        XCTAssertEqual(
            list.issues.map(\.kind), [.outOfScope, .malformed, .malformed, .malformed, .outOfScope, .malformed])
        XCTAssertTrue(list.issues.allSatisfy { $0.description.hasPrefix("cpm.filterList line \($0.line): ") })
    }

    func testMostSpecificSiteDecidesAndExceptionsWin() {
        let s = CosmeticSites(
            entries: [
                .init(domain: "a.com", include: true), .init(domain: "b.a.com", include: false),
                .init(domain: "c.b.a.com", include: true),
            ], exceptions: ["x.c.b.a.com"])
        XCTAssertTrue(s.applies(toHost: "a.com"))
        XCTAssertTrue(s.applies(toHost: "www.a.com"))
        XCTAssertFalse(s.applies(toHost: "b.a.com"))
        XCTAssertFalse(s.applies(toHost: "z.b.a.com"))
        XCTAssertTrue(s.applies(toHost: "c.b.a.com"))
        XCTAssertFalse(s.applies(toHost: "x.c.b.a.com"))
        XCTAssertFalse(s.applies(toHost: "other.com"))
        XCTAssertFalse(s.applies(toHost: "aa.com"))
        let generic = CosmeticSites(entries: [.init(domain: "e.com", include: false)], exceptions: [])
        XCTAssertTrue(generic.applies(toHost: "other.com"))
        XCTAssertFalse(generic.applies(toHost: "w.e.com"))
    }

    func testExceptionsApplyToEveryFilterOfTheirSelector() {
        let (hides, notes) = CosmeticFilterList.parse(
            "##.a\nx.com##.a\ny.com#@#.a\n##.b\n#@#.b\nz.com##.c\nz.com#@#.c\n"
        ).hides()
        XCTAssertEqual(hides.map(\.selector), [".a", ".a"])
        XCTAssertEqual(hides.map(\.sites.exceptions), [["y.com"], []]) // y.com cannot matter to x.com's filter
        XCTAssertEqual(hides[0].lines, [1, 3])
        XCTAssertEqual(notes.map(\.line), [4, 6])
    }

    func testTopLevelKeysAreOneListAndUnknownOnesAreNamed() throws {
        let tds =
            #"{"trackers": {}, "entities": {}, "domains": {}, "cnames": {}, "readme": "x", "_builtWith": {}, "#
            + #""cpm": {"filterList": "\u0023\u0023.a"}, "futureKey": 1}"#
        let (set, issues) = try TrackerDataSet.decode(bytes: Array(tds.utf8), source: "t.json")
        XCTAssertEqual(set.cookiePopupFilterList, "##.a")
        XCTAssertEqual(
            issues.map(\.description),
            [
                "t.json: $.futureKey: unknown top-level key, not converted (radarblock converts trackers, entities, "
                    + "domains, cnames, cpm)"
            ])
        XCTAssertThrowsError(try TrackerDataSet.decode(bytes: Array(tds.utf8), source: "t.json", strict: true)) {
            error in
            XCTAssertTrue(String(describing: error).contains("$.futureKey"))
        }
        XCTAssertEqual(
            Set(TDSConventions.topLevelKeys.map(\.name)),
            ["trackers", "entities", "domains", "cnames", "cpm", "_builtWith", "readme"])
        // The encoder writes the list back; the decoder reads the same set.
        XCTAssertEqual(try TrackerDataSet.decode(json: set.jsonValue, source: "again").0, set)
    }

    func testEverySharedTDSDecodesWithoutAnUnknownKey() throws {
        for name in ["ios-tds_v5_2025-06-17.json", "ios-tds_embedded_2025-02-17.json", "ios-tds_v7_2024-07-12.json"] {
            let path = try SharedFiles.path("tds/" + name)
            let (_, issues) = try TrackerDataSet.load(path: path)
            XCTAssertFalse(issues.contains { $0.message.contains("unknown") && $0.message.contains("key") }, name)
        }
    }

    func testAutoconsentGovernsTheList() throws {
        let config =
            #"{"features": {"autoconsent": {"state": "enabled", "exceptions": [{"domain": "A.com"}], "#
            + #""features": {"filterlist": {"state": "enabled"}}, "settings": {"filterlistExceptions": ["b.com", " "#
            + #""]}}}, "#
            + #""unprotectedTemporary": [{"domain": "t.com"}]}"#
        let (c, issues) = try PrivacyConfig.decode(bytes: Array(config.utf8), source: "c.json")
        XCTAssertTrue(issues.isEmpty)
        XCTAssertTrue(c.cookiePopups.appliesAnywhere)
        XCTAssertEqual(
            c.cookiePopupOffSites(unprotected: UnprotectedSites(hosts: ["u.com"])),
            ["t.com", "a.com", "b.com", "u.com"])
        let noSub = try PrivacyConfig.decode(
            bytes: Array(#"{"features": {"autoconsent": {"state": "enabled"}}}"#.utf8), source: "c"
        ).0
        XCTAssertFalse(noSub.cookiePopups.appliesAnywhere)
    }
}

final class RegexLiteralTests: XCTestCase {
    func testTheMetacharacterBitsAreTheMetacharacters() {
        let metacharacters = Set("\\^$.|?*+()[]{}/".utf8)
        for b in UInt8.min...UInt8.max {
            XCTAssertEqual(TDSConventions.isRegexMetacharacter(b), metacharacters.contains(b), "byte \(b)")
        }
        XCTAssertEqual(TDSConventions.regexLiteral("a.b/c(d)é*"), "a\\.b\\/c\\(d\\)é\\*")
    }
}
