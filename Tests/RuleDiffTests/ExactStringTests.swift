// Strings compared as their bytes, where Swift's String == is canonical equivalence.

import TestSupport
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

    /// Numbers are given in the order strings are first seen, told apart by their bytes, and stay the same however
    /// often the table grows; checked against a Dictionary of ExactString over a random stream that repeats
    /// strings, runs of the same one, the empty string and two spellings of é.
    func testNumbersAreGivenInFirstSeenOrderByBytes() {
        var numbers = ExactNumbers()
        var reference: [ExactString: Int32] = [:]
        var rng = SplitMix64(seed: 39)
        let pool = (0..<3000).map { "https://h\($0 % 97).example/p?\($0)" } + ["", "\u{E9}", "e\u{301}"]
        for i in 0..<40_000 {
            let s = i % 7 == 0 ? pool[pool.count - 1 - i % 3] : pool[Int.random(in: 0..<pool.count, using: &rng)]
            let expected = reference[ExactString(string: s)] ?? Int32(reference.count)
            reference[ExactString(string: s)] = expected
            XCTAssertEqual(numbers.number(s), expected, s)
            XCTAssertEqual(numbers.number(s), expected, "asked twice in a row")
        }
        XCTAssertEqual(numbers.count, reference.count)
        XCTAssertGreaterThan(numbers.count, 2000, "the table grew many times")
        XCTAssertNotEqual(numbers.number("\u{E9}"), numbers.number("e\u{301}"))
    }
}
