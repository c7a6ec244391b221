import XCTest
@testable import ContentRules

/// The one host parser behind the redirect-URL check and RuleEngine's CanonicalURL. The quirk cases are the ones
/// where the two former parsers disagreed; each expectation is what real WebKit 2.50.6 does (redirect urls compiled
/// with `scripts/webkit-check compile-batch`).
final class WHATWGHostTests: XCTestCase {
    func special(_ s: String) -> String? {
        WHATWGHost.parseSpecial(Array(s.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }
    func opaque(_ s: String) -> String? {
        WHATWGHost.parseOpaque(Array(s.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    func testSpecialHostsSerialize() {
        XCTAssertEqual(special("EX%41MPLE.com"), "example.com")
        XCTAssertEqual(special("bücher.example"), "xn--bcher-kva.example")
        XCTAssertEqual(special("XN--BCHER-KVA.example"), "xn--bcher-kva.example")
        XCTAssertEqual(special("a..b."), "a..b.")
        XCTAssertEqual(special("0x7f.1"), "127.0.0.1")
        XCTAssertEqual(special("0177.0.0.01"), "127.0.0.1")
        XCTAssertEqual(special("4294967295"), "255.255.255.255")
        XCTAssertEqual(special("1.2.3.4."), "1.2.3.4")
        XCTAssertEqual(special("[2001:DB8:0:0:1:0:0:1]"), "[2001:db8::1:0:0:1]")
        XCTAssertEqual(special("[::ffff:192.168.0.1]"), "[::ffff:c0a8:1]")
        XCTAssertEqual(special("[0:0:0:0:0:0:0:1]"), "[::1]")
    }

    func testSpecialHostsWebKitRefuses() {
        for bad in [
            "", "%ff.com", "a%20b", "a b", "a<b", "a%2Fb", "xn--a", "foo.09", "a.1", "a.0x", "256.0.0.1", "1.2.3.4.5",
            "127..1", ".1",
            "4294967296", "999.1.1.1", "[::1", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7:]", "[::1.2.3]", "[::01.2.3.4]",
            "[g::]",
        ] {
            XCTAssertNil(special(bad), bad)
        }
    }

    /// WebKit's loops, not the WHATWG text: an overflowing IPv4 piece restarts mid-number, a lone ':' may end an
    /// IPv6 address after "::", and an IPv4 tail after "::" and five pieces is refused.
    func testWebKitQuirks() {
        XCTAssertNil(special("42949672950x"))
        XCTAssertNil(special("42949672950x04294967295"))
        XCTAssertEqual(special("999999999999x"), "999999999999x")
        XCTAssertEqual(special("a.42949672950x"), "a.42949672950x")
        XCTAssertEqual(special("[::1:]"), "[::1]")
        XCTAssertEqual(special("[a:8::8256:]"), "[a:8::8256]")
        XCTAssertNil(special("[2::3de:1:2:1.1.1.0]"))
        XCTAssertEqual(special("[2::3de:1:1.1.1.0]"), "[2::3de:1:101:100]")
    }

    func testOpaqueHosts() {
        XCTAssertEqual(opaque("Host"), "Host")
        XCTAssertEqual(opaque("a%zz"), "a%zz")
        XCTAssertEqual(opaque("ü"), "%C3%BC")
        XCTAssertEqual(opaque("[::1:]"), "[::1]")
        XCTAssertEqual(opaque(""), "")
        for bad in ["a b", "a<b", "a@b", "[::1", "a|b"] { XCTAssertNil(opaque(bad), bad) }
    }

    func testASCIILowercaseChangesOnlyTheLettersAToZ() {
        XCTAssertEqual(WHATWGHost.lowercased("GET Post-ÄÖ@[Z]`"), "get post-ÄÖ@[z]`")
        XCTAssertEqual(WHATWGHost.lowercased(""), "")
        // The string form is the byte form over the UTF-8: no letter outside A-Z changes, whatever its case.
        let all = String(decoding: (0x20...0x7E).map { UInt8($0) }, as: UTF8.self) + "ÉİK"
        XCTAssertEqual(Array(WHATWGHost.lowercased(all).utf8), all.utf8.map(WHATWGHost.lowercased))
    }
}
