// WebKit's CSSTokenizer, as far as selector validity needs it.

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
    var value: [UInt32] = [] // ident/function/hash/string/url text, or the unit of a dimension
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
                while i < input.count, input[i] == 0x09 || input[i] == 0x20 || CSSTokenizer.isNewline(input[i]) {
                    i += 1
                }
                return CSSToken(kind: .whitespace)
            case 0x22, 0x27: return consumeString(until: c)
            case 0x23: // #
                if CSSTokenizer.isName(peek()) || CSSTokenizer.validEscape(peek(), peek(1)) {
                    let isID = startsIdentifier(peek(), peek(1), peek(2))
                    return CSSToken(kind: isID ? .hashID : .hashUnrestricted, value: consumeName())
                }
                return delim(c)
            case 0x24: if peek() == 0x3D { i += 1; return CSSToken(kind: .suffixMatch) }; return delim(c)
            case 0x28: return blockStart(.leftParen)
            case 0x29: return blockEnd(.rightParen, .leftParen)
            case 0x2A: if peek() == 0x3D { i += 1; return CSSToken(kind: .substringMatch) }; return delim(c)
            case 0x2B, 0x2E: // + .
                if startsNumber(c, peek(), peek(1)) { i -= 1; return consumeNumeric() }
                return delim(c)
            case 0x2C: return CSSToken(kind: .comma)
            case 0x2D: // -
                if startsNumber(c, peek(), peek(1)) { i -= 1; return consumeNumeric() }
                if peek() == 0x2D, peek(1) == 0x3E { i += 2; return CSSToken(kind: .cdc) }
                if startsIdentifier(c, peek(), peek(1)) { i -= 1; return consumeIdentLike() }
                return delim(c)
            case 0x2F: // /
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
                if startsIdentifier(peek(), peek(1), peek(2)) {
                    return CSSToken(kind: .atKeyword, value: consumeName())
                }
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
                if peek() == 0x0D, peek(1) == 0x0A {
                    i += 2
                } else if [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(peek()) {
                    i += 1
                }
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
                if name.count == 3, name.map({ $0 | 0x20 }) == [0x75, 0x72, 0x6C] { // url(
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
                if c == 0x22 || c == 0x27 || c == 0x28 || c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1F)
                    || c == 0x7F
                {
                    break
                }
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
