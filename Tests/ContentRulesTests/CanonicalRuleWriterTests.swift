import XCTest
@testable import ContentRules
import StrictJSON
import TestSupport

/// The canonical line of a rule is written directly (`writeCanonicalJSON`), not through its `jsonValue`
/// tree: the two must give the same bytes for every rule, as rule lists and a diff's rule keys are these bytes.
final class CanonicalRuleWriterTests: XCTestCase {
    static let strings = [
        "", "a", "^https?://([^/]*\\.)?t\\.example[:/]", "q\"uote", "back\\slash", "tab\t", "\u{1}",
        "é", "e\u{301}", "<script>&", "\u{2028}", "😀", "*", "type",
    ]

    static func randomRule(_ rng: inout SplitMix64) -> ContentRule {
        func chance(_ n: UInt64) -> Bool { rng.next() % n == 0 }
        func string() -> String {
            strings.randomElement(using: &rng)! + (chance(3) ? strings.randomElement(using: &rng)! : "")
        }
        func list() -> [String]? { chance(2) ? nil : (0..<Int(rng.next() % 4)).map { _ in string() } }
        var t = Trigger(
            urlFilter: string(), urlFilterIsCaseSensitive: chance(2), resourceTypes: list(), loadTypes: list(),
            loadContexts: list(), requestMethod: chance(2) ? nil : string(),
            condition: chance(2)
                ? nil
                : TriggerCondition(
                    TriggerCondition.Kind.allCases.randomElement(using: &rng)!,
                    (0..<Int(rng.next() % 4)).map { _ in string() }))
        t.topURLFilterIsCaseSensitive = chance(2)
        t.frameURLFilterIsCaseSensitive = chance(2)
        func members() -> JSONObject {
            JSONObject(
                (0..<Int(rng.next() % 12)).map { _ in
                    (string(), chance(2) ? JSONValue.string(string()) : .array([.number(1), .null]))
                })
        }
        let actions: [Action] = [
            .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS,
            .cssDisplayNone(selector: string()), .notify(notification: string()), .redirect(members()),
            .modifyHeaders(members()),
        ]
        return ContentRule(trigger: t, action: actions.randomElement(using: &rng)!)
    }

    func testDirectWriterEqualsTheJSONValueTreeOnRandomRules() {
        var rng = SplitMix64(seed: 0xC0FF_EE11)
        var rules: [ContentRule] = []
        for i in 0..<3000 {
            let rule = Self.randomRule(&rng)
            var direct: [UInt8] = []
            rule.writeCanonicalJSON(into: &direct)
            XCTAssertEqual(String(decoding: direct, as: UTF8.self), JSONWriter.string(rule.jsonValue), "rule \(i)")
            XCTAssertEqual(rule.canonicalJSON, JSONWriter.string(rule.jsonValue), "rule \(i)")
            rules.append(rule)
        }
        for n in [0, 1, 2, rules.count] {
            XCTAssertEqual(
                CanonicalRuleWriter.bytes(Array(rules.prefix(n))),
                JSONWriter.linesArray(rules.prefix(n)) { $0.jsonValue }, "\(n) rules")
        }
    }

    func testDirectWriterEqualsTheTreeOnWebKitsFixtureRules() throws {
        let path = SharedFiles.packageRoot + "/Tests/ContentRulesTests/Fixtures/validate-cases-webkit.json"
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        var compared = 0
        for c in try JSONParser.parse(bytes)["cases"]?.arrayValue ?? [] {
            // Every case's rule list that parses.
            guard let source = c["source"]?.stringValue,
                let parsed = try? RuleListParser.parse(bytes: Array(source.utf8))
            else { continue }
            for rule in parsed.contentRules {
                XCTAssertEqual(rule.canonicalJSON, JSONWriter.string(rule.jsonValue), c["name"]?.stringValue ?? "")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 50, "the fixture's rule lists")
    }
}
