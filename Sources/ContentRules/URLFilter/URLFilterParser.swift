// URLFilterParser: WebKit's url-filter regular-expression subset (WebKit's
// Source/WebCore/contentextensions/URLFilterParser.cpp).
//
// Two layers, mirroring WebKit:
//  * a syntax checker that follows JavaScriptCore's YARR parser (YarrSyntax.swift); any YARR syntax error gives
//    .yarrError and wins over everything else;
//  * a delegate (this file) that receives the YARR callbacks like WebCore's PatternParser: it records only the first
//    semantic failure, builds terms (character sets over 0...127 with an `inverted` flag, groups, the
//    end-of-line set {0}) and finally simplifies them (leading `.*`, canonical `.*`, trailing terms) and
//    decides MatchesEverything.
//
// Deliberate deviations (documented because WebKit itself has no defined answer):
//  * a class range whose end is non-ASCII (`[a-\xff]`) hits a release assertion (crash) in WebKit; here
//    it is .nonASCII, like a non-ASCII class atom;
//  * groups nested deeper than `maximumGroupDepth` are .yarrError (WebKit recurses on such terms and
//    would exhaust its stack long before the 1 MiB pattern limit).

enum URLFilterParser {
    static let maximumPatternSize = 1024 * 1024
    static let maximumGroupDepth = 1000

    static func parse(_ pattern: String, caseSensitive: Bool) -> (URLFilterStatus, [URLFilterTerm]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pattern.utf8.count)
        for b in pattern.utf8 {
            if b >= 0x80 { return (.nonASCII, []) }
            bytes.append(b)
        }
        if bytes.isEmpty { return (.emptyPattern, []) }
        var delegate = PatternDelegate(caseSensitive: caseSensitive)
        var yarr = YarrSyntax(bytes)
        if !yarr.parse(&delegate) { return (.yarrError, []) }
        delegate.finalize()
        if delegate.status != .ok { return (delegate.status, []) }
        return (.ok, delegate.sunkTerms.map { $0.publicTerm() })
    }
}

// MARK: - Raw terms (WebKit's Term: raw bits + inverted flag, needed for WebKit's predicates)

struct RawTerm {
    enum Kind { case empty, set, group }
    var kind: Kind = .empty
    var quantifier: URLFilterQuantifier = .one
    var bits0: UInt64 = 0
    var bits1: UInt64 = 0
    var inverted = false
    var terms: [RawTerm] = []

    static func character(_ c: UInt32, caseSensitive: Bool) -> RawTerm {
        var t = RawTerm(kind: .set)
        t.addCharacter(c, caseSensitive: caseSensitive)
        return t
    }

    static var universal: RawTerm {
        RawTerm(kind: .set, bits0: ~UInt64(1), bits1: ~UInt64(0))
    }

    static var endOfLine: RawTerm { RawTerm(kind: .set, bits0: 1) }

    var isValid: Bool { kind != .empty }

    mutating func set(_ c: UInt32) {
        if c < 64 { bits0 |= 1 << UInt64(c) } else { bits1 |= 1 << UInt64(c - 64) }
    }

    func get(_ c: UInt32) -> Bool {
        c < 64 ? (bits0 >> UInt64(c)) & 1 != 0 : (bits1 >> UInt64(c - 64)) & 1 != 0
    }

    var bitCount: Int { bits0.nonzeroBitCount + bits1.nonzeroBitCount }

    mutating func addCharacter(_ c: UInt32, caseSensitive: Bool) {
        guard kind == .set, c < 128 else { return }
        let isAlpha = (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
        if caseSensitive || !isAlpha {
            set(c)
        } else {
            set(c & ~0x20)
            set(c | 0x20)
        }
    }

    var isEndOfLineAssertion: Bool { kind == .set && bitCount == 1 && get(0) }

    var isUniversalTransition: Bool {
        switch kind {
        case .empty: return false
        case .set: return (inverted && bitCount == 0) || (!inverted && bitCount == 127 && !get(0))
        case .group: return terms.count == 1 && terms[0].isUniversalTransition
        }
    }

    var matchesAtLeastOneCharacter: Bool {
        if quantifier == .zeroOrOne || quantifier == .zeroOrMore { return false }
        if isEndOfLineAssertion { return false }
        if kind == .group { return terms.contains { $0.matchesAtLeastOneCharacter } }
        return true
    }

    var isKnownToMatchAnyString: Bool {
        switch kind {
        case .empty: return false
        case .set: return isUniversalTransition && quantifier == .zeroOrMore
        case .group:
            guard terms.count == 1 else { return false }
            let first = terms[0]
            if first.isKnownToMatchAnyString { return true }
            if first.isUniversalTransition {
                if quantifier == .zeroOrMore { return true }
                if quantifier == .zeroOrOne && first.quantifier == .oneOrMore { return true }
                if quantifier == .oneOrMore && first.quantifier == .zeroOrOne { return true }
            }
            return false
        }
    }

    /// The effective set over the 129-symbol alphabet (see URLFilterTerm.swift).
    func publicTerm() -> URLFilterTerm {
        switch kind {
        case .set:
            if inverted {
                // Inverted sets range over 1...127 (never the end-of-string 0) plus non-ASCII bytes.
                return .characterSet(
                    URLFilterCharacterSet(low: ~bits0 & ~UInt64(1), high: ~bits1, nonASCII: true), quantifier)
            }
            return .characterSet(
                URLFilterCharacterSet(low: bits0, high: bits1, nonASCII: isUniversalTransition), quantifier)
        case .group:
            return .group(terms.map { $0.publicTerm() }, quantifier)
        case .empty:
            return .group([], quantifier)
        }
    }
}

// MARK: - The delegate (WebCore's PatternParser)

struct PatternDelegate {
    let caseSensitive: Bool
    var status: URLFilterStatus = .ok
    var openGroups: [RawTerm] = []
    var sunkTerms: [RawTerm] = []
    var floating = RawTerm()
    var hasBeginningOfLineAssertion = false
    var hasProcessedEndOfLineAssertion = false

