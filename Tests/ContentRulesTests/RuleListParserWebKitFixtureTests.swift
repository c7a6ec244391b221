import XCTest
import StrictJSON
@testable import ContentRules

/// Replays verdicts recorded from real WebKit (WebKitGTK 2.50.6, WebKitUserContentFilterStore) by
/// scripts/check-validate-vs-webkit.py --write-fixtures: every rule list case must get WebKit's answer
/// (valid, or the same error), and every css-display-none selector WebKit's accept/skip verdict.
final class RuleListParserWebKitFixtureTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    func load(_ name: String) throws -> JSONObject {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(name))
        return try XCTUnwrap(try JSONParser.parse(Array(data)).objectValue, "\(name) is not an object")
    }

    func testRuleListsGetWebKitsVerdict() throws {
        let fixture = try load("validate-cases-webkit.json")
        let cases = fixture["cases"]?.arrayValue ?? []
        XCTAssertGreaterThan(cases.count, 200)
        var checked = 0
        for c in cases {
            guard let name = c["name"]?.stringValue, let source = c["source"]?.stringValue,
                let valid = c["webkit"]?["valid"]?.boolValue
            else { XCTFail("malformed case \(c)"); continue }
            let expected = c["webkit"]?["error"]?.stringValue
            do {
                _ = try RuleListParser.validate(bytes: Array(source.utf8))
                XCTAssertTrue(valid, "\(name): WebKit says \(expected ?? "?"), we say valid")
            } catch let e as RuleListValidationError {
                XCTAssertFalse(valid, "\(name): WebKit accepts it, we say \(e)")
                XCTAssertEqual(e.error.name, expected, "\(name): \(e)")
            }
            checked += 1
        }
        XCTAssertEqual(checked, cases.count)
    }

    func testSelectorsGetWebKitsVerdict() throws {
        let fixture = try load("css-selectors-webkit.json")
        let selectors = fixture["selectors"]?.arrayValue ?? []
        XCTAssertGreaterThan(selectors.count, 250)
        var accepted = 0, rejected = 0
        for s in selectors {
            guard let selector = s["selector"]?.stringValue, let webkit = s["webkitAccepts"]?.boolValue else {
                XCTFail("malformed entry \(s)"); continue
            }
            let problem = CSSSelectorValidator.problem(in: selector)
            XCTAssertEqual(
                problem == nil, webkit,
                "selector \(selector.debugDescription): WebKit \(webkit ? "accepts" : "rejects"), we say "
                    + "\(problem ?? "valid")"
            )
            if webkit { accepted += 1 } else { rejected += 1 }
        }
        // The fixture must exercise both outcomes.
        XCTAssertGreaterThan(accepted, 100)
        XCTAssertGreaterThan(rejected, 50)
    }
}
