// A release built by a radarblock of another .rbc format still answers: its lists are compiled from their recorded
// JSON (the .rbc is only their compiled form), and the command says so. A damaged .rbc is still refused.

import RuleCompiler
import RuleEngine
import XCTest

@testable import Release

final class OlderFormatListTests: XCTestCase {
    let json = Array(
        #"[{"trigger":{"url-filter":"^[^:]+://+([^/]+\\.)?tracker\\.example[:/]"},"action":{"type":"block"}}]"#.utf8)

    /// The list's .rbc as this radarblock writes it, with `version` in its header instead.
    func rbc(version: UInt32) throws -> [UInt8] {
        let compiled = try RuleListCompiler.compile(json: json, options: .init(name: "tds", dataset: "e1"))
        var bytes = RBCFile.bytes(compiled)
        for k in 0..<4 { bytes[8 + k] = UInt8(truncatingIfNeeded: version >> (8 * UInt32(k))) }
        return bytes
    }

    func load(_ rbc: [UInt8], rules: String? = "rules.json") throws -> ReleaseList {
        let entry = ManifestList(identifier: "tds@e1_v4_0.1.0_0123456789abcdef", rules: rules, rbc: "rules.rbc")
        return try ReleaseLists.list(
            entry, index: 0, unsplit: true, recorded: [],
            files: .products([("rules.json", json), ("rules.rbc", rbc)]))
    }

    func blocks(_ list: ReleaseList) throws -> Bool {
        let r = try RuleEngine(lists: [list.list]).match(
            MatchRequest(url: "https://a.tracker.example/x.js", topURL: "https://news.example/", resourceType: "script")
        )
        return !r.entries.isEmpty
    }

    func testAnOlderFormatsListIsCompiledFromItsJSONAndSaysSo() throws {
        let list = try load(try rbc(version: RBCFile.formatVersion - 1))
        XCTAssertEqual(list.recompiledFrom, RBCFile.formatVersion - 1)
        XCTAssertTrue(try blocks(list))
        XCTAssertTrue(list.list.identifier.hasPrefix("tds@e1_v\(RBCFile.formatVersion)_"), list.list.identifier)
        XCTAssertEqual(
            list.recompiledNote(release: "old"),
            "note: old/rules.rbc is .rbc format \(RBCFile.formatVersion - 1), this radarblock reads "
                + "\(RBCFile.formatVersion): compiled from its recorded rules.json instead")
    }

    func testTheCurrentFormatIsLoadedAsItIs() throws {
        let list = try load(try rbc(version: RBCFile.formatVersion))
        XCTAssertNil(list.recompiledFrom)
        XCTAssertNil(list.recompiledNote(release: "new"))
        XCTAssertTrue(try blocks(list))
    }

    func testWithoutItsJSONAnOlderFormatIsRefused() throws {
        XCTAssertThrowsError(try load(try rbc(version: RBCFile.formatVersion - 1), rules: nil)) { error in
            XCTAssertTrue("\(error)".contains("format version \(RBCFile.formatVersion - 1)"), "\(error)")
        }
    }

    func testADamagedRBCIsStillRefused() throws {
        var bytes = try rbc(version: RBCFile.formatVersion)
        bytes[bytes.count - 1] ^= 0xFF
        XCTAssertThrowsError(try load(bytes))
        XCTAssertNil(RBCFile.formatVersion(of: Array(json)), "JSON is no compiled list")
    }
}