    init(caseSensitive: Bool) { self.caseSensitive = caseSensitive }

    var hasError: Bool { status != .ok }

    mutating func fail(_ s: URLFilterStatus) {
        if !hasError { status = s }
    }

    mutating func sinkFloatingTermIfNecessary() {
        guard floating.isValid else { return }
        if hasProcessedEndOfLineAssertion {
            fail(.misplacedEndOfLine)
            floating = RawTerm()
            return
        }
        if floating.isEndOfLineAssertion { hasProcessedEndOfLineAssertion = true }
        if !openGroups.isEmpty {
            openGroups[openGroups.count - 1].terms.append(floating)
            floating = RawTerm()
            return
        }
        sunkTerms.append(floating)
        floating = RawTerm()
    }

    mutating func atomPatternCharacter(_ c: UInt32) {
        if hasError { return }
        if c >= 128 { fail(.nonASCII); return }
        sinkFloatingTermIfNecessary()
        floating = .character(c, caseSensitive: caseSensitive)
    }

    mutating func atomBuiltInCharacterClass(isDot: Bool) {
        if hasError { return }
        sinkFloatingTermIfNecessary()
        if isDot { floating = .universal } else { fail(.unsupportedCharacterClass) }
    }

    mutating func quantifyAtom(min: UInt32, max: UInt32) {
        if hasError { return }
        if min == 0 && max == 1 {
            floating.quantifier = .zeroOrOne
        } else if min == 0 && max == UInt32.max {
            floating.quantifier = .zeroOrMore
        } else if min == 1 && max == UInt32.max {
            floating.quantifier = .oneOrMore
        } else {
            fail(.invalidQuantifier)
        }
    }

    mutating func atomNamedBackReference() { fail(.backReference) }

    mutating func assertionBOL() {
        if hasError { return }
        if floating.isValid || !sunkTerms.isEmpty || !openGroups.isEmpty {
            fail(.misplacedStartOfLine)
            return
        }
        hasBeginningOfLineAssertion = true
    }

    mutating func assertionEOL() {
        if hasError { return }
        sinkFloatingTermIfNecessary()
        floating = .endOfLine
    }

    mutating func assertionWordBoundary() { fail(.wordBoundary) }

    mutating func atomCharacterClassBegin(inverted: Bool) {
        if hasError { return }
        sinkFloatingTermIfNecessary()
        floating = RawTerm(kind: .set, inverted: inverted)
    }

    mutating func atomCharacterClassAtom(_ c: UInt32) {
        if hasError { return }
        if c >= 128 { fail(.nonASCII); return }
        floating.addCharacter(c, caseSensitive: caseSensitive)
    }

    mutating func atomCharacterClassRange(_ a: UInt32, _ b: UInt32) {
        if hasError { return }
        // WebKit: release assertion for non-ASCII bounds (see file comment).
        if a >= 128 || b >= 128 { fail(.nonASCII); return }
        var c = a
        while c <= b {
            floating.addCharacter(c, caseSensitive: caseSensitive)
            c += 1
        }
    }

    mutating func atomCharacterClassBuiltIn() { fail(.atomCharacter) }

    mutating func atomParenthesesSubpatternBegin() {
        if hasError { return }
        if openGroups.count >= URLFilterParser.maximumGroupDepth { fail(.yarrError); return }
        sinkFloatingTermIfNecessary()
        openGroups.append(RawTerm(kind: .group))
    }

    mutating func atomParentheticalAssertionBegin() { fail(.group) }
    mutating func atomParentheticalModifierBegin() { fail(.group) }

    mutating func atomParenthesesEnd() {
        if hasError { return }
        sinkFloatingTermIfNecessary()
        floating = openGroups.removeLast()
    }

    mutating func disjunction() { fail(.disjunction) }

    mutating func finalize() {
        if hasError { return }
        sinkFloatingTermIfNecessary()
        simplifySunkTerms()
        if !sunkTerms.contains(where: { $0.matchesAtLeastOneCharacter }) {
            fail(.matchesEverything)
        }
    }

    mutating func simplifySunkTerms() {
        if sunkTerms.isEmpty { return }
        var canonicalDotStar = RawTerm.universal
        canonicalDotStar.quantifier = .zeroOrMore
        var index = 0
        var isAfterDotStar = false
        while index < sunkTerms.count {
            if isAfterDotStar && sunkTerms[index].isKnownToMatchAnyString {
                sunkTerms.remove(at: index)
                continue
            }
            isAfterDotStar = false
            if sunkTerms[index].isKnownToMatchAnyString {
                sunkTerms[index] = canonicalDotStar
                isAfterDotStar = true
            }
            index += 1
        }
        if !hasBeginningOfLineAssertion && !sunkTerms[0].isKnownToMatchAnyString {
            sunkTerms.insert(canonicalDotStar, at: 0)
        }
        if sunkTerms.count > 2 && sunkTerms[sunkTerms.count - 1].isEndOfLineAssertion
            && sunkTerms[sunkTerms.count - 2].isKnownToMatchAnyString
        {
            sunkTerms.removeLast(2)
        }
        if let last = sunkTerms.last, last.isEndOfLineAssertion { return }
        while let last = sunkTerms.last, !last.matchesAtLeastOneCharacter {
            sunkTerms.removeLast()
        }
    }
}
