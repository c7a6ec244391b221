// `build --filter-list`: the lists' rules in a list of their own with its role and sources, the lists among the
// manifest's inputs and in the identifier, an exception of one list cancelling the blocks of another, the split at
// the limit that keeps every exception with every block, the unprotected sites switching the lists off, and bad
// lists failing the build with nothing published.

import Digest
import Foundation
@testable import Release
@testable import ReleaseBuild
import RuleEngine
import TestSupport
import XCTest

final class FilterListReleaseTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("filter-list-release") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    let tds = #"""
        {"trackers":{"tracker.test":{"domain":"tracker.test","default":"block","owner":{"name":"T"}}},
         "entities":{"T":{"domains":["tracker.test"]}},"domains":{"tracker.test":"T"}}
        """#
    let privacy = """
        ||ads.test^
        ||pixel.test^$image
        @@||cdn.test/ok^
        ||beacon.test^$important
        """
    let ads = """
        [Adblock Plus 2.0]
        ! Title: ads
        ||cdn.test^
        ||banner.test^$third-party
        @@||ads.test/allowed^
        """

    func write(_ text: String, _ name: String) throws -> String {
        try text.write(toFile: work + "/" + name, atomically: true, encoding: .utf8)
        return work + "/" + name
    }

    func options(_ name: String, lists: [String], maxRules: Int? = nil) throws -> BuildOptions {
        var o = BuildOptions(out: work + "/" + name)
        o.tds = try write(tds, "tds.json")
        o.config = SampleData.config
        o.unprotected = SampleData.unprotected
        o.filterLists = lists
        o.targets = [.default]
        if let maxRules { o.maxRules = maxRules }
        return o
    }

    func build(_ name: String, lists: [String], maxRules: Int? = nil) throws -> (Manifest, [ReleaseList]) {
        _ = try ReleaseBuilder.run(try options(name, lists: lists, maxRules: maxRules))
        return try ReleaseLists.load(work + "/" + name)
    }

    func blocked(_ lists: [ReleaseList], _ url: String, top: String = "https://site.test/", type: String = "script")
        throws -> Bool
    {
        try RuleEngine(lists: lists.map(\.list)).match(MatchRequest(url: url, topURL: top, resourceType: type))
            .isBlocked
    }

    func testTheListsAreOneListOfTheirOwnWithTheirInputsAndSources() throws {
        let (m, lists) = try build("a", lists: [try write(privacy, "privacy.txt"), try write(ads, "ads.txt")])
        XCTAssertEqual(m.filterLists.map(\.name), ["privacy.txt", "ads.txt"])
        for (input, text) in zip(m.filterLists, [privacy, ads]) {
            XCTAssertEqual(input.record.sha256, Digest.hex(.sha256, Array(text.utf8)))
            XCTAssertEqual(try String(contentsOfFile: work + "/a/" + input.copy, encoding: .utf8), text)
        }
        let filters = try XCTUnwrap(lists.last)
        XCTAssertEqual(filters.entry.role, .filterLists)
        XCTAssertEqual(filters.entry.sources, ["privacy.txt", "ads.txt"])
        XCTAssertEqual(filters.entry.layer, "network")
        XCTAssertEqual(filters.name, "filters.json")
        XCTAssertEqual(lists.filter { $0.role == .filterLists }.count, 1)
        XCTAssertNil(filters.entry.target)
        XCTAssertEqual(m.counts[.filterListRules], Double(filters.entry.ruleCount ?? -1))
        // Each rule's provenance names its own list and line.
        let lines = try XCTUnwrap(filters.provenance).compactMap { p in p.list.map { "\($0):\(p.filterLines ?? [])" } }
        XCTAssertTrue(lines.contains("ads.txt:[3]"), "\(lines)")
        XCTAssertTrue(lines.contains("privacy.txt:[1]"), "\(lines)")
        // An exception of one list cancels a block of the other, as adblock-rust with both lists loaded does.
        XCTAssertTrue(try blocked(lists, "https://cdn.test/x.js"))
        XCTAssertFalse(try blocked(lists, "https://cdn.test/ok/x.js"))
        XCTAssertTrue(try blocked(lists, "https://ads.test/x.js"))
        XCTAssertFalse(try blocked(lists, "https://ads.test/allowed/x.js"))
        XCTAssertTrue(try blocked(lists, "https://beacon.test/x.js"))
        // The page's own document is not blocked by a filter without $document.
        XCTAssertFalse(try blocked(lists, "https://ads.test/", top: "https://ads.test/", type: "top-document"))
    }

    func testTheListsAreInTheIdentifierAndInIfChanged() throws {
        let (without, _) = try build("none", lists: [])
        let (with, _) = try build("one", lists: [try write(privacy, "privacy.txt")])
        XCTAssertNotEqual(without.identifier, with.identifier)
        XCTAssertTrue(without.filterLists.isEmpty)
        let manifest = try String(contentsOfFile: work + "/none/manifest.json", encoding: .utf8)
        XCTAssertFalse(manifest.contains("filterLists"))
        var o = try options("one", lists: [work + "/privacy.txt"])
        (o.previous, o.ifChanged) = (work + "/one", true)
        guard case .unchanged = try ReleaseBuilder.run(o) else { return XCTFail("the same list is not unchanged") }
        _ = try write(privacy + "\n||more.test^", "privacy.txt")
        o.out = work + "/two"
        guard case .built(let next, _) = try ReleaseBuilder.run(o) else {
            return XCTFail("a changed list is unchanged")
        }
        XCTAssertNotEqual(next.identifier, with.identifier)
        // Built for two targets, a release is named by its main lists and its filter lists' lists.
        var two = try options("two-targets", lists: [])
        two.targets = [.portable, .default]
        guard case .built(let plain, _) = try ReleaseBuilder.run(two) else { return XCTFail("not built") }
        (two.out, two.filterLists) = (work + "/two-targets-filters", [work + "/privacy.txt"])
        guard case .built(let filtered, _) = try ReleaseBuilder.run(two) else { return XCTFail("not built") }
        XCTAssertNotEqual(plain.identifier, filtered.identifier)
    }

    func testUnprotectedSitesSwitchTheListsOff() throws {
        let (_, lists) = try build("u", lists: [try write(privacy, "privacy.txt")])
        XCTAssertTrue(try blocked(lists, "https://ads.test/x.js", top: "https://shop.test/"))
        // data/'s user-unprotected site, with a subdomain, and the config's temporarily unprotected site.
        for top in ["https://my-bank.example/", "https://www.my-bank.example/", "https://old-temp-list.example/"] {
            XCTAssertFalse(try blocked(lists, "https://ads.test/x.js", top: top), top)
            XCTAssertFalse(try blocked(lists, "https://beacon.test/x.js", top: top), "$important on \(top)")
        }
        let filters = try XCTUnwrap(lists.last?.provenance)
        XCTAssertEqual(filters.suffix(2).map(\.source), [.tempList, .userUnprotected])
    }

    func testCosmeticFiltersAreASecondListWhereEveryListsExceptionsApply() throws {
        let hides = "##.ad-banner\n##.sponsor\n"
        let shows = "||ads.test^\nshop.test#@#.ad-banner\n"
        let (_, lists) = try build("c", lists: [try write(hides, "hides.txt"), try write(shows, "shows.txt")])
        let cosmetic = try XCTUnwrap(lists.first { $0.entry.layer == "cosmetic" })
        XCTAssertEqual(cosmetic.role, .filterLists)
        XCTAssertEqual(cosmetic.name, "filters-cosmetic.json")
        XCTAssertEqual(cosmetic.entry.sources, ["hides.txt", "shows.txt"])
        let json = try String(contentsOfFile: work + "/c/filters-cosmetic.json", encoding: .utf8)
        // The other list's #@# exception keeps .ad-banner off shop.test; .sponsor stays hidden everywhere.
        let rules = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let banner = try XCTUnwrap(
            rules.first { ($0["action"] as? [String: Any])?["selector"] as? String == ".ad-banner" })
        XCTAssertTrue("\(banner["trigger"] ?? "")".contains("shop"), "\(banner)")
        XCTAssertTrue(json.contains(".sponsor"))
        // The network list holds no hiding rule, and the unprotected sites switch the cosmetic list off too.
        XCTAssertFalse(try String(contentsOfFile: work + "/c/filters.json", encoding: .utf8).contains("css-display"))
        XCTAssertEqual(try XCTUnwrap(cosmetic.provenance).suffix(2).map(\.source), [.tempList, .userUnprotected])
    }

    func testASplitListKeepsEveryExceptionWithEveryBlock() throws {
        let blocks = (1...40).map { "||host\($0).test^" }.joined(separator: "\n")
        let path = try write(blocks + "\n@@||host3.test/ok^\n@@||host11.test/ok^\n", "many.txt")
        let (whole, wholeLists) = try build("whole", lists: [path])
        let (split, lists) = try build("split", lists: [path], maxRules: 20)
        let parts = lists.filter { $0.role == .filterLists }
        XCTAssertEqual(parts.map(\.name), ["filters.json", "filters-2.json", "filters-3.json"])
        XCTAssertEqual(split.counts[.filterListParts], 3)
        XCTAssertEqual(whole.counts[.filterListParts], 1)
        for part in parts {
            let rules = try part.contentRules()
            XCTAssertLessThanOrEqual(rules.count, 20)
            // Both exceptions, the navigation reset and the two unprotected-site rules are in every part.
            XCTAssertEqual(rules.filter { $0.action == .ignorePreviousRules }.count, 5, part.name)
        }
        for n in [3, 11, 5, 40] {
            for path in ["/x.js", "/ok/x.js"] {
                let url = "https://host\(n).test" + path
                XCTAssertEqual(try blocked(lists, url), try blocked(wholeLists, url), url)
            }
        }
        XCTAssertFalse(try blocked(lists, "https://host11.test/ok/x.js"))
        XCTAssertTrue(try blocked(lists, "https://host40.test/x.js"))
    }

    func testBadListsFailTheBuildNamingTheListAndPublishNothing() throws {
        let first = try write(privacy, "privacy.txt")
        try FileManager.default.createDirectory(atPath: work + "/other", withIntermediateDirectories: true)
        try privacy.write(toFile: work + "/other/privacy.txt", atomically: true, encoding: .utf8)
        func failure(_ o: BuildOptions) -> BuildError? {
            do { _ = try ReleaseBuilder.run(o) } catch let e as BuildError { return e } catch { return nil }
            return nil
        }
        let twice = failure(try options("twice", lists: [first, work + "/other/privacy.txt"]))
        XCTAssertEqual(twice?.component, .filterList)
        XCTAssertTrue(twice?.reason.contains("a second list named privacy.txt") == true, "\(String(describing: twice))")
        let missing = failure(try options("missing", lists: [work + "/absent.txt"]))
        XCTAssertEqual(missing?.component, .filterList)
        XCTAssertTrue(missing?.reason.contains("absent.txt") == true)
        var strict = try options("strict", lists: [try write("||a.test^\n||b.test^$nosuchoption\n", "bad.txt")])
        strict.strict = true
        let malformed = failure(strict)
        XCTAssertEqual(malformed?.component, .filterList)
        XCTAssertTrue(
            malformed?.reason.contains("bad.txt: line 2: ||b.test^$nosuchoption") == true,
            "\(String(describing: malformed))")
        for name in ["twice", "missing", "strict"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/" + name), name)
        }
        // Without --strict the malformed line is reported in filters.issues.txt, and the build publishes.
        strict.strict = false
        _ = try ReleaseBuilder.run(strict)
        let issues = try String(contentsOfFile: work + "/strict/filters.issues.txt", encoding: .utf8)
        XCTAssertTrue(issues.hasPrefix("bad.txt: line 2: ||b.test^$nosuchoption: [malformed]"), issues)
    }
}
