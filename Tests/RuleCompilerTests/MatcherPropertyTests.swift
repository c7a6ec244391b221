import TestSupport
import XCTest
import ContentRules
@testable import RuleCompiler

enum RandomPatterns {
    static func atom(_ rng: inout SplitMix64, depth: Int) -> String {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0...3: return ["a", "b", "c", "A", "B", "/", ":", "\\."].randomElement(using: &rng)!
        case 4: return "."
        case 5:
            return ["[ab]", "[a-c]", "[^a]", "[^/]", "[bB]", "[a-z+.-]", "[^:/]", "[:/]"].randomElement(using: &rng)!
        case 6: return ["\\0", "[^]", "[]", "\\x61", "[\\0a]"].randomElement(using: &rng)!
        case 7, 8:
            if depth < 2 {
                let n = Int.random(in: 0...3, using: &rng)
                return "(" + (0..<n).map { _ in term(&rng, depth: depth + 1) }.joined() + ")"
            }
            return "a"
        default: return ["a", "b", "c"].randomElement(using: &rng)!
        }
    }

    static func term(_ rng: inout SplitMix64, depth: Int) -> String {
        let a = atom(&rng, depth: depth)
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return a + "?"
        case 1: return a + "*"
        case 2: return a + "+"
        default: return a
        }
    }

    static func pattern(_ rng: inout SplitMix64) -> String {
        var p = Int.random(in: 0..<3, using: &rng) == 0 ? "^" : ""
        for _ in 0..<Int.random(in: 1...5, using: &rng) { p += term(&rng, depth: 0) }
        if Int.random(in: 0..<4, using: &rng) == 0 { p += "$" }
        return p
    }

    static func supportedFilter(_ rng: inout SplitMix64) -> URLFilter {
        while true {
            let f = URLFilter.parse(pattern(&rng), caseSensitive: Bool.random(using: &rng))
            if f.status.isSupported { return f }
        }
    }

    static func url(_ rng: inout SplitMix64) -> [UInt8] {
        let alphabet: [UInt8] = Array("abcAB/.:x".utf8) + [0xC3, 0x01]
        return (0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
    }

    /// A `||host^` pattern (either head of HostPattern, then HOST, then `[:/]`) over a small alphabet, so that hosts
    /// share suffixes; mostly case-insensitive with letters in either case (a case-sensitive one is a table entry of
    /// its own kind when its letters are lower-case, else a DFA). One in three goes on past the host
    /// (`||host/path`, `||host^*b`, `||host:1/`: a gated DFA) or ends otherwise.
    static func hostFilter(_ rng: inout SplitMix64) -> URLFilter {
        let letters = ["a", "b", "A", "\\.", "\\.", "-", "1"]
        let host = (0..<Int.random(in: 1...5, using: &rng)).map { _ in letters.randomElement(using: &rng)! }.joined()
        let tail = [
            "[:/]", "[:/]", "[/:]", "[:/]", "[:/]", "[/:]", "\\/a", "[:/].*b", ":1\\/", "\\/", "[:/]a$", "\\/[ab]*:",
        ].randomElement(using: &rng)!
        let head = [HostPattern.subdomainHead, HostPattern.onlyHostHead].randomElement(using: &rng)!
        return URLFilter.parse(head + host + tail, caseSensitive: Int.random(in: 0..<5, using: &rng) == 0)
    }

    /// A URL-like byte string for host patterns: a scheme, `:`, slashes, a host part of labels, dots, `:`, `@`, `/`,
    /// upper case, non-ASCII and 0 bytes; sometimes only random bytes. Never `<`, which no URL WebKit serializes
    /// with `://` holds: the host table reads `HostPattern.onlyHostHead` as `subdomainHead`, which differs only
    /// past a `/<`.
    static func hostURL(_ rng: inout SplitMix64) -> [UInt8] {
        if Int.random(in: 0..<8, using: &rng) == 0 { return url(&rng) }
        var u: [UInt8] = Array(["http", "x", "", "a.b", "h/t", "h\0"].randomElement(using: &rng)!.utf8)
        if Int.random(in: 0..<10, using: &rng) > 0 { u.append(UInt8(ascii: ":")) }
        u += [UInt8](repeating: UInt8(ascii: "/"), count: Int.random(in: 0...3, using: &rng))
        let tokens: [[UInt8]] = [
            [0x61], [0x62], [0x61, 0x62], [0x41], [0x42], [0x2E], [0x2E], [0x2E], [0x2D], [0x31], [0x3A], [0x2F],
            [0x40], [0xC3, 0xA9], [0x00], [0x3F], [0x61, 0x2E, 0x62], [0x62, 0x2E, 0x61],
        ]
        for _ in 0..<Int.random(in: 0...10, using: &rng) { u += tokens.randomElement(using: &rng)! }
        return u
    }

    static let flagChoices: [UInt32] = [
        0, 0, 0, 0x1, 0x10, 0x11, 0x4000, 0x8000, 0x10000, 0x20000, 0x40000,
        0x200000, 0xE00000, 0x8000 | 0x10, 0x4000 | 0x20000 | 0x200000,
    ]

    static func requestFlags(_ rng: inout SplitMix64) -> UInt32 {
        let type = UInt32(1) << UInt32(Int.random(in: 0..<14, using: &rng))
        let party: UInt32 = Bool.random(using: &rng) ? 0x4000 : 0x8000
        let context: UInt32 = Bool.random(using: &rng) ? 0x10000 : 0x20000
        let method = [UInt32(0), 0x200000, 0xE00000, 0x400000].randomElement(using: &rng)!
        return type | party | context | method | 0x1C0000
    }
}

