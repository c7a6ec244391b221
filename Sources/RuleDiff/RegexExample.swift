// RegexExample: an example URL part for a TDS rule regex, for the derived request corpus (RequestCorpus).

import ContentRules

/// A string that a TDS rule regex (JavaScript syntax, read by ContentRules' JSRegex) matches, built by taking the
/// shortest path through it: optional and starred parts are left out, `+` repeats once, a class gives its first
/// member, the first alternative is taken. Returns nil for patterns it cannot read and for those whose examples
/// depend on the text around them (lookarounds, back-references).
public enum RegexExample {
    /// Groups nested deeper than this give no example.
    static let maximumDepth = 50
    /// A counted repetition (`{n}`, `{n,}`, `{n,m}`) repeats its example n times, at most this many.
    static let maximumCount = 20

    public static func string(matching pattern: String) -> String? {
        guard let regex = try? JSRegex.parse(pattern) else { return nil }
        return example(regex, depth: 0)
    }

    private static func example(_ node: JSRegex, depth: Int) -> String? {
        switch node {
        case .character(let c): return String(Unicode.Scalar(c) ?? "\u{FFFD}")
        case .dot: return "a"
        case .classEscape(let e): return example(e)
        case .characterClass(let c): return example(c)
        case .startAnchor, .endAnchor, .wordBoundary: return ""
        case .lookahead, .lookbehind, .backReference, .namedBackReference: return nil
        case .group(let inner): return depth + 1 < maximumDepth ? example(inner, depth: depth + 1) : nil
        case .concat(let nodes):
            var out = ""
            for n in nodes {
                guard let e = example(n, depth: depth) else { return nil }
                out += e
            }
            return out
        case .alternation(let alternatives): return example(alternatives[0], depth: depth)
        case .repetition(let inner, let min, _):
            return example(inner, depth: depth).map { String(repeating: $0, count: Swift.min(min, maximumCount)) }
        }
    }

    private static func example(_ e: JSClassEscape) -> String {
        switch e {
        case .digit: return "1"
        case .word: return "a"
        case .space: return " "
        case .notDigit, .notWord, .notSpace: return "-"
        }
    }

    /// The first member written, or for a negated class the first of a few URL characters it holds.
    private static func example(_ c: JSCharacterClass) -> String? {
        if c.negated {
            return "a1-_x".utf8.first { c.matches(ascii: $0) }.map { String(UnicodeScalar($0)) }
        }
        switch c.members.first {
        case .character(let m)?, .range(let m, _)?: return example(.character(m), depth: 0)
        case .classEscape(let e)?: return example(e)
        case nil: return nil
        }
    }
}
