// A parser for the JavaScript regular expressions that TDS rules and allowlist entries are written in
// (legacy, non-unicode syntax with the Annex B extensions, as `new RegExp(rule, "i")` reads them), into a small
// syntax tree that the translator (RegexTranslator.swift) rewrites into WebKit's url-filter subset.
//
// Characters are ASCII bytes; anything else is kept as a non-ASCII literal (which no canonical URL contains).

struct ASCIISet: Hashable {
    var low: UInt64 = 0 // 0...63
    var high: UInt64 = 0 // 64...127

    static let all = ASCIISet(low: ~0, high: ~0)
    /// What `.` matches in JavaScript, restricted to ASCII: everything but \n and \r.
    static let dot: ASCIISet = {
        var s = ASCIISet.all; s.remove(0x0A); s.remove(0x0D); return s
    }()

    init(low: UInt64 = 0, high: UInt64 = 0) { self.low = low; self.high = high }
    init(_ bytes: [UInt8]) { for b in bytes { insert(b) } }
    init(range: ClosedRange<UInt8>) { for b in range { insert(b) } }

    func contains(_ b: UInt8) -> Bool {
        b < 64 ? (low >> UInt64(b)) & 1 != 0 : b < 128 ? (high >> UInt64(b - 64)) & 1 != 0 : false
    }
    mutating func insert(_ b: UInt8) {
        if b < 64 { low |= 1 << UInt64(b) } else if b < 128 { high |= 1 << UInt64(b - 64) }
    }
    mutating func remove(_ b: UInt8) {
        if b < 64 { low &= ~(1 << UInt64(b)) } else if b < 128 { high &= ~(1 << UInt64(b - 64)) }
    }
    mutating func formUnion(_ o: ASCIISet) { low |= o.low; high |= o.high }
    var inverted: ASCIISet { ASCIISet(low: ~low, high: ~high) }
    var isEmpty: Bool { low == 0 && high == 0 }
    var count: Int { low.nonzeroBitCount + high.nonzeroBitCount }
    var members: [UInt8] {
        var out: [UInt8] = []
        var l = low, h = high
        while l != 0 { out.append(UInt8(l.trailingZeroBitCount)); l &= l - 1 }
        while h != 0 { out.append(UInt8(64 + h.trailingZeroBitCount)); h &= h - 1 }
        return out
    }

    static let digits = ASCIISet(range: UInt8(ascii: "0")...UInt8(ascii: "9"))
    static let word: ASCIISet = {
        var s = ASCIISet(range: UInt8(ascii: "a")...UInt8(ascii: "z"))
        s.formUnion(ASCIISet(range: UInt8(ascii: "A")...UInt8(ascii: "Z")))
        s.formUnion(digits)
        s.insert(UInt8(ascii: "_"))
        return s
    }()
    /// JavaScript `\s` restricted to ASCII (the other members are non-ASCII and never in a canonical URL).
    static let space = ASCIISet([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20])
}

indirect enum RegexNode: Hashable {
    /// One character out of a set (a literal is a one-member set; `literal` keeps its spelling for output).
    case set(ASCIISet, literal: UInt8?)
    /// A character outside ASCII: never present in a canonical URL.
    case nonASCII(Unicode.Scalar)
    case startAnchor
    case endAnchor
    /// Something WebKit cannot express at all (lookaround, back-reference, word boundary), with the reason.
    case unsupported(String)
    case concat([RegexNode])
    case alternation([RegexNode])
    case group(RegexNode)
    case repetition(RegexNode, min: Int, max: Int?)

    static let empty = RegexNode.concat([])
}

struct RegexSyntaxError: Error, CustomStringConvertible {
    let message: String
    let offset: Int
    var description: String { "\(message) at offset \(offset)" }
}

struct JSRegexParser {
    private let s: [Unicode.Scalar]
    private var i = 0
    private var groupCount = 0
    private let totalGroups: Int

