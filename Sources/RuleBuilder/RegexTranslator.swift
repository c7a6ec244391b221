// Rewrites a JavaScript regex (ContentRules' JSRegex tree) into WebKit's url-filter subset (WebKit's
// Source/WebCore/contentextensions/URLFilterParser.cpp) with the
// same meaning on canonical URLs (ASCII, no NUL, no newlines):
// - disjunctions become several alternatives (WebKit: several rules with the same action and conditions);
// - counted quantifiers are unrolled (`a{2,3}` -> `aa(a)?`), `\d \w \s` and their negations become classes;
// - parts that can never match a canonical URL (non-ASCII literals) remove their alternative;
// - lookaround, back-references and word boundaries have no equivalent: the translation fails with the reason.

import ContentRules

/// A term of WebKit's subset.
indirect enum WKTerm: Hashable {
    enum Quantifier: Hashable { case one, optional, star, plus }
    case set(ASCIISet, Quantifier)
    case group([WKTerm], Quantifier)
    case start
    case end

    var quantifier: Quantifier {
        switch self {
        case .set(_, let q), .group(_, let q): return q
        case .start, .end: return .one
        }
    }

    func with(_ q: Quantifier) -> WKTerm {
        switch self {
        case .set(let s, _): return .set(s, q)
        case .group(let t, _): return .group(t, q)
        default: return self
        }
    }

    /// True when the term can match the empty string.
    var canBeEmpty: Bool {
        switch self {
        case .set(_, let q): return q == .optional || q == .star
        case .group(let t, let q): return q == .optional || q == .star || t.allSatisfy(\.canBeEmpty)
        case .start, .end: return true
        }
    }
}

struct Unexpressible: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

struct RegexTranslation {
    /// Disjunction-free alternatives; their union is the original language. Empty: the regex can never match a URL.
    var alternatives: [[WKTerm]]
    /// The rewrites the regex needed (the output differs in form, not in meaning); empty when none.
    var rewritten: [String]
}

enum RegexTranslator {
    /// At most this many alternatives per regex (disjunction expansion is a cartesian product).
    static let maximumAlternatives = 64
    /// At most this many terms per alternative after unrolling counted quantifiers.
    static let maximumTerms = 4096

    static func translate(_ pattern: String) throws -> RegexTranslation {
        let node: JSRegex
        do { node = try JSRegex.parse(pattern) } catch let e as JSRegexSyntaxError {
            throw Unexpressible(reason: "not a valid JavaScript regular expression (\(e.description))")
        }
        var notes = Set<String>()
        let alternatives = try expand(node, notes: &notes)
        var out: [[WKTerm]] = []
        for alt in alternatives {
            if let a = try normalizeAnchors(alt) { out.append(a) }
        }
        if alternatives.count > 1 { notes.insert("disjunction split into \(alternatives.count) alternatives") }
        return RegexTranslation(alternatives: out, rewritten: notes.sorted())
    }

    // MARK: expansion

    private static func expand(_ node: JSRegex, notes: inout Set<String>) throws -> [[WKTerm]] {
        switch node {
        case .character(let c) where c < 128: return [[.set(ASCIISet([UInt8(c)]), .one)]]
        case .character:
            notes.insert("non-ASCII characters never occur in a canonical URL")
            return []
        case .dot: return [[.set(.dot, .one)]]
        case .classEscape(let e): return oneSet(ASCIISet(e))
        case .characterClass(let c): return oneSet(ASCIISet(c))
        case .startAnchor: return [[.start]]
        case .endAnchor: return [[.end]]
        case .wordBoundary, .backReference, .namedBackReference, .lookahead, .lookbehind:
            throw Unexpressible(reason: "\(unexpressible(node)) cannot be expressed in WebKit's url-filter syntax")
        case .group(let inner): return try expand(inner, notes: &notes)
        case .concat(let nodes):
            var acc: [[WKTerm]] = [[]]
            for n in nodes {
                let e = try expand(n, notes: &notes)
                // One alternative (the common case: a literal) is appended in place; building a new array per
                // node made a 100 KB literal rule quadratic.
                if e.count == 1 {
                    for i in acc.indices { acc[i].append(contentsOf: e[0]) }
                } else {
                    acc = try product(acc, e)
                }
            }
            return acc
        case .alternation(let alts):
            var acc: [[WKTerm]] = []
            for a in alts {
                acc += try expand(a, notes: &notes)
                guard acc.count <= maximumAlternatives else { throw tooManyAlternatives }
            }
            return acc
        case .repetition(let inner, let lo, let hi):
            var e = try expand(inner, notes: &notes)
            if e.isEmpty { return lo == 0 ? [[]] : [] }
            if e.count > 1, e.allSatisfy({ $0.count == 1 && $0[0].isPlainSet }) {
                // (a|[bc]) repeated = one class repeated.
                var merged = ASCIISet()
                for alt in e { if case .set(let s, _) = alt[0] { merged.formUnion(s) } }
                e = [[.set(merged, .one)]]
            }
            if e.count == 1 { return [try repeatSequence(e[0], lo, hi, notes: &notes)] }
            guard let hi else {
                throw Unexpressible(
                    reason: "a repeated disjunction of multi-character alternatives cannot be expressed without \"|\"")
            }
            // Finite repetition of a disjunction: the union over every repetition count.
            var acc: [[WKTerm]] = []
            var power: [[WKTerm]] = [[]]
            for k in 0...hi {
                if k >= lo { acc += power; guard acc.count <= maximumAlternatives else { throw tooManyAlternatives } }
                if k < hi { power = try product(power, e) }
            }
            return acc
        }
    }

