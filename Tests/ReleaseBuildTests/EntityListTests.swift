// A list per large entity (SameEntityEncoding.entityLists, split by RuleListSplitter): the lists decide every
// request as the per-tracker encoding does, each entity's exemption names its sites once, and the global exceptions
// switch every list off.

import ContentRules
import Foundation
import Provenance
@testable import ReleaseBuild
import RuleBuilder
import RuleDiff
import RuleEngine
import TrackerData
import XCTest

final class EntityListTests: XCTestCase {
    /// `base` plus rotating-domain entities of the given sizes: every tracker blocks and is one of its entity's sites.
    private func entitiesTDS(_ sizes: [Int], base: TrackerDataSet) -> TrackerDataSet {
        var tds = base
        var next = 0
        for (k, n) in sizes.enumerated() {
            let name = "Rotating \(k)"
            let domains = (next..<(next + n)).map { "rot\($0).example" }
            next += n
            for d in domains {
                tds.trackers[d] = Tracker(domain: d, owner: Owner(name: name), defaultAction: .block, rules: [])
                tds.domains[d] = name
            }
            tds.entities[name] = Entity(domains: domains)
        }
        return tds
    }

    private func config() throws -> PrivacyConfig {
        try PrivacyConfig.decode(
            bytes: Array(try Data(contentsOf: URL(fileURLWithPath: sampleData + "/privacy-config.json"))),
            source: "config"
        ).0
    }

