import Digest
import Foundation
@testable import Release
@testable import ReleaseBuild
@testable import ReleaseDiff
import StrictJSON
import TestSupport
import XCTest

/// Click-to-load lists in a release: files, manifest entries, identifiers, and per-list diffs.
final class ClickToLoadReleaseTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("ctl-release") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    let tds = #"""
        {"trackers":{"widgets.com":{"domain":"widgets.com","default":"ignore","owner":{"name":"Widget Co"},
          "rules":[{"rule":"widgets\\.com/like","action":"block-ctl-w"},
                   {"rule":"widgets\\.com/video","action":"block-ctl-v"},
                   {"rule":"widgets\\.com/pixel"}]}},
         "entities":{"Widget Co":{"domains":["widgets.com","widgets-site.com"]}},
         "domains":{"widgets.com":"Widget Co","widgets-site.com":"Widget Co"}}
        """#

    func config(actions: [String], exceptions: [String] = []) -> String {
        let a = actions.map { "\"\($0)\"" }.joined(separator: ",")
        let x = exceptions.map { "{\"domain\":\"\($0)\"}" }.joined(separator: ",")
        return
            #"{"features":{"contentBlocking":{"state":"enabled"},"#
            + #""clickToLoad":{"state":"enabled","exceptions":[\#(x)],"#
            + #""settings":{"Widget Co":{"state":"enabled","ruleActions":[\#(a)]}}}}}"#
    }

    func build(_ name: String, config text: String, previous: String? = nil) throws -> String {
        try tds.write(toFile: work + "/tds.json", atomically: true, encoding: .utf8)
        try text.write(toFile: work + "/\(name)-config.json", atomically: true, encoding: .utf8)
        var o = BuildOptions(out: work + "/" + name)
        o.tds = work + "/tds.json"
        o.config = work + "/\(name)-config.json"
        o.previous = previous
        _ = try ReleaseBuilder.run(o)
        return work + "/" + name
    }

    func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    func testEverySupportedActionHasItsListInTheManifest() throws {
        let dir = try build("a", config: config(actions: ["block-ctl-w", "block-ctl-v"]))
        let m = try Manifest.parse(try read(dir + "/manifest.json"))
        XCTAssertEqual(m.lists.map { $0.rules }, ["rules.json", "ctl-block-ctl-w.json", "ctl-block-ctl-v.json"])
        var identifiers = Set<String>()
        for entry in m.lists {
            let rules = try XCTUnwrap(entry.rules)
            XCTAssertEqual(entry.sha256, Digest.hex(.sha256, try read(dir + "/" + rules)), rules)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/" + (entry.rbc ?? "")))
            identifiers.insert(try XCTUnwrap(entry.identifier))
        }
        XCTAssertEqual(identifiers.count, 3)
        XCTAssertEqual(m.lists[1].ruleAction, "block-ctl-w")
        XCTAssertEqual(m.lists[1].entity, "Widget Co")
        XCTAssertTrue(m.lists[1].identifier.hasPrefix("tds-ctl-block-ctl-w_"))
        XCTAssertEqual(m.components["ctlTdsEtag"], "CTL_" + m.components["tdsEtag"]!)
        XCTAssertNotEqual(m.identifier, m.lists[0].identifier, "the release is named by all of its lists")
    }

    func testDiffReportsChangesPerList() throws {
        let a = try build("a", config: config(actions: ["block-ctl-w", "block-ctl-v"]))
        let b = try build("b", config: config(actions: ["block-ctl-w"], exceptions: ["news.com"]), previous: a)
        let report = try ReleaseComparison.compare(
            try ReleaseComparison.load(a, options: DiffOptions()),
            try ReleaseComparison.load(b, options: DiffOptions()), options: DiffOptions())
        XCTAssertEqual(report.lists.map(\.name), ["ctl-block-ctl-w.json", "ctl-block-ctl-v.json"])
        XCTAssertEqual(report.lists.map(\.status), [.changed, .removed])
        XCTAssertEqual(report.lists[0].rulesAdded, 1, "the new exception")
        XCTAssertEqual(report.lists[0].ruleAction, "block-ctl-w")
        XCTAssertTrue(report.rules.isEmpty, "the main list is the same")
        XCTAssertFalse(report.isEmpty)
        // Video content was blocked by its list only: dropping that list flips it for every page.
        let flips = try report.requests?.changed.changes() ?? []
        XCTAssertTrue(flips.contains { $0.request.url.contains("widgets.com/video") })
        let changes = try JSONParser.parse(try read(b + "/changes.json"))
        XCTAssertEqual(
            changes["lists"]?.arrayValue?.compactMap { $0["list"]?.stringValue },
            ["ctl-block-ctl-w.json", "ctl-block-ctl-v.json"])
        let same = try ReleaseComparison.compare(
            try ReleaseComparison.load(b, options: DiffOptions()),
            try ReleaseComparison.load(b, options: DiffOptions()), options: DiffOptions())
        XCTAssertTrue(same.lists.isEmpty)
        XCTAssertTrue(same.isEmpty)
    }
}
