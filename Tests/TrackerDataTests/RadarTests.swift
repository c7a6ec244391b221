// Raw Tracker Radar files: the shared sample (read at run time) and malformed files.

import FileIO
import Foundation
import StrictJSON
import TrackerData
import XCTest

final class RadarTests: XCTestCase {
    func testSharedRadarSampleLoadsWithoutIssues() throws {
        let dir = try TestData.shared("tracker-radar-sample")
        let data = try RadarLoader.load(directory: dir, strict: true)
        XCTAssertEqual(data.issues, [])
        XCTAssertEqual(data.domains.count, 119)
        XCTAssertEqual(data.entities.count, 72)
        XCTAssertEqual(
            data.domains.map(\.domain), data.domains.map(\.domain).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        )
        XCTAssertEqual(
            data.domains.filter { $0.owner == nil }.count, 33, "FORMAT.md: 33 of the 119 files have owner {}")
        XCTAssertEqual(data.domains.filter { !$0.cnames.isEmpty }.count, 8)
        let ip = try XCTUnwrap(data.domains.first { $0.domain == "1.1.1.1" })
        XCTAssertNil(ip.topInitiators)
        // Facts FORMAT.md states about every file: subdomains = union of resource subdomains,
        // types = per-type sum of resource sites. (Its "sites >= every resource's sites" does not hold:
        // acdn.no has sites 1 and resources seen on 2 sites, so we do not rely on it.)
        for d in data.domains {
            XCTAssertEqual(Set(d.subdomains), Set(d.resources.flatMap(\.subdomains)), d.domain)
            var types: [String: Int] = [:]
            for r in d.resources { types[r.type ?? "", default: 0] += r.sites }
            XCTAssertEqual(types, d.types, d.domain)
            XCTAssertEqual(d.regions, ["US"])
        }
        // 555 resources in the 117 files at the main commit, plus 1 (00px.net) and 3 (0cf.io).
        XCTAssertEqual(data.domains.map(\.resources.count).reduce(0, +), 559)
        // Deterministic: a second load gives the same result.
        XCTAssertEqual(try RadarLoader.load(directory: dir), data)
    }

