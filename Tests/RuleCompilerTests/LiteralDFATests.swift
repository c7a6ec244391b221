// LiteralDFA (issue 16, C2): the linear construction for unanchored literals builds exactly the DFA that
// subset construction builds, so long literals are linear and no output changes.

import ContentRules
import TestSupport
import XCTest

@testable import RuleCompiler

final class LiteralDFATests: XCTestCase {
    /// (LiteralDFA's result, subset construction's result) for a one-pattern batch.
    func both(_ pattern: String, caseSensitive: Bool) throws -> (DFA?, DFA) {
        let filter = URLFilter.parse(pattern, caseSensitive: caseSensitive)
        XCTAssertEqual(filter.status, .ok, pattern)
        var terms = TermTable(), tree = PrefixTree(), lists = ActionListTable()
        let v = tree.insert(filter.terms.map { terms.intern($0) }, fixedLength: terms.fixedLength)
        tree.action[Int(v)] = lists.intern([42])
        let nfa = NFA(tree: tree, terms: terms, batch: [v])
        let fast = LiteralDFA.build(tree: tree, terms: terms, vertex: v, nfa: nfa, stateLimit: .max, byteLimit: .max)?
            .dfa
        var construction = SubsetConstruction(nfa: nfa)
        let outcome = construction.run(actionLists: &lists, stateLimit: .max, byteLimit: .max, deadline: .infinity)
        guard case .dfa(let slow) = outcome else {
            // Without limits the construction always finishes: anything else is a failure, not a skip.
            XCTFail("\(pattern): subset construction without limits gave \(outcome)")
            throw CancellationError()
        }
        return (fast, slow)
    }

    func assertSame(_ a: DFA, _ b: DFA, _ pattern: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.classCount, b.classCount, pattern, file: file, line: line)
        XCTAssertEqual(a.classOfSymbol, b.classOfSymbol, pattern, file: file, line: line)
        XCTAssertEqual(a.actions, b.actions, pattern, file: file, line: line)
        XCTAssertEqual(a.transitionStart, b.transitionStart, pattern, file: file, line: line)
        XCTAssertEqual(a.transitionLow, b.transitionLow, pattern, file: file, line: line)
        XCTAssertEqual(a.transitionHigh, b.transitionHigh, pattern, file: file, line: line)
        XCTAssertEqual(a.transitionTarget, b.transitionTarget, pattern, file: file, line: line)
    }

    func testRandomLiteralsGiveTheSubsetConstructionDFA() throws {
        var rng = SplitMix64(seed: 0x11_7E2A1)
        let alphabets = ["a", "ab", "abc", "aA", "ab/-", "xyz019", "abcdefghijklmnopqrstuvwxyz"]
        for round in 0..<400 {
            let letters = Array(alphabets[round % alphabets.count])
            var pattern: String
            if round % 2 == 0 {
                // Periodic: a short word repeated (the self-overlapping case), sometimes with a tail.
                let word = String(
                    (0..<Int.random(in: 1...4, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
                pattern = String(repeating: word, count: Int.random(in: 1...25, using: &rng))
                if Bool.random(using: &rng) { pattern.append(letters.randomElement(using: &rng)!) }
            } else {
                pattern = String(
                    (0..<Int.random(in: 1...60, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
            }
            for caseSensitive in [false, true] {
                let (fast, slow) = try both(pattern, caseSensitive: caseSensitive)
                guard let fast else { return XCTFail("a literal was not recognized: \(pattern)") }
                assertSame(fast, slow, pattern)
            }
        }
    }

    func testOnlyUnanchoredLiteralsTakeTheLinearPath() throws {
        for pattern in ["^abc", "[ab]*a", "ab[cd]c", "ab?c", "abc$", "a.c", "(ab)+"] {
            XCTAssertNil(try both(pattern, caseSensitive: false).0, pattern)
        }
        // A set that is one class of the batch's alphabet (nothing tells c from d) is a letter.
        let (fast, slow) = try both("ab[cd]", caseSensitive: false)
        assertSame(try XCTUnwrap(fast), slow, "ab[cd]")
    }

    func testAHundredThousandLetterLiteralCompilesUnderTheDefaultBudget() throws {
        let literal = String(repeating: "a", count: 100_000)
        let json =
            Array(#"[{"trigger":{"url-filter":""#.utf8) + Array(literal.utf8)
            + Array(#""},"action":{"type":"block"}}]"#.utf8)
        let compiled = try RuleListCompiler.compile(json: json)
        let matcher = compiled.urlMatcher
        XCTAssertTrue(
            matcher.match(Array(("https://x.example/" + String(literal.dropFirst())).utf8), requestFlags: 0).isEmpty)
        XCTAssertFalse(matcher.match(Array(("https://x.example/b" + literal + "c").utf8), requestFlags: 0).isEmpty)
    }
}
