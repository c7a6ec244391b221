// URLFilterTerm: the simplified term model of WebKit's url-filter regular-expression subset
// (WebKit's Source/WebCore/contentextensions/URLFilterParser.cpp and Term.h), the public URLFilter value and its
// reference matcher.
//
// Alphabet. Matching runs over the bytes of the URL followed by one virtual end-of-string byte 0.
// Terms are character sets over 129 symbols: 0...127 (ASCII; 0 is what `$` consumes at the end) and
// symbol 128, which stands for every byte >= 0x80. WebKit's DFAs only have transitions on 0...127; a
// byte >= 0x80 can only follow a node's "fallback" (Jump) transition, which exists when the node's
// transitions cover 1...127 and goes to the target with the most characters. That is an artefact of
// WebKit's exact automaton shapes (it even depends on which other patterns share the NFA), so it cannot
// be reproduced per pattern. radarblock uses the JavaScript reading instead: `.` and negated classes
// (`[^...]`, and any set WebKit treats as a universal transition) match a byte >= 0x80, positive classes
// and literals never do. In WebKit's common case (a node with `.`/negated-class transitions) the fallback
// goes to exactly that target, and canonical URLs (what WebKit matches) are ASCII anyway.

/// How often a term may repeat. `{0,1}`, `{0,}`, `{1,}` map to the same values as `?`, `*`, `+`.
public enum URLFilterQuantifier: UInt8, Sendable, Hashable {
    case one, zeroOrOne, zeroOrMore, oneOrMore
}

/// An effective character set over the 129-symbol matcher alphabet (see the file comment).
public struct URLFilterCharacterSet: Hashable, Sendable {
    /// Symbols 0...63.
    public var low: UInt64
    /// Symbols 64...127.
    public var high: UInt64
    /// Symbol 128: every byte >= 0x80.
    public var nonASCII: Bool

    public init(low: UInt64 = 0, high: UInt64 = 0, nonASCII: Bool = false) {
        self.low = low
        self.high = high
        self.nonASCII = nonASCII
    }

    /// `.`: 1...127 plus the non-ASCII symbol.
    public static let universal = URLFilterCharacterSet(low: ~UInt64(1), high: ~UInt64(0), nonASCII: true)

    @inline(__always)
    public func contains(symbol: Int) -> Bool {
        if symbol < 64 { return (low >> UInt64(symbol)) & 1 != 0 }
        if symbol < 128 { return (high >> UInt64(symbol - 64)) & 1 != 0 }
        return nonASCII
    }

    public mutating func insert(symbol: Int) {
        if symbol < 64 {
            low |= 1 << UInt64(symbol)
        } else if symbol < 128 {
            high |= 1 << UInt64(symbol - 64)
        } else {
            nonASCII = true
        }
    }

    public var isEmpty: Bool { low == 0 && high == 0 && !nonASCII }

    /// The symbol (0...128) a URL byte stands for.
    @inline(__always)
    public static func symbol(forByte byte: UInt8) -> Int { byte < 128 ? Int(byte) : 128 }
}

/// One term of a simplified url-filter: a character set or a group, each with a quantifier.
public indirect enum URLFilterTerm: Hashable, Sendable {
    case characterSet(URLFilterCharacterSet, URLFilterQuantifier)
    case group([URLFilterTerm], URLFilterQuantifier)

    public var quantifier: URLFilterQuantifier {
        switch self {
        case .characterSet(_, let q), .group(_, let q): return q
        }
    }

    /// WebKit's Term::hasFixedLength: no quantifier anywhere (such terms are the NFA-splitting boundaries).
    public var hasFixedLength: Bool {
        switch self {
        case .characterSet(_, let q): return q == .one
        case .group(let terms, let q): return q == .one && terms.allSatisfy { $0.hasFixedLength }
        }
    }

    /// `.*`, the canonical any-string term.
    public static let dotStar = URLFilterTerm.characterSet(.universal, .zeroOrMore)
}

/// Status of a url-filter pattern, with WebKit's URLFilterParser::statusString messages.
public enum URLFilterStatus: String, Sendable, CaseIterable {
    case ok, matchesEverything, nonASCII, unsupportedCharacterClass, backReference, forwardReference,
        misplacedStartOfLine, wordBoundary, atomCharacter, group, disjunction, misplacedEndOfLine,
        emptyPattern, yarrError, invalidQuantifier

