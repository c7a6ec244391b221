// JSRegexParser: reads a JavaScript regular expression (legacy syntax, Annex B) into its syntax tree (JSRegex.swift),
// with JavaScript's syntax errors: the one reader of TDS regexes.

struct JSRegexParser {
    private let s: [Unicode.Scalar]
    private var i = 0
    /// Capturing groups decide whether \N is a back-reference (Annex B: otherwise an octal escape).
    private let totalGroups: Int

    static func parse(_ pattern: String) throws -> JSRegex {
        var p = JSRegexParser(pattern)
        let node = try p.parseDisjunction()
        if p.i < p.s.count { throw JSRegexSyntaxError(message: "unmatched \")\"", offset: p.i) }
        return node
    }

    private init(_ pattern: String) {
        s = Array(pattern.unicodeScalars)
        totalGroups = Self.capturingGroups(s)
    }

    /// `(` and `(?<name>`, outside classes and escapes.
    private static func capturingGroups(_ cs: [Unicode.Scalar]) -> Int {
        var n = 0, k = 0, inClass = false
        while k < cs.count {
            let c = cs[k]
            if c == "\\" { k += 2; continue }
            if inClass {
                if c == "]" { inClass = false }
            } else if c == "[" {
                inClass = true
            } else if c == "(" {
                if k + 1 < cs.count, cs[k + 1] == "?" {
                    if k + 2 < cs.count, cs[k + 2] == "<", k + 3 < cs.count, cs[k + 3] != "=", cs[k + 3] != "!" {
                        n += 1
                    }
                } else {
                    n += 1
                }
            }
            k += 1
        }
        return n
    }

    private func peek(_ o: Int = 0) -> Unicode.Scalar? { i + o < s.count ? s[i + o] : nil }