    /// A set as a term; an empty one (`[^\s\S]`) matches nothing.
    private static func oneSet(_ s: ASCIISet) -> [[WKTerm]] { s.isEmpty ? [] : [[.set(s, .one)]] }

    /// What an assertion or reference that WebKit has no equivalent for is called in the reason.
    private static func unexpressible(_ node: JSRegex) -> String {
        switch node {
        case .wordBoundary(let negated): return negated ? "word boundary \\B" : "word boundary \\b"
        case .backReference(let n): return "back-reference \\\(n)"
        case .namedBackReference: return "named back-reference"
        case .lookbehind: return "lookbehind assertion"
        default: return "lookahead assertion"
        }
    }

    private static let tooManyAlternatives = Unexpressible(
        reason: "more than \(maximumAlternatives) alternatives after expanding disjunctions")

    private static func product(_ a: [[WKTerm]], _ b: [[WKTerm]]) throws -> [[WKTerm]] {
        guard a.count * b.count <= maximumAlternatives else { throw tooManyAlternatives }
        var out: [[WKTerm]] = []
        for x in a { for y in b { out.append(x + y) } }
        return out
    }

    private static func repeatSequence(_ seq: [WKTerm], _ lo: Int, _ hi: Int?, notes: inout Set<String>) throws
        -> [WKTerm]
    {
        if lo == 1 && hi == 1 { return seq }
        if seq.isEmpty { return [] }
        if seq.contains(where: {
            if case .start = $0 { return true }; if case .end = $0 { return true }; return false
        }) {
            throw Unexpressible(reason: "a repeated anchor cannot be expressed")
        }
        let piece: WKTerm = (seq.count == 1 && seq[0].quantifier == .one) ? seq[0] : .group(seq, .one)
        switch (lo, hi) {
        case (0, 1?): return [piece.with(.optional)]
        case (0, nil): return [piece.with(.star)]
        case (1, nil): return [piece.with(.plus)]
        case (0, 0?): return []
        default: break
        }
        notes.insert("counted quantifier unrolled")
        guard (hi ?? lo) * max(seq.count, 1) <= maximumTerms else {
            throw Unexpressible(reason: "a counted quantifier too large to unroll")
        }
        var out: [WKTerm] = []
        let fixed = hi == nil ? max(lo - 1, 0) : lo
        for _ in 0..<fixed { out += seq }
        if let hi {
            // (x(x(x)?)?)? for the optional copies.
            var tail: WKTerm? = nil
            for _ in 0..<(hi - lo) {
                tail = .group(seq + (tail.map { [$0] } ?? []), .optional)
            }
            if let tail { out.append(tail) }
        } else {
            out.append(piece.with(lo == 0 ? .star : .plus))
        }
        return out
    }

