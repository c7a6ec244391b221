// MatcherProduct reports what MatcherProgram reports, as often, on whole URLs and from every cut, whichever DFAs
// it holds and however often it starts over.

import ContentRules
import TestSupport
import XCTest

@testable import RuleCompiler

final class MatcherProductTests: XCTestCase {
    /// A matcher of many small DFAs (tiny NFA batches) over random patterns.
    func randomMatcher(_ rng: inout SplitMix64) throws -> Matcher {
        var builder = MatcherBuilder()
        builder.maximumNFASize = Int.random(in: 4...12, using: &rng)
        for k in 0..<Int.random(in: 6...20, using: &rng) {
            let flags = RandomPatterns.flagChoices.randomElement(using: &rng)!
            builder.add(RandomPatterns.supportedFilter(&rng), id: UInt64(flags) << 32 | UInt64(k + 1))
        }
        return try builder.build().serialized().withUnsafeBytes { try Matcher(serialized: $0) }
    }

    /// Limits that put some DFAs in the product and walk others alone, and sometimes hold only a few states.
    func randomLimits(_ rng: inout SplitMix64) -> MatcherProduct.Limits {
        var limits = MatcherProduct.Limits()
        limits.minimumDFAs = 1
        limits.largeDFAStates = [Int.max, 3, 6, 12].randomElement(using: &rng)!
        limits.tableBytes = [1 << 20, 1].randomElement(using: &rng)!
        return limits
    }

    func ids(_ body: (inout [UInt64]) -> Void) -> [UInt64] {
        var out: [UInt64] = []
        body(&out)
        return out.sorted()
    }

    func testTheProductReportsWhatTheDFAsReport() throws {
        var rng = SplitMix64(seed: 0x5EED_0007)
        var (checked, products, alone, restarts) = (0, 0, 0, 0)
        for _ in 0..<150 {
            let matcher = try randomMatcher(&rng)
            let limits = randomLimits(&rng)
            guard let product = MatcherProduct(matcher, limits: limits) else { continue }
            products += 1
            if limits.largeDFAStates != Int.max { alone += 1 }
            for _ in 0..<30 {
                let url = RandomPatterns.url(&rng)
                let flags = RandomPatterns.requestFlags(&rng)
                let plain = ids { out in
                    url.withUnsafeBufferPointer { matcher.match($0, requestFlags: flags, into: &out) }
                }
                let viaProduct = ids { out in
                    url.withUnsafeBufferPointer { matcher.match($0, requestFlags: flags, into: &out, product: product) }
                }
                XCTAssertEqual(viaProduct, plain, "url \(url) flags \(flags): the same ids, as often")
                checkEveryCut(matcher, product, url, flags, whole: plain)
                checked += 1
            }
            if product.restarts > 1 { restarts += 1 }
        }
        XCTAssertEqual(checked, products * 30)
        XCTAssertGreaterThan(products, 100, "most random matchers have DFAs enough for a product")
        XCTAssertGreaterThan(alone, 20, "some products walk DFAs alone")
        XCTAssertGreaterThan(restarts, 20, "some products start over")
    }

    /// From every cut: the product's prefix resumed by the product and by the plain program, and the plain prefix
    /// resumed by the product, each give the whole run's ids; both prefixes agree on reporting nothing.
    func checkEveryCut(_ m: Matcher, _ product: MatcherProduct, _ url: [UInt8], _ flags: UInt32, whole: [UInt64]) {
        url.withUnsafeBufferPointer { u in
            for cut in 0...u.count {
                let (head, rest) = (UnsafeBufferPointer(rebasing: u[..<cut]), UnsafeBufferPointer(rebasing: u[cut...]))
                let plainPrefix = m.prefix(head)
                let productPrefix = m.prefix(head, product: product)
                XCTAssertEqual(m.reportsNothing(productPrefix), m.reportsNothing(plainPrefix), "cut \(cut)")
                XCTAssertEqual(m.isFinal(productPrefix), m.isFinal(plainPrefix), "cut \(cut)")
                let (f, p) = (flags, product)
                let resumed = [
                    ids { m.match(resuming: productPrefix, rest: rest, requestFlags: f, into: &$0, product: p) },
                    ids { m.match(resuming: productPrefix, rest: rest, requestFlags: f, into: &$0) },
                    ids { m.match(resuming: plainPrefix, rest: rest, requestFlags: f, into: &$0, product: p) },
                ]
                for (k, r) in resumed.enumerated() where r != whole {
                    XCTFail("url \(url) cut \(cut) way \(k): \(r) against the whole run's \(whole)")
                    return
                }
            }
        }
    }

