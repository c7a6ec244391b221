// Rules added and removed, compared as multisets: a rule the new list repeats more often than the old one is
// added for each extra copy, and the old list's extra copies are removed (the first ones are the kept ones).

import Provenance
import StrictJSON
import TestSupport
import XCTest

@testable import RuleDiff

final class RuleSetDiffTests: XCTestCase {
    func testRepeatedRulesCountAsCopies() {
        let d = RuleSetDiff.compare(
            oldKeys: ["a", "b", "a", "a", "c"], newKeys: ["a", "c", "d", "c", "a"],
            oldProvenance: (0..<5).map { RuleProvenance(source: .tds, part: .rule($0)) }, newProvenance: nil)
        XCTAssertEqual(d.added.map(\.rule), ["d", "c"])
        XCTAssertEqual(d.added.map(\.index), [2, 3])
        XCTAssertEqual(d.removed.map(\.rule), ["b", "a"])
        XCTAssertEqual(d.removed.map(\.index), [1, 3])
        XCTAssertEqual(d.removed.map(\.provenance?.part), [.rule(1), .rule(3)])
        XCTAssertEqual(d.added.map(\.provenance), [nil, nil])
    }

    /// A rule is its bytes: equal Strings that are not the same bytes are two rules for WebKit.
    func testEquivalentStringsAreTwoRules() {
        let composed = #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".\#u{E9}"}}"#
        let decomposed =
            #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".e\#u{301}"}}"#
        XCTAssertEqual(composed, decomposed)
        let d = RuleSetDiff.compare(oldKeys: [composed, "{}"], newKeys: ["{}", decomposed])
        XCTAssertEqual(d.added.map { Array($0.rule.utf8) }, [Array(decomposed.utf8)])
        XCTAssertEqual(d.removed.map { Array($0.rule.utf8) }, [Array(composed.utf8)])
    }

    /// Against counting copies one by one, on random lists over a few keys (so that most repeat).
    func testRandomListsAgainstCountingCopies() {
        var random = SplitMix64(seed: 14)
        for _ in 0..<500 {
            let alphabet = (0..<Int.random(in: 1...6, using: &random)).map { "{\"rule\":\($0)}" }
            func list() -> [String] {
                (0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            }
            let old = list(), new = list()
            var unmatched = Array(old.indices)
            var added: [Int] = []
            for (i, k) in new.enumerated() {
                if let j = unmatched.firstIndex(where: { old[$0] == k }) {
                    unmatched.remove(at: j)
                } else {
                    added.append(i)
                }
            }
            let d = RuleSetDiff.compare(oldKeys: old, newKeys: new)
            XCTAssertEqual(d.added.map(\.index), added, "old \(old) new \(new)")
            XCTAssertEqual(d.removed.map(\.index), unmatched, "old \(old) new \(new)")
            XCTAssertEqual(d.added.map(\.rule), added.map { new[$0] })
            XCTAssertEqual(d.removed.map(\.rule), unmatched.map { old[$0] })
        }
    }
}
