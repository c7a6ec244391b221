// manifest.json as types: its lists, counts, flags, mode, inputs and compile cost, each with one encoder and one
// decoder.

import Foundation
import StrictJSON
import XCTest

@testable import Release

/// The release contract as types: a manifest's lists and counts have one encoder and one decoder, and the encoder
/// writes each kind of list with the fields in the order releases have always had.
final class ManifestContractTests: XCTestCase {
    static let main = ManifestList(
        identifier: "tds-part1_v2_x_1", rules: "rules.json", rbc: "rules.rbc", ruleCount: 10, trackerUnits: 3,
        sha256: "aa", target: "webkitgtk-2.50", role: .main)
    static let clickToLoad = ManifestList(
        identifier: "tds-ctl-block-fb_v2_x_2", rules: "ctl-block-fb.json", rbc: "ctl-block-fb.rbc",
        provenance: "ctl-block-fb.provenance.json", ruleCount: 4, sha256: "bb", ruleAction: "block-fb",
        entity: "Facebook, Inc.", role: .clickToLoad)
    static let cookiePopups = ManifestList(
        identifier: "tds-cpm_v2_x_3", rules: "cpm.json", rbc: "cpm.rbc", provenance: "cpm.provenance.json",
        ruleCount: 2, sha256: "cc", role: .cookiePopups, script: "cpm-script.json")
    static let attribution = ManifestList(
        identifier: "tds-attribution_v2_x_4", rules: "attribution.json", rbc: "attribution.rbc",
        provenance: "attribution.provenance.json", tds: "attribution-tds.json", ruleCount: 5, sha256: "dd",
        role: .adClickAttribution,
        allowlist: [AttributionAllowlistEntry(blocklistEntry: "ads.com", host: "bat.ads.com")])
    /// An entry from before roles and targets were written.
    static let old = ManifestList(identifier: "tds_v1_x_5", rules: "rules-2.json", ruleCount: 1)

    func manifest() -> Manifest {
        var m = Manifest(
            identifier: "tds_v2_x_all", toolVersion: "0.1.0", rbcFormatVersion: 2, mode: .faithful,
            inputs: [.tds: InputRecord(source: "tds.json", etag: "\"e\"", lastModified: nil, sha256: "ff", bytes: 9)],
            components: ["tdsEtag": "\"e\""], outputs: [OutputRecord(name: "rules.json", sha256: "aa", bytes: 100)],
            counts: [.rules: 10, .cookiePopup("filters"): 2, .named("fromALaterVersion"): 7],
            flags: ManifestFlags(trackerReport: true),
            lists: [Self.main, Self.clickToLoad, Self.cookiePopups, Self.attribution, Self.old],
            webKitVerification: nil, targets: ["webkitgtk-2.50"])
        m.webKitCompileCost = ReleaseCompileCost(webkitVersion: "2.50.6", lists: [])
        m.webKitVerification = ReleaseWebKitVerification(
            webkitVersion: "2.50.6",
            accepted: [
                .init(list: "rules.json", seconds: 0.25, bytes: 4096),
                .init(list: "cpm.json", seconds: 0.5, bytes: nil),
            ])
        return m
    }

    func testAManifestWithEveryKindOfListDecodesToWhatWasEncoded() throws {
        let m = manifest()
        XCTAssertEqual(try Manifest.parse(m.bytes()), m)
        XCTAssertEqual(try Manifest.parse(m.bytes()).bytes(), m.bytes())
        XCTAssertEqual(m.lists.map(\.kind), [.main, .clickToLoad, .cookiePopups, .adClickAttribution, .main])
    }

