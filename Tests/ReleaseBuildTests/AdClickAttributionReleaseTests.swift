import Digest
import Foundation
@testable import Release
@testable import ReleaseBuild
import RuleEngine
import StrictJSON
import TestSupport
import XCTest

/// The ad-click attribution list of a release (files, manifest entry) and its attributed variant (library API).
final class AdClickAttributionReleaseTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("aca-release") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    let tds = #"""
        {"trackers":{"ads.com":{"domain":"ads.com","default":"block","owner":{"name":"Ads Co"}},
                     "other.com":{"domain":"other.com","default":"block","owner":{"name":"Other"}}},
         "entities":{"Ads Co":{"domains":["ads.com","ads-site.com"]},"Other":{"domains":["other.com"]}},
         "domains":{"ads.com":"Ads Co","ads-site.com":"Ads Co","other.com":"Other"}}
        """#

    func config(_ state: String) -> String {
        #"{"features":{"contentBlocking":{"state":"enabled"},"adClickAttribution":{"state":"\#(state)","#
            + #""settings":{"allowlist":[{"blocklistEntry":"ads.com","host":"bat.ads.com"}]}}}}"#
    }

    func build(_ name: String, config text: String) throws -> String {
        try tds.write(toFile: work + "/tds.json", atomically: true, encoding: .utf8)
        try text.write(toFile: work + "/\(name)-config.json", atomically: true, encoding: .utf8)
        var o = BuildOptions(out: work + "/" + name)
        o.tds = work + "/tds.json"
        o.config = work + "/\(name)-config.json"
        _ = try ReleaseBuilder.run(o)
        return work + "/" + name
    }

    func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    func blocked(_ lists: [ReleaseList], _ url: String, on top: String) throws -> Bool {
        let answer = try RuleEngine(lists: lists.map(\.list)).match(
            MatchRequest(url: url, topURL: top, resourceType: "image"))
        return answer.isBlocked
    }

    func testTheReleaseCarriesTheListAndTheVariantIsAFunctionOfReleaseAndVendor() throws {
        let dir = try build("on", config: config("enabled"))
        let m = try Manifest.parse(try read(dir + "/manifest.json"))
        XCTAssertEqual(m.lists.map { $0.rules }, ["rules.json", "attribution.json"])
        let entry = try XCTUnwrap(ManifestList.adClickAttribution(of: m))
        XCTAssertEqual((entry.allowlist ?? []).map { "\($0.blocklistEntry) \($0.host)" }, ["ads.com bat.ads.com"])
        XCTAssertEqual(entry.sha256, Digest.hex(.sha256, try read(dir + "/attribution.json")))
        XCTAssertTrue(entry.identifier.hasPrefix("tds-attribution_"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/attribution-tds.json"))

        let a = try AdClickAttributionRelease.attributed(release: dir, vendor: "www.Shop.example")
        let b = try AdClickAttributionRelease.attributed(release: dir, vendor: "shop.example")
        XCTAssertEqual(a.vendor, "shop.example")
        XCTAssertEqual(a.json, b.json)
        XCTAssertEqual(a.rbc, b.rbc)
        XCTAssertEqual(a.identifier, b.identifier)
        XCTAssertTrue(a.identifier.hasPrefix("tds-attributed_"))
        XCTAssertNotEqual(
            try AdClickAttributionRelease.attributed(release: dir, vendor: "other.example").identifier, a.identifier)

        let normal = try ReleaseLists.load(dir).1
        let attributed = try AdClickAttributionRelease.lists(release: dir, vendor: "shop.example")
        XCTAssertTrue(try blocked(normal, "https://bat.ads.com/c", on: "https://shop.example/"))
        XCTAssertFalse(try blocked(attributed, "https://bat.ads.com/c", on: "https://shop.example/"))
        XCTAssertFalse(try blocked(attributed, "https://bat.ads.com/c", on: "https://www.shop.example/"))
        XCTAssertTrue(try blocked(attributed, "https://bat.ads.com/c", on: "https://other-shop.example/"))
        XCTAssertTrue(try blocked(attributed, "https://ads.com/c", on: "https://shop.example/"))
        XCTAssertTrue(try blocked(attributed, "https://other.com/c", on: "https://shop.example/"))
        XCTAssertThrowsError(try AdClickAttributionRelease.vendorSite("not a host"))
    }

    func testDisabledFeatureWritesNoListAndTheSameMainList() throws {
        let off = try build("off", config: config("disabled"))
        let absent = try build("absent", config: #"{"features":{"contentBlocking":{"state":"enabled"}}}"#)
        let m = try Manifest.parse(try read(off + "/manifest.json"))
        XCTAssertNil(ManifestList.adClickAttribution(of: m))
        XCTAssertFalse(FileManager.default.fileExists(atPath: off + "/attribution.json"))
        XCTAssertEqual(try read(off + "/rules.json"), try read(absent + "/rules.json"))
        XCTAssertThrowsError(try AdClickAttributionRelease.attributed(release: off, vendor: "shop.example")) { e in
            XCTAssertTrue("\(e)".contains("no ad-click attribution list"), "\(e)")
        }
    }
}