    /// A prefix holds the ids of the lists it reached when they are few, and the lists' numbers when they are many
    /// (a list of a thousand rules reached at every byte of a head would make each cached prefix that much larger):
    /// resumed either way from every cut, the ids of the whole run, as often.
    func testAPrefixHoldsFewIdsOrTheNumbersOfManyLists() throws {
        let url = Array("https://aaaa.example/a?b=a".utf8)
        for rules in [16, 65, 1_000] {
            var builder = MatcherBuilder()
            for k in 0..<rules { builder.add(URLFilter.parse("a", caseSensitive: false), id: UInt64(k + 1)) }
            builder.add(URLFilter.parse("^https://b", caseSensitive: false), id: 5_000)
            let m = builder.build()
            var limits = MatcherProduct.Limits()
            limits.minimumDFAs = 1
            let product = try XCTUnwrap(MatcherProduct(m, limits: limits))
            let whole = ids { out in url.withUnsafeBufferPointer { m.match($0, requestFlags: 0, into: &out) } }
            XCTAssertEqual(whole.count, rules * url.filter { $0 == UInt8(ascii: "a") }.count, "\(rules) rules")
            checkEveryCut(m, product, url, 0, whole: whole)
            let head = Array(url[..<13])
            let prefixes = head.withUnsafeBufferPointer { [m.prefix($0), product.prefix($0)] }
            for prefix in prefixes {
                // The head holds four `a`s: 4 x rules ids.
                if 4 * rules <= MatcherPrefix.idsLimit {
                    XCTAssertGreaterThanOrEqual(prefix.words.count, 2 * 4 * rules, "\(rules) rules: the ids")
                }
                if rules >= 1_000 {
                    XCTAssertLessThan(prefix.words.count, 64, "\(rules) rules: the lists' numbers, not their ids")
                }
                XCTAssertFalse(m.reportsNothing(prefix))
            }
        }
    }

    /// A prefix carries the state of the product that made it: another product of the same matcher, whose states
    /// are numbered otherwise, must look its DFAs' states up instead.
    func testAnotherProductResumesAPrefixByItsDFAStates() throws {
        var rng = SplitMix64(seed: 0x5EED_0008)
        var checked = 0
        for _ in 0..<100 {
            let matcher = try randomMatcher(&rng)
            var limits = MatcherProduct.Limits()
            limits.minimumDFAs = 1
            guard let a = MatcherProduct(matcher, limits: limits), let b = MatcherProduct(matcher, limits: limits)
            else { continue }
            for _ in 0..<10 { // b numbers the states it meets first
                let url = RandomPatterns.url(&rng)
                _ = url.withUnsafeBufferPointer { matcher.prefix($0, product: b) }
            }
            for _ in 0..<20 {
                let url = RandomPatterns.url(&rng)
                let flags = RandomPatterns.requestFlags(&rng)
                let whole = ids { out in
                    url.withUnsafeBufferPointer { matcher.match($0, requestFlags: flags, into: &out) }
                }
                let cut = Int.random(in: 0...url.count, using: &rng)
                let resumed = ids { out in
                    url.withUnsafeBufferPointer { u in
                        let prefix = matcher.prefix(UnsafeBufferPointer(rebasing: u[..<cut]), product: a)
                        matcher.match(
                            resuming: prefix, rest: UnsafeBufferPointer(rebasing: u[cut...]), requestFlags: flags,
                            into: &out, product: b)
                    }
                }
                XCTAssertEqual(resumed, whole, "url \(url) cut \(cut): a's prefix resumed by b")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    /// Prefixes that end in one product state share that state's base, and carry only the states of the DFAs
    /// walked alone; resumed by another product (which looks their tuple up), the whole run's ids.
    func testPrefixesOfOneProductStateShareItsBase() throws {
        var rng = SplitMix64(seed: 0x5EED_0013)
        var shared = 0
        for _ in 0..<100 {
            let matcher = try randomMatcher(&rng)
            let limits = randomLimits(&rng)
            guard let a = MatcherProduct(matcher, limits: limits), let b = MatcherProduct(matcher, limits: limits)
            else { continue }
            let url = RandomPatterns.url(&rng)
            let flags = RandomPatterns.requestFlags(&rng)
            let whole = ids { out in
                url.withUnsafeBufferPointer { matcher.match($0, requestFlags: flags, into: &out) }
            }
            url.withUnsafeBufferPointer { u in
                let cut = Int.random(in: 0...u.count, using: &rng)
                let head = UnsafeBufferPointer(rebasing: u[..<cut])
                let (p, q) = (matcher.prefix(head, product: a), matcher.prefix(head, product: a))
                let states = p.states(count: matcher.program.roots.count)
                XCTAssertEqual(states, matcher.prefix(head).states(count: matcher.program.roots.count))
                XCTAssertLessThanOrEqual(p.words[MatcherPrefix.productWords], Int32(matcher.program.roots.count))
                if !p.base.isEmpty && p.words == q.words {
                    let (x, y) = (
                        p.base.withUnsafeBufferPointer { $0.baseAddress },
                        q.base.withUnsafeBufferPointer { $0.baseAddress }
                    )
                    XCTAssertEqual(x, y, "one base per product state")
                    shared += 1
                }
                let resumed = ids { out in
                    matcher.match(
                        resuming: p, rest: UnsafeBufferPointer(rebasing: u[cut...]), requestFlags: flags, into: &out,
                        product: b)
                }
                XCTAssertEqual(resumed, whole, "url \(url) cut \(cut): a's prefix resumed by b")
            }
        }
        XCTAssertGreaterThan(shared, 20)
    }

    func testAMatcherOfFewDFAsGetsNoProduct() throws {
        var builder = MatcherBuilder()
        builder.add(URLFilter.parse("^https?://a\\.test/", caseSensitive: false), id: 1)
        XCTAssertNil(MatcherProduct(builder.build()), "one DFA: the plain walk is as fast")
    }
}
