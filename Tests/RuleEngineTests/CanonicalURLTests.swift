// URLs as WebKit's URL parser serializes them (the string the automata run over).

import TestSupport
import XCTest

@testable import RuleEngine

final class CanonicalURLTests: XCTestCase {
    func canonical(_ s: String) -> String? { CanonicalURL.parse(s)?.string }

    func testSchemeHostPortAndEmptyPath() {
        XCTAssertEqual(canonical("HTTP://Example.COM"), "http://example.com/")
        XCTAssertEqual(canonical("https://example.com:443/a"), "https://example.com/a")
        XCTAssertEqual(canonical("http://example.com:80"), "http://example.com/")
        XCTAssertEqual(canonical("http://example.com:8080/"), "http://example.com:8080/")
        XCTAssertEqual(canonical("ws://example.com:80/"), "ws://example.com/")
        XCTAssertEqual(canonical("wss://example.com:443/s"), "wss://example.com/s")
        XCTAssertEqual(canonical("http://example.com:/x"), "http://example.com/x")
        XCTAssertEqual(canonical("http://example.com:0080/"), "http://example.com/")
        XCTAssertEqual(canonical("  http://example.com/\n"), "http://example.com/")
        XCTAssertEqual(canonical("ht\ttp://exa\nmple.com/"), "http://example.com/")
    }

    func testSlashesBackslashesAndDotSegments() {
        XCTAssertEqual(canonical("http:\\\\example.com\\a\\b"), "http://example.com/a/b")
        XCTAssertEqual(canonical("https:example.com/x"), "https://example.com/x")
        XCTAssertEqual(canonical("http:///example.com/"), "http://example.com/")
        XCTAssertEqual(canonical("http://example.com/a/./b/../c"), "http://example.com/a/c")
        XCTAssertEqual(canonical("http://example.com/a/%2e%2E/c/."), "http://example.com/c/")
        XCTAssertEqual(canonical("http://example.com/.."), "http://example.com/")
        XCTAssertEqual(canonical("http://example.com/a/.."), "http://example.com/")
    }

    func testPercentEncodingSets() {
        XCTAssertEqual(canonical("http://example.com/a b\"<>`{}^|"), "http://example.com/a%20b%22%3C%3E%60%7B%7D%5E|")
        XCTAssertEqual(canonical("http://example.com/ü"), "http://example.com/%C3%BC")
        XCTAssertEqual(canonical("http://example.com/%41%zz"), "http://example.com/%41%zz")
        XCTAssertEqual(canonical("http://example.com/?a b'\"<>`{}"), "http://example.com/?a%20b%27%22%3C%3E`{}")
        XCTAssertEqual(canonical("foo://example.com/?a'"), "foo://example.com/?a'")
        XCTAssertEqual(canonical("http://example.com/#a b\"<>`#"), "http://example.com/#a%20b%22%3C%3E%60#")
        XCTAssertEqual(canonical("http://example.com/?"), "http://example.com/?")
        XCTAssertEqual(canonical("http://example.com/#"), "http://example.com/#")
        XCTAssertEqual(canonical("http://us er:p@ss@example.com/"), "http://us%20er:p%40ss@example.com/")
        XCTAssertEqual(canonical("http://:@example.com/"), "http://example.com/")
    }

    func testHosts() {
        XCTAssertEqual(canonical("http://bücher.example/"), "http://xn--bcher-kva.example/")
        XCTAssertEqual(canonical("http://EX%41MPLE.com/"), "http://example.com/")
        // IDNA as WebKit configures ICU: nontransitional (ß stays), percent-decoded first, xn-- labels validated.
        XCTAssertEqual(canonical("http://éxample.com/"), "http://xn--xample-9ua.com/")
        XCTAssertEqual(canonical("http://faß.de/"), "http://xn--fa-hia.de/")
        XCTAssertEqual(canonical("http://ex%C3%A4mple.com/"), "http://xn--exmple-cua.com/")
        XCTAssertEqual(canonical("http://XN--BCHER-KVA.example/"), "http://xn--bcher-kva.example/")
        XCTAssertNil(canonical("http://xn--a.com/"))
        XCTAssertEqual(canonical("http://a..b.com/"), "http://a..b.com/")
        XCTAssertEqual(canonical("http://example.com./"), "http://example.com./")
        XCTAssertNil(canonical("http://exa mple.com/"))
        XCTAssertNil(canonical("http://exa%20mple.com/"))
        XCTAssertNil(canonical("http://a<b.com/"))
        XCTAssertNil(canonical("http:///"))
        XCTAssertNil(canonical("http://user@/"))
        XCTAssertNil(canonical("http://example.com:65536/"))
        XCTAssertNil(canonical("http://example.com:12a/"))
        XCTAssertNil(canonical("example.com/path"))
        XCTAssertNil(canonical(""))
    }

