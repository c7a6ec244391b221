// The example URL part the derived corpus takes from a TDS rule regex: the shortest path through its syntax tree.

import XCTest

@testable import RuleDiff

final class RegexExampleTests: XCTestCase {
    private func example(_ pattern: String) -> String? { RegexExample.string(matching: pattern) }

    func testShortestPath() {
        XCTAssertEqual(example(#"tracker\.com\/ads?\/[a-z]+\.js"#), "tracker.com/ad/a.js")
        XCTAssertEqual(example(#"^https?:\/\/cdn\.(x|yy)\.com(:\d+)?\/p.*"#), "http://cdn.x.com/p")
        XCTAssertEqual(example(#"a\d{3}\w\s\D"#), "a111a -")
        XCTAssertEqual(example("x(ab)+y"), "xaby")
        XCTAssertEqual(example("a{30}"), String(repeating: "a", count: RegexExample.maximumCount))
        XCTAssertEqual(example(#"\bword\b"#), "word", "a word boundary adds nothing")
        XCTAssertEqual(example(#"\x41\u0042"#), "AB", "escapes stand for their character")
    }

    func testClasses() {
        XCTAssertEqual(example("[xa-c]"), "x", "the first member written")
        XCTAssertEqual(example("[c-x]"), "c")
        XCTAssertEqual(example(#"[\d.]"#), "1")
        XCTAssertEqual(example("[^/?]"), "a")
        XCTAssertEqual(example("[^a-z]"), "1")
        XCTAssertEqual(example(#"[^\w]"#), "-", "a character the negated class holds")
        XCTAssertNil(example(#"[^\s\S]"#))
        XCTAssertNil(example("a[]"), "an empty class matches nothing")
    }

    func testNoExample() {
        XCTAssertNil(example("a(?=b)"))
        XCTAssertNil(example("(?<!b)a"))
        XCTAssertNil(example(#"(a)\1"#))
        XCTAssertNil(example("a("), "not a regular expression")
        let deep = RegexExample.maximumDepth
        XCTAssertNil(example(String(repeating: "(", count: deep) + "a" + String(repeating: ")", count: deep)))
        XCTAssertEqual(
            example(String(repeating: "(", count: deep - 1) + "a" + String(repeating: ")", count: deep - 1)), "a")
    }
}