    func testEveryLargeEntityLeadsAListOfItsOwnAndDecidesAsPerTracker() throws {
        let tds = entitiesTDS([50, 70, 90], base: syntheticTDS(trackers: 60, rulesPerTracker: 4))
        let config = try config()
        let lists = RuleBuilder.build(tds: tds, config: config, mode: .faithful, sameEntity: .entityLists)
        let perTracker = RuleBuilder.build(tds: tds, config: config, mode: .faithful, sameEntity: .perTracker)
        let exemptions = lists.provenance.indices.filter { lists.provenance[$0].isSharedEntityExemption }
        XCTAssertEqual(
            exemptions.map { lists.provenance[$0].entity }, ["Rotating 2", "Rotating 1", "Rotating 0"],
            "the largest saving first")
        XCTAssertEqual(exemptions.compactMap { lists.rules[$0].trigger.condition?.values.count }, [90, 70, 50])

        let parts = try RuleListSplitter.split(rules: lists.rules, provenance: lists.provenance, maxRules: 150_000)
        XCTAssertEqual(parts.count, 3, "the main list and one per further entity")
        for (k, part) in parts.enumerated() {
            XCTAssertEqual(part.provenance.filter(\.isSharedEntityExemption).count, 1, "part \(k + 1)")
            XCTAssertTrue(part.provenance.contains { $0.source == .tempList }, "part \(k + 1) has the temp list")
        }
        XCTAssertEqual(parts[1].rules.count, 70 + 1 + parts[1].provenance.filter { $0.source != .tds }.count)

        let old = try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(perTracker.rules))
        let new = try parts.map { try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes($0.rules)) }
        var corpus = RequestCorpus.derive(from: [tds])
        corpus.append(contentsOf: crossEntityRequests(tds))
        let diff = try DecisionDiff.compare(corpus, old: DecisionSide(lists: [old]), new: DecisionSide(lists: new))
        XCTAssertEqual(diff.invalid, 0)
        let first = try diff.changed.changes().prefix(3).map { "\($0.request.url) on \($0.request.topURL)" }
        XCTAssertEqual(diff.changed.count, 0, "first differences: \(first)")

        // The control: the concatenation as one list is not the same lists (a later entity's exemption cancels an
        // earlier one's blocks on its sites), so the corpus can see a wrong split.
        let concatenated = try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(lists.rules))
        let control = try DecisionDiff.compare(
            corpus, old: DecisionSide(lists: [old]), new: DecisionSide(lists: [concatenated]))
        XCTAssertGreaterThan(control.changed.count, 0)
    }

    func testTheSingleListFormHasOneSharedExemptionAndIsNotSplit() throws {
        let tds = entitiesTDS([50, 70, 90], base: syntheticTDS(trackers: 60, rulesPerTracker: 4))
        let single = RuleBuilder.build(tds: tds, config: try config(), mode: .faithful, sameEntity: .shared)
        XCTAssertEqual(single.provenance.filter(\.isSharedEntityExemption).compactMap(\.entity), ["Rotating 2"])
        let parts = try RuleListSplitter.split(rules: single.rules, provenance: single.provenance, maxRules: 150_000)
        XCTAssertEqual(parts.count, 1)
    }

    func testASmallEntityStaysInTheMainList() throws {
        // An entity of 3 trackers saves 6 conditions: less than another list costs.
        let tds = entitiesTDS([90, 3], base: syntheticTDS(trackers: 60, rulesPerTracker: 4))
        let built = RuleBuilder.build(tds: tds, config: try config(), mode: .faithful, sameEntity: .entityLists)
        XCTAssertEqual(built.provenance.filter(\.isSharedEntityExemption).compactMap(\.entity), ["Rotating 0"])
    }

    func testAnAllowlistRuleGoesOnlyToTheListsThatCanBlockUnderItsTracker() throws {
        // cloudfront.net is a private public suffix: x.cloudfront.net is a unit of its own, under the allowlisted
        // cloudfront.net all the same.
        XCTAssertEqual(ListUnit.of(host: "x.cloudfront.net"), "x.cloudfront.net")
        func block(_ d: String, _ entity: String?) -> (ContentRule, RuleProvenance) {
            (
                ContentRule(trigger: Trigger(urlFilter: "^[^:]+://+([^:/]+\\.)?" + d + "[:/]"), action: .block),
                RuleProvenance(source: .tds, tracker: d, part: .default, entity: entity)
            )
        }
        func shared(_ entity: String) -> (ContentRule, RuleProvenance) {
            (
                ContentRule(
                    trigger: Trigger(urlFilter: ".*", condition: .init(.ifDomain, ["*\(entity).example"])),
                    action: .ignorePreviousRules),
                RuleProvenance(source: .tds, part: .entity, role: .sameEntity, entity: entity)
            )
        }
        func except(_ source: RuleProvenance.Source, _ tracker: String?) -> (ContentRule, RuleProvenance) {
            (
                ContentRule(
                    trigger: Trigger(urlFilter: ".*", condition: .init(.ifDomain, ["*site.example"])),
                    action: .ignorePreviousRules),
                RuleProvenance(source: source, tracker: tracker)
            )
        }
        let list = [
            block("e1.test", "e1"), shared("e1"), block("x.cloudfront.net", "e2"), shared("e2"), block("y.test", "e3"),
            shared("e3"), block("other.test", nil), except(.allowlist, "cloudfront.net"), except(.allowlist, "y.test"),
            except(.allowlist, "other.test"), except(.tempList, nil),
        ]
        let parts = try RuleListSplitter.split(rules: list.map(\.0), provenance: list.map(\.1), maxRules: 100)
        func names(_ part: RuleListPart) -> [String] {
            part.provenance.map { "\($0.source.rawValue) \($0.tracker ?? $0.entity ?? "")" }
        }
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(
            names(parts[0]),
            [
                "tds e1.test", "tds e1", "tds other.test", "allowlist cloudfront.net", "allowlist y.test",
                "allowlist other.test", "temp-list ",
            ])
        XCTAssertEqual(
            names(parts[1]), ["tds x.cloudfront.net", "tds e2", "allowlist cloudfront.net", "temp-list "])
        XCTAssertEqual(names(parts[2]), ["tds y.test", "tds e3", "allowlist y.test", "temp-list "])
    }

    func testATrackerUnderAnEntitysTrackerAcrossAPrivateSuffixDecidesAsPerTracker() throws {
        // amazonaws.com, a tracker of the large entity Rotating 1, blocks; bucket.s3.amazonaws.com under it (a
        // registrable domain of its own: s3.amazonaws.com is a private public suffix) is another entity's and allows.
        var tds = entitiesTDS([50, 70, 90], base: syntheticTDS(trackers: 20, rulesPerTracker: 2))
        let parent = "amazonaws.com", child = "bucket.s3.amazonaws.com"
        tds.trackers[parent] = Tracker(
            domain: parent, owner: Owner(name: "Rotating 1"), defaultAction: .block, rules: [])
        tds.entities["Rotating 1"]!.domains.append(parent)
        tds.domains[parent] = "Rotating 1"
        tds.trackers[child] = Tracker(
            domain: child, owner: Owner(name: "Other"), defaultAction: .ignore,
            rules: [TrackerRule(rule: NSRegularExpression.escapedPattern(for: child) + "/track/")])
        tds.entities["Other"] = Entity(domains: [child])
        tds.domains[child] = "Other"
        let lists = RuleBuilder.build(tds: tds, mode: .faithful, sameEntity: .entityLists)
        let perTracker = RuleBuilder.build(tds: tds, mode: .faithful, sameEntity: .perTracker)
        let parts = try RuleListSplitter.split(rules: lists.rules, provenance: lists.provenance, maxRules: 150_000)
        XCTAssertEqual(parts.count, 3)
        let old = try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(perTracker.rules))
        let new = try parts.map { try LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes($0.rules)) }
        var corpus = RequestCorpus.derive(from: [tds])
        for path in ["track/x.js", "other.js"] {
            for top in ["https://www.rot20.example/", "https://www.\(child)/", "https://news.example/"] {
                corpus.append(MatchRequest(url: "https://\(child)/\(path)", topURL: top, resourceType: "script"))
            }
        }
        let diff = try DecisionDiff.compare(corpus, old: DecisionSide(lists: [old]), new: DecisionSide(lists: new))
        let first = try diff.changed.changes().prefix(3).map { "\($0.request.url) on \($0.request.topURL)" }
        XCTAssertEqual(diff.changed.count, 0, "first differences: \(first)")
    }

    /// Each rotating entity's sites loading its own trackers and the other entities' trackers.
    private func crossEntityRequests(_ tds: TrackerDataSet) -> [MatchRequest] {
        let rotating = tds.entities.keys.filter { $0.hasPrefix("Rotating") }.sorted()
        var out: [MatchRequest] = []
        for site in rotating {
            for target in rotating {
                let sites = tds.entities[site]!.domains
                for (i, tracker) in tds.entities[target]!.domains.enumerated() where i % 7 == 0 {
                    let top = "https://www.\(sites[i % sites.count])/"
                    out.append(MatchRequest(url: "https://cdn.\(tracker)/a.js", topURL: top, resourceType: "script"))
                }
            }
        }
        return out
    }
}
