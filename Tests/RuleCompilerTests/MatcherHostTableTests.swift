// The host table reports what the DFAs of the same `||host^` patterns report, as often, on any bytes.

import ContentRules
import TestSupport
import XCTest

@testable import RuleCompiler

final class MatcherHostTableTests: XCTestCase {
    /// The host `read` finds in `pattern`, as a String.
    func key(
        _ pattern: String, caseSensitive: Bool, _ read: (MatcherHostTable.PatternShape) -> (URLFilter) -> [UInt8]?
    ) -> String? {
        read(MatcherHostTable.PatternShape())(URLFilter.parse(pattern, caseSensitive: caseSensitive)).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    func host(_ pattern: String, caseSensitive: Bool = false) -> String? {
        key(pattern, caseSensitive: caseSensitive) { shape in { shape.host(of: $0)?.key } }
    }

    /// Whether the host pattern's letters match the lower case only (nil: not a host pattern).
    func hostIsCaseSensitive(_ pattern: String, caseSensitive: Bool) -> Bool? {
        MatcherHostTable.PatternShape().host(of: URLFilter.parse(pattern, caseSensitive: caseSensitive))?.caseSensitive
    }

    func gatingHost(_ pattern: String, caseSensitive: Bool = false) -> String? {
        key(pattern, caseSensitive: caseSensitive, MatcherHostTable.PatternShape.gatingHost(of:))
    }

    func testHostPatternsAreRecognizedByTheirTerms() {
        XCTAssertEqual(host(#"^[^:]+://+([^/]+\.)?ads\.example\.com[:/]"#), "ads.example.com")
        XCTAssertEqual(host(#"^[^:]+://+([^/]+\.)?Ads\.EXAMPLE-1\.com[/:]"#), "ads.example-1.com")
        XCTAssertEqual(host(#"^[^:]+://+([^/]+\.)?1\.2\.3\.4[:/]"#, caseSensitive: true), "1.2.3.4")
        XCTAssertEqual(host(#"^[^:]+://+([^/]+\.)?ads\.com[:/]"#, caseSensitive: true), "ads.com")
        XCTAssertEqual(hostIsCaseSensitive(#"^[^:]+://+([^/]+\.)?ads\.com[:/]"#, caseSensitive: true), true)
        XCTAssertEqual(hostIsCaseSensitive(#"^[^:]+://+([^/]+\.)?ads\.com[:/]"#, caseSensitive: false), false)
        XCTAssertEqual(hostIsCaseSensitive(#"^[^:]+://+([^/]+\.)?1\.2[:/]"#, caseSensitive: true), false, "no letter")
        XCTAssertNil(host(#"^[^:]+://+([^/]+\.)?Ads\.com[:/]"#, caseSensitive: true), "an upper-case letter alone")
        XCTAssertNil(host(#"^[^:]+://+([^/]+\.)?[Aa]ds\.com[:/]"#, caseSensitive: true), "letters of both kinds")
        XCTAssertEqual(host(#"^[^:]+://+(([^/]+(/<)?)+\.)?ads\.com[:/]"#, caseSensitive: true), "ads.com")
        XCTAssertEqual(host(#"^[^:]+://+(([^/]+(/<)?)+\.)?Ads\.com[:/]"#), "ads.com")
        XCTAssertNil(host(#"^[^:]+://+(([^/]+(/>)?)+\.)?ads\.com[:/]"#), "a run into another byte")
        XCTAssertNil(host(#"^[^:]+://+(([^/]+(/<)?)*\.)?ads\.com[:/]"#), "another run")
        XCTAssertNil(host(#"^[^:]+://+([^:/]+\.)?ads\.com[:/]"#), "another group")
        XCTAssertNil(host(#"^[^:]+://+([^/]+\.)ads\.com[:/]"#), "the group not optional")
        XCTAssertNil(host(#"^[^:]+:/+([^/]+\.)?ads\.com[:/]"#), "one slash")
        XCTAssertNil(host(#"[^:]+://+([^/]+\.)?ads\.com[:/]"#), "not anchored")
        XCTAssertNil(host(#"^[^:]+://+([^/]+\.)?ads\.com[:/]x"#), "more after the host")
        XCTAssertNil(host(#"^[^:]+://+([^/]+\.)?ads.com[:/]"#), "a class in the host")
        XCTAssertNil(host(#"^[^:]+://+([^/]+\.)?ads\.com/"#), "another end")
        XCTAssertNil(host(#"^[^:]+://+([^/]+\.)?[:/]"#), "no host")
    }

    func testGatedPatternsAreHostPatternsThatGoOnPastAColonOrSlash() {
        XCTAssertEqual(gatingHost(#"^[^:]+://+([^/]+\.)?Ads\.com\/pixel"#), "ads.com")
        XCTAssertEqual(gatingHost(#"^[^:]+://+([^/]+\.)?ads\.com[:/].*\.js$"#), "ads.com")
        XCTAssertEqual(gatingHost(#"^[^:]+://+([^/]+\.)?ads\.com:8080\/c"#), "ads.com")
        XCTAssertNil(gatingHost(#"^[^:]+://+([^/]+\.)?ads\.com[:/]"#), "a host pattern, the table's own")
        XCTAssertNil(gatingHost(#"^[^:]+://+([^/]+\.)?ads\.com\/"#), "nothing past the slash")
        XCTAssertNil(gatingHost(#"^[^:]+://+([^/]+\.)?ads\.com[:/?]x"#), "a `?` could end the host too")
        XCTAssertNil(gatingHost(#"^[^:]+://+([^/]+\.)?ads\..*\/x"#), "no `:` or `/` right after the host")
        XCTAssertNil(gatingHost(#"^[^:]+://+([^/]+\.)?ads\.com\/*x"#), "the slash may be absent")
        XCTAssertNil(gatingHost(#"^[^:]+://+([^/]+\.)?ads\.com\/x"#, caseSensitive: true), "letters of one case")
        XCTAssertNil(gatingHost(#"^[^:]+://+(([^/]+(/<)?)+\.)?ads\.com\/x"#), "the head whose DFA outlives the `/`")
        XCTAssertNil(gatingHost(#"[^:]+://+([^/]+\.)?ads\.com\/x"#), "not anchored")
    }

    /// A gated DFA is walked only on a URL one of whose host candidates opens its gate: the product's prefix of a
    /// head past the host part carries its state then, and none otherwise (a prefix cut inside the host part still
    /// walks it: a later candidate may open it).
    func testTheProductWalksAGatedDFAOnlyWhereItsGateIsOpen() throws {
        var builder = MatcherBuilder()
        builder.add(URLFilter.parse(#"^[^:]+://+([^/]+\.)?ads\.example\/pixel"#, caseSensitive: false), id: 1)
        builder.add(URLFilter.parse(#"^[^:]+://+([^/]+\.)?other\.example[:/]"#, caseSensitive: false), id: 2)
        builder.add(URLFilter.parse("banner", caseSensitive: false), id: 3)
        let m = try Matcher(serialized: builder.build().serialized())
        XCTAssertEqual(m.statistics.gatedDFAs, 1)
        var limits = MatcherProduct.Limits()
        limits.minimumDFAs = 1
        let product = try XCTUnwrap(MatcherProduct(m, limits: limits))
        func ownStates(_ head: String) -> Int32 {
            let p = Array(head.utf8).withUnsafeBufferPointer { m.prefix($0, product: product) }
            return p.words[MatcherPrefix.productWords]
        }
        XCTAssertEqual(ownStates("https://x.ADS.example/"), 1, "open: walked")
        XCTAssertEqual(ownStates("https://ads.example.org/"), 0, "shut: not walked")
        XCTAssertEqual(ownStates("https://other.example/"), 0, "another host's entry opens nothing")
        XCTAssertEqual(ownStates("https://ads.exam"), 1, "inside the host part: walked")
        for (url, expected) in [
            ("https://x.ads.example/pixel.gif", [UInt64(1)]), ("https://ads.example.org/pixel", []),
            ("https://ads.example:8/pixel", []), ("https://ads.example/pixel/banner", [1, 3]),
        ] {
            var out: [UInt64] = []
            Array(url.utf8).withUnsafeBufferPointer { m.match($0, requestFlags: 0, into: &out, product: product) }
            XCTAssertEqual(out.sorted(), expected, url)
        }
    }

    /// A case-sensitive host pattern is an entry whose list a candidate with an upper-case letter does not report,
    /// while the same entry's gate opens on either case (its DFAs match both); a key with host patterns of both
    /// kinds keeps the case-sensitive ones as DFAs. The table and the DFAs alone report the same.
    func testACaseSensitiveEntryReportsOnlyLowerCaseCandidatesAndItsGateOpensOnBoth() throws {
        var dfas = MatcherBuilder()
        dfas.hostTable = false
        let patterns: [(String, Bool)] = [
            (HostPattern.onlyHostHead + #"ads\.test[:/]"#, true),
            (HostPattern.subdomainHead + #"ads\.test\/px"#, false),
            (HostPattern.onlyHostHead + #"both\.test[:/]"#, true),
            (HostPattern.subdomainHead + #"both\.test[:/]"#, false),
        ]
        for (k, (pattern, caseSensitive)) in patterns.enumerated() {
            dfas.add(URLFilter.parse(pattern, caseSensitive: caseSensitive), id: UInt64(k + 1))
        }
        let (plain, table, someProduct) = try withAndWithoutTable(dfas)
        XCTAssertEqual(table.statistics.hostKeys, 2)
        XCTAssertEqual(table.statistics.gatedDFAs, 1)
        let product = try XCTUnwrap(someProduct)
        for (url, expected) in [
            ("https://ads.test/px", [UInt64(1), 2]), ("https://ADS.test/px", [2]),
            ("https://ads.test:pw@h.test/", [1]), ("https://x.Ads.test:pw@h/", []), ("https://both.test/", [3, 4]),
            ("https://BOTH.test:pw@h/", [4]),
        ] {
            let bytes = Array(url.utf8)
            XCTAssertEqual(sortedIDs(plain, bytes, 0), expected, url)
            XCTAssertEqual(sortedIDs(table, bytes, 0), expected, url)
            var out: [UInt64] = []
            bytes.withUnsafeBufferPointer { table.match($0, requestFlags: 0, into: &out, product: product) }
            XCTAssertEqual(out.sorted(), expected, url)
        }
    }

    /// Two keys of one length and one hash (FNV-1a's "declinate" and "macallums", reversed: the table hashes a key
    /// from its last byte), each in a table alone and both in one: a candidate is found by its bytes, not its hash.
    func testKeysOfOneHashAreToldApartByTheirBytes() throws {
        let (a, b) = ("etanilced", "smullacam")
        XCTAssertEqual(MatcherHostTable.hash(a.utf8.reversed()), MatcherHostTable.hash(b.utf8.reversed()))
        func hostFilter(_ host: String) -> URLFilter {
            URLFilter.parse(#"^[^:]+://+([^/]+\.)?"# + host + "[:/]", caseSensitive: false)
        }
        for keys in [[a], [b], [a, b], [b, a]] {
            var dfas = MatcherBuilder()
            dfas.hostTable = false
            for (k, key) in keys.enumerated() { dfas.add(hostFilter(key), id: UInt64(k + 1)) }
            // A DFA beside the table, so that there is a product to read it too.
            dfas.add(URLFilter.parse("/never-in-these-urls/", caseSensitive: false), id: 99)
            let (plain, table, maybeProduct) = try withAndWithoutTable(dfas)
            let product = try XCTUnwrap(maybeProduct)
            XCTAssertEqual(table.statistics.hostKeys, keys.count)
            for host in [a, b, "x." + a, "x." + b, a.uppercased()] {
                let url = Array("https://\(host)/p".utf8)
                let expected = keys.enumerated().filter { host.lowercased().hasSuffix($0.element) }.map {
                    UInt64($0.offset + 1)
                }
                XCTAssertEqual(sortedIDs(plain, url, 0), expected, "\(keys) \(host)")
                XCTAssertEqual(sortedIDs(table, url, 0), expected, "\(keys) \(host)")
                var out: [UInt64] = []
                url.withUnsafeBufferPointer { table.match($0, requestFlags: 0, into: &out, product: product) }
                XCTAssertEqual(out.sorted(), expected, "\(keys) \(host), by the product")
            }
        }
    }

    /// The patterns of `dfas` (built without a table) built into DFAs alone, and with a host table (round-tripped
    /// through its bytes), with a product of any number of DFAs over the latter.
    func withAndWithoutTable(_ dfas: MatcherBuilder) throws -> (
        plain: Matcher, table: Matcher, product: MatcherProduct?
    ) {
        var withTable = dfas
        withTable.hostTable = true
        let table = try Matcher(serialized: withTable.build().serialized())
        var limits = MatcherProduct.Limits()
        limits.minimumDFAs = 1
        return (dfas.build(), table, MatcherProduct(table, limits: limits))
    }

    func sortedIDs(_ m: Matcher, _ url: [UInt8], _ flags: UInt32) -> [UInt64] {
        var out: [UInt64] = []
        url.withUnsafeBufferPointer { m.match($0, requestFlags: flags, into: &out) }
        return out.sorted()
    }

    /// Random host sets with other patterns beside them, built into DFAs alone and with a host table: on random
    /// URL-like bytes the same ids, as often (sorted lists, not sets); the table round-trips through its bytes.
    func testTheTableReportsWhatTheDFAsReport() throws {
        var rng = SplitMix64(seed: 0x5EED_0011)
        var (checked, hits, tables, gated) = (0, 0, 0, 0)
        for round in 0..<300 {
            var dfas = MatcherBuilder()
            dfas.hostTable = false
            if round % 3 == 0 { dfas.maximumNFASize = 16 }
            for k in 0..<Int.random(in: 1...24, using: &rng) {
                let flags = RandomPatterns.flagChoices.randomElement(using: &rng)!
                let filter =
                    k % 4 == 3 ? RandomPatterns.supportedFilter(&rng) : RandomPatterns.hostFilter(&rng)
                dfas.add(filter, id: UInt64(flags) << 32 | UInt64(k + 1))
            }
            let (plain, table, product) = try withAndWithoutTable(dfas)
            XCTAssertEqual(plain.statistics.hostKeys, 0)
            XCTAssertEqual(plain.statistics.gatedDFAs, 0)
            if table.statistics.hostKeys > 0 { tables += 1 }
            if table.statistics.gatedDFAs > 0 { gated += 1 }
            for _ in 0..<60 {
                let url = RandomPatterns.hostURL(&rng)
                let flags = RandomPatterns.requestFlags(&rng)
                let expected = sortedIDs(plain, url, flags)
                XCTAssertEqual(sortedIDs(table, url, flags), expected, "url \(url) flags \(flags)")
                if let product {
                    var out: [UInt64] = []
                    url.withUnsafeBufferPointer { table.match($0, requestFlags: flags, into: &out, product: product) }
                    XCTAssertEqual(out.sorted(), expected, "url \(url) flags \(flags), the product skipping shut gates")
                }
                if !expected.isEmpty { hits += 1 }
                checked += 1
            }
        }
        XCTAssertGreaterThan(tables, 250, "most rounds have a host table")
        XCTAssertGreaterThan(gated, 100, "many have gated DFAs")
        XCTAssertGreaterThan(hits, 2000, "many URLs match a host")
        XCTAssertEqual(checked, 300 * 60)
    }

    /// A host part longer than the longest key, cut in its middle: the prefix carries only the last bytes.
    func testALongHostPartCarriesOnlyTheLongestKeysBytes() {
        var builder = MatcherBuilder()
        builder.add(URLFilter.parse(#"^[^:]+://+([^/]+\.)?ab\.a[:/]"#, caseSensitive: false), id: 1)
        let m = builder.build()
        let url = Array(("https://" + String(repeating: "x.", count: 500) + "AB.a/").utf8)
        XCTAssertEqual(sortedIDs(m, url, 0), [1])
        url.withUnsafeBufferPointer { u in
            let prefix = m.prefix(UnsafeBufferPointer(rebasing: u[..<(u.count - 3)]))
            XCTAssertLessThanOrEqual(prefix.words.count, 2 + 2 + 2 + 2, "the scan carries at most 5 bytes")
            var out: [UInt64] = []
            m.match(
                resuming: prefix, rest: UnsafeBufferPointer(rebasing: u[(u.count - 3)...]), requestFlags: 0,
                into: &out)
            XCTAssertEqual(out, [1])
            XCTAssertFalse(m.isFinal(prefix))
            XCTAssertTrue(m.isFinal(m.prefix(u)), "past the host part's `/` the table finds no more")
        }
    }
}

extension MatcherProductTests {
    /// A prefix cut anywhere in a URL carries the table's pending bytes: resumed, by the program or a product, the
    /// ids of the whole run.
    func testResumingTheTableFromEveryCut() throws {
        var rng = SplitMix64(seed: 0x5EED_0012)
        var cuts = 0
        for round in 0..<150 {
            var builder = MatcherBuilder()
            builder.maximumNFASize = round % 2 == 0 ? 8 : 75_000
            for k in 0..<Int.random(in: 2...16, using: &rng) {
                let filter = k % 3 == 2 ? RandomPatterns.supportedFilter(&rng) : RandomPatterns.hostFilter(&rng)
                builder.add(filter, id: UInt64(k + 1))
            }
            let matcher = builder.build()
            var limits = MatcherProduct.Limits()
            limits.minimumDFAs = 1
            limits.tableBytes = [1 << 20, 1].randomElement(using: &rng)!
            for _ in 0..<20 {
                let url = RandomPatterns.hostURL(&rng)
                let whole = ids { out in url.withUnsafeBufferPointer { matcher.match($0, requestFlags: 0, into: &out) }
                }
                if let product = MatcherProduct(matcher, limits: limits) {
                    checkEveryCut(matcher, product, url, 0, whole: whole)
                }
                url.withUnsafeBufferPointer { u in
                    for cut in 0...u.count {
                        let prefix = matcher.prefix(UnsafeBufferPointer(rebasing: u[..<cut]))
                        var out: [UInt64] = []
                        matcher.match(
                            resuming: prefix, rest: UnsafeBufferPointer(rebasing: u[cut...]), requestFlags: 0,
                            into: &out)
                        XCTAssertEqual(out.sorted(), whole, "url \(url) cut \(cut)")
                        if matcher.reportsNothing(prefix) { XCTAssertEqual(whole, [], "url \(url) cut \(cut)") }
                        cuts += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(cuts, 20_000)
    }
}

final class MatcherHostTableInspectionTests: XCTestCase {
    /// `inspect` gives the hosts of the table, the bytes of its section and the DFAs it gates (the golden list has two
    /// host rules and a gated one on one of their hosts).
    func testInspectShowsTheTable() throws {
        let compiled = try RuleListCompiler.compile(json: goldenRules(), options: .init(name: "golden"))
        let inspection = try RBCInspection(list: compiled, fileBytes: RBCFile.bytes(compiled))
        let url = try XCTUnwrap(inspection.automata.first { $0.0 == "url" }?.1)
        XCTAssertEqual(url.hostKeys, 2)
        // Counts, 8 slots, 2 entries of 4 words, "cdn.tracker.example" and "tracker.example" padded to 36 bytes.
        XCTAssertEqual(url.hostTableBytes, 16 + 4 * 8 + 4 * 8 + 36)
        XCTAssertEqual(url.gatedDFAs, 1)
        XCTAssertTrue(
            inspection.text.contains("2 hosts in a table (\(url.hostTableBytes) bytes) gating 1 DFA\n"),
            inspection.text)
    }
}
