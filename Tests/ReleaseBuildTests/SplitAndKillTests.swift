import ContentRules
import Digest
import Foundation
@testable import ReleaseBuild
import Provenance
import RuleBuilder
import RuleDiff
import RuleEngine
import StrictJSON
import TestSupport
import TrackerData
import XCTest

/// A synthetic TDS: trackers with rules, options and exceptions, subdomain trackers under parents,
/// multi-domain entities. Deterministic for a given size.
func syntheticTDS(trackers: Int, rulesPerTracker: Int) -> TrackerDataSet {
    var tds = TrackerDataSet()
    for i in 0..<trackers {
        let domain = i % 10 == 9 ? "sub.tracker\(i - 1).example" : "tracker\(i).example"
        let entity = "Entity \(i / 3)"
        var rules: [TrackerRule] = []
        for r in 0..<rulesPerTracker {
            let pattern = NSRegularExpression.escapedPattern(for: domain) + "/path\(r)/"
            switch r % 4 {
            case 0: rules.append(TrackerRule(rule: pattern))
            case 1:
                rules.append(
                    TrackerRule(rule: pattern, options: RuleMatcher(domains: ["site\(r).example"], types: ["script"])))
            case 2: rules.append(TrackerRule(rule: pattern, exceptions: RuleMatcher(domains: ["site\(r).example"])))
            default: rules.append(TrackerRule(rule: pattern, action: .ignore))
            }
        }
        tds.trackers[domain] = Tracker(
            domain: domain, owner: Owner(name: entity), defaultAction: i % 3 == 0 ? .ignore : .block, rules: rules)
        tds.entities[entity, default: Entity(domains: [])].domains.append(domain)
        tds.domains[domain] = entity
    }
    return tds
}

final class SplitTests: XCTestCase {
    func testSplitListsDecideExactlyLikeTheUnsplitList() throws {
        let tds = syntheticTDS(trackers: 300, rulesPerTracker: 6)
        let config = try PrivacyConfig.decode(
            bytes: Array(try Data(contentsOf: URL(fileURLWithPath: sampleData + "/privacy-config.json"))),
            source: "config"
        ).0
        let built = RuleBuilder.build(tds: tds, config: config, mode: .faithful)
        let parts = try RuleListSplitter.split(
            rules: built.rules, provenance: built.provenance, maxRules: built.rules.count / 4)
        XCTAssertGreaterThanOrEqual(parts.count, 4)
        for p in parts { XCTAssertLessThanOrEqual(p.rules.count, built.rules.count / 4) }
        // Every tracker rule is in exactly one part; an exemption an entity's trackers share is in every part, like
        // the global exceptions (it cancels only the part's own share of that entity's trackers, which precede it).
        let isTrackerRule = { (p: RuleProvenance) in p.source == .tds && !p.isSharedEntityExemption }
        let trackerRules = built.provenance.filter(isTrackerRule).count
        XCTAssertEqual(parts.map { $0.provenance.filter(isTrackerRule).count }.reduce(0, +), trackerRules)
        let shared = built.provenance.filter(\.isSharedEntityExemption).count
        XCTAssertEqual(shared, 1, "the synthetic entities of three trackers share one exemption")
        for p in parts { XCTAssertEqual(p.provenance.filter(\.isSharedEntityExemption).count, shared) }

        let whole = try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(built.rules))
        let split = try parts.map { try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes($0.rules)) }
        let corpus = RequestCorpus.derive(from: [tds])
        XCTAssertGreaterThan(corpus.count, 5000)
        let diff = try DecisionDiff.compare(corpus, old: DecisionSide(lists: [whole]), new: DecisionSide(lists: split))
        XCTAssertEqual(diff.invalid, 0)
        let first = try diff.changed.changes().prefix(3).map { "\($0.request.url) on \($0.request.topURL)" }
        XCTAssertEqual(diff.changed.count, 0, "first differences: \(first)")
    }

    func testTrackersNestedAcrossAPrivatePublicSuffixStayInOneList() throws {
        // s3.amazonaws.com is a private public suffix: the subdomain tracker's registrable domain is its own, yet its
        // exemption must stay with the blocks of amazonaws.com, which match its hosts too.
        let parent = "amazonaws.com", child = "bucket.s3.amazonaws.com"
        XCTAssertNotEqual(ListUnit.of(host: child), ListUnit.of(host: parent), "the premise: two registrable domains")
        func rule(_ d: String, _ action: Action) -> (ContentRule, RuleProvenance) {
            let host = NSRegularExpression.escapedPattern(for: d)
            return (
                ContentRule(trigger: Trigger(urlFilter: "^[^:]+://+([^:/]+\\.)?" + host + "[:/]"), action: action),
                RuleProvenance(source: .tds, tracker: d, part: .default)
            )
        }
        // Packed by size, three rules a list: the parent and two others fill the first.
        let list = [
            rule(parent, .block), rule("a.test", .block), rule("b.test", .block), rule(child, .ignorePreviousRules),
        ]
        let parts = try RuleListSplitter.split(rules: list.map(\.0), provenance: list.map(\.1), maxRules: 3)
        XCTAssertEqual(parts.count, 2)
        let whole = try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(list.map(\.0)))
        let split = try parts.map { try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes($0.rules)) }
        let requests = ["https://\(child)/x.js", "https://other.\(parent)/x.js", "https://a.test/x.js"].map {
            MatchRequest(url: $0, topURL: "https://site.example/", resourceType: "script")
        }
        let diff = try DecisionDiff.compare(
            requests, old: DecisionSide(lists: [whole]), new: DecisionSide(lists: split))
        let first = try diff.changed.changes().prefix(3).map(\.request.url)
        XCTAssertEqual(diff.changed.count, 0, "changed: \(first)")
        XCTAssertEqual(diff.checked, 3)
    }

    func testAUnitLargerThanAListIsAClearError() throws {
        let tds = syntheticTDS(trackers: 2, rulesPerTracker: 40)
        let built = RuleBuilder.build(tds: tds, mode: .faithful)
        XCTAssertThrowsError(try RuleListSplitter.split(rules: built.rules, provenance: built.provenance, maxRules: 10))
        { error in
            XCTAssertTrue(String(describing: error).contains("do not fit"), String(describing: error))
        }
    }
}

