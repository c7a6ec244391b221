// The deciding rule on real data, through the paths `diff` and `match --explain` take: every flip of the
// shared iOS release diff names the rule Explain finds, and every blocked case of DuckDuckGo's reference
// suite names the TDS rule the case is about. Reads ../shared at run time; skips, saying so, without it.

import Domains
import Foundation
import RuleCompiler
import RuleDiff
import RuleEngine
import StrictJSON
import TestSupport
import TrackerData
import XCTest

@testable import Release
@testable import ReleaseDiff
@testable import ReleaseBuild

final class DecidingRuleReleaseTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("deciding") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    func build(tds: String, config: String?, out: String) throws {
        var o = BuildOptions(out: out)
        o.tds = tds
        o.config = config
        _ = try ReleaseBuilder.run(o)
    }

    /// The deciding rule by Explain (rule by rule; `prefilter` takes the candidates from the url automaton).
    func explained(_ side: DiffSide, _ load: ResourceLoad, prefilter: Bool) throws -> DecidingRule? {
        Explain.decidingRule(side.lists, try side.lists.map { try Explain.explain($0, load, prefilter: prefilter) })
    }

    /// `relative` (a shared TDS) with only the trackers `sampled` keeps, written into the work directory.
    func sampledTDS(_ relative: String, every: Int) throws -> String {
        let path = try SharedFiles.path(relative)
        var root = try XCTUnwrap(
            try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).objectValue,
            "\(path): not a TDS")
        let trackers = try XCTUnwrap(root["trackers"]?.objectValue, "\(path): not a TDS (no trackers object)")
        root["trackers"] = .object(
            JSONObject(trackers.filter { Self.sampled($0.key, every: every) }.map { ($0.key, $0.value) }))
        let out = work + "/" + URL(fileURLWithPath: path).lastPathComponent
        try Data(JSONWriter.bytes(.object(root))).write(to: URL(fileURLWithPath: out))
        return out
    }

    /// One tracker in about `every`, chosen by its name alone: the same trackers on both sides of a diff.
    static func sampled(_ domain: String, every: Int) -> Bool {
        domain.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFF_FFFF } % every == 0
    }

    /// The iOS diff on a deterministic sample (one tracker in 16 on both sides, every 10th flip of it): the
    /// whole diff takes minutes in debug, so scripts/test-webkit.sh checks all 28,304 flips on the release
    /// binary (scripts/testing/check_deciding_rules.py).
    func testSampledFlipsOfTheIOSReleaseDiffNameTheRuleExplainFinds() throws {
        let config = try SharedFiles.path("privacy-config/ios-config_v4_embedded_2025-02-17.json")
        try build(
            tds: try sampledTDS("tds/ios-tds_embedded_2025-02-17.json", every: 16), config: config, out: work + "/old")
        try build(tds: try sampledTDS("tds/ios-tds_v5_2025-06-17.json", every: 16), config: config, out: work + "/new")
        let old = try ReleaseComparison.load(work + "/old", options: DiffOptions())
        let new = try ReleaseComparison.load(work + "/new", options: DiffOptions())
        let report = try ReleaseComparison.compare(old, new, options: DiffOptions())
        let flips = try report.requests?.changed.changes() ?? []
        XCTAssertGreaterThan(flips.count, 500, "flipped decisions of the sampled iOS diff")

        let stride = 10
        let resolver = URLResolver()
        var result = MatchResult()
        var checked = 0, unfiltered = 0, blocked = 0
        let engines = [RuleEngine(lists: old.lists), RuleEngine(lists: new.lists)]
        for i in Swift.stride(from: 0, to: flips.count, by: stride) {
            let flip = flips[i]
            let load = try ResourceLoad(flip.request, resolver: resolver)
            for (s, (side, decision)) in [(old, flip.old), (new, flip.new)].enumerated() {
                engines[s].match(load, into: &result, deciding: .all)
                let reference = try explained(side, load, prefilter: true)
                XCTAssertEqual(result.decidedBy, reference, "flip \(i): \(flip.request)")
                // The report names that rule: its provenance (the lists of a release have one).
                let named = reference.map {
                    DecidingRuleRecord.provenance(
                        side.provenance[$0.list][Int(side.lists[$0.list].compiled.rules[$0.rule].sourceIndex)])
                }
                XCTAssertEqual(decision.rule, named, "flip \(i): \(flip.request)")
                XCTAssertEqual(decision.outcome != .allowed, result.isBlocked)
                if decision.outcome != .allowed {
                    XCTAssertNotNil(reference, "a blocked side names its rule: \(flip.request)")
                    blocked += 1
                }
                // Explain without the automaton's candidates: slower, and fully independent of the automata.
                if (i / stride) % 10 == 0 {
                    XCTAssertEqual(
                        try explained(side, load, prefilter: false), reference,
                        "flip \(i) (unfiltered): \(flip.request)")
                    unfiltered += 1
                }
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 2 * 50)
        XCTAssertGreaterThanOrEqual(unfiltered, 2 * 5)
        XCTAssertGreaterThanOrEqual(blocked, checked / 2, "every flip is blocked on one side at least")
        print(
            "sampled iOS diff: \(flips.count) flips, \(checked / 2) checked on both sides "
                + "(\(unfiltered / 2) without the prefilter)"
        )
    }

    func testMatchExplainOnTheReferenceSuiteNamesTheTDSRuleOfEveryBlockedCase() throws {
        let dir = try SharedFiles.path("reference-tests/tracker-radar-tests/TR-domain-matching")
        try build(tds: dir + "/tracker_radar_reference.json", config: nil, out: work + "/ref")
        let tds = try TrackerDataSet.decode(
            bytes: Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/tracker_radar_reference.json"))),
            source: "tracker_radar_reference.json", strict: false
        ).0
        // What `match RELEASE_DIR --explain` loads and prints.
        let (_, lists) = try ReleaseLists.load(work + "/ref")
        let engine = RuleEngine(lists: lists.map(\.list))
        let describer = DecidingRuleDescriber(
            engine: engine, labels: lists.map(\.name), provenance: lists.map(\.provenance))
        let cases = try JSONParser.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/domain_matching_tests.json"))))
        var blocked = 0
        var result = MatchResult()
        for group in ["domainTests", "surrogateTests"] {
            for t in cases[group]?["tests"]?.arrayValue ?? [] {
                guard let action = t["expectAction"]?.stringValue, action == "block" || action == "redirect" else {
                    continue
                }
                guard let site = t["siteURL"]?.stringValue, let url = t["requestURL"]?.stringValue,
                    let type = t["requestType"]?.stringValue
                else { XCTFail("malformed reference case \(JSONWriter.string(t))"); continue }
                let name = t["name"]?.stringValue ?? ""
                engine.match(
                    try engine.resolve(MatchRequest(url: url, topURL: site, resourceType: type)), into: &result,
                    deciding: .all)
                XCTAssertTrue(result.isBlocked, "\(name): expected blocked")
                guard let d = result.decidedBy else {
                    XCTFail("\(name): a blocked case names no rule")
                    continue
                }
                blocked += 1
                let described = describer.describe(d).jsonValue
                XCTAssertEqual(described["list"]?.stringValue, "rules.json")
                XCTAssertNotNil(described["ruleJSON"]?.objectValue, name)
                let provenance = described["provenance"]
                let expected = Self.tdsRule(about: url, site: site, type: type, in: tds)
                XCTAssertEqual(provenance?["source"]?.stringValue, "tds", name)
                XCTAssertEqual(provenance?["tracker"]?.stringValue, expected?.tracker, "\(name): \(url) on \(site)")
                XCTAssertEqual(
                    provenance?["rule"], expected?.part,
                    "\(name): \(url) on \(site): \(JSONWriter.string(provenance ?? .null))")
            }
        }
        XCTAssertGreaterThan(blocked, 30, "the suite's blocked cases")
    }

    /// The TDS rule a blocked request is about, read straight from the TDS: the tracker owning the
    /// request's host (longest match; through its CNAME when no tracker owns the host), then its first rule whose
    /// regex matches the URL and whose options apply, else its default.
    static func tdsRule(about url: String, site: String, type: String, in tds: TrackerDataSet) -> (
        tracker: String, part: JSONValue
    )? {
        guard let host = URLComponents(string: url)?.host?.lowercased(),
            let siteHost = URLComponents(string: site)?.host?.lowercased()
        else { return nil }
        var hosts = Host.suffixes(of: host)
        // A host under a tracker is judged by that tracker; only other hosts are uncloaked.
        if !hosts.contains(where: { tds.trackers[$0] != nil }),
            let alias = hosts.first(where: { tds.cnames[$0] != nil }),
            let target = tds.cnames[alias]
        {
            hosts = Host.suffixes(of: target)
        }
        guard let domain = hosts.first(where: { tds.trackers[$0] != nil }), let tracker = tds.trackers[domain] else {
            return nil
        }
        for (i, rule) in tracker.rules.enumerated() {
            guard let regex = try? NSRegularExpression(pattern: rule.rule, options: [.caseInsensitive]),
                regex.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
            else { continue }
            if let domains = rule.options?.domains,
                !domains.contains(where: { siteHost == $0 || siteHost.hasSuffix("." + $0) })
            {
                continue
            }
            if let types = rule.options?.types, !types.contains(type) { continue }
            return (domain, .number(Double(i)))
        }
        return (domain, "default")
    }

    /// `match RELEASE_DIR` reads every entry of the manifest's "lists" array, in order, extra fields and all
    /// (click-to-load lists carry "ruleAction" and "entity").
    func testAReleaseDirectoryGivesEveryListOfTheManifestInOrder() throws {
        try build(tds: sampleData + "/tds.json", config: sampleData + "/privacy-config.json", out: work + "/r")
        let extra = #"[{"trigger":{"url-filter":"radarblock-extra\\.test"},"action":{"type":"block"}}]"#
        try extra.write(toFile: work + "/r/ctl-test.json", atomically: true, encoding: .utf8)
        let manifestPath = work + "/r/" + ReleaseFiles.manifest
        var manifest = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: manifestPath))))
            .objectValue!
        var entries = manifest["lists"]?.arrayValue ?? []
        XCTAssertEqual(entries.count, 1)
        entries.append(
            .object(
                JSONObject([
                    ("identifier", "ctl-test"), ("rules", "ctl-test.json"), ("ruleAction", "block-ctl-test"),
                    ("entity", "Test Entity"),
                ])))
        manifest["lists"] = .array(entries)
        try Data(JSONWriter.bytes(.object(manifest))).write(to: URL(fileURLWithPath: manifestPath))

        let (_, lists) = try ReleaseLists.load(work + "/r")
        XCTAssertEqual(lists.map(\.name), ["rules.json", "ctl-test.json"])
        XCTAssertNotNil(lists[0].provenance, "the unsplit list has provenance.json")
        XCTAssertNil(lists[1].provenance)
        XCTAssertEqual(lists[1].entry.ruleAction, "block-ctl-test")
        let engine = RuleEngine(lists: lists.map(\.list))
        var result = MatchResult()
        engine.match(
            try engine.resolve(
                MatchRequest(
                    url: "https://radarblock-extra.test/x.js", topURL: "https://site.example/",
                    resourceType: "script")),
            into: &result, deciding: .all)
        XCTAssertEqual(result.decidedBy, DecidingRule(list: 1, rule: 0))

        // A manifest may only name files inside the release.
        entries.append(.object(JSONObject([("identifier", "elsewhere"), ("rules", "../elsewhere.json")])))
        manifest["lists"] = .array(entries)
        try Data(JSONWriter.bytes(.object(manifest))).write(to: URL(fileURLWithPath: manifestPath))
        XCTAssertThrowsError(try ReleaseLists.load(work + "/r")) { error in
            XCTAssertTrue(String(describing: error).contains("lists[2]"), "\(error)")
        }
    }
}
