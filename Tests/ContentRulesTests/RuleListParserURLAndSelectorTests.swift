import XCTest
@testable import ContentRules

/// The pieces behind redirect and css-display-none validation, with the WebKit behaviour they reproduce.
final class RuleListParserURLAndSelectorTests: XCTestCase {
    func valid(_ s: String) -> Bool { WebKitURLValidity.parse(s) != nil }

    func testAbsoluteURLValidity() {
        for ok in [
            "https://example.com/x", "http:example.com", "http:///x", "https://a:65535/", "https://a:/",
            "https://user:pw@host/",
            "https://[::1]/", "https://[::ffff:1.2.3.4]/", "https://0x7f.1/", "https://4294967295/", "file:///etc/x",
            "file://C:/x", "foo:bar", "foo://", "about:blank", "mailto:a@b", " https://a/ ", "ht\ttps://a/",
            "https://xn--nxasmq6b/", "https://\u{00FC}.com/", "https://a%41b/", "http://a./", "https://ab--c.com/",
        ] {
            XCTAssertTrue(valid(ok), ok)
        }
        for bad in [
            "https://127..1/", "http://", "http:", "https://a:65536/", "https://:80/", "https://user@/",
            "https://[::1/",
            "https://[1:2:3:4:5:6:7:8:9]/", "https://1.2.3.4.5/", "https://999.1.1.1/", "https://4294967296/",
            "https://a.1/",
            "https://a b/", "https://a%20b/", "https://xn--a/", "https://a<b/", "file://host:80/x", "foo://a b/",
            "foo://user@/",
            "foo://:1/", "/path", "", "1http://a/", "https://example.com:8o/", "https://%ff.com/",
        ] {
            XCTAssertFalse(valid(bad), bad)
        }
        XCTAssertEqual(WebKitURLValidity.parse("JaVaScRiPt:dostuff")?.scheme, "javascript")
    }

    /// Hosts the request canonicaliser tested before the two shared one host parser, and WebKit's quirks.
    func testAbsoluteURLValidityOfHostsCanonicalURLTested() {
        for ok in [
            "https://0177.0.0.01/", "https://[2001:DB8:0:0:1:0:0:1]/", "https://[::ffff:192.168.0.1]/",
            "https://XN--BCHER-KVA.example/",
            "https://EX%41MPLE.com/", "https://a..b.com/", "http://[::1:]/", "http://999999999999x/",
            "http://a.42949672950x/",
        ] {
            XCTAssertTrue(valid(ok), ok)
        }
        for bad in [
            "https://foo.09/", "https://256.0.0.1/", "https://exa%20mple.com/", "http://xn--a.com/",
            "http://42949672950x/",
            "http://[2::3de:1:2:1.1.1.0]/", "http://[1:2:3:4:5:6:7:]/",
        ] {
            XCTAssertFalse(valid(bad), bad)
        }
    }

    func testIPv4NumbersFollowWebKit() {
        XCTAssertEqual(WHATWGHost.parseIPv4(Array("127.0.0.1".utf8)).address, 0x7F00_0001)
        XCTAssertEqual(WHATWGHost.parseIPv4(Array("0x7f.1".utf8)).address, 0x7F00_0001)
        XCTAssertEqual(WHATWGHost.parseIPv4(Array("017.1".utf8)).address, 0x0F00_0001)
        XCTAssertEqual(WHATWGHost.parseIPv4(Array("1.2.3.4.".utf8)).address, 0x0102_0304)
        XCTAssertNil(WHATWGHost.parseIPv4(Array("127..1".utf8)).address)
        // "ends in a number" makes such non-IPv4 hosts invalid; other names are fine.
        XCTAssertTrue(WHATWGHost.endsInANumber(Array("a.1".utf8)))
        XCTAssertTrue(WHATWGHost.endsInANumber(Array("a.0x".utf8)))
        XCTAssertFalse(WHATWGHost.endsInANumber(Array("a.1e".utf8)))
    }

    func testSchemeCanonicalization() {
        XCTAssertEqual(WebKitURLValidity.canonicalizeScheme("HTTPS"), "https")
        XCTAssertEqual(WebKitURLValidity.canonicalizeScheme("\tjava\nscript"), "javascript")
        XCTAssertEqual(WebKitURLValidity.canonicalizeScheme("a+b-c.d"), "a+b-c.d")
        for bad in ["", "!@#$%", "1abc", " http", "ht tp", "h\u{E9}"] {
            XCTAssertNil(WebKitURLValidity.canonicalizeScheme(bad), bad)
        }
    }

    func testRedirectPortParsing() {
        XCTAssertEqual(RedirectValidation.parsePort("0"), 0)
        XCTAssertEqual(RedirectValidation.parsePort(" +80 "), 80)
        XCTAssertEqual(RedirectValidation.parsePort("0080"), 80)
        for bad in ["65536", "-0", "8080a", "not a number", "\u{0660}"] {
            XCTAssertNil(RedirectValidation.parsePort(bad), bad)
        }
    }

    func testSelectorValidatorOnRealWorldSelectors() {
        for ok in [
            "div.ad-container:not([data-x]):nth-of-type(3n)", ".ad:has(img[src*=\"tracker\"])", "a[href^='http' i]",
            ":is(.a, !!)", "::-webkit-scrollbar:hover", "::-webkit-anything", "li:nth-child(-n+3 of .x)",
            "a:not(.b, .c) > span + em ~ i", "*|*", "[|href]", "#\\31 23", ".a\\:b", "a /* comment */ b",
        ] {
            XCTAssertNil(CSSSelectorValidator.problem(in: ok), ok)
        }
        for bad in [
            "", "a[]", "#1a", "ns|a", "::before .a", "::before:hover", ":not(::before)", ":has(:has(a))",
            ":nth-of-type(2n of .a)", ":popover-open", ":hover()", "a,", "a > > b", "[href=\"x\" s]", "::moz-selection",
            ":-internal-html-document", "#",
        ] {
            XCTAssertNotNil(CSSSelectorValidator.problem(in: bad), bad)
        }
    }

    func testDeepAndHostileSelectorsGetAnAnswer() {
        func nestedNot(_ n: Int) -> String {
            String(repeating: ":not(", count: n) + "a" + String(repeating: ")", count: n)
        }
        // WebKit accepts 1,000 (checked: also 5,000) nested :not( ...
        XCTAssertNil(CSSSelectorValidator.problem(in: nestedNot(1_000)))
        // ... and crashes at 20,000; we refuse such selectors instead of overflowing our stack.
        XCTAssertNotNil(CSSSelectorValidator.problem(in: nestedNot(20_000)))
        XCTAssertNotNil(CSSSelectorValidator.problem(in: String(repeating: "[", count: 100_000)))
        XCTAssertNil(CSSSelectorValidator.problem(in: String(repeating: ".a", count: 100_000)))
    }
}

extension WHATWGHost.IPv4Result {
    var address: UInt32? { if case .address(let a) = self { return a } else { return nil } }
}