    public var message: String {
        switch self {
        case .ok: return "Ok"
        case .matchesEverything: return "Matches everything."
        case .nonASCII: return "Only ASCII characters are supported in pattern."
        case .unsupportedCharacterClass: return "Character class is not supported."
        case .backReference: return "Patterns cannot contain backreferences."
        case .forwardReference: return "Patterns cannot contain forward references."
        case .misplacedStartOfLine: return "Start of line assertion can only appear as the first term in a filter."
        case .wordBoundary: return "Word boundaries assertions are not supported yet."
        case .atomCharacter: return "Builtins character class atoms are not supported yet."
        case .group: return "Groups are not supported yet."
        case .disjunction: return "Disjunctions are not supported yet."
        case .misplacedEndOfLine: return "The end of line assertion must be the last term in an expression."
        case .emptyPattern: return "Empty pattern."
        case .yarrError: return "Internal error in YARR."
        case .invalidQuantifier: return "Arbitrary atom repetitions are not supported."
        }
    }

    /// WKContentRuleList._supportsRegularExpression: ok or matchesEverything.
    public var isSupported: Bool { self == .ok || self == .matchesEverything }
}

/// A parsed url-filter (or condition) pattern.
///
/// Equality and hashing use only `pattern` and `caseSensitive` (everything else is derived from them),
/// which keeps dictionaries keyed by filters cheap.
public struct URLFilter: Sendable, Hashable {
    public let pattern: String
    public let caseSensitive: Bool
    public let status: URLFilterStatus
    /// The simplified term sequence WebKit compiles (valid when status == .ok). Unless the pattern starts
    /// with `^`, the first term is `.*`; case-insensitive patterns already contain both cases of letters.
    public let terms: [URLFilterTerm]

    public init(pattern: String, caseSensitive: Bool, status: URLFilterStatus, terms: [URLFilterTerm]) {
        self.pattern = pattern
        self.caseSensitive = caseSensitive
        self.status = status
        self.terms = terms
    }

    public static func parse(_ pattern: String, caseSensitive: Bool) -> URLFilter {
        let (status, terms) = URLFilterParser.parse(pattern, caseSensitive: caseSensitive)
        return URLFilter(
            pattern: pattern, caseSensitive: caseSensitive, status: status, terms: status == .ok ? terms : [])
    }

    public static func == (a: URLFilter, b: URLFilter) -> Bool {
        a.caseSensitive == b.caseSensitive && a.pattern == b.pattern
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(caseSensitive)
    }

    /// Reference matcher (the test oracle for the automata): does WebKit's automaton for this pattern
    /// reach an accepting state on `url`? matchesEverything patterns match every URL (also the `^$` quirk);
    /// unsupported patterns match nothing. Straightforward NFA simulation over the simplified terms.
    public func matches(_ url: [UInt8]) -> Bool {
        switch status {
        case .matchesEverything: return true
        case .ok: break
        default: return false
        }
        let nfa = ReferenceNFA(terms: terms)
        return nfa.run(url)
    }
}

/// Thompson NFA over the terms, used only by the reference matcher; its shape comes from TermGraphSink.
struct ReferenceNFA: TermGraphSink {
    var sets: [[(URLFilterCharacterSet, Int)]] = []
    var eps: [[Int]] = []
    var final = 0

    init(terms: [URLFilterTerm]) {
        let start = newNode()
        var current = start
        for term in terms {
            let next = newNode()
            generate(term, from: current, to: next)
            current = next
        }
        final = current
    }

    mutating func newNode() -> Int {
        sets.append([])
        eps.append([])
        return sets.count - 1
    }

    mutating func epsilon(from: Int, to: Int) { eps[from].append(to) }

    mutating func characterSet(_ set: URLFilterCharacterSet, from: Int, to: Int) { sets[from].append((set, to)) }

    func close(_ active: inout [Bool]) {
        var stack: [Int] = []
        for i in active.indices where active[i] { stack.append(i) }
        while let n = stack.popLast() {
            for t in eps[n] where !active[t] {
                active[t] = true
                stack.append(t)
            }
        }
    }

    func run(_ url: [UInt8]) -> Bool {
        var active = [Bool](repeating: false, count: sets.count)
        active[0] = true
        close(&active)
        if active[final] { return true }
        var index = 0
        while index <= url.count {
            let symbol = index < url.count ? URLFilterCharacterSet.symbol(forByte: url[index]) : 0
            var next = [Bool](repeating: false, count: sets.count)
            var any = false
            for n in active.indices where active[n] {
                for (set, target) in sets[n] where set.contains(symbol: symbol) {
                    next[target] = true
                    any = true
                }
            }
            if !any { return false }
            close(&next)
            if next[final] { return true }
            active = next
            index += 1
        }
        return false
    }
}
