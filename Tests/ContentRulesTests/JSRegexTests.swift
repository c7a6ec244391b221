// The one reader of TDS regexes: the syntax tree of a JavaScript regular expression (legacy syntax, Annex B), the
// escapes it decodes, the class members in the order written, and JavaScript's syntax errors.

import ContentRules
import XCTest

final class JSRegexTests: XCTestCase {
    private func tree(_ pattern: String, file: StaticString = #filePath, line: UInt = #line) -> JSRegex? {
        do { return try JSRegex.parse(pattern) } catch {
            XCTFail("\(pattern.debugDescription): \(error)", file: file, line: line)
            return nil
        }
    }

    private func error(_ pattern: String) -> String? {
        do { _ = try JSRegex.parse(pattern); return nil } catch { return "\(error)" }
    }

    private func chars(_ s: String) -> [JSRegex] { s.unicodeScalars.map { .character($0.value) } }

    func testTermsGroupsAndAlternatives() {
        XCTAssertEqual(tree(""), .empty)
        XCTAssertEqual(tree("a"), .character(0x61))
        XCTAssertEqual(tree("ab"), .concat(chars("ab")))
        XCTAssertEqual(tree("a|bc"), .alternation([.character(0x61), .concat(chars("bc"))]))
        XCTAssertEqual(
            tree("^(?:a)(b)(?<n>c).$"),
            .concat([
                .startAnchor, .group(.character(0x61)), .group(.character(0x62)), .group(.character(0x63)), .dot,
                .endAnchor,
            ]))
        XCTAssertEqual(
            tree("(?=a)(?!b)(?<=c)(?<!d)"),
            .concat([
                .lookahead(.character(0x61), negated: false), .lookahead(.character(0x62), negated: true),
                .lookbehind(.character(0x63), negated: false), .lookbehind(.character(0x64), negated: true),
            ]))
    }

    func testQuantifiers() {
        XCTAssertEqual(tree("a*"), .repetition(.character(0x61), min: 0, max: nil))
        XCTAssertEqual(tree("a+?"), .repetition(.character(0x61), min: 1, max: nil), "lazy matches the same")
        XCTAssertEqual(tree("a?"), .repetition(.character(0x61), min: 0, max: 1))
        XCTAssertEqual(tree("a{2}"), .repetition(.character(0x61), min: 2, max: 2))
        XCTAssertEqual(tree("a{2,}"), .repetition(.character(0x61), min: 2, max: nil))
        XCTAssertEqual(tree("a{2,5}"), .repetition(.character(0x61), min: 2, max: 5))
        XCTAssertEqual(tree("a{2"), .concat(chars("a{2")), "Annex B: not a quantifier, a literal brace")
        XCTAssertEqual(tree("a{,5}"), .concat(chars("a{,5}")))
        XCTAssertEqual(tree("(?=a)*"), .repetition(.lookahead(.character(0x61), negated: false), min: 0, max: nil))
    }

    func testEscapes() {
        XCTAssertEqual(
            tree(#"\n\x41\u0042\0\101\cJ\.\8"#),
            .concat([
                .character(0x0A), .character(0x41), .character(0x42), .character(0), .character(0o101),
                .character(0x0A), .character(0x2E), .character(0x38),
            ]))
        XCTAssertEqual(tree(#"\c1"#), .concat(chars(#"\c1"#)), "Annex B: \\c before a non-letter is a backslash")
        XCTAssertEqual(
            tree(#"\d\W\s\b\B"#),
            .concat([
                .classEscape(.digit), .classEscape(.notWord), .classEscape(.space), .wordBoundary(negated: false),
                .wordBoundary(negated: true),
            ]))
        XCTAssertEqual(tree(#"(a)\1"#), .concat([.group(.character(0x61)), .backReference(1)]))
        XCTAssertEqual(tree(#"(a)\2"#), .concat([.group(.character(0x61)), .character(2)]), "no group 2: octal")
        XCTAssertEqual(tree(#"(?<n>a)\k<n>"#), .concat([.group(.character(0x61)), .namedBackReference]))
        XCTAssertEqual(tree(#"\k"#), .character(0x6B), "no named groups: an identity escape")
        XCTAssertEqual(tree("é"), .character(0xE9))
    }

    func testClasses() {
        XCTAssertEqual(
            tree(#"[xa-c\d\-\b]"#),
            .characterClass(
                JSCharacterClass(
                    negated: false,
                    members: [
                        .character(0x78), .range(0x61, 0x63), .classEscape(.digit), .character(0x2D), .character(0x08),
                    ])))
        XCTAssertEqual(
            tree(#"[^a-]"#),
            .characterClass(
                JSCharacterClass(
                    negated: true,
                    members: [
                        .character(0x61), .character(0x2D),
                    ])))
        XCTAssertEqual(
            tree(#"[a-\d]"#),
            .characterClass(
                JSCharacterClass(
                    negated: false,
                    members: [
                        .character(0x61), .character(0x2D), .classEscape(.digit),
                    ])), "Annex B: a, -, and the class")
        XCTAssertEqual(tree("[]"), .characterClass(JSCharacterClass(negated: false, members: [])))
    }

    func testClassMembership() {
        guard case .characterClass(let c)? = tree(#"[^a-c\d_]"#) else { return XCTFail("not a class") }
        XCTAssertEqual((UInt8(0)..<128).filter { !c.matches(ascii: $0) }, Array("0123456789_abc".utf8))
        XCTAssertEqual((UInt8(0)..<128).filter { JSClassEscape.space.matches(ascii: $0) }, [9, 10, 11, 12, 13, 32])
        XCTAssertEqual((UInt8(0)..<128).filter { JSClassEscape.word.matches(ascii: $0) }.count, 63)
        XCTAssertFalse(JSClassEscape.notDigit.matches(ascii: UInt8(ascii: "7")))
    }

    func testSyntaxErrors() {
        let expected: KeyValuePairs<String, String> = [
            "a)": "unmatched \")\" at offset 1",
            "(a": "expected \")\" at offset 2",
            "*a": "nothing to repeat at offset 0",
            "a{2}{3}": "nothing to repeat at offset 4",
            "^*": "nothing to repeat at offset 0",
            #"\b+"#: "nothing to repeat at offset 0",
            "a{3,2}": "numbers out of order in {} quantifier at offset 1",
            "[b-a]": "range out of order in character class at offset 2",
            "[ab": "unterminated character class at offset 0",
            #"a\"#: "\\ at end of pattern at offset 1",
            "(?x)": "invalid group at offset 1",
        ]
        for (pattern, message) in expected { XCTAssertEqual(error(pattern), message, pattern) }
    }
}