final class KillTests: XCTestCase {
    var binary: String {
        let dir = Bundle.main.bundleURL.path
        for candidate in [dir + "/radarblock", dir + "/../radarblock"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return dir + "/radarblock"
    }

    /// kill -9 at many points of a build: the release directory is always either the previous release or the
    /// complete new one, never a mixture, and the next build cleans up.
    func testKillNineAnywhereLeavesAWholeRelease() throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw XCTSkip("radarblock binary not built at \(binary)")
        }
        let work = try makeTemporaryDirectory("kill")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let big = syntheticTDS(trackers: 3000, rulesPerTracker: 4)
        try Data(big.canonicalBytes).write(to: URL(fileURLWithPath: work + "/big.json"))

        func build(_ tds: String, out: String) throws -> Process {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = ["build", "--tds", tds, "--out", out]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        let first = try build(sampleData + "/tds.json", out: work + "/r")
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        let old = try directoryDigest(work + "/r")
        let reference = try build(work + "/big.json", out: work + "/complete")
        reference.waitUntilExit()
        XCTAssertEqual(reference.terminationStatus, 0)
        let complete = try directoryDigest(work + "/complete")

        var sawOld = 0
        for delay in [0.05, 0.15, 0.3, 0.5, 0.8, 1.2, 1.8, 2.5] {
            let p = try build(work + "/big.json", out: work + "/r")
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let now = try directoryDigest(work + "/r")
            XCTAssertTrue(
                now == old || now == complete,
                "after kill -9 at \(delay) s the release is neither the old nor the complete new one")
            if now == old { sawOld += 1 } else { break }
        }
        XCTAssertGreaterThan(sawOld, 0, "no kill landed before the swap; the test proves nothing")
        let last = try build(sampleData + "/tds.json", out: work + "/r")
        last.waitUntilExit()
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.contains("staging") }, [],
            "a later build removes what killed builds left behind")
    }
}
