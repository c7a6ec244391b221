// Decoding DuckDuckGo's real files (read at run time from ../shared, skipped when absent).

import Dispatch
import FileIO
import StrictJSON
import TrackerData
import XCTest

final class SharedTDSTests: XCTestCase {
    func testIOSTDSv5DecodesCompletelyWithoutIssues() throws {
        let path = try TestData.shared("tds/ios-tds_v5_2025-06-17.json")
        let bytes = try FileIO.read(path)
        let start = DispatchTime.now().uptimeNanoseconds
        let (tds, issues) = try TrackerDataSet.decode(bytes: bytes, source: path)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        print("decoded \(path) (\(bytes.count) bytes) in \(String(format: "%.1f", ms)) ms")
        XCTAssertEqual(issues, [])
        XCTAssertEqual(tds.trackers.count, 2898)
        XCTAssertEqual(tds.ruleCount, 2121)
        XCTAssertEqual(tds.cnames.count, 177)
        XCTAssertEqual(tds.entities.count, 2620)
        XCTAssertEqual(tds.domains.count, 6951)
        XCTAssertEqual(tds.trackers.values.filter { $0.defaultAction == .block }.count, 2183)
        XCTAssertEqual(tds.trackers.values.filter { $0.defaultAction == .ignore }.count, 715)
        // Every tracker's domain equals its key, and every key is already normalised.
        for (key, tracker) in tds.trackers { XCTAssertEqual(key, tracker.domain) }

        let dc = try XCTUnwrap(tds.trackers["doubleclick.net"])
        XCTAssertEqual(dc.owner?.name, "Google Ads")
        XCTAssertEqual(dc.owner?.ownedBy, "Google LLC")
        // Owner lookups go through the entity map: a subdomain of an entity property belongs to that entity.
        XCTAssertEqual(tds.entityName(ofHost: "ads.cdn77.org"), "DataCamp Limited")
        XCTAssertEqual(tds.entity(ofHost: "www.datacamp.com")?.displayName, "DataCamp")
        // Longest-suffix tracker lookup and CNAME uncloaking.
        XCTAssertEqual(tds.findTracker(forHost: "stats.g.doubleclick.net")?.domain, "doubleclick.net")
        XCTAssertEqual(tds.uncloak(host: "permutive.businessinsider.com"), "atcvt1h5rg5p.customer.permutive.app")
        XCTAssertEqual(tds.uncloak(host: "www.example.org"), "www.example.org")
    }

    func testIOSTDSSurvivesCanonicalRoundTrip() throws {
        let path = try TestData.shared("tds/ios-tds_v5_2025-06-17.json")
        let (tds, _) = try TrackerDataSet.load(path: path)
        let bytes = tds.canonicalBytes
        let (again, issues) = try TrackerDataSet.decode(bytes: bytes, source: "round-trip", strict: true)
        XCTAssertEqual(issues, [])
        XCTAssertEqual(again, tds)
        XCTAssertEqual(again.canonicalBytes, bytes, "canonical bytes must be stable")
    }

    func testEmbeddedIOSTDSDecodes() throws {
        let path = try TestData.shared("tds/ios-tds_embedded_2025-02-17.json")
        let (tds, issues) = try TrackerDataSet.load(path: path, strict: true)
        XCTAssertEqual(issues, [])
        XCTAssertGreaterThan(tds.trackers.count, 1000)
        // The spec's bogus "first-party" type on 2o7.net is kept as given; mapping types is the builder's job.
        let types = tds.trackers.values.flatMap(\.rules).flatMap {
            ($0.options?.types ?? []) + ($0.exceptions?.types ?? [])
        }
        XCTAssertTrue(types.contains("first-party"))
    }

