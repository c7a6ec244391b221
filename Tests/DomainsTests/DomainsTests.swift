import Foundation
import XCTest
@testable import Domains

final class PublicSuffixTests: XCTestCase {
    let psl = PublicSuffixList.shared

    func testRegistrableDomains() {
        XCTAssertEqual(psl.registrableDomain("a.b.example.com"), "example.com")
        XCTAssertEqual(psl.registrableDomain("www.bbc.co.uk"), "bbc.co.uk")
        XCTAssertEqual(psl.registrableDomain("foo.github.io"), "foo.github.io") // private-section suffix
        XCTAssertNil(psl.registrableDomain("co.uk"))
        XCTAssertEqual(psl.registrableDomain("a.b.unknowntld"), "b.unknowntld") // implicit "*" rule
    }

    func testSiteStableDomainsHaveOneRegistrableDomainForEveryHostUnderThem() throws {
        let psl = PublicSuffixList.shared
        XCTAssertTrue(psl.isSiteStable("example.com"))
        XCTAssertTrue(psl.isSiteStable("cdn.example.com"))
        XCTAssertFalse(psl.isSiteStable("cloudfront.net"), "a public suffix itself")
        XCTAssertFalse(psl.isSiteStable("amazonaws.com"), "s3.amazonaws.com and others lie under it")
        XCTAssertFalse(psl.isSiteStable("com"))
        XCTAssertFalse(psl.isSiteStable("192.0.2.1"))
        XCTAssertFalse(psl.isSiteStable(""))
        // A list read from its text form: the rules and their parents are what is not stable.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("psl-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("list.dat")
        try "// a comment\ncom\n*.hosting.example.com\n!www.hosting.example.com\n".write(
            to: file, atomically: true, encoding: .utf8)
        let small = try XCTUnwrap(PublicSuffixList(file: file.path))
        XCTAssertFalse(small.isSiteStable("example.com"), "hosting.example.com lies under it")
        XCTAssertTrue(small.isSiteStable("other.com"))
        XCTAssertFalse(small.isSiteStable("a.hosting.example.com"), "a public suffix by the wildcard")
    }

    /// The index answers as the set of every label suffix of every rule does (the reference, read line by line
    /// with Characters), on the installed list: for each such name, for each name one label above it, and for
    /// names the list does not hold.
    func testRuleIndexAnswersAsTheSetOfRuleSuffixes() throws {
        let path = try XCTUnwrap(
            ["/usr/share/publicsuffix/public_suffix_list.dat"].first { FileManager.default.fileExists(atPath: $0) },
            "Debian's publicsuffix package is a build dependency")
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text += "\r\n  \t\n!Www.Example.TEST extra\n*.Wild.Test\r\n// c\n"
        var expected = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            var rule = Substring(line.prefix { $0 != " " && $0 != "\t" })
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            if rule.hasPrefix("!") { rule = rule.dropFirst() }
            if rule.hasPrefix("*.") { rule = rule.dropFirst(2) }
            guard let name = try? DomainNormalizer.normalize(String(rule)) else { continue }
            expected.formUnion(Host.suffixes(of: name))
        }
        let index = PublicSuffixRuleIndex(listText: Array(text.utf8))
        XCTAssertGreaterThan(expected.count, 5_000)
        for name in expected {
            XCTAssertTrue(index.containsRuleAtOrUnder(name), name)
            XCTAssertEqual(index.containsRuleAtOrUnder("x." + name), expected.contains("x." + name), "x." + name)
        }
        for name in ["www.example.test", "wild.test", "xn--55qx5d.cn", "ck"] {
            XCTAssertTrue(index.containsRuleAtOrUnder(name), name)
        }
        for name in ["example.test.x", "ild.test", "ample.com", "", "tracker.example"] {
            XCTAssertFalse(index.containsRuleAtOrUnder(name), name)
        }
    }

    /// A rule in Unicode lies at or under the punycode names radarblock asks about.
    func testRuleIndexReadsUnicodeRulesAsPunycode() {
        let index = PublicSuffixRuleIndex(listText: Array("bücher.example\n*.Hosting.Ünï.test\n".utf8))
        XCTAssertTrue(index.containsRuleAtOrUnder("xn--bcher-kva.example"))
        XCTAssertTrue(index.containsRuleAtOrUnder("hosting.xn--n-nga1b.test"))
        XCTAssertTrue(index.containsRuleAtOrUnder("xn--n-nga1b.test"))
        XCTAssertFalse(index.containsRuleAtOrUnder("bcher.example"))
    }

    func testWebKitRegistrableDomainFallsBackToTheHost() {
        XCTAssertEqual(psl.webKitRegistrableDomain(host: "co.uk"), "co.uk")
        XCTAssertEqual(psl.webKitRegistrableDomain(host: "localhost"), "localhost")
        XCTAssertEqual(psl.webKitRegistrableDomain(host: "127.0.0.1"), "127.0.0.1")
        XCTAssertEqual(psl.webKitRegistrableDomain(host: "[::1]"), "[::1]")
    }

    func testHostHelpers() {
        XCTAssertTrue(Host.isSameOrSubdomain("a.b.com", of: "b.com"))
        XCTAssertTrue(Host.isSameOrSubdomain("b.com", of: "b.com"))
        XCTAssertFalse(Host.isSameOrSubdomain("ab.com", of: "b.com"))
        XCTAssertEqual(Host.suffixes(of: "a.b.c.com"), ["a.b.c.com", "b.c.com", "c.com", "com"])
        XCTAssertTrue(Host.isIPAddress("10.0.0.1"))
        XCTAssertFalse(Host.isIPAddress("10.0.0.256"))
        XCTAssertFalse(Host.isIPAddress("1.2.3.com"))
    }
}

final class DomainNormalizerTests: XCTestCase {
    func testLowercasesAndPunycodes() throws {
        XCTAssertEqual(try DomainNormalizer.normalize("  Tracker.COM. "), "tracker.com")
        XCTAssertEqual(try DomainNormalizer.normalize("BÜCHER.example"), "xn--bcher-kva.example")
        XCTAssertEqual(try DomainNormalizer.normalize("例え.jp"), "xn--r8jz45g.jp")
    }

    func testRejectsEmptyAndControlCharacters() {
        XCTAssertThrowsError(try DomainNormalizer.normalize("   ")) { XCTAssertEqual($0 as? DomainError, .empty) }
        XCTAssertThrowsError(try DomainNormalizer.normalize("a b.com"))
        XCTAssertThrowsError(try DomainNormalizer.normalize("a\u{0}.com"))
    }
}