    func testIPAddresses() {
        XCTAssertEqual(canonical("http://127.0.0.1:80/"), "http://127.0.0.1/")
        XCTAssertEqual(canonical("http://0x7f.1/"), "http://127.0.0.1/")
        XCTAssertEqual(canonical("http://2130706433/"), "http://127.0.0.1/")
        XCTAssertEqual(canonical("http://0177.0.0.01/"), "http://127.0.0.1/")
        XCTAssertNil(canonical("http://256.0.0.1/"))
        XCTAssertNil(canonical("http://1.2.3.4.5/"))
        XCTAssertNil(canonical("http://foo.09/"))
        XCTAssertEqual(canonical("http://[0:0:0:0:0:0:0:1]:8080/"), "http://[::1]:8080/")
        XCTAssertEqual(canonical("http://[2001:DB8:0:0:1:0:0:1]/"), "http://[2001:db8::1:0:0:1]/")
        XCTAssertEqual(canonical("http://[::ffff:192.168.0.1]/"), "http://[::ffff:c0a8:1]/")
        XCTAssertNil(canonical("http://[::1/"))
        XCTAssertNil(canonical("http://[1:2:3:4:5:6:7:8:9]/"))
    }

    /// Hosts the redirect-URL check tested before the two shared one host parser, and the cases where this parser
    /// used to differ from real WebKit 2.50.6 (which accepts or refuses them as asserted here).
    func testHostsAsTheRedirectCheckSeesThem() {
        XCTAssertNil(canonical("https://%ff.com/"))
        XCTAssertNil(canonical("https://127..1/"))
        XCTAssertNil(canonical("https://4294967296/"))
        XCTAssertNil(canonical("https://a.1/"))
        XCTAssertEqual(canonical("https://4294967295/"), "https://255.255.255.255/")
        XCTAssertEqual(canonical("https://[::ffff:1.2.3.4]/"), "https://[::ffff:102:304]/")
        XCTAssertEqual(canonical("https://xn--nxasmq6b/"), "https://xn--nxasmq6b/")
        XCTAssertEqual(canonical("foo://Host:1/"), "foo://Host:1/")
        XCTAssertNil(canonical("http://42949672950x/"))
        XCTAssertEqual(canonical("http://999999999999x/"), "http://999999999999x/")
        XCTAssertEqual(canonical("http://[::1:]/"), "http://[::1]/")
        XCTAssertNil(canonical("http://[2::3de:1:2:1.1.1.0]/"))
    }

    func testNonSpecialSchemes() {
        XCTAssertEqual(canonical("about:blank"), "about:blank")
        XCTAssertEqual(canonical("JavaScript:alert(1)"), "javascript:alert(1)")
        XCTAssertEqual(canonical("data:text/plain,a b"), "data:text/plain,a b")
        XCTAssertEqual(canonical("foo://Host/a/../b"), "foo://Host/b")
        XCTAssertEqual(canonical("blob:https://a.com/uuid"), "blob:https://a.com/uuid")
        XCTAssertEqual(canonical("file:///tmp/x"), "file:///tmp/x")
        XCTAssertEqual(canonical("file://localhost/tmp/x"), "file:///tmp/x")
        XCTAssertTrue(CanonicalURL.parse("data:,x")!.isData)
    }

    func testHostAndSchemeAccessors() {
        let u = CanonicalURL.parse("https://user:pw@Sub.Example.com:8443/p?q#f")!
        XCTAssertEqual(u.scheme, "https")
        XCTAssertEqual(u.host, "sub.example.com")
        XCTAssertEqual(u.string, "https://user:pw@sub.example.com:8443/p?q#f")
        XCTAssertEqual(CanonicalURL.parse("http://[::1]/")!.host, "[::1]")
        XCTAssertEqual(CanonicalURL.parse("about:blank")!.host, "")
    }
}

final class CanonicalURLLessThanTests: XCTestCase {
    /// A serialized URL whose scheme's `:` is followed by `//` holds no `<` (every percent-encode set but the C0
    /// one has it, the C0 one is an opaque path's, which cannot start with `//`, and a host may not): both heads of
    /// HostPattern need that `//`, and the host table reads onlyHostHead as subdomainHead on that ground
    /// (MatcherHostTable.PatternShape). `<` in every part of random URLs, special and not; opaque paths (`data:`)
    /// keep it.
    func testNoSerializedURLHoldsALessThanSign() {
        var generator = SplitMix64(seed: 0x3C3C)
        var opaque = 0
        let pieces = [
            "<", "<", "%3C", "a", "B", ".", "/", "//", "?", "#", ":", ":8", "@", "u:p@", "[", "]", "\\", "x.test",
            "ü", " ", "%",
        ]
        var valid = 0
        for _ in 0..<20000 {
            var s = ["https://", "http://", "ws://", "ftp://", "file://", "foo://", "foo:", "data:"].randomElement(
                using: &generator)!
            for _ in 0..<Int.random(in: 1...10, using: &generator) { s += pieces.randomElement(using: &generator)! }
            guard let url = CanonicalURL.parse(s) else { continue }
            guard url.bytes[url.schemeEnd...].starts(with: Array("://".utf8)) else {
                opaque += url.bytes.contains(UInt8(ascii: "<")) ? 1 : 0
                continue
            }
            valid += 1
            XCTAssertFalse(url.bytes.contains(UInt8(ascii: "<")), "\(s) -> \(url)")
        }
        XCTAssertGreaterThan(valid, 2000)
        XCTAssertGreaterThan(opaque, 100, "opaque paths keep `<`: the test sees them")
    }
}