    func testMalformedFilesAreReportedByPathAndSkipped() throws {
        let root = NSTemporaryDirectory() + "rb-radar-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/domains/US", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/entities", withIntermediateDirectories: true)
        try FileIO.write(
            #"{"domain": "good.example", "prevalence": 0.1, "sites": 3, "resources": [{"rule": "good\\.example\\/a", "#
                + #""sites": 2, "type": "Script"}]}"#,
            to: root + "/domains/US/good.example.json")
        try FileIO.write("{\n\"domain\": \"cut.example\",\n\"prevalence\": ", to: root + "/domains/US/cut.example.json")
        try FileIO.write(#"{"prevalence": 0.2}"#, to: root + "/domains/US/nodomain.example.json")
        try FileIO.write(
            #"{"domain": "typed.example", "sites": "many", "resources": [{"sites": 1}], "cnames": [{"original": "a b","#
                + #" "resolved": "x.example"}]}"#,
            to: root + "/domains/US/typed.example.json")
        try FileIO.write(
            #"{"name": "Good Co", "properties": ["good.example", "GOOD.example"], "prevalence": {"tracking": 0.1}}"#,
            to: root + "/entities/Good Co.json")
        try FileIO.write(#"["not an entity"]"#, to: root + "/entities/Broken.json")

        let data = try RadarLoader.load(directory: root)
        XCTAssertEqual(data.domains.map(\.domain), ["good.example", "typed.example"])
        XCTAssertEqual(data.entities.map(\.name), ["Good Co"])
        XCTAssertEqual(data.entities.first?.properties, ["good.example", "good.example"])
        let typed = data.domains[1]
        XCTAssertEqual(typed.sites, 0)
        XCTAssertEqual(typed.resources, [])
        XCTAssertEqual(typed.cnames, [])
        let cut = try parseError("{\n\"domain\": \"cut.example\",\n\"prevalence\": ")
        XCTAssertEqual(cut.line, 3)
        XCTAssertEqual(
            data.issues.map(\.description),
            [
                "\(root)/domains/US/cut.example.json: line 3: invalid JSON at column \(cut.column): \(cut.message); "
                    + "file skipped",
                "\(root)/domains/US/nodomain.example.json: $.domain: missing \"domain\"; file skipped",
                "\(root)/domains/US/typed.example.json: $.sites: expected an integer, found a string; field ignored",
                "\(root)/domains/US/typed.example.json: $.cnames[0].original: cannot normalise domain \"a b\": "
                    + "contains whitespace or control characters; entry dropped",
                "\(root)/domains/US/typed.example.json: $.resources[0].rule: missing or not a non-empty string; "
                    + "resource dropped",
                "\(root)/entities/Broken.json: $: expected a Tracker Radar entity object, found an array; file skipped",
            ])
        XCTAssertThrowsError(try RadarLoader.load(directory: root, strict: true)) { error in
            XCTAssertTrue(
                "\(error)".hasPrefix("\(root)/domains/US/cut.example.json: invalid JSON at line 3"), "\(error)")
        }
        XCTAssertThrowsError(try RadarLoader.load(directory: root + "/missing")) { error in
            XCTAssertEqual("\(error)", "\(root)/missing: not a directory")
        }
    }

    func testMapsOfCountsAndRatesDropWrongEntriesOneByOne() throws {
        let json =
            #"{"domain": "maps.example", "types": {"Script": 4, "Image": 1.5}, "resources": [{"rule": "#
            + #""maps\\.example\\/a", "sites": 1, "apis": {"a": 2, "b": "x"}, "firstPartyCookiesSent": {"c": 0.5, "#
            + #""d": true}}, {"rule": "maps\\.example\\/b", "sites": 1, "apis": [1]}]}"#
        let (d, issues) = try RadarDomain.decode(bytes: Array(json.utf8), path: "r/domains/US/maps.example.json")
        XCTAssertEqual(d.types, ["Script": 4])
        XCTAssertEqual(d.resources.map(\.apis), [["a": 2], [:]])
        XCTAssertEqual(d.resources.map(\.firstPartyCookiesSent), [["c": 0.5], [:]])
        XCTAssertEqual(
            issues.map(\.description),
            [
                "r/domains/US/maps.example.json: $.types.Image: expected an integer, found a number; entry dropped",
                "r/domains/US/maps.example.json: $.resources[0].apis.b: expected an integer, found a string; entry "
                    + "dropped",
                "r/domains/US/maps.example.json: $.resources[0].firstPartyCookiesSent.d: expected a number, found a "
                    + "boolean; entry dropped",
                "r/domains/US/maps.example.json: $.resources[1].apis: expected an object, found an array; field "
                    + "ignored",
            ])
    }

    func testSingleDomainFileDecode() throws {
        let json =
            #"{"domain": "Tracker.Example", "owner": {"name": "T", "displayName": "T"}, "performance": {"time": 2}, "#
            + #""types": {"Script": 4}}"#
        let (d, issues) = try RadarDomain.decode(bytes: Array(json.utf8), path: "radar/domains/GB/tracker.example.json")
        XCTAssertEqual(issues, [])
        XCTAssertEqual(d.domain, "tracker.example")
        XCTAssertEqual(d.regions, ["GB"], "region from the directory name")
        XCTAssertEqual(d.owner, RadarOwner(name: "T", displayName: "T"))
        XCTAssertEqual(d.performance, RadarPerformance(time: 2))
        XCTAssertEqual(d.types, ["Script": 4])
        let (_, mismatch) = try RadarDomain.decode(bytes: Array(json.utf8), path: "other.example.json")
        XCTAssertEqual(
            mismatch.map(\.message), [#"domain "Tracker.Example" does not match the file name "other.example""#])
    }

    private func parseError(_ text: String) throws -> JSONParseError {
        do {
            _ = try JSONParser.parse(text)
        } catch let e as JSONParseError {
            return e
        }
        struct ParsedUnexpectedly: Error {}
        throw ParsedUnexpectedly()
    }
}
