// The filter lists in manifest.json: `inputs.filterLists` (name, copy, what was fetched) and the lists' entries
// (role "filter-lists", sources, layer), each with one encoder and one decoder whose errors name the field.

import StrictJSON
import XCTest

@testable import Release

final class FilterListManifestTests: XCTestCase {
    func manifest() -> Manifest {
        var m = Manifest(
            identifier: "tds_v2_x_all", toolVersion: "0.1.0", rbcFormatVersion: 2, mode: .faithful,
            inputs: [.tds: InputRecord(source: "tds.json", etag: nil, lastModified: nil, sha256: "ff", bytes: 9)],
            components: [:], outputs: [], counts: [.filterListRules: 3],
            lists: [
                ManifestList(
                    identifier: "tds-filters_v2_x_1", rules: "filters.json", rbc: "filters.rbc",
                    provenance: "filters.provenance.json", ruleCount: 3, sha256: "aa", role: .filterLists)
            ], webKitVerification: nil)
        m.lists[0].sources = ["easyprivacy.txt", "easylist.txt"]
        m.lists[0].layer = "network"
        m.filterLists = [
            FilterListInput(
                name: "easyprivacy.txt",
                record: InputRecord(
                    source: "https://lists.test/easyprivacy.txt", etag: "\"e1\"", lastModified: nil, sha256: "s1",
                    bytes: 10),
                copy: ReleaseFiles.inputFilterList(1)),
            FilterListInput(
                name: "easylist.txt",
                record: InputRecord(source: "easylist.txt", etag: nil, lastModified: nil, sha256: "s2", bytes: 20),
                copy: ReleaseFiles.inputFilterList(2)),
        ]
        return m
    }

    func testTheFilterListsRoundTrip() throws {
        let m = manifest()
        let bytes = m.bytes()
        XCTAssertEqual(try Manifest.parse(bytes), m)
        let json = try JSONParser.parse(bytes)
        XCTAssertEqual(json["inputs"]?["filterLists"]?.arrayValue?.first?["name"]?.stringValue, "easyprivacy.txt")
        XCTAssertEqual(
            json["inputs"]?["filterLists"]?.arrayValue?.last?["copy"]?.stringValue, "input-filter-list-2.txt")
        XCTAssertEqual(json["lists"]?.arrayValue?.first?["role"]?.stringValue, "filter-lists")
        XCTAssertEqual(json["lists"]?.arrayValue?.first?["sources"]?.arrayValue?.count, 2)
        XCTAssertEqual(ReleaseFiles.filterList(.network, part: 2).rules, "filters-2.json")
        XCTAssertEqual(ReleaseFiles.filterListIssues(.network), "filters.issues.txt")
    }

    func testAManifestWithoutFilterListsWritesNoKey() throws {
        var m = manifest()
        m.filterLists = []
        XCTAssertFalse(String(decoding: m.bytes(), as: UTF8.self).contains("filterLists"))
    }

    func testErrorsNameTheField() throws {
        let text = String(decoding: manifest().bytes(), as: UTF8.self)
        let noName = text.replacingOccurrences(of: "\"name\":\"easylist.txt\",", with: "")
        XCTAssertThrowsError(try Manifest.parse(Array(noName.utf8))) {
            XCTAssertEqual("\($0)", "\"inputs\".filterLists[1].name: missing")
        }
        let badSources = text.replacingOccurrences(of: "\"sources\":[\"easyprivacy.txt\",", with: "\"sources\":[1,")
        XCTAssertThrowsError(try Manifest.parse(Array(badSources.utf8))) {
            XCTAssertEqual("\($0)", "lists[0].sources[0]: a string expected")
        }
    }
}
