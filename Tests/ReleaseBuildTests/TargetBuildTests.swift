import ContentRules
import Foundation
@testable import Release
@testable import ReleaseBuild
import Provenance
import RuleBuilder
import StrictJSON
import TestSupport
import XCTest

/// `build --target`: one list set per target, each split at that engine's rule limit.
final class TargetBuildTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("targets") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    /// 60,000 tracker rules (10 per tracker host) and one exception rule every list must carry.
    func sixtyThousandRules() -> RuleBuildResult {
        var built = RuleBuildResult()
        built.rules.append(
            ContentRule(
                trigger: Trigger(urlFilter: ".*", resourceTypes: ["top-document", "popup"]),
                action: .ignorePreviousRules))
        built.provenance.append(RuleProvenance(source: .topLevel))
        for i in 0..<59_999 {
            let host = "tracker\(i / 10).example"
            built.rules.append(ContentRule(trigger: Trigger(urlFilter: "^https?://\(host)/p\(i % 10)"), action: .block))
            built.provenance.append(RuleProvenance(source: .tds, tracker: host))
        }
        return built
    }

    func testSixtyThousandRulesSplitAt50000ForSafari14AndNotForSafari15OrNewer() throws {
        let built = sixtyThousandRules()
        XCTAssertEqual(built.rules.count, 60_000)
        let options = BuildOptions(out: work + "/unused")
        let safari14 = try TargetListSet.targetParts(
            built, target: EngineProfile.named("safari-14")!, options: options)
        XCTAssertEqual(safari14.parts.count, 2)
        XCTAssertEqual(safari14.parts.map(\.rules.count).max()!, 50_000)
        // Safari 14 has no top-document type nor load-context: the top-level protection cannot be expressed there.
        XCTAssertEqual(safari14.issues.count, 1)
        XCTAssertTrue(safari14.issues[0].contains("left out for safari-14"), safari14.issues[0])
        XCTAssertEqual(safari14.parts.map(\.rules.count).reduce(0, +), 59_999)
        for name in ["safari-15", "safari-16.4", "safari-17", "safari-18", "safari-26", "webkitgtk-2.50"] {
            let set = try TargetListSet.targetParts(built, target: EngineProfile.named(name)!, options: options)
            XCTAssertEqual(set.parts.count, 1, name)
            XCTAssertTrue(set.issues.isEmpty, name)
        }
    }

    func testTopDocumentIsReEncodedForEnginesWithoutTheType() throws {
        let built = sixtyThousandRules()
        let safari17 = TargetEncoding.adapt(
            RuleBuildResult(rules: Array(built.rules.prefix(2)), provenance: Array(built.provenance.prefix(2))),
            for: EngineProfile.named("safari-17")!)
        XCTAssertEqual(safari17.rules.map(\.trigger.resourceTypes), [["popup"], ["document"], nil])
        XCTAssertEqual(safari17.rules.map(\.trigger.loadContexts), [nil, ["top-frame"], nil])
        XCTAssertEqual(safari17.rules.map(\.action), [.ignorePreviousRules, .ignorePreviousRules, .block])
        XCTAssertEqual(safari17.provenance.map(\.source), [.topLevel, .topLevel, .tds])
        let current = TargetEncoding.adapt(
            RuleBuildResult(rules: Array(built.rules.prefix(2)), provenance: Array(built.provenance.prefix(2))),
            for: .default)
        XCTAssertEqual(current.rules, Array(built.rules.prefix(2)))
    }

    /// The click-to-load lists are encoded too (a safari-15 default release once carried top-document in them).
    func testEveryListOfAConversionIsReEncodedAndKept() throws {
        var built = RuleBuildResult()
        let reset = ContentRule(
            trigger: Trigger(urlFilter: ".*", resourceTypes: ["child-document"]), action: .ignorePreviousRules)
        built.clickToLoadLists = [
            ClickToLoadList(
                ruleAction: "block-ctl-x", entity: "X", rules: [reset], provenance: [RuleProvenance(source: .topLevel)])
        ]
        let adapted = TargetEncoding.adapt(built, for: .portable)
        XCTAssertEqual(adapted.clickToLoadLists.map(\.ruleAction), ["block-ctl-x"])
        XCTAssertEqual(adapted.clickToLoadLists[0].rules.map(\.trigger.resourceTypes), [["document"]])
        XCTAssertEqual(adapted.clickToLoadLists[0].rules.map(\.trigger.loadContexts), [["child-frame"]])
        XCTAssertEqual(adapted.clickToLoadLists[0].provenance.map(\.source), [.topLevel])
    }

    func testRepeatedTargetsWriteOneListSetEachAndTheManifestNamesThem() throws {
        var o = sampleOptions(out: work + "/r")
        o.targets = [EngineProfile.named("webkitgtk-2.50")!, EngineProfile.named("safari-17")!]
        guard case .built(let manifest, _) = try ReleaseBuilder.run(o) else { return XCTFail("not built") }
        XCTAssertEqual(manifest.targets, ["webkitgtk-2.50", "safari-17"])
        XCTAssertEqual(manifest.lists(for: "webkitgtk-2.50").compactMap { $0.rules }, ["rules.json"])
        XCTAssertEqual(manifest.lists(for: "safari-17").compactMap { $0.rules }, ["rules.safari-17.json"])
        XCTAssertEqual(manifest.lists().count, 1)
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: work + "/r"))
        XCTAssertTrue(
            files.isSuperset(of: ["rules.json", "rules.rbc", "rules.safari-17.json", "rules.safari-17.rbc"]),
            "\(files.sorted())")
        // Each target's list is one that engine reads as meant.
        let safari17 = Array(try Data(contentsOf: URL(fileURLWithPath: work + "/r/rules.safari-17.json")))
        XCTAssertNoThrow(try EngineProfile.named("safari-17")!.checkGenerated(safari17, ruleCount: 1))
        // The webkitgtk-2.50 list uses top-document, a name Safari 17 rejects.
        XCTAssertThrowsError(
            try EngineProfile.named("safari-17")!.checkGenerated(
                Array(try Data(contentsOf: URL(fileURLWithPath: work + "/r/rules.json"))), ruleCount: 1)
        ) { e in
            XCTAssertEqual((e as? RuleListValidationError)?.error, .jsonInvalidStringInTriggerFlagsArray)
        }
        let reread = try Manifest.parse(Array(try Data(contentsOf: URL(fileURLWithPath: work + "/r/manifest.json"))))
        XCTAssertEqual(reread.targets, manifest.targets)
        XCTAssertEqual(reread.lists.compactMap { $0.target }, ["webkitgtk-2.50", "safari-17"])
    }
}
