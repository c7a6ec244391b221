// Would WebKit's CSS selector parser accept this css-display-none selector? WebKit silently skips rules whose
// selector it rejects (ContentExtensionParser.cpp, isValidCSSSelector: CSSSelectorParser::parseSelectorList with a
// bare quirks-mode CSSParserContext, i.e. no style sheet, default (mostly off) feature flags, not a UA sheet).
// This is a port of the parts of WebKitGTK 2.50.6's CSSTokenizer and CSSSelectorParser that decide validity:
// the tokenizer (CSS Syntax 3 as WebKit implements it), selector lists, complex/compound/simple selectors,
// namespaces (no prefixes can resolve without a style sheet), attribute selectors, An+B, functional
// pseudo-classes (forgiving :is/:where), the pseudo-class/pseudo-element tables with their enablement, and the
// rules about what may follow a pseudo-element. The verdicts are checked against real WebKit (see
// Tests/ContentRulesTests/Fixtures/css-selectors-webkit.json).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        if count == 0 || !range.atEnd { return parser.reason ?? (count == 0 ? "not a selector list" : "unexpected tokens after the selector") }
        return nil
    }
}

/// Runs a closure on a thread with a 256 MB stack (reserved address space, touched only as deep as used).
enum LargeStack {
    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func run<T>(_ body: @escaping () -> T) -> T {
        var result: T?
        let job = Job { result = body() }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 256 << 20)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(job).toOpaque()
        let created = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return body()  // no thread available: run here
        }
        pthread_join(thread, nil)
        return result!
    }
}

// MARK: tokens

enum CSSTokenKind: Equatable {
    case ident, function, atKeyword, hashID, hashUnrestricted, string, badString, url, badURL, delim
    case number, percentage, dimension, whitespace, cdo, cdc, colon, semicolon, comma
    case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace
    case includeMatch, dashMatch, prefixMatch, suffixMatch, substringMatch, column, eof
}

struct CSSToken {
    enum BlockType { case none, start, end }
    enum Sign { case none, plus, minus }
    var kind: CSSTokenKind
    var value: [UInt32] = []     // ident/function/hash/string/url text, or the unit of a dimension
    var delim: UInt32 = 0
    var numberValue: Double = 0
    var isInteger = false
    var sign = Sign.none
    var block = BlockType.none

    var text: String { String(String.UnicodeScalarView(value.compactMap(Unicode.Scalar.init))) }
    static let eof = CSSToken(kind: .eof)
}

/// WebKit's CSSTokenizer: NUL and lone surrogates become U+FFFD, comments are dropped, no unicode-range tokens.
enum CSSTokenizer {
    static func tokenize(_ s: String) -> [CSSToken] {
        var t = Tokenizer(input: s.unicodeScalars.map { $0.value == 0 ? 0xFFFD : $0.value })
        return t.run()
    }