final class MatcherPropertyTests: XCTestCase {
    func expected(_ entries: [(URLFilter, UInt64)], _ url: [UInt8], _ flags: UInt32) -> Set<UInt64> {
        var r = Set<UInt64>()
        for (f, id) in entries where f.matches(url) {
            if f.status == .matchesEverything && id >> 32 == 0 { continue }
            if matcherFlagsTestPasses(ruleFlags: UInt32(id >> 32), requestFlags: flags) { r.insert(id) }
        }
        return r
    }

    func testRandomPatternSetsAgainstReference() throws {
        var rng = SplitMix64(seed: 0x5EED_0001)
        var checked = 0
        for round in 0..<300 {
            var builder = MatcherBuilder()
            if round % 3 == 0 { builder.maximumNFASize = 8 } // force many small NFAs
            var entries: [(URLFilter, UInt64)] = []
            let count = Int.random(in: 1...8, using: &rng)
            for k in 0..<count {
                let f = RandomPatterns.supportedFilter(&rng)
                let flags = RandomPatterns.flagChoices.randomElement(using: &rng)!
                let id = UInt64(flags) << 32 | UInt64(k * 7 + 1)
                builder.add(f, id: id)
                entries.append((f, id))
                if Int.random(in: 0..<4, using: &rng) == 0 { // same pattern, another id
                    let id2 = UInt64(k * 7 + 2)
                    builder.add(f, id: id2)
                    entries.append((f, id2))
                }
            }
            let matcher = builder.build()
            let reloaded = try matcher.serialized().withUnsafeBytes { try Matcher(serialized: $0) }
            XCTAssertEqual(reloaded.serialized(), matcher.serialized())
            let universal = Set(entries.filter { $0.0.status == .matchesEverything && $0.1 >> 32 == 0 }.map { $0.1 })
            XCTAssertEqual(Set(matcher.universalFlagFree), universal)
            for _ in 0..<40 {
                let url = RandomPatterns.url(&rng)
                let flags = RandomPatterns.requestFlags(&rng)
                let want = expected(entries, url, flags)
                let got = Set(matcher.match(url, requestFlags: flags))
                if got != want {
                    XCTFail(
                        "patterns \(entries.map { ($0.0.pattern, $0.0.caseSensitive, $0.1) }) url \(url) flags "
                            + "\(flags): got \(got.sorted()) want \(want.sorted())"
                    )
                    return
                }
                XCTAssertEqual(Set(reloaded.match(url, requestFlags: flags)), want)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 300 * 40)
    }

    /// The caches of `match` keep where the automata stand after a URL's scheme and host and resume from there:
    /// for every cut of every URL, resuming must report exactly the ids of a whole run, whatever the flags, and
    /// a prefix that claims to report nothing must report nothing for any continuation.
    func testResumingFromAnyPrefixEqualsTheWholeRun() throws {
        var rng = SplitMix64(seed: 0x5EED_0002)
        var cuts = 0, nothing = 0, finals = 0, tables = 0
        for round in 0..<200 {
            var builder = MatcherBuilder()
            if round % 3 == 0 { builder.maximumNFASize = 8 } // several DFAs
            let hosts = round % 2 == 1 // with a host table
            for k in 0..<Int.random(in: 1...8, using: &rng) {
                let flags = RandomPatterns.flagChoices.randomElement(using: &rng)!
                let filter =
                    hosts && k % 2 == 0 ? RandomPatterns.hostFilter(&rng) : RandomPatterns.supportedFilter(&rng)
                builder.add(filter, id: UInt64(flags) << 32 | UInt64(k + 1))
            }
            let matcher = try builder.build().serialized().withUnsafeBytes { try Matcher(serialized: $0) }
            if matcher.statistics.hostKeys > 0 { tables += 1 }
            for _ in 0..<30 {
                let url = hosts ? RandomPatterns.hostURL(&rng) : RandomPatterns.url(&rng)
                let flags = RandomPatterns.requestFlags(&rng)
                let whole = Set(matcher.match(url, requestFlags: flags))
                for cut in 0...url.count {
                    let prefix = url.withUnsafeBufferPointer {
                        matcher.prefix(UnsafeBufferPointer(rebasing: $0[..<cut]))
                    }
                    var resumed: [UInt64] = []
                    url.withUnsafeBufferPointer {
                        matcher.match(
                            resuming: prefix, rest: UnsafeBufferPointer(rebasing: $0[cut...]), requestFlags: flags,
                            into: &resumed)
                    }
                    XCTAssertEqual(Set(resumed), whole, "url \(url) cut \(cut) flags \(flags)")
                    if matcher.isFinal(prefix) {
                        var alone: [UInt64] = []
                        matcher.match(
                            resuming: prefix, rest: UnsafeBufferPointer(start: nil, count: 0), requestFlags: flags,
                            into: &alone)
                        XCTAssertEqual(
                            Set(alone), whole, "url \(url) cut \(cut): a final prefix reads no more of the URL")
                        finals += 1
                    }
                    if matcher.reportsNothing(prefix) && !matcher.hasUniversalWithFlags {
                        XCTAssertTrue(
                            whole.isEmpty,
                            "url \(url) cut \(cut): the prefix reports nothing, the whole run \(whole.sorted())")
                        nothing += 1
                    }
                    cuts += 1
                }
            }
        }
        XCTAssertGreaterThan(cuts, 20000)
        XCTAssertGreaterThan(nothing, 1000, "prefixes after which every automaton stopped should be common")
        XCTAssertGreaterThan(finals, nothing, "final prefixes include those that reached an action")
        XCTAssertGreaterThan(tables, 80, "half of the matchers have host tables")
    }

    func testRealisticPatterns() {
        var builder = MatcherBuilder()
        let hosts = ["tracker.com", "ads.example.net", "t.co", "cdn.tracker.com", "analytics.io"]
        var entries: [(URLFilter, UInt64)] = []
        for (i, h) in hosts.enumerated() {
            let esc = h.replacingOccurrences(of: ".", with: "\\.")
            let a = URLFilter.parse("^[^:]+://+([^:/]+\\.)?\(esc)[:/]", caseSensitive: false)
            let b = URLFilter.parse("[a-z][a-z+.-]*:\\/\\/([^/]*\\.)*\(esc)[:/]", caseSensitive: false)
            let c = URLFilter.parse("[a-z][a-z+.-]*:\\/\\/\(esc)[:/]", caseSensitive: false)
            for (k, f) in [a, b, c].enumerated() {
                XCTAssertEqual(f.status, .ok)
                let id = UInt64(i * 3 + k + 1) | (k == 0 ? UInt64(0x8000) << 32 : 0)
                builder.add(f, id: id)
                entries.append((f, id))
            }
        }
        let m = builder.build()
        let urls = [
            "https://tracker.com/x", "https://sub.tracker.com:443/", "http://nottracker.com/", "https://t.co/abc",
            "https://www.ads.example.net/p?q=https://t.co/", "HTTPS://CDN.TRACKER.COM/", "https://analytics.io",
            "https://analytics.io.evil.com/", "ftp://x.analytics.io/a",
        ]
        for u in urls {
            for flags: UInt32 in [0x4000 | 0x10 | 0x10000, 0x8000 | 0x10 | 0x20000] {
                XCTAssertEqual(
                    Set(m.match(Array(u.utf8), requestFlags: flags)), expected(entries, Array(u.utf8), flags), u)
            }
        }
    }

    func testUniversalAndFlagsTest() {
        var b = MatcherBuilder()
        let everything = URLFilter.parse(".*", caseSensitive: false)
        b.add(everything, id: 5)
        b.add(everything, id: UInt64(0x8000) << 32 | 6)
        b.add(URLFilter.parse("^$", caseSensitive: false), id: 7)
        let m = b.build()
        XCTAssertEqual(m.universalFlagFree, [5, 7])
        XCTAssertEqual(m.match(Array("http://a/".utf8), requestFlags: 0x8000 | 1), [UInt64(0x8000) << 32 | 6])
        XCTAssertEqual(m.match(Array("http://a/".utf8), requestFlags: 0x4000 | 1), [])
        XCTAssertEqual(m.statistics.dfaCount, 0)
        // WebKit's flags test.
        XCTAssertTrue(matcherFlagsTestPasses(ruleFlags: 0, requestFlags: 0x1234))
        XCTAssertTrue(matcherFlagsTestPasses(ruleFlags: 0x1C0000, requestFlags: 0)) // condition bits ignored
        XCTAssertFalse(matcherFlagsTestPasses(ruleFlags: 0x10, requestFlags: 0x8))
        XCTAssertTrue(matcherFlagsTestPasses(ruleFlags: 0x18, requestFlags: 0x8 | 0x4000))
        // AllResourceFlags method bits
        XCTAssertFalse(matcherFlagsTestPasses(ruleFlags: 0x200000, requestFlags: 0x1E00000))
        XCTAssertTrue(matcherFlagsTestPasses(ruleFlags: 0x200000, requestFlags: 0x200000 | 0x1))
        XCTAssertFalse(matcherFlagsTestPasses(ruleFlags: 0xE00000, requestFlags: 0x200000))
    }

    func testMinimizationMergesEquivalentStates() {
        // `^ab$` and `^cb$` with the same id: 7 DFA states (root, a, c, ab, cb, ab$, cb$); the minimal DFA
        // has 4 (root, a|c, b, end). A build that stops merging equivalent states grows the bytecode.
        var b = MatcherBuilder()
        b.add(URLFilter.parse("^ab$", caseSensitive: true), id: 1)
        b.add(URLFilter.parse("^cb$", caseSensitive: true), id: 1)
        let m = b.build()
        XCTAssertEqual(m.statistics.dfaStatesBeforeMinimization, 7)
        XCTAssertEqual(m.statistics.dfaStates, 4)
        XCTAssertEqual(m.match(Array("cb".utf8), requestFlags: 0), [1])
        XCTAssertEqual(m.match(Array("ab".utf8), requestFlags: 0), [1])
        XCTAssertEqual(m.match(Array("abc".utf8), requestFlags: 0), [])
    }

    func testBuildAllEqualsBuild() throws {
        var rng = SplitMix64(seed: 99)
        var builders: [MatcherBuilder] = []
        for _ in 0..<3 {
            var b = MatcherBuilder()
            for k in 0..<20 { b.add(RandomPatterns.supportedFilter(&rng), id: UInt64(k)) }
            builders.append(b)
        }
        XCTAssertEqual(
            try MatcherBuilder.buildAll(builders).map { $0.serialized() }, builders.map { $0.build().serialized() })
        XCTAssertEqual(try MatcherBuilder.buildAll([]).count, 0)
    }

    func testEmptyMatcher() throws {
        let m = MatcherBuilder().build()
        XCTAssertEqual(m.match(Array("x".utf8), requestFlags: 0), [])
        XCTAssertEqual(m.universalFlagFree, [])
        _ = try m.serialized().withUnsafeBytes { try Matcher(serialized: $0) }
    }

    func testDeterminism() {
        var rng = SplitMix64(seed: 42)
        var filters: [(URLFilter, UInt64)] = []
        for k in 0..<40 { filters.append((RandomPatterns.supportedFilter(&rng), UInt64(k))) }
        for (k, h) in ["a.com", "b.net", "ab.org", "x.a.com"].enumerated() {
            let esc = h.replacingOccurrences(of: ".", with: "\\.")
            filters.append((URLFilter.parse("^[^:]+://+([^:/]+\\.)?\(esc)[:/]", caseSensitive: false), UInt64(100 + k)))
        }
        func build() -> [UInt8] {
            var b = MatcherBuilder()
            for (f, id) in filters { b.add(f, id: id) }
            return b.build().serialized()
        }
        XCTAssertEqual(build(), build())
    }

    func testCorruptedBytesAreRejectedOrHarmless() {
        var rng = SplitMix64(seed: 7)
        var b = MatcherBuilder()
        for k in 0..<30 { b.add(RandomPatterns.supportedFilter(&rng), id: UInt64(k) | UInt64(0x10) << 32) }
        b.add(URLFilter.parse("^[^:]+://+([^:/]+\\.)?tracker\\.com[:/]", caseSensitive: false), id: 99)
        b.add(URLFilter.parse("^[^:]+://+([^/]+\\.)?tracker\\.com[:/]", caseSensitive: false), id: 98)
        b.add(URLFilter.parse("^[^:]+://+([^/]+\\.)?ads\\.test[:/]", caseSensitive: false), id: 97)
        let good = b.build().serialized()
        var rejected = 0
        for trial in 0..<4000 {
            var bad = good
            switch trial % 4 {
            case 0: // flip random bytes
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let i = Int.random(in: 0..<bad.count, using: &rng)
                    bad[i] ^= UInt8.random(in: 1...255, using: &rng)
                }
            case 1: // truncate
                bad.removeLast(Int.random(in: 1..<bad.count, using: &rng))
            case 2: // random byte values in the DFA area
                let i = Int.random(in: min(32, bad.count - 1)..<bad.count, using: &rng)
                bad[i] = UInt8.random(in: 0...255, using: &rng)
            default: // insert garbage
                let i = Int.random(in: 0...bad.count, using: &rng)
                bad.insert(
                    contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in
                        UInt8.random(in: 0...255, using: &rng)
                    }, at: i)
            }
            do {
                let m = try bad.withUnsafeBytes { try Matcher(serialized: $0) }
                // The form is canonical: what loads writes back the same bytes (a matcher keeps only its program).
                XCTAssertEqual(m.serialized(), bad)
                // Accepted: must still run safely on any input.
                for _ in 0..<5 { _ = m.match(RandomPatterns.url(&rng), requestFlags: 0x8010) }
                _ = m.universalFlagFree
            } catch {
                rejected += 1
            }
        }
        XCTAssertGreaterThan(rejected, 3000)
    }

    /// `match(_:requestFlags:into:)` appends to what the caller already holds (the engine reuses one buffer).
    func testMatchIntoAppendsToTheCallersBuffer() {
        var b = MatcherBuilder()
        b.add(URLFilter.parse("^https?://([^/]*\\.)?tracker\\.com/", caseSensitive: false), id: 1)
        b.add(URLFilter.parse("/pixel\\.gif$", caseSensitive: true), id: 2)
        b.add(URLFilter.parse("ads", caseSensitive: false), id: UInt64(0x10) << 32 | 3) // flags: script only
        let m = b.build()
        let url = Array("https://cdn.tracker.com/ads/pixel.gif".utf8)
        XCTAssertEqual(Set(m.match(url, requestFlags: 0x8010)), [1, 2, UInt64(0x10) << 32 | 3])
        XCTAssertEqual(Set(m.match(url, requestFlags: 0x8001)), [1, 2])
        var buffer: [UInt64] = [42]
        url.withUnsafeBufferPointer { m.match($0, requestFlags: 0x8001, into: &buffer) }
        XCTAssertEqual(buffer.first, 42)
        XCTAssertEqual(Set(buffer.dropFirst()), [1, 2])
        XCTAssertEqual(m.match(Array("https://tracker.com.evil/".utf8), requestFlags: 0x8010), [])
        XCTAssertEqual(m.match([], requestFlags: 0x8010), [])
    }
}