final class CanonicalURLShortcutTests: XCTestCase {
    /// The one-pass shortcut for already-canonical URLs must agree with the full parser on every input.
    func testShortcutAgreesWithTheFullParser() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        let pieces = [
            "http://", "https://", "HTTP://", "http:", "a", "b", "Z", "0", "9", ".", "..", "-", "xn--", "0x", "/", "//",
            "?", "#",
            "%2e", "%41", ":", ":80", ":8080", "@", " ", "\\", "^", "`", "{", "}", "'", "\"", "<", "|", "~", "ü", "\t",
            "=", "&", "com", "co.uk", "1", "255",
        ]
        var checked = 0, plainHosts = 0
        /// `match` answers "nothing" from a plain scheme and host alone: when the URL is valid, its serialization
        /// must begin with exactly those bytes, and its host must end there.
        func checkPlainHost(_ s: String, _ full: CanonicalURL?) {
            guard let (schemeEnd, host) = Array(s.utf8).withUnsafeBufferPointer({ CanonicalURL.plainHost($0) }) else {
                return
            }
            plainHosts += 1
            guard let full else { return }
            XCTAssertEqual(full.hostRange, host, s)
            XCTAssertEqual(full.schemeEnd, schemeEnd, s)
            XCTAssertEqual(Array(full.bytes[..<host.upperBound]), Array(s.utf8.prefix(host.upperBound)), s)
        }
        /// The shortcut's URL, when it takes one, is the full parser's, and so is its plain host.
        func check(_ s: String) {
            let full = CanonicalURL.parseWithoutShortcut(Array(s.utf8))
            if let fast = Array(s.utf8).withUnsafeBufferPointer({ CanonicalURL.alreadyCanonical($0) }) {
                checked += 1
                XCTAssertEqual(fast, full, s)
            }
            checkPlainHost(s, full)
        }
        /// 20,000 random http(s) URLs: `hosts` pieces of `host`, then `rests` pieces of `rest`.
        func checkRandom(
            host: [String], _ hosts: ClosedRange<Int>, rest: [String] = [], _ rests: ClosedRange<Int> = 0...0
        ) {
            for _ in 0..<20000 {
                var s = Bool.random(using: &generator) ? "https://" : "http://"
                for _ in 0..<Int.random(in: hosts, using: &generator) { s += host.randomElement(using: &generator)! }
                for _ in 0..<Int.random(in: rests, using: &generator) { s += rest.randomElement(using: &generator)! }
                check(s)
            }
        }
        checkRandom(host: pieces, 1...12)
        // Structured inputs: a plausible host, then path/query/fragment pieces.
        let hostPieces = [
            "a", "b", "z9", "-", ".", "com", "0", "xn--x", "0x1", "Q", "_", "42949672950x", "999999999999", "1a",
        ]
        let rest = [
            "/", "/a", "/.", "/..", "/%2e", "?", "?q=1", "#", "#f", "'", "`", "{", "^", "|", "\\", "%", "~", "&b=2",
            " ",
        ]
        checkRandom(host: hostPieces, 1...5, rest: rest, 0...6)
        XCTAssertGreaterThan(checked, 1000)
        XCTAssertGreaterThan(plainHosts, 1000)
        // Long hosts and paths: the shortcut reads sixteen bytes at a time, so every byte it looks at must also be
        // found at every offset of a block and across the boundary between two. Mostly clean pieces, so that most
        // URLs take the shortcut as far as their one odd byte.
        let clean = ["abcdefghijklmno", "0123456789", "q", ".", "-"]
        let longHost = clean + clean + clean + ["xn--", "x", "n", "Z", "_", "com", ".."]
        let cleanRest = ["/abcdefghijklmnopqrstu", "/", "ABCDEFGHIJK", "=", "&", "?", "#", "-"]
        let longRest =
            cleanRest + cleanRest + cleanRest + ["/.", "/..", "/%2e", "'", "`", "{", "\\", "~", "%41", " ", "ü"]
        let (checkedBefore, plainHostsBefore) = (checked, plainHosts)
        checkRandom(host: longHost, 1...8, rest: longRest, 0...10)
        XCTAssertGreaterThan(checked - checkedBefore, 1000)
        XCTAssertGreaterThan(plainHosts - plainHostsBefore, 1000)
        for s in [
            "https://example.com", "https://a.example.com/p/q?x=1&y='2'#f", "http://1.2.3.4/", "http://a.b.c.0x1/",
            "http://example.com./",
            "http://ex..ample.com/", "https://example.com/.well-known/x", "https://example.com/a/%2e/b",
            "http://42949672950x/",
            "http://a.42949672950x/", "http://1a/",
        ] {
            let fast = Array(s.utf8).withUnsafeBufferPointer { CanonicalURL.alreadyCanonical($0) }
            if let fast { XCTAssertEqual(fast, CanonicalURL.parseWithoutShortcut(Array(s.utf8)), s) }
        }
    }
}