    static func isNewline(_ c: UInt32) -> Bool { c == 0x0A || c == 0x0C || c == 0x0D }
    static func isNameStart(_ c: UInt32) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c >= 0x80
    }
    static func isName(_ c: UInt32) -> Bool { isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D }
    static func isDigit(_ c: UInt32) -> Bool { c >= 0x30 && c <= 0x39 }
    static func isHex(_ c: UInt32) -> Bool { isDigit(c) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x66) }
    /// A backslash not followed by a newline; as in WebKit, a backslash at the very end counts (it yields U+FFFD).
    static func validEscape(_ a: UInt32, _ b: UInt32) -> Bool { a == 0x5C && !isNewline(b) }

    private struct Tokenizer {
        // WebKit reads past the end as NUL (kEndOfFileMarker); real NULs were replaced by U+FFFD, so 0 is unambiguous.
        static let endOfInput: UInt32 = 0
        let input: [UInt32]
        var i = 0
        var blockStack: [CSSTokenKind] = []

        func peek(_ k: Int = 0) -> UInt32 { i + k < input.count ? input[i + k] : Tokenizer.endOfInput }

        mutating func run() -> [CSSToken] {
            var out: [CSSToken] = []
            while i < input.count {
                if let t = next() { out.append(t) }
            }
            return out
        }

        mutating func blockStart(_ kind: CSSTokenKind, opening: CSSTokenKind? = nil, value: [UInt32] = []) -> CSSToken {
            blockStack.append(opening ?? kind)
            return CSSToken(kind: kind, value: value, block: .start)
        }

        mutating func blockEnd(_ kind: CSSTokenKind, _ opening: CSSTokenKind) -> CSSToken {
            if blockStack.last == opening {
                blockStack.removeLast()
                return CSSToken(kind: kind, block: .end)
            }
            return CSSToken(kind: kind)
        }

        func delim(_ c: UInt32) -> CSSToken { CSSToken(kind: .delim, delim: c) }

        /// Nil for comments.
        mutating func next() -> CSSToken? {
            let c = input[i]
            i += 1
            switch c {
            case 0x09, 0x20, 0x0A, 0x0C, 0x0D:
                while i < input.count, input[i] == 0x09 || input[i] == 0x20 || CSSTokenizer.isNewline(input[i]) { i += 1 }
                return CSSToken(kind: .whitespace)
            case 0x22, 0x27: return consumeString(until: c)
            case 0x23:  // #
                if CSSTokenizer.isName(peek()) || CSSTokenizer.validEscape(peek(), peek(1)) {
                    let isID = startsIdentifier(peek(), peek(1), peek(2))
                    return CSSToken(kind: isID ? .hashID : .hashUnrestricted, value: consumeName())
                }
                return delim(c)
            case 0x24: if peek() == 0x3D { i += 1; return CSSToken(kind: .suffixMatch) }; return delim(c)
            case 0x28: return blockStart(.leftParen)
            case 0x29: return blockEnd(.rightParen, .leftParen)
            case 0x2A: if peek() == 0x3D { i += 1; return CSSToken(kind: .substringMatch) }; return delim(c)
            case 0x2B, 0x2E:  // + .
                if startsNumber(c, peek(), peek(1)) { i -= 1; return consumeNumeric() }
                return delim(c)
            case 0x2C: return CSSToken(kind: .comma)
            case 0x2D:  // -
                if startsNumber(c, peek(), peek(1)) { i -= 1; return consumeNumeric() }
                if peek() == 0x2D, peek(1) == 0x3E { i += 2; return CSSToken(kind: .cdc) }
                if startsIdentifier(c, peek(), peek(1)) { i -= 1; return consumeIdentLike() }
                return delim(c)
            case 0x2F:  // /
                if peek() == 0x2A {
                    i += 1
                    while i < input.count {
                        if input[i] == 0x2A, i + 1 < input.count, input[i + 1] == 0x2F { i += 2; return nil }
                        i += 1
                    }
                    return nil
                }
                return delim(c)
            case 0x30...0x39: i -= 1; return consumeNumeric()
            case 0x3A: return CSSToken(kind: .colon)
            case 0x3B: return CSSToken(kind: .semicolon)
            case 0x3C:
                if peek() == 0x21, peek(1) == 0x2D, peek(2) == 0x2D { i += 3; return CSSToken(kind: .cdo) }
                return delim(c)
            case 0x40:
                if startsIdentifier(peek(), peek(1), peek(2)) { return CSSToken(kind: .atKeyword, value: consumeName()) }
                return delim(c)
            case 0x5B: return blockStart(.leftBracket)
            case 0x5C:
                if CSSTokenizer.validEscape(c, peek()) { i -= 1; return consumeIdentLike() }
                return delim(c)
            case 0x5D: return blockEnd(.rightBracket, .leftBracket)
            case 0x5E: if peek() == 0x3D { i += 1; return CSSToken(kind: .prefixMatch) }; return delim(c)
            case 0x7B: return blockStart(.leftBrace)
            case 0x7C:
                if peek() == 0x3D { i += 1; return CSSToken(kind: .dashMatch) }
                if peek() == 0x7C { i += 1; return CSSToken(kind: .column) }
                return delim(c)
            case 0x7D: return blockEnd(.rightBrace, .leftBrace)
            case 0x7E: if peek() == 0x3D { i += 1; return CSSToken(kind: .includeMatch) }; return delim(c)
            default:
                if CSSTokenizer.isNameStart(c) { i -= 1; return consumeIdentLike() }
                return delim(c)
            }
        }

        func startsNumber(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> Bool {
            if CSSTokenizer.isDigit(a) { return true }
            if a == 0x2B || a == 0x2D { return CSSTokenizer.isDigit(b) || (b == 0x2E && CSSTokenizer.isDigit(c)) }
            if a == 0x2E { return CSSTokenizer.isDigit(b) }
            return false
        }

        func startsIdentifier(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> Bool {
            if CSSTokenizer.isNameStart(a) || CSSTokenizer.validEscape(a, b) { return true }
            if a == 0x2D { return CSSTokenizer.isNameStart(b) || b == 0x2D || CSSTokenizer.validEscape(b, c) }
            return false
        }

        mutating func consumeName() -> [UInt32] {
            var out: [UInt32] = []
            while i < input.count {
                let c = input[i]
                if CSSTokenizer.isName(c) { out.append(c); i += 1; continue }
                if CSSTokenizer.validEscape(c, peek(1)) { i += 1; out.append(consumeEscape()); continue }
                break
            }
            return out
        }

        /// After the backslash.
        mutating func consumeEscape() -> UInt32 {
            guard i < input.count else { return 0xFFFD }
            let c = input[i]
            i += 1
            if CSSTokenizer.isHex(c) {
                var v: UInt32 = 0
                var n = 0
                var d = c
                while true {
                    v = v &* 16 &+ (CSSTokenizer.isDigit(d) ? d - 0x30 : (d | 0x20) - 0x61 + 10)
                    n += 1
                    guard n < 6, i < input.count, CSSTokenizer.isHex(input[i]) else { break }
                    d = input[i]
                    i += 1
                }
                if peek() == 0x0D, peek(1) == 0x0A { i += 2 } else if [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(peek()) { i += 1 }
                if v == 0 || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF { return 0xFFFD }
                return v
            }
            return c
        }

        mutating func consumeNumeric() -> CSSToken {
            var tok = CSSToken(kind: .number, isInteger: true)
            let start = i
            if peek() == 0x2B { tok.sign = .plus; i += 1 } else if peek() == 0x2D { tok.sign = .minus; i += 1 }
            while CSSTokenizer.isDigit(peek()) { i += 1 }
            if peek() == 0x2E, CSSTokenizer.isDigit(peek(1)) {
                tok.isInteger = false
                i += 1
                while CSSTokenizer.isDigit(peek()) { i += 1 }
            }
            if peek() == 0x45 || peek() == 0x65 {
                if CSSTokenizer.isDigit(peek(1)) {
                    tok.isInteger = false
                    i += 1
                    while CSSTokenizer.isDigit(peek()) { i += 1 }
                } else if (peek(1) == 0x2B || peek(1) == 0x2D), CSSTokenizer.isDigit(peek(2)) {
                    tok.isInteger = false
                    i += 2
                    while CSSTokenizer.isDigit(peek()) { i += 1 }
                }
            }
            let text = String(String.UnicodeScalarView(input[start..<i].compactMap(Unicode.Scalar.init)))
            tok.numberValue = Double(text) ?? 0
            if startsIdentifier(peek(), peek(1), peek(2)) {
                tok.kind = .dimension
                tok.value = consumeName()
            } else if peek() == 0x25 {
                i += 1
                tok.kind = .percentage
            }
            return tok
        }

        mutating func consumeIdentLike() -> CSSToken {
            let name = consumeName()
            if peek() == 0x28 {
                i += 1
                if name.count == 3, name.map({ $0 | 0x20 }) == [0x75, 0x72, 0x6C] {  // url(
                    while [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(peek()) { i += 1 }
                    if peek() != 0x22, peek() != 0x27 { return consumeURL() }
                }
                return blockStart(.function, opening: .leftParen, value: name)
            }
            return CSSToken(kind: .ident, value: name)
        }

        mutating func consumeString(until end: UInt32) -> CSSToken {
            var out: [UInt32] = []
            while true {
                guard i < input.count else { return CSSToken(kind: .string, value: out) }
                let c = input[i]
                i += 1
                if c == end { return CSSToken(kind: .string, value: out) }
                if CSSTokenizer.isNewline(c) { i -= 1; return CSSToken(kind: .badString) }
                if c == 0x5C {
                    if i >= input.count { continue }
                    if CSSTokenizer.isNewline(peek()) {
                        if peek() == 0x0D, peek(1) == 0x0A { i += 2 } else { i += 1 }
                    } else {
                        out.append(consumeEscape())
                    }
                } else {
                    out.append(c)
                }
            }
        }

        mutating func consumeURL() -> CSSToken {
            var out: [UInt32] = []
            while true {
                guard i < input.count else { return CSSToken(kind: .url, value: out) }
                let c = input[i]
                i += 1
                if c == 0x29 { return CSSToken(kind: .url, value: out) }
                if [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(c) {
                    while [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(peek()) { i += 1 }
                    if peek() == 0x29 { i += 1; return CSSToken(kind: .url, value: out) }
                    if i >= input.count { return CSSToken(kind: .url, value: out) }
                    break
                }
                if c == 0x22 || c == 0x27 || c == 0x28 || c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F { break }
                if c == 0x5C {
                    if CSSTokenizer.validEscape(c, peek()) { out.append(consumeEscape()); continue }
                    break
                }
                out.append(c)
            }
            // Remnants of a bad URL.
            while i < input.count {
                let c = input[i]
                i += 1
                if c == 0x29 { break }
                if CSSTokenizer.validEscape(c, peek()) { _ = consumeEscape() }
            }
            return CSSToken(kind: .badURL)
        }
    }
}

// MARK: token ranges (CSSParserTokenRange)

struct TokenRange {
    let tokens: [CSSToken]
    var start: Int
    var end: Int

    var atEnd: Bool { start >= end }
    func peek(_ k: Int = 0) -> CSSToken { start + k < end ? tokens[start + k] : .eof }
    @discardableResult mutating func consume() -> CSSToken {
        guard start < end else { return .eof }
        start += 1
        return tokens[start - 1]
    }
    @discardableResult mutating func consumeIncludingWhitespace() -> CSSToken {
        let t = consume()
        consumeWhitespace()
        return t
    }
    mutating func consumeWhitespace() {
        while start < end, tokens[start].kind == .whitespace { start += 1 }
    }
    /// The contents of the block that starts at the next token; the range moves past its end (or to the end).
    mutating func consumeBlock() -> TokenRange {
        let contentStart = start + 1
        var nesting = 0
        repeat {
            let t = consume()
            if t.block == .start { nesting += 1 } else if t.block == .end { nesting -= 1 }
        } while nesting > 0 && start < end
        return TokenRange(tokens: tokens, start: contentStart, end: nesting > 0 ? start : start - 1)
    }
}

// MARK: pseudo-class and pseudo-element tables (CSSPseudoSelectors.json, as enabled in WebKitGTK for content rules)

enum PseudoElementKind: Equatable {
    case before, after, marker, backdrop, firstLetter, firstLine, selection, grammarError, spellingError
    case highlight, part, slotted, cue, scrollbar, userAgentPart, userAgentPartLegacyAlias, webKitUnknown

    var isTreeAbiding: Bool { self == .before || self == .after || self == .marker || self == .backdrop }
    var requiresArgument: Bool { self == .highlight || self == .part || self == .slotted }
}

enum CSSPseudoTables {
    /// Pseudo-classes enabled for a bare (non-UA, default settings) parser context, name → argument
    /// ("" none, "required", "optional"). Disabled here: -internal-*, -apple-*, popover-open, active-view-transition*.
    static let pseudoClasses: [String: String] = {
        var t: [String: String] = [:]
        for name in ["active", "any-link", "-webkit-any-link", "autofill", "-webkit-autofill", "buffering", "checked",
                     "corner-present", "decrement", "default", "defined", "disabled", "double-button", "empty", "enabled",
                     "end", "first-child", "first-of-type", "focus", "focus-visible", "focus-within", "fullscreen",
                     "-webkit-full-screen", "future", "horizontal", "hover", "in-range", "increment", "indeterminate",
                     "invalid", "last-child", "last-of-type", "link", "modal", "muted", "no-button", "only-child",
                     "only-of-type", "optional", "out-of-range", "past", "paused", "placeholder-shown", "playing",
                     "read-only", "read-write", "required", "root", "scope", "seeking", "stalled", "single-button", "start",
                     "target", "user-invalid", "user-valid", "valid", "vertical", "visited", "volume-locked",
                     "window-inactive", "-webkit-autofill-and-obscured", "-webkit-autofill-strong-password",
                     "-webkit-autofill-strong-password-viewable", "-webkit-drag"] { t[name] = "" }
        for name in ["dir", "has", "is", "matches", "lang", "not", "nth-child", "nth-last-child", "nth-last-of-type",
                     "nth-of-type", "state", "where", "-webkit-any"] { t[name] = "required" }
        t["host"] = "optional"
        return t
    }()

    /// Single-colon forms that are pseudo-elements.
    static let compatibilityPseudoElements: [String: PseudoElementKind] = [
        "after": .after, "before": .before, "first-letter": .firstLetter, "first-line": .firstLine,
    ]

    static let userAgentParts: Set<String> = [
        "-webkit-caps-lock-indicator", "-webkit-color-swatch", "-webkit-color-swatch-wrapper",
        "-webkit-contacts-auto-fill-button", "-webkit-credentials-auto-fill-button", "-webkit-credit-card-auto-fill-button",
        "-webkit-date-and-time-value", "-webkit-datetime-edit", "-webkit-datetime-edit-day-field",
        "-webkit-datetime-edit-fields-wrapper", "-webkit-datetime-edit-hour-field", "-webkit-datetime-edit-meridiem-field",
        "-webkit-datetime-edit-millisecond-field", "-webkit-datetime-edit-minute-field", "-webkit-datetime-edit-month-field",
        "-webkit-datetime-edit-second-field", "-webkit-datetime-edit-text", "-webkit-datetime-edit-year-field",
        "-webkit-generic-cue-root", "-webkit-inner-spin-button", "-webkit-list-button", "-webkit-media-controls",
        "-webkit-media-text-track-container", "-webkit-media-text-track-display", "-webkit-media-text-track-display-backdrop",
        "-webkit-media-text-track-region", "-webkit-media-text-track-region-container", "-webkit-meter-bar",
        "-webkit-meter-even-less-good-value", "-webkit-meter-inner-element", "-webkit-meter-optimum-value",
        "-webkit-meter-suboptimum-value", "-webkit-progress-bar", "-webkit-progress-inner-element", "-webkit-progress-value",
        "-webkit-search-cancel-button", "-webkit-search-decoration", "-webkit-search-results-button",
        "-webkit-search-results-decoration", "-webkit-slider-container", "-webkit-slider-runnable-track",
        "-webkit-slider-thumb", "-webkit-strong-password-auto-fill-button", "-webkit-textfield-decoration-container",
        "-webkit-validation-bubble", "-webkit-validation-bubble-arrow", "-webkit-validation-bubble-arrow-clipper",
        "-webkit-validation-bubble-body", "-webkit-validation-bubble-heading", "-webkit-validation-bubble-icon",
        "-webkit-validation-bubble-message", "-webkit-validation-bubble-text-block", "details-content",
        "file-selector-button", "placeholder",
    ]
    static let userAgentPartAliases: Set<String> = ["-webkit-file-upload-button", "-webkit-input-placeholder"]
    static let scrollbarParts: Set<String> = [
        "-webkit-resizer", "-webkit-scrollbar", "-webkit-scrollbar-button", "-webkit-scrollbar-corner",
        "-webkit-scrollbar-thumb", "-webkit-scrollbar-track", "-webkit-scrollbar-track-piece",
    ]
    /// Known names that this context does not enable (so they are not "unknown -webkit-" either).
    static let disabledPseudoElements: Set<String> = [
        "-apple-attachment-controls-container", "-internal-loading-auto-fill-button", "-internal-writing-suggestions",
        "-internal-color-swatch-overlay", "-internal-cue-background", "target-text", "thumb", "track", "view-transition",
        "view-transition-group", "view-transition-image-pair", "view-transition-new", "view-transition-old",
    ]

    /// CSSSelector::parsePseudoElementName for `::name`.
    static func pseudoElement(_ lower: String) -> PseudoElementKind? {
        switch lower {
        case "before": return .before
        case "after": return .after
        case "marker": return .marker
        case "backdrop": return .backdrop
        case "first-letter": return .firstLetter
        case "first-line": return .firstLine
        case "selection": return .selection
        case "grammar-error": return .grammarError
        case "spelling-error": return .spellingError
        case "highlight": return .highlight
        case "part": return .part
        case "slotted": return .slotted
        case "cue": return .cue
        default: break
        }
        if scrollbarParts.contains(lower) { return .scrollbar }
        if userAgentParts.contains(lower) { return .userAgentPart }
        if userAgentPartAliases.contains(lower) { return .userAgentPartLegacyAlias }
        if disabledPseudoElements.contains(lower) || lower.isEmpty { return nil }
        if lower.hasPrefix("-webkit-") { return .webKitUnknown }
        return nil
    }

    static let scrollbarPseudoClasses: Set<String> = [
        "enabled", "disabled", "hover", "active", "horizontal", "vertical", "decrement", "increment", "start", "end",
        "double-button", "single-button", "no-button", "corner-present", "window-inactive",
    ]
    static let userActionPseudoClasses: Set<String> = ["hover", "focus", "active", "focus-visible", "focus-within"]
    static let logicalCombinationPseudoClasses: Set<String> = ["is", "matches", "where", "-webkit-any", "not", "has"]
    static let treeStructuralPseudoClasses: Set<String> = [
        "empty", "first-child", "first-of-type", "last-child", "last-of-type", "only-child", "only-of-type",
        "nth-child", "nth-of-type", "nth-last-child", "nth-last-of-type", "root",
    ]
}

// MARK: the selector parser (CSSSelectorParser), keeping only what decides validity

private enum SimpleSelector {
    case id, className, attribute, nesting, pseudoClass(String), pseudoElement(PseudoElementKind)
    var pseudoElementKind: PseudoElementKind? { if case .pseudoElement(let k) = self { return k } else { return nil } }
}

private struct CSSSelectorListParser {
    var failedParsing = false
    var disallowPseudoElements = false
    var disallowHasPseudoClass = false
    var precedingPseudoElement: PseudoElementKind? = nil
    var reason: String? = nil

    mutating func fail(_ why: String) {
        if reason == nil { reason = why }
    }

    /// Returns the number of selectors (0 = failure).
    mutating func consumeComplexSelectorList(_ range: inout TokenRange) -> Int {
        var count = 0
        guard consumeComplexSelector(&range) else { return 0 }
        count += 1
        while !range.atEnd, range.peek().kind == .comma {
            range.consumeIncludingWhitespace()
            guard consumeComplexSelector(&range) else { return 0 }
            count += 1
        }
        if failedParsing { return 0 }
        return count
    }

    mutating func consumeRelativeSelectorList(_ range: inout TokenRange) -> Int {
        var count = 0
        guard consumeRelativeScopeSelector(&range) else { return 0 }
        count += 1
        while !range.atEnd, range.peek().kind == .comma {
            range.consumeIncludingWhitespace()
            guard consumeRelativeScopeSelector(&range) else { return 0 }
            count += 1
        }
        if failedParsing { return 0 }
        return count
    }

    /// :is() / :where() / :-webkit-any(): bad entries become "unknown" entries instead of failing.
    mutating func consumeForgivingSelectorList(_ range: inout TokenRange) -> Int {
        if failedParsing { return 0 }
        var count = 0
        func one(_ p: inout CSSSelectorListParser, _ range: inout TokenRange) {
            var ok = p.consumeComplexSelector(&range)
            if p.failedParsing { ok = false; p.failedParsing = false }
            if (!range.atEnd && range.peek().kind != .comma) || !ok {
                while !range.atEnd, range.peek().kind != .comma { range.consume() }
            }
            count += 1  // either the selector or an unknown placeholder
        }
        one(&self, &range)
        while !range.atEnd, range.peek().kind == .comma {
            range.consumeIncludingWhitespace()
            one(&self, &range)
        }
        return count
    }

    mutating func consumeRelativeScopeSelector(_ range: inout TokenRange) -> Bool {
        _ = consumeCombinator(&range)
        return consumeComplexSelector(&range)
    }

    enum Combinator { case subselector, descendant, child, directAdjacent, indirectAdjacent }

    mutating func consumeCombinator(_ range: inout TokenRange) -> Combinator {
        var fallback = Combinator.subselector
        while range.peek().kind == .whitespace {
            range.consume()
            fallback = .descendant
        }
        let t = range.peek()
        guard t.kind == .delim else { return fallback }
        switch t.delim {
        case 0x2B: range.consumeIncludingWhitespace(); return .directAdjacent
        case 0x7E: range.consumeIncludingWhitespace(); return .indirectAdjacent
        case 0x3E: range.consumeIncludingWhitespace(); return .child
        default: return fallback
        }
    }

    mutating func consumeComplexSelector(_ range: inout TokenRange) -> Bool {
        guard var compound = consumeCompoundSelector(&range) else { return false }
        var previousHasPseudoElement = compound.contains { $0.pseudoElementKind != nil }
        while true {
            let combinator = consumeCombinator(&range)
            if combinator == .subselector { break }
            guard let next = consumeCompoundSelector(&range) else {
                if combinator == .descendant { return true }
                fail("a combinator must be followed by a selector")
                return false
            }
            if previousHasPseudoElement {
                fail("a pseudo-element must be in the last compound selector")
                return false
            }
            previousHasPseudoElement = next.contains { $0.pseudoElementKind != nil }
            compound = next
        }
        return true
    }

    /// Nil when there is no compound selector here (or it failed).
    mutating func consumeCompoundSelector(_ range: inout TokenRange) -> [SimpleSelector]? {
        var simples: [SimpleSelector] = []
        let name = consumeName(&range)
        var hasCompound = false
        if name == nil {
            guard let first = consumeSimpleSelector(&range) else { return nil }
            if let k = first.pseudoElementKind { precedingPseudoElement = k }
            simples.append(first)
            hasCompound = true
        }
        while let s = consumeSimpleSelector(&range) {
            if let k = s.pseudoElementKind { precedingPseudoElement = k }
            simples.append(s)
            hasCompound = true
        }
        if !disallowPseudoElements { precedingPseudoElement = nil }
        // Only "", "*" or no namespace prefix can resolve without a style sheet.
        if case .some(.some(let prefix)) = name, prefix != "", prefix != "*" {
            failedParsing = true
            fail("the namespace prefix \"\(prefix)\" cannot be resolved")
            return hasCompound ? simples : nil
        }
        return simples
    }

    /// consumeName: nil = no type selector; .some(prefix) = a type/universal selector with that namespace prefix
    /// (prefix nil = none given).
    mutating func consumeName(_ range: inout TokenRange) -> String??  {
        let first = range.peek()
        var name: String
        if first.kind == .ident {
            name = first.text
            range.consume()
        } else if first.kind == .delim, first.delim == 0x2A {
            name = "*"
            range.consume()
        } else if first.kind == .delim, first.delim == 0x7C {
            name = ""
        } else {
            return nil
        }
        let bar = range.peek()
        guard bar.kind == .delim, bar.delim == 0x7C else { return .some(nil) }
        let after = range.peek(1)
        if after.kind == .ident || (after.kind == .delim && after.delim == 0x2A) {
            range.consume()
            range.consume()
            return .some(.some(name))
        }
        return nil
    }

    mutating func consumeSimpleSelector(_ range: inout TokenRange) -> SimpleSelector? {
        let t = range.peek()
        var selector: SimpleSelector?
        switch t.kind {
        case .hashID: range.consume(); selector = .id
        case .hashUnrestricted: fail("\"#\(t.text)\" is not a valid id selector"); selector = nil
        case .delim where t.delim == 0x2E:
            range.consume()
            if range.peek().kind == .ident { range.consume(); selector = .className } else { fail("'.' must be followed by a class name") }
        case .delim where t.delim == 0x26: range.consume(); selector = .nesting
        case .leftBracket: selector = consumeAttribute(&range)
        case .colon: selector = consumePseudo(&range)
        default: return nil
        }
        guard let s = selector else {
            failedParsing = true
            return nil
        }
        if let preceding = precedingPseudoElement, !isValidAfterPseudoElement(s, preceding) {
            failedParsing = true
            fail("this cannot follow a pseudo-element")
        }
        return s
    }

    func isValidAfterPseudoElement(_ s: SimpleSelector, _ element: PseudoElementKind) -> Bool {
        if element == .part, let k = s.pseudoElementKind, k != .part { return true }
        if element == .slotted, let k = s.pseudoElementKind, k.isTreeAbiding { return true }
        guard case .pseudoClass(let pc) = s else { return false }
        if CSSPseudoTables.logicalCombinationPseudoClasses.contains(pc) { return true }
        switch element {
        case .part: return !CSSPseudoTables.treeStructuralPseudoClasses.contains(pc)
        case .slotted: return false
        case .scrollbar: return CSSPseudoTables.scrollbarPseudoClasses.contains(pc)
        case .selection: return pc == "window-inactive"
        case .userAgentPart, .userAgentPartLegacyAlias, .webKitUnknown: return CSSPseudoTables.userActionPseudoClasses.contains(pc)
        default: return false
        }
    }

    mutating func consumeAttribute(_ range: inout TokenRange) -> SimpleSelector? {
        var block = range.consumeBlock()
        block.consumeWhitespace()
        guard case .some(let prefix) = consumeName(&block) else { fail("an attribute selector needs a name"); return nil }
        if let p = prefix, p != "", p != "*" { fail("the namespace prefix \"\(p)\" cannot be resolved"); return nil }
        block.consumeWhitespace()
        if block.atEnd { return .attribute }
        let op = block.consumeIncludingWhitespace()
        switch op.kind {
        case .includeMatch, .dashMatch, .prefixMatch, .suffixMatch, .substringMatch: break
        case .delim where op.delim == 0x3D: break
        default:
            failedParsing = true
            fail("unknown attribute operator")
        }
        let value = block.consumeIncludingWhitespace()
        guard value.kind == .ident || value.kind == .string else { fail("an attribute value must be an identifier or a string"); return nil }
        if block.peek().kind == .ident {
            let flag = block.consumeIncludingWhitespace()
            if flag.text.lowercased() != "i" {
                failedParsing = true
                fail("unknown attribute flag \"\(flag.text)\"")
            }
        }
        if !block.atEnd { fail("unexpected tokens in an attribute selector"); return nil }
        return .attribute
    }

    mutating func consumePseudo(_ range: inout TokenRange) -> SimpleSelector? {
        range.consume()
        var colons = 1
        if range.peek().kind == .colon { range.consume(); colons = 2 }
        let token = range.peek()
        guard token.kind == .ident || token.kind == .function else { fail("':' must be followed by a name"); return nil }
        let name = asciiLowercase(token.text)
        var selector: SimpleSelector
        var argument = ""
        if colons == 1 {
            if let arg = CSSPseudoTables.pseudoClasses[name] {
                selector = .pseudoClass(name == "matches" ? "is" : name)
                argument = arg
            } else if let k = CSSPseudoTables.compatibilityPseudoElements[name] {
                selector = .pseudoElement(k)
            } else {
                fail("unknown or disabled pseudo-class :\(token.text)")
                return nil
            }
        } else {
            guard var k = CSSPseudoTables.pseudoElement(name) else { fail("unknown or disabled pseudo-element ::\(token.text)"); return nil }
            if k == .cue, token.kind == .ident { k = .userAgentPart }
            selector = .pseudoElement(k)
        }
        if selector.pseudoElementKind != nil, disallowPseudoElements {
            fail("pseudo-elements are not allowed inside functional pseudo-classes")
            return nil
        }
        let savedDisallow = disallowPseudoElements
        disallowPseudoElements = true
        defer { disallowPseudoElements = savedDisallow }

        if token.kind == .ident {
            range.consume()
            if let k = selector.pseudoElementKind, k.requiresArgument { fail("::\(name) needs an argument"); return nil }
            if argument == "required" { fail(":\(name) needs an argument"); return nil }
            return selector
        }
        var block = range.consumeBlock()
        block.consumeWhitespace()
        if case .pseudoClass(let pc) = selector {
            switch pc {
            case "not":
                let n = consumeComplexSelectorList(&block)
                if n < 1 || !block.atEnd { fail("invalid :not() argument"); return nil }
                return selector
            case "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type":
                guard consumeANPlusB(&block) else { fail("invalid An+B in :\(pc)()"); return nil }
                block.consumeWhitespace()
                if !block.atEnd {
                    if pc == "nth-of-type" || pc == "nth-last-of-type" { fail("unexpected tokens in :\(pc)()"); return nil }
                    guard block.peek().kind == .ident else { fail("expected 'of' in :\(pc)()"); return nil }
                    let of = block.consume()
                    guard asciiLowercase(of.text) == "of" else { fail("expected 'of' in :\(pc)()"); return nil }
                    block.consumeWhitespace()
                    let n = consumeComplexSelectorList(&block)
                    if n == 0 || !block.atEnd { fail("invalid selector list after 'of'"); return nil }
                }
                return selector
            case "lang":
                guard consumeLangList(&block), block.atEnd else { fail("invalid :lang() argument"); return nil }
                return selector
            case "is", "where", "-webkit-any":
                _ = consumeForgivingSelectorList(&block)
                if !block.atEnd { fail("invalid :\(pc)() argument"); return nil }
                return selector
            case "host":
                let inner = consumeCompoundSelector(&block)
                block.consumeWhitespace()
                if inner == nil || !block.atEnd { fail("invalid :host() argument"); return nil }
                return selector
            case "has":
                if disallowHasPseudoClass { fail(":has() cannot be nested"); return nil }
                let savedHas = disallowHasPseudoClass
                disallowHasPseudoClass = true
                defer { disallowHasPseudoClass = savedHas }
                let n = consumeRelativeSelectorList(&block)
                if n == 0 || !block.atEnd { fail("invalid :has() argument"); return nil }
                return selector
            case "dir", "state":
                let ident = block.consumeIncludingWhitespace()
                if ident.kind != .ident || !block.atEnd { fail("invalid :\(pc)() argument"); return nil }
                return selector
            default:
                fail(":\(pc) takes no argument")
                return nil
            }
        }
        switch selector.pseudoElementKind {
        case .cue?:
            guard consumeCompoundSelectorList(&block), block.atEnd else { fail("invalid ::cue() argument"); return nil }
            return selector
        case .highlight?:
            let ident = block.consumeIncludingWhitespace()
            if ident.kind != .ident || !block.atEnd { fail("invalid ::highlight() argument"); return nil }
            return selector
        case .part?:
            repeat {
                let ident = block.consumeIncludingWhitespace()
                if ident.kind != .ident { fail("invalid ::part() argument"); return nil }
            } while !block.atEnd
            return selector
        case .slotted?:
            let inner = consumeCompoundSelector(&block)
            block.consumeWhitespace()
            if inner == nil || !block.atEnd { fail("invalid ::slotted() argument"); return nil }
            return selector
        default:
            fail("::\(name) takes no argument")
            return nil
        }
    }

    mutating func consumeCompoundSelectorList(_ range: inout TokenRange) -> Bool {
        let first = consumeCompoundSelector(&range)
        range.consumeWhitespace()
        if first == nil { return false }
        while !range.atEnd, range.peek().kind == .comma {
            range.consumeIncludingWhitespace()
            let next = consumeCompoundSelector(&range)
            range.consumeWhitespace()
            if next == nil { return false }
        }
        return true
    }

    /// :lang(): identifiers or strings (not starting with "--"), comma-separated.
    func consumeLangList(_ range: inout TokenRange) -> Bool {
        func item(_ range: inout TokenRange) -> Bool {
            let t = range.consumeIncludingWhitespace()
            guard t.kind == .ident || t.kind == .string else { return false }
            return !(t.value.count >= 2 && t.value[0] == 0x2D && t.value[1] == 0x2D)
        }
        guard item(&range) else { return false }
        while !range.atEnd, range.peek().kind == .comma {
            range.consumeIncludingWhitespace()
            guard item(&range) else { return false }
        }
        return true
    }

    /// consumeANPlusB: <integer> | odd | even | [+]?n[-b] forms, as WebKit tokenizes them.
    func consumeANPlusB(_ range: inout TokenRange) -> Bool {
        let token = range.consume()
        if token.kind == .number, token.isInteger { return true }
        if token.kind == .ident {
            let v = asciiLowercase(token.text)
            if v == "odd" || v == "even" { return true }
        }
        var nString: [UInt32] = []
        if token.kind == .delim, token.delim == 0x2B, range.peek().kind == .ident {
            nString = range.consume().value
        } else if token.kind == .dimension, token.isInteger {
            nString = token.value
        } else if token.kind == .ident {
            nString = token.value.first == 0x2D ? Array(token.value.dropFirst()) : token.value
        }
        range.consumeWhitespace()
        guard let n0 = nString.first, n0 | 0x20 == 0x6E else { return false }
        if nString.count > 1, nString[1] != 0x2D { return false }
        if nString.count > 2 {
            // parseInteger<int>("-digits") with WTF's whitespace policy.
            let rest = String(String.UnicodeScalarView(nString[1...].compactMap(Unicode.Scalar.init)))
            return parseWTFInt(rest)
        }
        enum Sign { case none, plus, minus }
        var sign: Sign = nString.count == 1 ? .none : .minus
        if sign == .none, range.peek().kind == .delim {
            let d = range.consumeIncludingWhitespace().delim
            if d == 0x2B { sign = .plus } else if d == 0x2D { sign = .minus } else { return false }
        }
        if sign == .none, range.peek().kind != .number { return true }
        let b = range.consume()
        guard b.kind == .number, b.isInteger else { return false }
        if (b.sign == .none) == (sign == .none) { return false }
        return true
    }

    func parseWTFInt(_ s: String) -> Bool {
        var u = Array(s.unicodeScalars.map(\.value))[...]
        let ws: Set<UInt32> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        while let f = u.first, ws.contains(f) { u = u.dropFirst() }
        var negative = false
        if u.first == 0x2D { negative = true; u = u.dropFirst() } else if u.first == 0x2B { u = u.dropFirst() }
        guard let f = u.first, CSSTokenizer.isDigit(f) else { return false }
        var v: Int64 = 0
        while let d = u.first, CSSTokenizer.isDigit(d) {
            v = v * 10 + Int64(d - 0x30)
            if v > Int64(Int32.max) + (negative ? 1 : 0) { return false }
            u = u.dropFirst()
        }
        while let f = u.first, ws.contains(f) { u = u.dropFirst() }
        return u.isEmpty
    }

    func asciiLowercase(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value >= 0x41 && $0.value <= 0x5A ? Unicode.Scalar($0.value + 0x20)! : $0 }))
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
