import XCTest
@testable import ContentRules

final class URLFilterParserTests: XCTestCase {
    private func check(
        _ pattern: String, _ expected: URLFilterStatus, caseSensitive: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let f = URLFilter.parse(pattern, caseSensitive: caseSensitive)
        XCTAssertEqual(f.status, expected, "pattern \(pattern.debugDescription)", file: file, line: line)
    }

    // WebKit's own Tools/TestWebKitAPI ContentExtensions.cpp ParsingFailures / PatternMatchingTheEmptyString.
    func testWebKitParsingFailures() {
        check("a*b?.*.?[a-z]?[a-z]*", .matchesEverything)
        check("a*b?.*.?[a-z]?[a-z]+", .ok)
        check("a*b?.*.?[a-z]?[a-z]", .ok)
        check(".*?a", .ok)
        check(".*a", .ok)
        check("(?!)", .group)
        check("(?=)", .group)
        check("(?!a)", .group)
        check("(?=a)", .group)
        check("(regex)", .ok)
        check("(regex", .yarrError)
        check("((regex)", .yarrError)
        check("(?:regex)", .ok)
        check("(?:regex", .yarrError)
        check("[^.]+", .ok)
        check("a++", .yarrError)
        check("[a]++", .yarrError)
        check("+", .yarrError)
        check("[", .yarrError)
        check("[a}", .yarrError)
        check("a]", .ok)
        check("{", .ok)
        check("{[a]", .ok)
        check("{0", .ok)
        check("{0,", .ok)
        check("{0,1", .ok)
        check("a{0,1", .ok)
        check("a{a,b}", .ok)
        check("\u{FF}", .nonASCII)
        check("\\xff", .nonASCII)
        check("\\x\\r\\n", .ok)
        check("\\b", .wordBoundary)
        check("[\\d]", .atomCharacter)
        check("\\d\\D\\w\\s\\v\\h\\i\\c", .unsupportedCharacterClass)
        check("this|that", .disjunction)
        check("a{0,1}b", .ok)
        check("a{0,2}b", .invalidQuantifier)
        check("", .emptyPattern)
        check("$$", .misplacedEndOfLine)
        check("a^", .misplacedStartOfLine)
        check("(^)", .misplacedStartOfLine)
        check("(a)\\1", .ok)
        check("(<A>a)\\k<A>", .ok)
        check("(?<A>a)\\k<A>", .backReference)
        check("\\1(a)", .ok)
        check("\\8(a)", .ok)
        check("\\9(a)", .ok)
        check("\\k<A>(<A>a)", .ok)
        check("\\k<A>(?<A>a)", .yarrError)
        check("\\k<A>(a)", .ok)
        for p in [
            ".*", "a*", ".?", "a?", "[a-z]*", "[a-z]?", "(foobar)*", "(foobar)?", "(.*)", "(a*)", "(.?)", "(a?)",
            "([a-z]*)", "([a-z]?)", "(.)*", "(.+)*", "(.?)*", "(.*)*", "(.+)?", "(.?)+", "((foo)?((.)*)(bar)*)",
        ] {
            check(p, .matchesEverything)
        }
    }

