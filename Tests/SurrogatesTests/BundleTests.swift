import XCTest
import StrictJSON
@testable import Surrogates
import TrackerData

final class BundleTests: XCTestCase {
    private func referenceBundle(scope: PageDataScope = .surrogateTrackers) throws -> SurrogateBundle {
        try SurrogateBundleBuilder.build(
            tds: Support.referenceTDS(), scripts: Support.referenceSurrogates(),
            options: SurrogateBundleOptions(scope: scope, reportTrackers: false))
    }

    func testReferenceBundleIsValidJavaScript() throws {
        let node = try Support.node()
        let bundle = try referenceBundle()
        XCTAssertEqual(bundle.surrogateNames, ["tracker"])
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Support.write(bundle.script, dir + "/surrogates.js")
        let (status, _, err) = try Support.run(node, ["--check", dir + "/surrogates.js"])
        XCTAssertEqual(status, 0, err)
    }

    func testMissingSurrogate() throws {
        let tds = try Support.referenceTDS()
        let scripts = try Support.referenceSurrogates()
        // surrogates.test names "missingsurrogate", which the reference surrogates.txt does not have.
        XCTAssertThrowsError(
            try SurrogateBundleBuilder.build(
                tds: tds, tdsSource: "tds.json", scripts: scripts,
                options: SurrogateBundleOptions(strict: true))
        ) { e in
            XCTAssertEqual(
                (e as? SurrogateBundleError)?.description,
                "tds.json: $.trackers[\"surrogates.test\"].rules[1].surrogate: surrogate \"missingsurrogate\" is not "
                    + "in surrogates.txt"
            )
        }
        let lenient = try SurrogateBundleBuilder.build(tds: tds, tdsSource: "tds.json", scripts: scripts)
        XCTAssertEqual(
            lenient.warnings.first,
            "tds.json: $.trackers[\"surrogates.test\"].rules[1].surrogate: surrogate \"missingsurrogate\" is not in "
                + "surrogates.txt; the rule stays a plain block"
        )
        XCTAssertTrue(
            lenient.warnings.contains(
                "surrogates.txt: 1 surrogate(s) not referenced by the TDS left out of the bundle: script.js"))
        // The rule is still carried (it can shadow later rules) but without a surrogate.
        XCTAssertTrue(JSONWriter.string(lenient.pageData).contains(#"{"rule":"surrogates\\.test\\/anothertracker"}"#))
        XCTAssertFalse(lenient.script.contains("missingsurrogate"))
    }

    func testInvalidBodyNamesSurrogateAndFileLine() throws {
        let tds = TrackerDataSet(trackers: [
            "t.com": Tracker(
                domain: "t.com", defaultAction: .block,
                rules: [TrackerRule(rule: "t\\.com/a\\.js", surrogate: "a.js")])
        ])
        let scripts = try SurrogatesFile.parse(
            "# c\nt.com/a.js application/javascript\nx();\n}); evil(); (function () {", source: "s.txt")
        XCTAssertThrowsError(
            try SurrogateBundleBuilder.build(
                tds: tds, scripts: scripts, surrogatesSource: "s.txt",
                options: SurrogateBundleOptions(strict: true))
        ) { e in
            XCTAssertEqual(
                (e as? SurrogateBundleError)?.description,
                "s.txt: line 4: surrogate \"a.js\": \"}\" closes nothing (it would close the surrogate's wrapper "
                    + "function)"
            )
        }
        // Without --strict the surrogate is dropped with the same error, and the rest of the bundle is built.
        let lenient = try SurrogateBundleBuilder.build(tds: tds, scripts: scripts, surrogatesSource: "s.txt")
        XCTAssertEqual(
            lenient.errors,
            [
                "s.txt: line 4: surrogate \"a.js\": \"}\" closes nothing (it would close the surrogate's wrapper "
                    + "function); surrogate dropped, its rules stay plain blocks"
            ])
        XCTAssertEqual(lenient.surrogateNames, [])
        XCTAssertFalse(lenient.script.contains("evil"))
    }

    func testDeterministic() throws {
        let a = try referenceBundle()
        // Same data inserted in a different order.
        var tds = try Support.referenceTDS()
        let keys = tds.trackers.keys.sorted().reversed()
        var reordered: [String: Tracker] = [:]
        for k in keys { reordered[k] = tds.trackers[k] }
        tds.trackers = reordered
        let b = try SurrogateBundleBuilder.build(
            tds: tds, scripts: Support.referenceSurrogates(),
            options: SurrogateBundleOptions(reportTrackers: false))
        XCTAssertEqual(a.script, b.script)
        XCTAssertEqual(a.script, try referenceBundle().script)
    }

    func testSubsetCarriesOnlyWhatSurrogateDecisionsNeed() throws {
        let bundle = try referenceBundle()
        let data = try bundleData(bundle)
        let trackers = data["trackers"]!.arrayValue!.map { $0.arrayValue![0].stringValue! }
        // The five trackers with a "tracker" surrogate rule; no shadowing trackers in the reference TDS.
        XCTAssertEqual(
            trackers,
            [
                "blockedsurrogates.test", "options1.test", "options2.test", "options3.test",
                "sometimes-bad.third-party.site", "surrogates.test",
            ].sorted())
        XCTAssertEqual(
            data["entities"]!.arrayValue!.map { $0.arrayValue![0].stringValue! },
            ["Test Site for Surrogates", "Test Site for Tracker Blocking"])
        XCTAssertEqual(data["cnames"], .array([]))
        XCTAssertEqual(data["surrogates"], ["tracker"])
    }

    func testShadowTrackersAndAliases() throws {
        let tds = TrackerDataSet(
            trackers: [
                "ads.com": Tracker(
                    domain: "ads.com", owner: Owner(name: "Ads"), defaultAction: .block,
                    rules: [TrackerRule(rule: "ads\\.com/s\\.js", surrogate: "s.js")]),
                "cdn.ads.com": Tracker(domain: "cdn.ads.com", owner: Owner(name: "Ads"), defaultAction: .ignore),
                "other.com": Tracker(domain: "other.com", defaultAction: .block),
                "site.com": Tracker(domain: "site.com", defaultAction: .ignore),
            ],
            entities: ["Ads": Entity(domains: ["ads.com", "ads-owned.net"])],
            cnames: ["m.site.com": "x.ads.com", "n.blog.com": "y.other.com"])
        let scripts = try SurrogatesFile.parse("ads.com/s.js application/javascript\nwindow.s = 1;", source: "s")
        let data = try bundleData(
            SurrogateBundleBuilder.build(
                tds: tds, scripts: scripts,
                options: SurrogateBundleOptions(reportTrackers: false)))
        XCTAssertEqual(
            JSONWriter.string(data["trackers"]!, options: [.sortedKeys]),
            #"[["ads.com",{"default":"block","owner":"Ads","rules":[{"rule":"ads\\.com/s\\.js","surrogate":"s.js"}]}],"#
                + #"["cdn.ads.com",{}],["site.com",{}]]"#
        )
        XCTAssertEqual(JSONWriter.string(data["cnames"]!), #"[["m.site.com","x.ads.com"]]"#)
    }

    /// What the bundle's page reads (its DATA before PageTable; Tests/js decodes the tables themselves).
    private func bundleData(_ bundle: SurrogateBundle) throws -> JSONObject {
        try XCTUnwrap(bundle.pageData.objectValue)
    }
}
