// `build` with a TDS rule whose automaton is over the budget (issue 16, C1 through a TDS rule): the
// release is built without that rule, issues.txt names it, the rest of the list is intact.

import Foundation
@testable import Release
@testable import ReleaseBuild
import RuleCompiler
import TestSupport
import XCTest

final class AutomatonBudgetBuildTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("budget") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    /// data/tds.json with one more rule on tracker.example, e.g. `[ab]*a[ab]{12}`: 2^13 DFA states.
    func hostileTDS(_ rule: String = #"tracker\.example\/[ab]*a[ab]{12}"#) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: sampleData + "/tds.json"))
        var tds = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var trackers = try XCTUnwrap(tds["trackers"] as? [String: Any])
        var tracker = try XCTUnwrap(trackers["tracker.example"] as? [String: Any])
        var rules = try XCTUnwrap(tracker["rules"] as? [[String: Any]])
        rules.insert(["rule": rule], at: 0)
        tracker["rules"] = rules
        trackers["tracker.example"] = tracker
        tds["trackers"] = trackers
        let path = work + "/tds.json"
        try JSONSerialization.data(withJSONObject: tds, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return path
    }

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    func testBuildDropsOnlyTheRuleOverTheBudgetAndReportsIt() throws {
        var o = sampleOptions(out: work + "/release")
        o.tds = try hostileTDS()
        o.budget = CompileBudget(states: 2_000)
        _ = try ReleaseBuilder.run(o)
        let rules = try read(work + "/release/rules.json")
        XCTAssertFalse(rules.contains("[ab]*a"), "the offending rule is dropped")
        XCTAssertTrue(
            rules.contains(#"tracker\\.example\\/collect"#) || rules.contains("collect"),
            "the tracker's other rules stay")
        let issues = try read(work + "/release/issues.txt")
        XCTAssertTrue(issues.contains("dropped rule"), issues)
        XCTAssertTrue(issues.contains("--max-dfa-states"), issues)
        XCTAssertTrue(issues.contains("tracker.example"), "names where the rule came from: \(issues)")
        // The same input with the budget raised keeps the rule (every WebKit rule made from it).
        o.out = work + "/roomy"
        o.budget = CompileBudget(states: 100_000)
        _ = try ReleaseBuilder.run(o)
        let roomy = try read(work + "/roomy/rules.json")
        let made = roomy.split(separator: "\n").filter { $0.contains("[ab]*a") }.count
        XCTAssertGreaterThan(made, 0)
        let manifest = try Manifest.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: work + "/release/manifest.json"))))
        XCTAssertEqual(
            manifest.counts[.rulesOverAutomatonBudget], Double(made),
            "exactly the rules made from the TDS rule are dropped")
        XCTAssertEqual(rules.split(separator: "\n").count + made, roomy.split(separator: "\n").count)
    }

    func testStrictBuildFailsOnARuleOverTheBudget() throws {
        var o = sampleOptions(out: work + "/release")
        // Written out (a counted quantifier would be a conversion issue, which --strict rejects first).
        o.tds = try hostileTDS(#"tracker\.example\/[ab]*a"# + String(repeating: "[ab]", count: 12))
        o.budget = CompileBudget(states: 2_000)
        o.strict = true
        XCTAssertThrowsError(try ReleaseBuilder.run(o)) { error in
            XCTAssertTrue(String(describing: error).contains("--max-dfa-states"), String(describing: error))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/release"))
    }
}