    private mutating func parseDisjunction() throws -> JSRegex {
        var alternatives = [try parseAlternative()]
        while peek() == "|" {
            i += 1
            alternatives.append(try parseAlternative())
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func parseAlternative() throws -> JSRegex {
        var terms: [JSRegex] = []
        while let c = peek(), c != "|", c != ")" {
            let start = i
            var atom = try parseAtom()
            if let (lo, hi) = try parseQuantifier() {
                guard Self.isQuantifiable(atom) else {
                    throw JSRegexSyntaxError(message: "nothing to repeat", offset: start)
                }
                atom = .repetition(atom, min: lo, max: hi)
            }
            terms.append(atom)
        }
        return terms.count == 1 ? terms[0] : .concat(terms)
    }

    /// Assertions cannot be repeated, except lookaheads (Annex B).
    private static func isQuantifiable(_ atom: JSRegex) -> Bool {
        switch atom {
        case .startAnchor, .endAnchor, .wordBoundary, .lookbehind: return false
        default: return true
        }
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally lazy; a `{` that is not a quantifier is a literal
    /// (Annex B).
    private mutating func parseQuantifier() throws -> (Int, Int?)? {
        guard let c = peek() else { return nil }
        var result: (Int, Int?)
        switch c {
        case "*": result = (0, nil); i += 1
        case "+": result = (1, nil); i += 1
        case "?": result = (0, 1); i += 1
        case "{":
            guard let braces = try parseBraces() else { return nil }
            result = braces
        default: return nil
        }
        if peek() == "?" { i += 1 } // laziness does not change what matches
        return result
    }

    /// At `{`: the bounds of `{n}`, `{n,}` or `{n,m}` (consumed), or nil when it is not a quantifier.
    private mutating func parseBraces() throws -> (Int, Int?)? {
        var j = i + 1
        func number() -> Int? {
            var v = 0, any = false
            while j < s.count, let d = Int(String(s[j])), ("0"..."9").contains(s[j]) {
                v = min(v * 10 + d, 1_000_000); any = true; j += 1
            }
            return any ? v : nil
        }
        guard let lo = number() else { return nil }
        var hi: Int? = lo
        if j < s.count, s[j] == "," {
            j += 1
            hi = number()
        }
        guard j < s.count, s[j] == "}" else { return nil }
        if let h = hi, h < lo {
            throw JSRegexSyntaxError(message: "numbers out of order in {} quantifier", offset: i)
        }
        i = j + 1
        return (lo, hi)
    }

    private mutating func parseAtom() throws -> JSRegex {
        let c = s[i]
        switch c {
        case "^": i += 1; return .startAnchor
        case "$": i += 1; return .endAnchor
        case ".": i += 1; return .dot
        case "(": return try parseGroup()
        case ")": throw JSRegexSyntaxError(message: "unmatched \")\"", offset: i)
        case "[": return try parseClass()
        case "*", "+", "?": throw JSRegexSyntaxError(message: "nothing to repeat", offset: i)
        case "{":
            // Annex B: a literal unless it forms a quantifier, which would have nothing to repeat here.
            let save = i
            if (try? parseQuantifier()) ?? nil != nil {
                throw JSRegexSyntaxError(message: "nothing to repeat", offset: save)
            }
            i = save + 1
            return .character(c.value)
        case "\\": return try parseEscape()
        default:
            i += 1
            return .character(c.value)
        }
    }

    /// At `(`: a group, or a lookaround assertion.
    private mutating func parseGroup() throws -> JSRegex {
        i += 1
        if peek() == "?" {
            switch peek(1) {
            case ":": i += 2
            case "=", "!":
                let negated = peek(1) == "!"
                i += 2
                let inner = try parseDisjunction()
                try expect(")")
                return .lookahead(inner, negated: negated)
            case "<" where peek(2) == "=" || peek(2) == "!":
                let negated = peek(2) == "!"
                i += 3
                let inner = try parseDisjunction()
                try expect(")")
                return .lookbehind(inner, negated: negated)
            case "<":
                i += 2
                while let n = peek(), n != ">" { i += 1 }
                try expect(">")
            default:
                throw JSRegexSyntaxError(message: "invalid group", offset: i)
            }
        }
        let inner = try parseDisjunction()
        try expect(")")
        return .group(inner)
    }

    private mutating func expect(_ c: Unicode.Scalar) throws {
        guard peek() == c else { throw JSRegexSyntaxError(message: "expected \"\(c)\"", offset: i) }
        i += 1
    }

    private mutating func parseEscape() throws -> JSRegex {
        i += 1
        guard let c = peek() else { throw JSRegexSyntaxError(message: "\\ at end of pattern", offset: i - 1) }
        switch c {
        case "b": i += 1; return .wordBoundary(negated: false)
        case "B": i += 1; return .wordBoundary(negated: true)
        case "d", "D", "w", "W", "s", "S":
            i += 1
            return .classEscape(Self.classEscape(c))
        case "1"..."9":
            // A back-reference when that many groups exist, else (Annex B) an octal or identity escape.
            var j = i, v = 0
            while j < s.count, ("0"..."9").contains(s[j]) { v = min(v * 10 + Int(s[j].value - 48), 100_000); j += 1 }
            if v <= totalGroups { i = j; return .backReference(v) }
            return .character(octalOrIdentity())
        case "k" where totalGroups > 0 && s.contains("<"):
            i += 1
            if peek() == "<" { while let n = peek(), n != ">" { i += 1 }; i += 1 }
            return .namedBackReference
        default:
            return .character(try characterEscape())
        }
    }

    private static func classEscape(_ c: Unicode.Scalar) -> JSClassEscape {
        switch c {
        case "d": return .digit
        case "D": return .notDigit
        case "w": return .word
        case "W": return .notWord
        case "s": return .space
        default: return .notSpace
        }
    }

    /// `\0`, octal escapes, and identity escapes of digits 8 and 9 (Annex B).
    private mutating func octalOrIdentity() -> UInt32 {
        let c = s[i]
        if c == "8" || c == "9" { i += 1; return c.value }
        var v: UInt32 = 0, n = 0
        while n < 3, let d = peek(), ("0"..."7").contains(d), v * 8 + (d.value - 48) <= 255 {
            v = v * 8 + (d.value - 48); i += 1; n += 1
        }
        return v
    }

    /// The escapes that stand for one character (outside and inside classes). `i` is after the backslash.
    private mutating func characterEscape() throws -> UInt32 {
        let c = s[i]
        i += 1
        switch c {
        case "n": return 0x0A
        case "r": return 0x0D
        case "t": return 0x09
        case "f": return 0x0C
        case "v": return 0x0B
        case "0" where !(peek().map { ("0"..."9").contains($0) } ?? false): return 0
        case "0"..."7": i -= 1; return octalOrIdentity()
        case "c":
            if let l = peek(), l.isASCII, ("a"..."z").contains(l) || ("A"..."Z").contains(l) {
                i += 1; return l.value % 32
            }
            i -= 1 // Annex B: "\c" followed by a non-letter is a backslash then "c"
            return 0x5C
        case "x":
            if let a = peek().flatMap(hexValue), let b = peek(1).flatMap(hexValue) { i += 2; return a * 16 + b }
            return c.value
        case "u":
            if i + 3 < s.count, let a = hexValue(s[i]), let b = hexValue(s[i + 1]), let d = hexValue(s[i + 2]),
                let e = hexValue(s[i + 3])
            {
                i += 4
                return ((a * 16 + b) * 16 + d) * 16 + e
            }
            return c.value
        default:
            return c.value // identity escape
        }
    }

    private func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": return c.value - 48
        case "a"..."f": return c.value - 87
        case "A"..."F": return c.value - 55
        default: return nil
        }
    }

    private mutating func parseClass() throws -> JSRegex {
        let start = i
        i += 1
        var negated = false
        if peek() == "^" { negated = true; i += 1 }
        var members: [JSCharacterClass.Member] = []
        while true {
            guard let c = peek() else {
                throw JSRegexSyntaxError(message: "unterminated character class", offset: start)
            }
            if c == "]" { i += 1; break }
            let a = try classAtom(start: start)
            guard case .character(let lo) = a else { members.append(a); continue }
            guard peek() == "-", let n = peek(1), n != "]" else { members.append(a); continue }
            let save = i
            i += 1
            let b = try classAtom(start: start)
            guard case .character(let hi) = b else {
                // Annex B: `[a-\d]` is a, -, and the class.
                members += [a, .character(0x2D), b]
                continue
            }
            guard hi >= lo else {
                throw JSRegexSyntaxError(message: "range out of order in character class", offset: save)
            }
            members.append(.range(lo, hi))
        }
        return .characterClass(JSCharacterClass(negated: negated, members: members))
    }

    /// One member of a class: a character or a predefined class.
    private mutating func classAtom(start: Int) throws -> JSCharacterClass.Member {
        guard let c = peek() else { throw JSRegexSyntaxError(message: "unterminated character class", offset: start) }
        i += 1
        guard c == "\\" else { return .character(c.value) }
        guard let e = peek() else { throw JSRegexSyntaxError(message: "\\ at end of pattern", offset: i - 1) }
        switch e {
        case "d", "D", "w", "W", "s", "S": i += 1; return .classEscape(Self.classEscape(e))
        case "b": i += 1; return .character(0x08)
        case "-": i += 1; return .character(0x2D)
        case "1"..."9": return .character(octalOrIdentity())
        default: return .character(try characterEscape())
        }
    }
}
