// The project's own sample data (data/): it must decode without a single issue, and it must contain
// the cases the other modules' tests rely on.

import FileIO
import StrictJSON
import TrackerData
import XCTest

final class SampleDataTests: XCTestCase {
    func testSampleTDSExercisesEveryFeature() throws {
        let (tds, issues) = try TrackerDataSet.load(path: TestData.sampleFile("tds.json"), strict: true)
        XCTAssertEqual(issues, [])
        XCTAssertEqual(tds.trackers.count, 8)
        XCTAssertEqual(tds.trackers["pixel-hub.example"]?.rules, [], "a block tracker without rules")
        let all = tds.trackers.values.flatMap(\.rules)
        XCTAssertTrue(tds.trackers.values.contains { $0.defaultAction == .block && !$0.rules.isEmpty })
        XCTAssertTrue(tds.trackers.values.contains { $0.defaultAction == .ignore && !$0.rules.isEmpty })
        XCTAssertTrue(all.contains { $0.surrogate != nil && $0.action == nil })
        XCTAssertTrue(all.contains { $0.surrogate != nil && $0.action == .blockCTLFB })
        XCTAssertTrue(all.contains { $0.action == .ignore && $0.options == nil })
        XCTAssertTrue(all.contains { $0.action == .ignore && $0.options != nil })
        XCTAssertTrue(all.contains { $0.action == .blockCTL("yt") })
        XCTAssertTrue(all.contains { $0.options?.domains != nil && $0.options?.types != nil && $0.exceptions == nil })
        XCTAssertTrue(
            all.contains { $0.exceptions?.domains != nil && $0.exceptions?.types != nil && $0.options == nil })
        XCTAssertTrue(all.contains { $0.options != nil && $0.exceptions != nil })
        XCTAssertTrue(
            all.contains { $0.exceptions?.types?.contains("font") == true }, "a type outside the 5 mapped ones")
        // A subdomain tracker under another tracker: the longest suffix wins.
        XCTAssertEqual(tds.findTracker(forHost: "x.ads.adnet.example")?.defaultAction, .ignore)
        XCTAssertEqual(tds.findTracker(forHost: "cdn.adnet.example")?.defaultAction, .block)
        // Same-entity first party and CNAME cloaking.
        XCTAssertEqual(tds.entityName(ofHost: "www.trackerco.example"), tds.entityName(ofHost: "tracker.example"))
        XCTAssertEqual(tds.findTracker(forHost: tds.uncloak(host: "metrics.shop.example"))?.domain, "tracker.example")
        XCTAssertEqual(tds.findTracker(forHost: tds.uncloak(host: "stats.news.example"))?.domain, "analytics.example")
        XCTAssertNil(tds.findTracker(forHost: tds.uncloak(host: "assets.blog.example")), "a CNAME to a non-tracker")
        // Every surrogate named in the TDS exists in data/surrogates.txt.
        let surrogates = try FileIO.readString(TestData.sampleFile("surrogates.txt"))
        let names = Set(
            surrogates.split(separator: "\n").compactMap { line -> String? in
                guard line.hasSuffix(" application/javascript") else { return nil }
                return line.split(separator: " ")[0].split(separator: "/").last.map(String.init)
            })
        XCTAssertEqual(Set(all.compactMap(\.surrogate)), names)
        XCTAssertFalse(surrogates.contains("\n\n\n"), "blocks are separated by exactly one blank line")
    }

    func testSamplePrivacyConfig() throws {
        let (config, issues) = try PrivacyConfig.load(path: TestData.sampleFile("privacy-config.json"), strict: true)
        XCTAssertEqual(issues, [], "includes the allowlist hash check")
        XCTAssertEqual(
            config.tempUnprotected,
            ["old-temp-list.example", "broken-checkout.example", "xn--bcher-kva.example", "legacy-portal.example"])
        XCTAssertTrue(config.trackerAllowlist.enabled)
        XCTAssertEqual(config.trackerAllowlist.hash, config.computedFeatureHash("trackerAllowlist"))
        XCTAssertEqual(
            config.computedFeatureHash("contentBlocking"),
            config.raw["features"]?["contentBlocking"]?["hash"]?.stringValue)
        XCTAssertEqual(
            config.trackerAllowlist.entries.map(\.trackerDomain),
            ["adnet.example", "adnet.example", "social.example", "tracker.example", "tracker.example"])
        XCTAssertTrue(
            config.trackerAllowlist.entries.contains { $0.rule.contains(".*") }, "the regex-like entry (spec P6)")
        XCTAssertTrue(config.trackerAllowlist.entries.contains { $0.sites == .all })
        XCTAssertTrue(
            config.trackerAllowlist.entries.contains { $0.sites == .domains(["video-site.example", "blog.example"]) })
    }

