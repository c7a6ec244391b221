// Runs the node tests in Tests/js against bundles built here, so `swift test` covers the page side too.

import XCTest
@testable import Surrogates
import TrackerData

final class NodeMatcherTests: XCTestCase {
    func testPageMatcherAgainstReferenceSuite() throws {
        let node = try Support.node()
        let tds = try Support.referenceTDS()
        let scripts = try Support.referenceSurrogates()
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let full = try SurrogateBundleBuilder.build(tds: tds, scripts: scripts)
        let subset = try SurrogateBundleBuilder.build(
            tds: tds, scripts: scripts, options: SurrogateBundleOptions(reportTrackers: false))
        try Support.write(full.script, dir + "/full.js")
        try Support.write(subset.script, dir + "/subset.js")
        let tests = try Support.shared(Support.referenceDir + "/domain_matching_tests.json")
        let (status, out, err) = try Support.run(
            node,
            [
                Support.packageRoot + "/Tests/js/reference.test.js",
                dir + "/full.js", dir + "/subset.js", tests,
            ])
        XCTAssertEqual(status, 0, out + err)
        XCTAssertTrue(
            out.contains(
                "reference: 134 tests, full matcher 134 match + 0 listed deviation(s); tracker report 134 agree; "
                    + "bundle subset: 6 surrogate cases, 128 without surrogate; 0 failure(s)"
            ), out + err)
    }
}

final class SharedIOSBundleTests: XCTestCase {
    /// The bundle for the shared iOS TDS + surrogates + config: valid JavaScript, every regex compiles in
    /// JavaScript, and the cases in Tests/js/cases get the expected surrogate.
    func testIOSBundle() throws {
        let node = try Support.node()
        let tdsPath = try Support.shared("tds/ios-tds_v5_2025-06-17.json")
        let surrogatesPath = try Support.shared("surrogates/surrogates.txt")
        let configPath = try Support.shared("privacy-config/ios-config_v4_embedded_2025-02-17.json")
        let tds = try TrackerDataSet.load(path: tdsPath).0
        let config = try PrivacyConfig.load(path: configPath).0
        let scripts = try SurrogatesFile.parse(
            String(decoding: FileManager.default.contents(atPath: surrogatesPath)!, as: UTF8.self),
            source: surrogatesPath)
        let bundle = try SurrogateBundleBuilder.build(
            tds: tds, scripts: scripts, config: config,
            options: SurrogateBundleOptions(strict: true))
        XCTAssertEqual(bundle.surrogateNames.count, 17)
        XCTAssertEqual(bundle.surrogateTrackerCount, 15)
        // With the tracker report (the default), which carries every tracker: docs/tracker-report.md.
        XCTAssertLessThanOrEqual(bundle.bytes.count, 250_000, "the bundle is injected into every page (issue 32)")
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Support.write(bundle.script, dir + "/ios.js")
        let (check, _, checkErr) = try Support.run(node, ["--check", dir + "/ios.js"])
        XCTAssertEqual(check, 0, checkErr)
        let (status, out, err) = try Support.run(
            node,
            [
                Support.packageRoot + "/Tests/js/bundle.test.js", dir + "/ios.js",
                Support.packageRoot + "/Tests/js/cases/ios-tds-2025-06-17.jsonl",
            ])
        XCTAssertEqual(status, 0, out + err)
        XCTAssertTrue(out.contains(", 0 failure(s)"), out + err)
    }
}