    /// The manifest's bytes are part of a release: each kind of entry keeps its fields in this order.
    func testEachKindOfListIsWrittenWithItsFieldsInTheirOrder() {
        func text(_ l: ManifestList) -> String {
            String(decoding: JSONWriter.bytes(l.jsonValue, options: []), as: UTF8.self)
        }
        XCTAssertEqual(
            text(Self.main),
            #"{"identifier":"tds-part1_v2_x_1","rules":"rules.json","rbc":"rules.rbc","ruleCount":10,"trackerUnits":3,"#
                + #""sha256":"aa","target":"webkitgtk-2.50","role":"main"}"#)
        XCTAssertEqual(
            text(Self.clickToLoad),
            #"{"identifier":"tds-ctl-block-fb_v2_x_2","rules":"ctl-block-fb.json","rbc":"ctl-block-fb.rbc","#
                + #""provenance":"ctl-block-fb.provenance.json","ruleCount":4,"sha256":"bb","ruleAction":"block-fb","#
                + #""entity":"Facebook, Inc.","role":"click-to-load"}"#)
        XCTAssertEqual(
            text(Self.cookiePopups),
            #"{"identifier":"tds-cpm_v2_x_3","rules":"cpm.json","rbc":"cpm.rbc","provenance":"cpm.provenance.json","#
                + #""ruleCount":2,"sha256":"cc","role":"cpm","script":"cpm-script.json"}"#)
        XCTAssertEqual(
            text(Self.attribution),
            #"{"identifier":"tds-attribution_v2_x_4","rules":"attribution.json","rbc":"attribution.rbc","#
                + #""provenance":"attribution.provenance.json","tds":"attribution-tds.json","ruleCount":5,"#
                + #""sha256":"dd","role":"ad-click-attribution","allowlist":[{"blocklistEntry":"ads.com","#
                + #""host":"bat.ads.com"}]}"#)
    }

    /// `--verify-webkit`'s record keeps the bytes releases have always had; a malformed one names the field.
    func testTheWebKitVerificationIsWrittenInItsOrderAndReadStrictly() throws {
        let verification = try XCTUnwrap(manifest().webKitVerification)
        XCTAssertEqual(
            String(decoding: JSONWriter.bytes(verification.jsonValue, options: []), as: UTF8.self),
            #"{"webkitVersion":"2.50.6","accepted":[{"list":"rules.json","seconds":0.25,"bytes":4096},"#
                + #"{"list":"cpm.json","seconds":0.5,"bytes":null}]}"#)
        guard case .object(var o) = try JSONParser.parse(manifest().bytes()) else { return XCTFail("not a manifest") }
        o["webkitVerification"] = ["webkitVersion": "2.50.6", "accepted": [["list": "rules.json"]]]
        XCTAssertThrowsError(try Manifest.parse(JSONWriter.bytes(.object(o), options: []))) {
            XCTAssertTrue(String(describing: $0).contains("\"webkitVerification\""), "\($0)")
        }
    }

    func testAListWithoutARequiredFieldIsAnErrorNamingTheField() throws {
        var json = try JSONParser.parse(manifest().bytes())
        guard case .object(var o) = json, case .array(var lists) = o["lists"], case .object(var entry) = lists[1]
        else { return XCTFail("not a manifest") }
        entry["identifier"] = JSONValue?.none
        lists[1] = .object(entry)
        o["lists"] = .array(lists)
        json = .object(o)
        XCTAssertThrowsError(try Manifest.parse(JSONWriter.bytes(json, options: []))) { error in
            XCTAssertTrue("\(error)".contains("lists[1].identifier: missing"), "\(error)")
        }
    }

    func testAFieldOfTheWrongTypeOrAnUnknownRoleIsAnErrorNamingTheField() throws {
        let cases: [(JSONValue, String)] = [
            (["identifier": "a", "ruleCount": "ten"], "lists[0].ruleCount: a non-negative integer expected"),
            (["identifier": "a", "rules": 3], "lists[0].rules: a string expected"),
            (["identifier": "a", "role": "sidebar"], #"lists[0].role: unknown role "sidebar""#),
            (["identifier": "a", "allowlist": [["host": "h"]]], "lists[0].allowlist[0].blocklistEntry: missing"),
        ]
        for (entry, message) in cases {
            let m: JSONValue = ["identifier": "r", "lists": [entry]]
            XCTAssertThrowsError(try Manifest.parse(JSONWriter.bytes(m, options: []))) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }

    /// A manifest's mode, input keys and compile cost are read strictly: what this version cannot read is an
    /// error naming the field, never a default.
    func testAnUnknownModeInputOrCompileCostIsAnErrorNamingTheField() throws {
        let text = String(decoding: manifest().bytes(), as: UTF8.self)
        func parsing(_ from: String, _ to: String) -> String {
            XCTAssertTrue(text.contains(from), from)
            do {
                _ = try Manifest.parse(Array(text.replacingOccurrences(of: from, with: to).utf8))
                return "parsed"
            } catch { return String(describing: error) }
        }
        XCTAssertEqual(
            parsing(#""mode":"faithful""#, #""mode":"strict""#),
            #""mode": unknown mode "strict" (this radarblock knows faithful, ddg)"#)
        XCTAssertEqual(parsing(#""mode":"faithful","#, ""), #""mode": missing or not a string"#)
        XCTAssertEqual(parsing(#""inputs":{"tds""#, #""inputs":{"radar""#), #""inputs": unknown input "radar""#)
        XCTAssertEqual(
            parsing(#""webkitCompileCost":{"webkitVersion""#, #""webkitCompileCost":{"version""#),
            #""webkitCompileCost": not a compile cost (webkitVersion, lists)"#)
    }

    /// Flags are counts of 1 in the file (as before they had a type of their own), absent when off.
    func testFlagsAreWrittenAsCountsOfOneAndReadBackAsFlags() throws {
        var m = manifest()
        m.flags = ManifestFlags(optimized: true, perTrackerExemptions: true)
        let counts = try XCTUnwrap(m.jsonValue["counts"]?.objectValue)
        XCTAssertEqual(counts["optimized"], 1)
        XCTAssertEqual(counts["perTrackerExemptions"], 1)
        XCTAssertNil(counts["trackerReport"])
        let parsed = try Manifest.parse(m.bytes())
        XCTAssertEqual(parsed.flags, m.flags)
        XCTAssertEqual(parsed.counts, m.counts)
    }

    func testCountsAreWrittenByNameInOrder() {
        let m = manifest()
        guard case .object(let counts) = m.jsonValue["counts"] else { return XCTFail("no counts") }
        XCTAssertEqual(Array(counts.keys), ["cookiePopupFilters", "fromALaterVersion", "rules", "trackerReport"])
    }
}