    /// `^` only as the first term and `$` only as the last (top level), as WebKit requires. A `^` elsewhere can only
    /// match at position 0 after empty terms; anything else after `$` must match empty. Returns nil when the
    /// alternative can never match.
    private static func normalizeAnchors(_ alt: [WKTerm]) throws -> [WKTerm]? {
        var terms = alt
        if let endIndex = terms.firstIndex(of: .end) {
            let after = terms[(endIndex + 1)...]
            // After the end of the URL only empty matches are possible.
            if after.contains(where: { !$0.canBeEmpty && $0 != .end && $0 != .start }) { return nil }
            terms = Array(terms[...endIndex])
        }
        if let s = terms.lastIndex(of: .start), s > 0 {
            // Everything before a later `^` must match empty at position 0.
            if terms[..<s].contains(where: { !$0.canBeEmpty }) { return nil }
            terms = Array(terms[s...])
        }
        // Anchors nested in groups (`(^a)`, `(a$)?`) are not supported by WebKit.
        func nested(_ t: WKTerm) -> Bool {
            if case .group(let inner, _) = t { return inner.contains { $0 == .start || $0 == .end || nested($0) } }
            return false
        }
        if terms.contains(where: nested) { throw Unexpressible(reason: "an anchor inside a group cannot be expressed") }
        return terms
    }

    // MARK: output

    static func render(_ terms: [WKTerm]) -> String {
        var out = ""
        for t in terms { render(t, into: &out) }
        return out
    }

    private static func render(_ t: WKTerm, into out: inout String) {
        switch t {
        case .start: out += "^"
        case .end: out += "$"
        case .set(let s, let q):
            out += renderSet(s)
            out += quantifierText(q)
        case .group(let inner, let q):
            out += "("
            for x in inner { render(x, into: &out) }
            out += ")"
            out += quantifierText(q)
        }
    }

    private static func quantifierText(_ q: WKTerm.Quantifier) -> String {
        switch q {
        case .one: return ""
        case .optional: return "?"
        case .star: return "*"
        case .plus: return "+"
        }
    }

    /// Characters that never occur in a canonical URL string: NUL (WebKit's end-of-string symbol), CR, LF.
    private static let neverInURL = ASCIISet([0x00, 0x0A, 0x0D])

    static func renderSet(_ set: ASCIISet) -> String {
        if set.count == 1 { return escapeOutside(set.members[0]) }
        var s = set
        for b in neverInURL.members { s.remove(b) }
        let universe = ASCIISet.all.subtracting(neverInURL)
        if s == universe { return "." }
        let members = s.members
        if members.count == 1 { return escapeOutside(members[0]) }
        let complement = universe.subtracting(s)
        let positive = "[" + classBody(members) + "]"
        // WebKit's inverted classes range over 1...127, so the excluded CR/LF/NUL make no difference.
        let negative = "[^" + classBody(complement.members) + "]"
        return negative.utf8.count < positive.utf8.count ? negative : positive
    }

    private static func classBody(_ members: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < members.count {
            var j = i
            while j + 1 < members.count, members[j + 1] == members[j] + 1 { j += 1 }
            if j - i >= 2 {
                out += escapeInClass(members[i]) + "-" + escapeInClass(members[j])
            } else {
                for k in i...j { out += escapeInClass(members[k]) }
            }
            i = j + 1
        }
        return out
    }

    static func escapeOutside(_ b: UInt8) -> String {
        if b < 0x20 || b == 0x7F { return hexEscape(b) }
        let c = Character(Unicode.Scalar(b))
        return "\\^$.|?*+()[]{}/".contains(c) ? "\\" + String(c) : String(c)
    }

    private static func escapeInClass(_ b: UInt8) -> String {
        if b < 0x20 || b == 0x7F { return hexEscape(b) }
        let c = Character(Unicode.Scalar(b))
        return "\\]-^[".contains(c) ? "\\" + String(c) : String(c)
    }
}

extension WKTerm {
    var isPlainSet: Bool { if case .set(_, .one) = self { return true }; return false }
}

extension ASCIISet {
    /// Matches every character a canonical URL can contain (`.`, `[^]`-style sets).
    var isAnyURLCharacter: Bool {
        var s = self
        s.formUnion(ASCIISet([0x00, 0x0A, 0x0D]))
        return s == .all
    }

    func subtracting(_ o: ASCIISet) -> ASCIISet { ASCIISet(low: low & ~o.low, high: high & ~o.high) }
}

/// `\xHH` for control characters.
func hexEscape(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "\\x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 15)])
}