    static func parse(_ pattern: String) throws -> RegexNode {
        var p = JSRegexParser(pattern)
        let node = try p.parseDisjunction()
        if p.i < p.s.count { throw RegexSyntaxError(message: "unmatched \")\"", offset: p.i) }
        return node
    }

    private init(_ pattern: String) {
        s = Array(pattern.unicodeScalars)
        // Capturing groups decide whether \N is a back-reference (Annex B: otherwise an octal escape).
        var n = 0, k = 0, inClass = false
        let cs = Array(pattern.unicodeScalars)
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
        totalGroups = n
    }

    private var atEnd: Bool { i >= s.count }
    private func peek(_ o: Int = 0) -> Unicode.Scalar? { i + o < s.count ? s[i + o] : nil }

    private mutating func parseDisjunction() throws -> RegexNode {
        var alternatives = [try parseAlternative()]
        while peek() == "|" {
            i += 1
            alternatives.append(try parseAlternative())
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func parseAlternative() throws -> RegexNode {
        var terms: [RegexNode] = []
        while let c = peek(), c != "|", c != ")" {
            let start = i
            var atom = try parseAtom()
            var quantifiable = true
            switch atom {
            case .startAnchor, .endAnchor: quantifiable = false
            case .unsupported(let r) where r.hasPrefix("word boundary") || r.hasPrefix("lookbehind"):
                quantifiable = false
            default: break
            }
            if let (lo, hi) = try parseQuantifier() {
                guard quantifiable else { throw RegexSyntaxError(message: "nothing to repeat", offset: start) }
                if case .unsupported = atom {} else { atom = .repetition(atom, min: lo, max: hi) }
            }
            terms.append(atom)
        }
        return terms.count == 1 ? terms[0] : .concat(terms)
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
                throw RegexSyntaxError(message: "numbers out of order in {} quantifier", offset: i)
            }
            i = j + 1
            result = (lo, hi)
        default: return nil
        }
        if peek() == "?" { i += 1 } // laziness does not change what matches
        return result
    }

    private mutating func parseAtom() throws -> RegexNode {
        let c = s[i]
        switch c {
        case "^": i += 1; return .startAnchor
        case "$": i += 1; return .endAnchor
        case ".": i += 1; return .set(.dot, literal: nil)
        case "(":
            i += 1
            if peek() == "?" {
                switch peek(1) {
                case ":": i += 2
                case "=", "!":
                    i += 2
                    _ = try parseDisjunction()
                    try expect(")")
                    return .unsupported("lookahead assertion")
                case "<" where peek(2) == "=" || peek(2) == "!":
                    i += 3
                    _ = try parseDisjunction()
                    try expect(")")
                    return .unsupported("lookbehind assertion")
                case "<":
                    i += 2
                    while let n = peek(), n != ">" { i += 1 }
                    try expect(">")
                    groupCount += 1
                default:
                    throw RegexSyntaxError(message: "invalid group", offset: i)
                }
            } else {
                groupCount += 1
            }
            let inner = try parseDisjunction()
            try expect(")")
            return .group(inner)
        case ")": throw RegexSyntaxError(message: "unmatched \")\"", offset: i)
        case "[": return try parseClass()
        case "*", "+", "?": throw RegexSyntaxError(message: "nothing to repeat", offset: i)
        case "{":
            // Annex B: a literal unless it forms a quantifier, which would have nothing to repeat here.
            let save = i
            if (try? parseQuantifier()) ?? nil != nil {
                throw RegexSyntaxError(message: "nothing to repeat", offset: save)
            }
            i = save + 1
            return literal(c)
        case "\\": return try parseEscape()
        default:
            i += 1
            return literal(c)
        }
    }

    private mutating func expect(_ c: Unicode.Scalar) throws {
        guard peek() == c else { throw RegexSyntaxError(message: "expected \"\(c)\"", offset: i) }
        i += 1
    }