    func testSampleUnprotectedSites() throws {
        let (sites, issues) = try UnprotectedSites.load(
            path: TestData.sampleFile("unprotected-sites.txt"), strict: true)
        XCTAssertEqual(issues, [])
        XCTAssertEqual(sites.hosts, ["my-bank.example", "intranet.shop.example", "xn--strae-oqa.example"])
    }

    func testSampleRequestsAreWellFormed() throws {
        let text = try FileIO.readString(TestData.sampleFile("requests.jsonl"))
        let lines = text.split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 12)
        let allowed: Set<String> = ["url", "topURL", "frameURL", "resourceType", "loadContext", "requestMethod"]
        for line in lines {
            let value = try JSONParser.parse(String(line))
            let object = try XCTUnwrap(value.objectValue, String(line))
            XCTAssertTrue(Set(object.keys).isSubset(of: allowed), String(line))
            XCTAssertNotNil(object["url"]?.stringValue)
            XCTAssertNotNil(object["topURL"]?.stringValue)
        }
    }

    func testSampleRadarTree() throws {
        let data = try RadarLoader.load(directory: TestData.sampleFile("radar"), strict: true)
        XCTAssertEqual(data.issues, [])
        XCTAssertEqual(
            data.domains.map(\.domain),
            [
                "adnet.example", "analytics.example", "cdn-co.example", "quiet-fonts.example",
                "rare-pixel.example", "social.example", "tracker.example",
            ])
        XCTAssertEqual(
            data.entities.map(\.name), ["Ad Network Ltd", "Analytics Labs", "CDN Co", "Social Net Inc.", "Tracker Co"])
        // tracker.example is in two regions: merged into one record.
        let tracker = try XCTUnwrap(data.domains.last)
        XCTAssertEqual(tracker.regions, ["GB", "US"])
        XCTAssertEqual(tracker.prevalence, 0.0917)
        XCTAssertEqual(tracker.sites, 12020)
        XCTAssertEqual(tracker.subdomains, ["cdn", "eu"])
        XCTAssertEqual(tracker.source, ["DuckDuckGo-GB", "DuckDuckGo-US"])
        XCTAssertEqual(tracker.nameservers, ["ns1.trackerco.example", "ns2.trackerco.example"])
        XCTAssertEqual(
            tracker.cnames, [RadarCNAME(original: "metrics.shop.example", resolved: "shop.edge.tracker.example")])
        XCTAssertEqual(tracker.topInitiators?.first?.domain, "first party", "from the region that has them")
        let ads = tracker.resources.filter { $0.rule == "tracker\\.example\\/ads\\.js" }
        XCTAssertEqual(ads.count, 1)
        XCTAssertEqual(ads.first?.sites, 9120, "the copy seen on most sites")
        XCTAssertTrue(
            tracker.resources.contains { $0.rule == "tracker\\.example\\/consent\\.js" }, "GB-only resource kept")
        XCTAssertEqual(
            tracker.resources.filter { $0.rule == "tracker\\.example\\/collect" }.map(\.type), ["Preflight", "XHR"])
        XCTAssertNil(data.domains.first { $0.domain == "quiet-fonts.example" }?.owner, "owner {} means unknown")
        XCTAssertNil(data.domains.first { $0.domain == "cdn-co.example" }?.topInitiators, "absent key stays absent")
        // A per-file transform runs before merging (callers use it to keep only what they need).
        let slim = try RadarLoader.load(directory: TestData.sampleFile("radar")) { d in
            var copy = d
            copy.resources = copy.resources.map { r in
                var r = r; r.exampleSites = []; r.apis = [:]; return r
            }
            return copy
        }
        XCTAssertTrue(data.domains.flatMap(\.resources).contains { !$0.exampleSites.isEmpty })
        XCTAssertTrue(slim.domains.flatMap(\.resources).allSatisfy { $0.exampleSites.isEmpty && $0.apis.isEmpty })
        XCTAssertEqual(slim.domains.map(\.resources.count), data.domains.map(\.resources.count))
        let onlyUS = try RadarLoader.load(directory: TestData.sampleFile("radar"), regions: ["US"])
        XCTAssertEqual(onlyUS.domains.last?.regions, ["US"])
        XCTAssertEqual(onlyUS.domains.last?.prevalence, 0.0821)
    }
}
