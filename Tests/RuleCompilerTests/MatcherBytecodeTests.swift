// The file form of a matcher is its execution form, which the interpreter reads without bounds checks: each
// check of MatcherBytecode.validate must refuse the damage it is there for, and a valid blob must round-trip.

import ContentRules
import XCTest
@testable import RuleCompiler

final class MatcherBytecodeTests: XCTestCase {
    /// Two DFAs (a small NFA bound splits the patterns), states with actions, sparse and dense rows.
    private func sample() -> [UInt8] {
        var b = MatcherBuilder()
        b.maximumNFASize = 40
        for (k, host) in ["tracker.example", "ads.example", "pixel.test", "cdn.metrics.example"].enumerated() {
            let escaped = host.replacingOccurrences(of: ".", with: "\\.")
            b.add(URLFilter.parse("^[^:]+://+([^:/]+\\.)?\(escaped)[:/]", caseSensitive: false), id: UInt64(k))
        }
        b.add(URLFilter.parse("/collect\\?[a-z]+=[0-9]", caseSensitive: true), id: 9)
        return b.build().serialized()
    }

    private func layout(_ bytes: [UInt8]) throws -> MatcherBytecode.Layout {
        try bytes.withUnsafeBytes { try MatcherBytecode.validate($0) }
    }

    private func word(_ bytes: [UInt8], _ layout: MatcherBytecode.Layout, _ i: Int) -> UInt32 {
        bytes.withUnsafeBytes { MatcherBytecode.read32($0, layout.words.lowerBound + 4 * i) }
    }

    private func setWord(_ bytes: inout [UInt8], _ layout: MatcherBytecode.Layout, _ i: Int, _ v: UInt32) {
        for k in 0..<4 { bytes[layout.words.lowerBound + 4 * i + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }

    private func assertRefused(_ bytes: [UInt8], _ why: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try Matcher(serialized: $0) }, file: file, line: line) {
            error in
            XCTAssertEqual(error as? MatcherError, .corrupt(why), file: file, line: line)
        }
    }

    /// The states of the sample: (word index, targets) in the order a walk finds them.
    private func states(_ bytes: [UInt8], _ layout: MatcherBytecode.Layout) -> [(
        at: Int, dfa: Int, targets: Range<Int>
    )] {
        var out: [(Int, Int, Range<Int>)] = []
        let rows = Array(bytes[layout.rows])
        for (d, dfa) in layout.dfas.enumerated() {
            var p = dfa.firstWord
            while p < dfa.firstWord + dfa.wordCount {
                let header = word(bytes, layout, p)
                let row = Int(header >> 1)
                let count = Int(rows[row..<(row + dfa.classCount)].max()!) + 1
                let first = p + 1 + Int(header & 1)
                out.append((p, d, first..<(first + count)))
                p = first + count
            }
        }
        return out
    }

    func testTheSampleHasWhatTheChecksAreAbout() throws {
        let bytes = sample()
        let l = try layout(bytes)
        XCTAssertGreaterThanOrEqual(l.dfas.count, 2)
        let all = states(bytes, l)
        XCTAssertTrue(all.contains { word(bytes, l, $0.at) & 1 != 0 }, "a state with actions")
        XCTAssertTrue(all.contains { $0.targets.count > 1 }, "a state with transitions")
        XCTAssertEqual(all.count, l.dfaStates)
    }

    func testAValidBlobRoundTrips() throws {
        let bytes = sample()
        let m = try bytes.withUnsafeBytes { try Matcher(serialized: $0) }
        XCTAssertEqual(m.serialized(), bytes)
        XCTAssertEqual(m.statistics.bytes, bytes.count)
        XCTAssertEqual(m.match(Array("https://a.tracker.example/x".utf8), requestFlags: 0), [0])
    }

    func testATargetIntoTheMiddleOfAStateIsRefused() throws {
        var bytes = sample()
        let l = try layout(bytes)
        let s = try XCTUnwrap(states(bytes, l).first { $0.targets.count > 1 })
        // A word inside the state itself: its first target is not a state start.
        setWord(&bytes, l, s.targets.lowerBound, UInt32(s.targets.lowerBound))
        assertRefused(bytes, "bad target")
    }

    func testATargetIntoAnotherDFAIsRefused() throws {
        var bytes = sample()
        let l = try layout(bytes)
        let s = try XCTUnwrap(states(bytes, l).first { $0.dfa == 0 && $0.targets.count > 1 })
        // The other DFA's root: a state, but not this DFA's.
        setWord(&bytes, l, s.targets.lowerBound, UInt32(l.dfas[1].firstWord))
        assertRefused(bytes, "bad target")
    }

    func testARowThatIsNotARowStartIsRefused() throws {
        var bytes = sample()
        let l = try layout(bytes)
        let s = try XCTUnwrap(states(bytes, l).first)
        let header = word(bytes, l, s.at)
        setWord(&bytes, l, s.at, header &+ 2) // one byte into its row
        assertRefused(bytes, "state out of bounds")
        var other = sample()
        setWord(&other, l, s.at, UInt32(l.dfas[1].firstRow) << 1 | header & 1) // a row of the other DFA
        assertRefused(other, "state out of bounds")
    }