    private func literal(_ c: Unicode.Scalar) -> RegexNode {
        guard c.isASCII else { return .nonASCII(c) }
        let b = UInt8(c.value)
        return .set(ASCIISet([b]), literal: b)
    }

    private mutating func parseEscape() throws -> RegexNode {
        i += 1
        guard let c = peek() else { throw RegexSyntaxError(message: "\\ at end of pattern", offset: i - 1) }
        switch c {
        case "b": i += 1; return .unsupported("word boundary \\b")
        case "B": i += 1; return .unsupported("word boundary \\B")
        case "d", "D", "w", "W", "s", "S":
            i += 1
            return .set(classEscape(c), literal: nil)
        case "1"..."9":
            // A back-reference when that many groups exist, else (Annex B) an octal or identity escape.
            var j = i, v = 0
            while j < s.count, ("0"..."9").contains(s[j]) { v = min(v * 10 + Int(s[j].value - 48), 100_000); j += 1 }
            if v <= totalGroups { i = j; return .unsupported("back-reference \\\(v)") }
            return literalByte(octalOrIdentity())
        case "k" where totalGroups > 0 && s.contains("<"):
            i += 1
            if peek() == "<" { while let n = peek(), n != ">" { i += 1 }; i += 1 }
            return .unsupported("named back-reference")
        default:
            return literalByte(try characterEscape())
        }
    }

    private func classEscape(_ c: Unicode.Scalar) -> ASCIISet {
        switch c {
        case "d": return .digits
        case "D": return ASCIISet.digits.inverted
        case "w": return .word
        case "W": return ASCIISet.word.inverted
        case "s": return .space
        default: return ASCIISet.space.inverted
        }
    }

    private func literalByte(_ v: UInt32) -> RegexNode {
        v < 128 ? .set(ASCIISet([UInt8(v)]), literal: UInt8(v)) : .nonASCII(Unicode.Scalar(v) ?? "\u{FFFD}")
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

    private mutating func parseClass() throws -> RegexNode {
        let start = i
        i += 1
        var negated = false
        if peek() == "^" { negated = true; i += 1 }
        var set = ASCIISet()
        // Elements: a single character (UInt32) or a predefined class.
        func element() throws -> (UInt32?, ASCIISet?) {
            guard let c = peek() else { throw RegexSyntaxError(message: "unterminated character class", offset: start) }
            if c == "\\" {
                i += 1
                guard let e = peek() else { throw RegexSyntaxError(message: "\\ at end of pattern", offset: i - 1) }
                switch e {
                case "d", "D", "w", "W", "s", "S": i += 1; return (nil, classEscape(e))
                case "b": i += 1; return (0x08, nil)
                case "-": i += 1; return (0x2D, nil)
                case "1"..."9": return (octalOrIdentity(), nil)
                default: return (try characterEscape(), nil)
                }
            }
            i += 1
            return (c.value, nil)
        }
        while true {
            guard let c = peek() else { throw RegexSyntaxError(message: "unterminated character class", offset: start) }
            if c == "]" { i += 1; break }
            let (a, aSet) = try element()
            if let aSet { set.formUnion(aSet); continue }
            let lo = a!
            var hi = lo
            if peek() == "-", let n = peek(1), n != "]" {
                let save = i
                i += 1
                let (b, bSet) = try element()
                if let b {
                    guard b >= lo else {
                        throw RegexSyntaxError(message: "range out of order in character class", offset: save)
                    }
                    hi = b
                } else {
                    // Annex B: `[a-\d]` is a, -, and the class.
                    set.insert(UInt8(truncatingIfNeeded: min(lo, 127)))
                    set.insert(0x2D)
                    set.formUnion(bSet!)
                    continue
                }
            }
            // Non-ASCII members can never match a canonical (ASCII) URL.
            if lo < 128 { for v in lo...min(hi, 127) { set.insert(UInt8(v)) } }
        }
        return .set(negated ? set.inverted : set, literal: nil)
    }
}