    func testSpecTableRows() {
        // literals, identity escapes, control escapes
        check("a", .ok); check("\\.", .ok); check("\\/", .ok); check("\\n\\r\\t\\f\\v", .ok)
        check("\\cA", .ok); check("\\x41", .ok); check("\\u0041", .ok)
        check("\\x7f", .ok); check("\\x80", .nonASCII); check("\\u00e9", .nonASCII); check("\\uD800", .nonASCII)
        // Annex B literals
        check("\\x", .ok); check("\\xg", .ok); check("\\u", .ok); check("\\u12", .ok); check("\\h", .ok);
        check("\\i", .ok)
        check("\\8", .ok); check("\\9", .ok); check("\\k<A>", .ok); check("\\p{L}", .ok); check("\\q", .ok)
        check("\\c", .ok); check("\\c1", .ok); check("[\\c1]", .ok); check("[\\c_]", .ok)
        // octal
        check("\\1", .ok); check("\\7", .ok); check("\\0", .matchesEverything); check("\\01", .ok)
        check("\\177", .ok); check("\\200", .nonASCII); check("\\377", .nonASCII); check("\\400", .ok)
        // dot and classes
        check(".", .ok); check("[abc]", .ok); check("[^abc]", .ok); check("[a-z]", .ok); check("[]", .ok);
        check("[^]", .ok)
        check("[z-a]", .yarrError); check("[\\xff]", .nonASCII); check("[a-\\xff]", .nonASCII)
        check("[\\w]", .atomCharacter); check("[a\\s]", .atomCharacter); check("[\\d-a]", .atomCharacter)
        check("\\d", .unsupportedCharacterClass); check("\\D", .unsupportedCharacterClass);
        check("\\w", .unsupportedCharacterClass)
        check("\\W", .unsupportedCharacterClass); check("\\s", .unsupportedCharacterClass);
        check("\\S", .unsupportedCharacterClass)
        check("\\B", .wordBoundary); check("[\\b]", .ok); check("[\\B]", .ok)
        // groups
        check("(a)", .ok); check("(?:a)", .ok); check("(?<name>a)", .ok); check("((a)b)", .ok); check("()a", .ok);
        check("a()", .ok)
        check("(?<=a)b", .group); check("(?<!a)b", .group); check("(?i:a)", .group); check("(?-i:a)", .group);
        check("(?ims:a)", .group)
        check("(?ii:a)", .yarrError); check("(?i-i:a)", .yarrError); check("(?-:a)", .yarrError);
        check("(?x:a)", .yarrError)
        check("(?", .yarrError); check("(?a)", .yarrError); check("(?<)", .yarrError); check("(?<1a>b)", .yarrError)
        check("(?<a>x)(?<a>y)", .yarrError); check("(?<a>x)|(?<a>y)", .disjunction)
        check("(?<=a)*b", .yarrError); check("(?=a)*b", .group)
        // back references
        check("(?<A>a)\\k<A>", .backReference); check("(?<A>a)\\k<B>", .yarrError); check("(?<A>a)\\k", .yarrError)
        check("\\k<\\x>", .yarrError); check("[\\k](?<A>a)", .yarrError)
        // disjunction
        check("|", .disjunction); check("a|", .disjunction); check("(a|b)", .disjunction)
        // quantifiers
        check("a?", .matchesEverything); check("ab*", .ok); check("ab+", .ok); check("a??b", .ok); check("a*?b", .ok);
        check("a+?", .ok)
        check("a{0,}b", .ok); check("a{1,}", .ok); check("a{0,1}b", .ok)
        check("a{0,2}", .invalidQuantifier); check("a{1}", .invalidQuantifier); check("a{2,}", .invalidQuantifier);
        check("a{0}", .invalidQuantifier)
        check("a{1,1}", .invalidQuantifier); check("a{2,1}", .yarrError); check("{2,1}", .yarrError)
        check("a{0,4294967295}b", .ok); check("a{1,99999999999999}", .ok); check("a{99999999999999999999}", .yarrError)
        check("{1}", .yarrError); check("a{", .ok); check("a}", .ok); check("}", .ok); check("]", .ok)
        check("*", .yarrError); check("?", .yarrError); check("^*", .yarrError); check("$?", .yarrError);
        check("|*", .yarrError)
        check("a***", .yarrError); check("\\b+", .yarrError); check("(*)", .yarrError)
        // unbalanced
        check(")", .yarrError); check("a)", .yarrError); check("(", .yarrError); check("[a", .yarrError);
        check("\\", .yarrError); check("a\\", .yarrError)
        // ^
        check("^a", .ok); check("^", .matchesEverything); check("^^a", .ok); check("a^b", .misplacedStartOfLine);
        check("(^a)", .misplacedStartOfLine)
        check("()^a", .misplacedStartOfLine); check("[^a]", .ok)
        // $
        check("a$", .ok); check("^a$", .ok); check("a$b", .misplacedEndOfLine); check("(a$)", .misplacedEndOfLine);
        check("(a$)b", .misplacedEndOfLine)
        check("a$$", .misplacedEndOfLine); check("^$", .matchesEverything); check("$", .matchesEverything);
        check("a*$", .matchesEverything)
        check(".*$", .matchesEverything); check("[$]", .ok)
        // \0 is the end-of-line character set (Term::isEndOfLineAssertion is content based)
        check("a\\0", .ok); check("a\\0b", .misplacedEndOfLine); check("\\0\\0", .misplacedEndOfLine);
        check("a[\\0]", .ok); check("a[^\\0]b", .misplacedEndOfLine)
        check("[^\\0]", .matchesEverything)
        // first failure wins, YARR errors win over everything
        check("\\d|", .unsupportedCharacterClass); check("|\\d", .disjunction); check("\\d(", .yarrError);
        check("a|b{2,1}", .yarrError)
        check("é|", .nonASCII); check("\\xff|", .nonASCII)
        // pattern size limit
        check(String(repeating: "A", count: 100_000), .ok)
        check(String(repeating: "A", count: 1024 * 1024), .ok)
        check(String(repeating: "A", count: 1024 * 1024 + 1), .yarrError)
    }

