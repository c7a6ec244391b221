// The JavaScript-regex -> WebKit-subset translation, through the module's public surface: TDS rules whose regex
// needs a rewrite, and what WebKit then matches (URLFilter.matches is the reference matcher of WebKit's subset).

import ContentRules
@testable import RuleBuilder
import XCTest

final class RegexTranslatorTests: XCTestCase {
    private func alternatives(_ pattern: String) throws -> [String] {
        try RegexTranslator.translate(pattern).alternatives.map(RegexTranslator.render)
    }

    private func reason(_ pattern: String) -> String? {
        do { _ = try RegexTranslator.translate(pattern); return nil } catch let e as Unexpressible {
            return e.reason
        } catch { return "\(error)" }
    }

    func testPlainPatternsKeepTheirMeaning() throws {
        XCTAssertEqual(try alternatives(#"tracker\.com/a.*b[0-9]+c?"#), [#"tracker\.com\/a.*b[0-9]+c?"#])
        XCTAssertEqual(try alternatives(#"a(?:bc)*d"#), ["a(bc)*d"])
        XCTAssertEqual(try alternatives(#"x\/y\-z"#), [#"x\/y-z"#])
    }

    func testRewrites() throws {
        XCTAssertEqual(try alternatives("a{2,3}"), ["aa(a)?"])
        XCTAssertEqual(try alternatives("a{2,}"), ["aa+"])
        XCTAssertEqual(try alternatives("(ab){0,2}"), ["(ab(ab)?)?"])
        XCTAssertEqual(try alternatives(#"\d\w"#), ["[0-9][0-9A-Z_a-z]"])
        XCTAssertEqual(try alternatives("x(a|b)+"), ["x[ab]+"])
        XCTAssertEqual(try alternatives("x(ab|c)y"), ["xaby", "xcy"])
        XCTAssertEqual(try alternatives("(a|b)(c|d)"), ["ac", "ad", "bc", "bd"])
        XCTAssertEqual(try alternatives("x(ab|c)?"), ["x", "xab", "xc"])
        XCTAssertEqual(try alternatives("a$b"), [], "nothing can follow the end")
        XCTAssertEqual(try alternatives("a$|b"), ["a$", "b"])
        XCTAssertEqual(try alternatives("é|e"), ["e"], "non-ASCII never occurs in a canonical URL")
        XCTAssertEqual(try alternatives("a{1"), [#"a\{1"#], "Annex B: not a quantifier")
        for p in ["a{2,3}", #"\d\w"#, "x(ab|c)y", "(ab){0,2}"] {
            for alt in try alternatives(p) {
                XCTAssertTrue(URLFilter.parse(alt, caseSensitive: false).status.isSupported, alt)
            }
        }
    }

    func testUnexpressible() {
        XCTAssertNotNil(reason("a(?=b)")?.range(of: "lookahead"))
        XCTAssertNotNil(reason("a(?<!b)c")?.range(of: "lookbehind"))
        XCTAssertNotNil(reason(#"(a)\1"#)?.range(of: "back-reference"))
        XCTAssertNotNil(reason(#"\bword"#)?.range(of: "word boundary"))
        XCTAssertNotNil(reason("(ab|cd)+")?.range(of: "repeated disjunction"))
        XCTAssertNotNil(reason("a(b")?.range(of: "not a valid JavaScript regular expression"))
        XCTAssertNotNil(reason("*a"))
        XCTAssertNotNil(reason("(a|b|c|d|e|f|g|h)(a|b|c|d|e|f|g|h)(a|b|c|d|e|f|g|h)")?.range(of: "alternatives"))
    }

    func testOctalAndEscapes() throws {
        // Annex B: \1 without a group is an octal escape; WebKit reads it the same way.
        XCTAssertEqual(try alternatives(#"a\x41\u0042\t"#), [#"aAB\x09"#])
        XCTAssertEqual(try alternatives(#"[\d.-]"#), [#"[\-.0-9]"#])
    }
}
