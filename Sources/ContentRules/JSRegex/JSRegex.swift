// JSRegex: the syntax tree of a JavaScript regular expression as `new RegExp(source, "i")` reads it (legacy,
// non-unicode syntax with the Annex B extensions), the one reading of the regexes TDS rules and allowlist entries
// are written in. RuleBuilder's translator rewrites it into WebKit's url-filter subset; RuleDiff's derived request
// corpus takes an example URL part from it. (WebKit's own url-filters are read by YarrSyntax, which must reproduce
// YARR's errors and callbacks exactly: a different job.)

/// A JavaScript regular expression. Characters are code points (a `\u` escape gives its 16-bit value); escapes
/// that stand for one character are decoded, the other escapes keep their kind.
public indirect enum JSRegex: Hashable, Sendable {
    /// One character: a literal, or an escape that stands for one (`\n`, `\x41`, `\u0041`, `\0`, octal, `\cJ`,
    /// identity escapes such as `\.`).
    case character(UInt32)
    /// `.`: anything but a line terminator.
    case dot
    /// `\d`, `\D`, `\w`, `\W`, `\s`, `\S` outside a class.
    case classEscape(JSClassEscape)
    case characterClass(JSCharacterClass)
    case startAnchor
    case endAnchor
    /// `\b` (negated: `\B`).
    case wordBoundary(negated: Bool)
    /// `\N` when the pattern has at least N capturing groups (else Annex B reads an octal or identity escape).
    case backReference(Int)
    /// `\k<name>` in a pattern with named groups.
    case namedBackReference
    /// `(?=...)` (negated: `(?!...)`).
    case lookahead(JSRegex, negated: Bool)
    /// `(?<=...)` (negated: `(?<!...)`).
    case lookbehind(JSRegex, negated: Bool)
    /// `(...)`, `(?:...)` or `(?<name>...)`: what they match is the same.
    case group(JSRegex)
    /// Two or more terms in a row; a single term stands alone and nothing is the empty concat.
    case concat([JSRegex])
    /// Two or more alternatives.
    case alternation([JSRegex])
    /// A quantified term (`*` is 0...nil, `+` 1...nil, `?` 0...1, `{n,m}`); laziness does not change what matches.
    case repetition(JSRegex, min: Int, max: Int?)

    public static let empty = JSRegex.concat([])

    /// The tree of `pattern`, or the syntax error JavaScript reports for it.
    public static func parse(_ pattern: String) throws -> JSRegex { try JSRegexParser.parse(pattern) }
}

/// A predefined class: `\d`, `\w`, `\s` and their negations.
public enum JSClassEscape: Hashable, Sendable {
    case digit, notDigit, word, notWord, space, notSpace

    /// Whether the class holds the ASCII character `c` (JavaScript's `\s` also holds non-ASCII spaces, which no
    /// canonical URL contains).
    public func matches(ascii c: UInt8) -> Bool {
        switch self {
        case .digit: return Self.isDigit(c)
        case .notDigit: return !Self.isDigit(c)
        case .word: return Self.isWord(c)
        case .notWord: return !Self.isWord(c)
        case .space: return Self.isSpace(c)
        case .notSpace: return !Self.isSpace(c)
        }
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    private static func isWord(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0D) }
}

/// `[...]` or `[^...]`, its members in the order written.
public struct JSCharacterClass: Hashable, Sendable {
    public enum Member: Hashable, Sendable {
        case character(UInt32)
        /// `a-z`: both ends included, the start never above the end.
        case range(UInt32, UInt32)
        case classEscape(JSClassEscape)
    }

    public var negated: Bool
    public var members: [Member]

    public init(negated: Bool, members: [Member]) {
        self.negated = negated
        self.members = members
    }

    /// Whether the class matches the ASCII character `c`.
    public func matches(ascii c: UInt8) -> Bool {
        let v = UInt32(c)
        let listed = members.contains {
            switch $0 {
            case .character(let m): return m == v
            case .range(let lo, let hi): return lo <= v && v <= hi
            case .classEscape(let e): return e.matches(ascii: c)
            }
        }
        return listed != negated
    }
}

/// A pattern JavaScript rejects, with its message and the offset (in Unicode scalars) where it was found.
public struct JSRegexSyntaxError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public let offset: Int
    public var description: String { "\(message) at offset \(offset)" }
}