    func testTrackerRadarKitFixtureDropsAndReportsUnsupportedAction() throws {
        let path = try TestData.shared("tds/fixtures/trackerradarkit-mockTrackerData.json")
        let (tds, issues) = try TrackerDataSet.load(path: path)
        XCTAssertEqual(
            issues.map(\.description),
            [
                "\(path): $.trackers[\"tracker-4.com\"].rules[1].action: unknown action \"unsupported-action\"; rule "
                    + "dropped"
            ])
        let t4 = try XCTUnwrap(tds.trackers["tracker-4.com"])
        XCTAssertEqual(t4.rules.map(\.rule), ["tracker-4\\.com\\/breakage"])
        XCTAssertEqual(t4.rules.first?.action, .ignore)
        XCTAssertEqual(tds.trackers.count, 4)
        XCTAssertEqual(tds.ruleCount, 7)

        XCTAssertThrowsError(try TrackerDataSet.load(path: path, strict: true)) { error in
            XCTAssertEqual(
                "\(error)",
                "\(path): $.trackers[\"tracker-4.com\"].rules[1].action: unknown action \"unsupported-action\"; rule "
                    + "dropped"
            )
        }
    }

    func testReferenceTestTDSFiles() throws {
        let dir = try TestData.shared("reference-tests")
        let (radar, radarIssues) = try TrackerDataSet.load(
            path: dir + "/tracker-radar-tests/TR-domain-matching/tracker_radar_reference.json")
        XCTAssertEqual(radar.trackers.count, 22)
        XCTAssertEqual(radar.cnames.count, 3)
        // Two of the 61 rules use "unsupported-action": dropped and reported, the other 59 kept.
        XCTAssertEqual(radar.ruleCount, 59)
        XCTAssertEqual(
            radarIssues.map(\.location),
            [#"$.trackers["tracker.test"].rules[1].action"#, #"$.trackers["ignore.test"].rules[1].action"#])
        for issue in radarIssues {
            XCTAssertEqual(issue.message, #"unknown action "unsupported-action"; rule dropped"#)
        }

        let (allowTDS, allowIssues) = try TrackerDataSet.load(
            path: dir + "/tracker-radar-tests/TR-domain-matching/tracker_allowlist_tds_reference.json", strict: true)
        XCTAssertEqual(allowIssues, [])
        XCTAssertEqual(allowTDS.trackers.count, 3)

        // Click-to-load: every block-ctl-* action is kept, with its name.
        let (ctl, ctlIssues) = try TrackerDataSet.load(path: dir + "/click-to-load/tds_reference.json", strict: true)
        XCTAssertEqual(ctlIssues, [])
        let names = Set(ctl.trackers.values.flatMap(\.rules).compactMap { $0.action?.clickToLoadName })
        XCTAssertEqual(names, ["fb", "fb2", "second", "third", "unknown"])
        XCTAssertTrue(ctl.trackers.values.flatMap(\.rules).contains { $0.action == .blockCTLFB })

        let (rb, rbIssues) = try TrackerDataSet.load(path: dir + "/request-blocklist/tds-reference.json", strict: true)
        XCTAssertEqual(rbIssues, [])
        XCTAssertEqual(rb.trackers.count, 1)
        XCTAssertEqual(rb.ruleCount, 2)
    }

    func testIOSPrivacyConfig() throws {
        let path = try TestData.shared("privacy-config/ios-config_v4_embedded_2025-02-17.json")
        let (config, issues) = try PrivacyConfig.load(path: path, strict: true)
        XCTAssertEqual(issues, [])
        XCTAssertEqual(config.unprotectedTemporary, [])
        XCTAssertEqual(config.tempUnprotected.count, 10)
        XCTAssertEqual(config.tempUnprotected.first, "strava.com")
        XCTAssertTrue(config.contentBlockingEnabled)
        XCTAssertTrue(config.trackerAllowlist.enabled)
        XCTAssertEqual(config.trackerAllowlist.hash, "856b689c920d896b149774d16d0348f0")
        XCTAssertEqual(config.trackerAllowlist.trackerCount, 211)
        XCTAssertEqual(config.trackerAllowlist.entries.count, 391)
        let first = try XCTUnwrap(config.trackerAllowlist.entries.first)
        XCTAssertEqual(
            first,
            AllowlistEntry(
                trackerDomain: "3lift.com", rule: "tlx.3lift.com/header/auction", sites: .domains(["aternos.org"])))
        let domains = config.trackerAllowlist.entries.map(\.trackerDomain)
        XCTAssertEqual(domains, domains.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        XCTAssertTrue(config.trackerAllowlist.entries.contains { $0.sites == .all })
        XCTAssertEqual(config.raw["features"]?["trackerAllowlist"]?["hash"], "856b689c920d896b149774d16d0348f0")
    }

    func testReferenceAllowlistAndConfigs() throws {
        let path = try TestData.shared(
            "reference-tests/tracker-radar-tests/TR-domain-matching/tracker_allowlist_reference.json")
        let (allowlist, issues) = try TrackerAllowlist.decode(
            allowlistedTrackers: FileIO.read(path), source: path, strict: true)
        XCTAssertEqual(issues, [])
        XCTAssertEqual(allowlist.trackerCount, 3)
        XCTAssertEqual(
            allowlist.entries.first,
            AllowlistEntry(
                trackerDomain: "allowlist-tracker-1.com", rule: "allowlist-tracker-1.com/videos.js",
                sites: .domains(["testsite.com"])))
        XCTAssertEqual(
            allowlist.entries.last,
            AllowlistEntry(trackerDomain: "allowlist-tracker-3.com", rule: "allowlist-tracker-3.com", sites: .all))

        let dir = try TestData.shared("reference-tests")
        for file in [
            "click-to-load/config_reference.json",
            "privacy-configuration/config1_reference.json", "privacy-configuration/config2_reference.json",
            "privacy-configuration/config3_reference.json",
        ] {
            let (_, issues) = try PrivacyConfig.load(path: dir + "/" + file)
            XCTAssertEqual(issues, [], file)
        }
        // The request-blocklist reference config holds the invalid entries its "incorrect" tests expect to be skipped.
        let (rb, rbIssues) = try PrivacyConfig.load(path: dir + "/request-blocklist/config-reference.json")
        let key = #"$.features.requestBlocklist.settings.blockedRequests["request-blocklist.example"]"#
        XCTAssertEqual(
            rbIssues.map { $0.path?.description ?? "" },
            [
                key + ".rules[5].rule", key + ".rules[6].domains", key + ".rules[8].unknown", key + ".rules[10].rule",
                #"$.features.requestBlocklist.settings.blockedRequests["subdomain.request-blocklist.example"]"#,
            ])
        XCTAssertEqual(
            rb.requestBlocklist.rules.map(\.provenanceName).first, "requestBlocklist/request-blocklist.example/0")
        let (ctl, _) = try PrivacyConfig.load(path: dir + "/click-to-load/config_reference.json")
        XCTAssertEqual(
            ctl.clickToLoad.supportedRuleActions.map(\.ruleAction),
            ["block-ctl-fb", "block-ctl-fb2", "block-ctl-third"])
        let (config1, _) = try PrivacyConfig.load(path: dir + "/privacy-configuration/config1_reference.json")
        XCTAssertFalse(config1.contentBlockingEnabled)
        XCTAssertFalse(config1.trackerAllowlist.enabled)
        XCTAssertEqual(config1.tempUnprotected, ["exception.com", "dont.block.co.uk"])
        let (config2, _) = try PrivacyConfig.load(path: dir + "/privacy-configuration/config2_reference.json")
        XCTAssertTrue(config2.contentBlockingEnabled)
        // The top-level list comes first, then the contentBlocking exceptions.
        XCTAssertEqual(
            config2.tempUnprotected,
            ["global-exception.com", "dont.global-block.co.uk", "exception.com", "dont.block.co.uk"])
        let (config3, _) = try PrivacyConfig.load(path: dir + "/privacy-configuration/config3_reference.json")
        XCTAssertFalse(config3.contentBlockingEnabled, "an absent feature is disabled")
    }
}
