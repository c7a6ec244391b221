// Would WebKit's CSS selector parser accept this css-display-none selector? WebKit silently skips rules whose
// selector it rejects (ContentExtensionParser.cpp, isValidCSSSelector: CSSSelectorParser::parseSelectorList with a
// bare quirks-mode CSSParserContext, i.e. no style sheet, default (mostly off) feature flags, not a UA sheet).
// This is a port of the parts of WebKitGTK 2.50.6's CSSTokenizer and CSSSelectorParser that decide validity:
// the tokenizer (CSS Syntax 3 as WebKit implements it), selector lists, complex/compound/simple selectors,
// namespaces (no prefixes can resolve without a style sheet), attribute selectors, An+B, functional
// pseudo-classes (forgiving :is/:where), the pseudo-class/pseudo-element tables with their enablement, and the
// rules about what may follow a pseudo-element. The verdicts are checked against real WebKit (see
// Tests/ContentRulesTests/Fixtures/css-selectors-webkit.json).

public enum CSSSelectorValidator {
    /// Deepest nesting of blocks (functional pseudo-classes, attribute brackets) we parse. WebKit accepts
    /// 5,000 nested :not( and crashes (stack overflow) at 20,000; we call anything deeper than this invalid.
    public static let maximumNesting = 2_000

    /// Nil when WebKit accepts the selector list, else a short reason.
    public static func problem(in selector: String) -> String? {
        let tokens = CSSTokenizer.tokenize(selector)
        // The selector grammar is recursive: measure the nesting first (iteratively), refuse the absurd, and
        // give deep-but-acceptable selectors a thread with a stack big enough for them.
        var depth = 0, deepest = 0
        for t in tokens {
            if t.block == .start { depth += 1; deepest = max(deepest, depth) } else if t.block == .end { depth -= 1 }
        }
        if deepest > maximumNesting { return "blocks nested more than \(maximumNesting) levels" }
        if deepest > 32 { return LargeStack.run { parse(tokens) } }
        return parse(tokens)
    }

    public static func isValid(_ selector: String) -> Bool { problem(in: selector) == nil }

    private static func parse(_ tokens: [CSSToken]) -> String? {
        var parser = CSSSelectorListParser()
        var range = TokenRange(tokens: tokens, start: 0, end: tokens.count)
        range.consumeWhitespace()
        let count = parser.consumeComplexSelectorList(&range)
        if count == 0 || !range.atEnd {
            return parser.reason ?? (count == 0 ? "not a selector list" : "unexpected tokens after the selector")
        }
        return nil
    }
}

extension CSSSelectorValidator {
    /// The selectors of a selector list, split at its top-level commas (not those inside parentheses, brackets or
    /// strings, nor escaped ones) and trimmed: how a css-display-none action or a global style sheet reads back
    /// into the selectors it hides.
    public static func topLevelSelectors(_ list: String) -> [String] {
        var out: [String] = []
        var current = ""
        var depth = 0
        var quote: Character? = nil
        var escaped = false
        for c in list {
            if escaped {
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "(" || c == "[" {
                depth += 1
            } else if c == ")" || c == "]" {
                depth = max(0, depth - 1)
            } else if c == ",", depth == 0 {
                out.append(current)
                current = ""
                continue
            }
            current.append(c)
        }
        out.append(current)
        return out.map { s in
            let t = s.drop { $0 == " " || $0 == "\n" || $0 == "\t" }
            return String(t.reversed().drop { $0 == " " || $0 == "\n" || $0 == "\t" }.reversed())
        }.filter { !$0.isEmpty }
    }
}
