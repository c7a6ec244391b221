// Which requests flip between two sides, as the engine answers each request on its own.

import RuleEngine
import XCTest

@testable import RuleDiff

final class DecisionDiffTests: XCTestCase {
    func side(_ json: String) throws -> DecisionSide {
        DecisionSide(lists: [try LoadedRuleList.compiling(json: Array(json.utf8))])
    }

    /// A URL's parse is kept for the request after it when that request names the same URL. "é" as one scalar and
    /// as "e" with a combining accent are equal Strings but two URLs: /%C3%A9 and /e%CC%81. Only the second is blocked.
    func testEquivalentStringsAreStillTwoURLs() throws {
        let old = try side(#"[{"trigger":{"url-filter":"e%CC%81"},"action":{"type":"block"}}]"#)
        let new = try side(#"[{"trigger":{"url-filter":"never-in-a-url"},"action":{"type":"block"}}]"#)
        let composed = "https://a.example/\u{E9}", decomposed = "https://a.example/e\u{301}"
        XCTAssertEqual(composed, decomposed)
        let requests = [composed, decomposed, decomposed, composed].map {
            MatchRequest(url: $0, topURL: "https://site.example/", resourceType: "script")
        }
        // One worker's run over all four: a diff hands its workers blocks of requests, as small as one.
        var flips: [DecisionDiff.Flip] = []
        let invalid = requests.withUnsafeBufferPointer {
            DecisionDiff.evaluate($0[...], old: (old, old.engine.copy()), new: (new, new.engine.copy()), into: &flips)
        }
        XCTAssertEqual(invalid, 0)
        XCTAssertEqual(flips.map { Array($0.request.url.utf8) }, [Array(decomposed.utf8), Array(decomposed.utf8)])
        XCTAssertEqual(flips.map(\.old.kind), [.blocked, .blocked])
        XCTAssertEqual(flips.map(\.new.kind), [.allowed, .allowed])

        let diff = try DecisionDiff.compare(requests, old: old, new: new)
        XCTAssertEqual(diff.checked, 4)
        XCTAssertEqual(
            try diff.changed.changes().map { Array($0.request.url.utf8) },
            [Array(decomposed.utf8), Array(decomposed.utf8)])
    }
}
