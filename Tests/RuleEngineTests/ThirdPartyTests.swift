// Whether a load is third party: the shortcut that rules most tracker loads out by their hosts alone gives
// the public-suffix list's answer for every pair of hosts, including the hosts where a registrable domain
// is not eTLD+1 (public suffixes, private suffixes, exception rules, localhost, IP addresses, empty labels).

import TestSupport
import XCTest

@testable import RuleEngine

final class ThirdPartyTests: XCTestCase {
    static let hosts = [
        "a.com", "b.com", "x.a.com", "ab.com", "b.a.com", "com", "co.uk", "uk", "b.co.uk", "x.b.co.uk", "bco.uk",
        "localhost", "a.localhost", "github.io", "x.github.io", "y.x.github.io", "y.github.io", "io",
        "kawasaki.jp", "city.kawasaki.jp", "a.city.kawasaki.jp", "b.kawasaki.jp", "jp", "example", "a.example",
        "www.news340.example", "journeymv.com", "static.cdn.journeymv.com", "www.journeymv.com", "1.2.3.4", "5.6.3.4",
        "8.7.6.4", "[::1]", "[2001:db8::1]", "xn--bcher-kva.example", "a.xn--bcher-kva.example", "a..com", ".a.com",
        "a.com.", "b.com.", "x.a.com.", "blogspot.com", "a.blogspot.com", "b.a.blogspot.com", "s3.amazonaws.com",
    ]

    func testTheShortcutAgreesWithThePublicSuffixListOnEveryPair() throws {
        let resolver = URLResolver()
        let urls = Self.hosts.compactMap { CanonicalURL.parse("https://\($0)/p") }
        XCTAssertGreaterThan(urls.count, Self.hosts.count - 4, "most hosts parse")
        var outside = 0
        for site in urls {
            let top = URLResolver.Top(url: site)
            for url in urls {
                let expected = resolver.isThirdPartyByLookup(url, on: top)
                XCTAssertEqual(resolver.isThirdParty(url, on: top), expected, "\(url) on \(site)")
                if RegistrableDomainMatch.outsideEveryRegistrableDomain(of: site, url) {
                    outside += 1
                    XCTAssertTrue(expected, "ruled out without a lookup: \(url) on \(site)")
                }
            }
        }
        // The shortcut decides most pairs (else it would save nothing), and never a first-party one.
        XCTAssertGreaterThan(outside, urls.count * urls.count / 2)
    }

    /// Random hosts built from labels that share endings (so that common suffixes of every length occur).
    func testRandomHostsAgree() {
        let labels = [
            "a", "b", "ab", "co", "uk", "com", "github", "io", "jp", "kawasaki", "city", "x", "www", "blogspot",
        ]
        var rng = SplitMix64(seed: 3)
        let resolver = URLResolver()
        func host() -> String {
            (0..<Int(1 + rng.next() % 4)).map { _ in labels[Int(rng.next() % UInt64(labels.count))] }.joined(
                separator: ".")
        }
        for _ in 0..<20_000 {
            guard let site = CanonicalURL.parse("https://\(host())/"),
                let url = CanonicalURL.parse("https://\(host())/")
            else { continue }
            let top = URLResolver.Top(url: site)
            XCTAssertEqual(
                resolver.isThirdParty(url, on: top), resolver.isThirdPartyByLookup(url, on: top), "\(url) on \(site)")
        }
    }
}