    func testMessages() {
        XCTAssertEqual(URLFilterStatus.ok.message, "Ok")
        XCTAssertEqual(URLFilterStatus.matchesEverything.message, "Matches everything.")
        XCTAssertEqual(URLFilterStatus.nonASCII.message, "Only ASCII characters are supported in pattern.")
        XCTAssertEqual(URLFilterStatus.unsupportedCharacterClass.message, "Character class is not supported.")
        XCTAssertEqual(URLFilterStatus.backReference.message, "Patterns cannot contain backreferences.")
        XCTAssertEqual(URLFilterStatus.forwardReference.message, "Patterns cannot contain forward references.")
        XCTAssertEqual(
            URLFilterStatus.misplacedStartOfLine.message,
            "Start of line assertion can only appear as the first term in a filter.")
        XCTAssertEqual(URLFilterStatus.wordBoundary.message, "Word boundaries assertions are not supported yet.")
        XCTAssertEqual(URLFilterStatus.atomCharacter.message, "Builtins character class atoms are not supported yet.")
        XCTAssertEqual(URLFilterStatus.group.message, "Groups are not supported yet.")
        XCTAssertEqual(URLFilterStatus.disjunction.message, "Disjunctions are not supported yet.")
        XCTAssertEqual(
            URLFilterStatus.misplacedEndOfLine.message,
            "The end of line assertion must be the last term in an expression.")
        XCTAssertEqual(URLFilterStatus.emptyPattern.message, "Empty pattern.")
        XCTAssertEqual(URLFilterStatus.yarrError.message, "Internal error in YARR.")
        XCTAssertEqual(URLFilterStatus.invalidQuantifier.message, "Arbitrary atom repetitions are not supported.")
        XCTAssertEqual(URLFilterStatus.allCases.filter { $0.isSupported }, [.ok, .matchesEverything])
    }

    private func m(_ pattern: String, _ url: String, caseSensitive: Bool = false) -> Bool {
        let f = URLFilter.parse(pattern, caseSensitive: caseSensitive)
        return f.matches(Array(url.utf8))
    }

    func testReferenceMatching() {
        XCTAssertTrue(m("webkit", "http://webkit.org/"))
        XCTAssertTrue(m("WEBKIT", "http://webkit.org/"))
        XCTAssertFalse(m("WEBKIT", "http://webkit.org/", caseSensitive: true))
        XCTAssertTrue(m("^http:", "http://a/"))
        XCTAssertFalse(m("^ttp:", "http://a/"))
        XCTAssertTrue(m("org/$", "http://webkit.org/"))
        XCTAssertFalse(m("org$", "http://webkit.org/"))
        XCTAssertTrue(m("a\\0", "xa")) // \0 consumes the end of string like $
        XCTAssertFalse(m("a\\0", "xab"))
        XCTAssertTrue(m("^$", "anything")) // quirk: MatchesEverything
        XCTAssertFalse(m("a[]", "aaa")) // empty class matches nothing
        XCTAssertTrue(m("a[^]", "ab"))
        XCTAssertFalse(m("a[^]", "a")) // inverted sets never match the end
        XCTAssertFalse(m("a.", "a"))
        XCTAssertTrue(m("a.", "a\u{E9}")) // non-ASCII bytes: matched by . and negated classes
        XCTAssertFalse(m("a[a-z]", "a\u{E9}"))
        XCTAssertTrue(m("a[^b]", "a\u{E9}"))
        XCTAssertTrue(m("^[^:]+://+([^:/]+\\.)?tracker\\.com[:/]", "https://x.y.tracker.com/p"))
        XCTAssertTrue(m("^[^:]+://+([^:/]+\\.)?tracker\\.com[:/]", "https://tracker.com:443/"))
        XCTAssertFalse(m("^[^:]+://+([^:/]+\\.)?tracker\\.com[:/]", "https://nottracker.com/"))
        XCTAssertTrue(m("[a-z][a-z+.-]*:\\/\\/([^/]*\\.)*example\\.com[:/]", "https://www.example.com/"))
        XCTAssertTrue(m("[a-z][a-z+.-]*:\\/\\/([^/]*\\.)*example\\.com[:/]", "https://example.com/"))
        XCTAssertFalse(m("[a-z][a-z+.-]*:\\/\\/([^/]*\\.)*example\\.com[:/]", "https://badexample.com/"))
        XCTAssertTrue(m("(ab)+c", "xababc"))
        XCTAssertFalse(m("(ab)+c", "xabac"))
        XCTAssertTrue(m("\\1", "a\u{01}"))
    }

    func testSimplifiedTerms() {
        let f = URLFilter.parse("foob?", caseSensitive: true)
        XCTAssertEqual(f.terms.count, 4) // .* f o o (b? dropped)
        XCTAssertEqual(f.terms.first, .dotStar)
        let g = URLFilter.parse("^a.*$", caseSensitive: true)
        XCTAssertEqual(g.terms.count, 1) // trailing .*$ dropped
        let h = URLFilter.parse("(.*)(.?)+a", caseSensitive: true)
        XCTAssertEqual(h.terms.count, 2) // canonical .* then a
        XCTAssertEqual(URLFilter.parse("a", caseSensitive: false), URLFilter.parse("a", caseSensitive: false))
        XCTAssertNotEqual(URLFilter.parse("a", caseSensitive: false), URLFilter.parse("a", caseSensitive: true))
    }
}