    func testAnActionListThatDoesNotExistIsRefused() throws {
        var bytes = sample()
        let l = try layout(bytes)
        let s = try XCTUnwrap(states(bytes, l).first { word(bytes, l, $0.at) & 1 != 0 })
        setWord(&bytes, l, s.at + 1, UInt32(l.listCount))
        assertRefused(bytes, "action list index")
    }

    func testStatesThatDoNotTileTheWordsAreRefused() throws {
        let bytes = sample()
        let l = try layout(bytes)
        // A state count that the walk does not find.
        var count = bytes
        let h =
            MatcherBytecode.headerSize + 8 * ((l.universalFlagFree.count + l.universalWithFlags.count) / 8)
            + 4 * (l.listCount + 1) + 8 * l.idCount
        count[h + 16] &+= 1
        assertRefused(count, "state count")
        // A row index beyond the state's last word: the last state of the last DFA claims more targets than remain.
        var grown = bytes
        let last = try XCTUnwrap(states(bytes, l).last)
        let rows = l.rows.lowerBound
        let row = Int(word(bytes, l, last.at) >> 1)
        grown[rows + row] = 255 // the largest index: more targets than the words hold
        XCTAssertThrowsError(try grown.withUnsafeBytes { try Matcher(serialized: $0) })
    }

    /// A state may go where its DFA's root goes (`rootTarget`), but the root itself may not: it would read itself.
    func testTheRootsTargetIsRefusedInTheRootOnly() throws {
        var b = MatcherBuilder()
        for literal in ["/collect", "/pixel", "track", "beacon"] {
            b.add(URLFilter.parse(literal, caseSensitive: false), id: 1)
        }
        let bytes = b.build().serialized()
        let l = try layout(bytes)
        let all = states(bytes, l)
        XCTAssertTrue(
            all.contains { s in s.targets.contains { word(bytes, l, $0) == MatcherProgram.rootTarget } },
            "unanchored literals: states that go where the root goes")
        var root = bytes
        let first = try XCTUnwrap(all.first { $0.at == l.dfas[0].firstWord })
        setWord(&root, l, first.targets.lowerBound, MatcherProgram.rootTarget)
        assertRefused(root, "bad target")
    }

    /// A matcher with a host table and a gated DFA: each part of a gate is checked.
    private func gatedSample() -> [UInt8] {
        var b = MatcherBuilder()
        b.add(URLFilter.parse(#"^[^:]+://+([^/]+\.)?ads\.example\/pixel"#, caseSensitive: false), id: 1)
        b.add(URLFilter.parse(#"^[^:]+://+([^/]+\.)?other\.example[:/]"#, caseSensitive: false), id: 2)
        return b.build().serialized()
    }

    func testGatesAreChecked() throws {
        let bytes = gatedSample()
        let l = try layout(bytes)
        XCTAssertEqual(l.dfas.map(\.gate), [1])
        let gateByte = l.dfas[0].classMap - 2
        var over = bytes
        over[gateByte] = UInt8(MatcherHostTable.maximumGates + 1)
        assertRefused(over, "DFA parameters")
        // The entries: "ads.example" (no list, gate 1) then "other.example" (a list, no gate), 4 words each.
        let hosts = try XCTUnwrap(l.hosts)
        let entries = bytes.count - (hosts.keys.count + 3) / 4 * 4 - 4 * hosts.entries.count
        func entryWord(_ e: Int, _ w: Int) -> Int { entries + 4 * (MatcherHostTable.entryWords * e + w) }
        XCTAssertEqual(bytes[entryWord(0, 3)], 1)
        var shutGate = bytes
        shutGate[entryWord(0, 3)] = 2 // no DFA has gate 2
        assertRefused(shutGate, "host table: entry")
        var empty = bytes
        empty[entryWord(0, 3)] = 0 // neither a list nor a gate
        assertRefused(empty, "host table: entry")
        var ungated = bytes
        ungated[gateByte] = 0 // an entry opens a gate no DFA has
        assertRefused(ungated, "host table: entry")
        // The keys back to back: a second entry naming the first one's bytes would make its load copy them again.
        XCTAssertEqual(bytes[entryWord(1, 0)], UInt8("ads.example".utf8.count))
        var overlapping = bytes
        overlapping[entryWord(1, 0)] = 0
        assertRefused(overlapping, "host table: keys")
        var shortKeys = bytes
        shortKeys[entryWord(1, 1)] -= 1 // "other.exampl": the key bytes end before the section's
        assertRefused(shortKeys, "host table: keys")
    }

    func testDFARangesMustFollowOneAnother() throws {
        var bytes = sample()
        let l = try layout(bytes)
        let h =
            MatcherBytecode.headerSize + 8 * ((l.universalFlagFree.count + l.universalWithFlags.count) / 8)
            + 4 * (l.listCount + 1) + 8 * l.idCount + MatcherBytecode.fileDFAHeaderSize // the second DFA's header
        bytes[h] &+= 1 // its first word no longer follows the first DFA's words
        assertRefused(bytes, "DFA ranges")
    }
}
