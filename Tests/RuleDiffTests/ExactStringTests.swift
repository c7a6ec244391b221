// Strings compared as their bytes, where Swift's String == is canonical equivalence.

import TrackerData
import XCTest

@testable import RuleDiff

final class ExactStringTests: XCTestCase {
    func testSameBytes() {
        XCTAssertTrue(sameBytes("", ""))
        XCTAssertTrue(sameBytes("https://a.example/x", "https://a.example/" + "x"))
        XCTAssertFalse(sameBytes("https://a.example/x", "https://a.example/y"))
        XCTAssertFalse(sameBytes("\u{E9}", "e\u{301}"))
        XCTAssertFalse(sameBytes("a", "ab"))
        XCTAssertFalse(sameBytes("", "a"))
    }

    func testKeysAreBytes() {
        XCTAssertEqual("\u{E9}", "e\u{301}")
        let keys: Set<ExactString> = [
            ExactString(string: "\u{E9}"), ExactString(string: "e\u{301}"), ExactString(string: "\u{E9}"),
        ]
        XCTAssertEqual(keys.count, 2)
        XCTAssertTrue(keys.contains(ExactString(string: "e" + "\u{301}")))
        XCTAssertFalse(keys.contains(ExactString(string: "e")))
    }
}
