// YarrSyntax: the syntax checker in front of WebKit's url-filter parser (URLFilterParser.swift). It follows
// JavaScriptCore's YARR parser in legacy (non-unicode, Annex B) mode with backReferenceLimit 0 and named forward
// references disallowed, and drives the PatternDelegate with YARR's callbacks, as WebCore's URLFilterParser does;
// any YARR syntax error gives .yarrError and wins over everything the delegate found.

struct YarrSyntax {
    enum TokenType { case notAtom, atom, lookbehind }
    enum ParenType { case subpattern, assertion, lookbehind }
    enum ClassState {
        case empty, cachedCharacter, cachedCharacterHyphen, afterCharacterClass, afterCharacterClassHyphen
    }

    static let errorCodePoint = UInt32.max

    let data: [UInt8]
    var index = 0
    var error = false
    var parenthesesStack: [ParenType] = []
    var kIdentityEscapeSeen = false
    // Named capture groups (YARR's NamedCaptureGroups).
    var captureGroupNames = Set<String>()
    var nestedNames: [Set<String>] = [[]]
    var activeNames: [Set<String>] = [[]]

    init(_ data: [UInt8]) { self.data = data }

    var atEnd: Bool { index >= data.count }
    func peek() -> UInt32 { UInt32(data[index]) }
    mutating func consume() -> UInt32 { let c = UInt32(data[index]); index += 1; return c }
    mutating func tryConsume(_ c: UInt8) -> Bool {
        if !atEnd && data[index] == c { index += 1; return true }
        return false
    }
    var peekIsDigit: Bool { !atEnd && data[index] >= 48 && data[index] <= 57 }

    static func isHex(_ c: UInt32) -> Bool { (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) }
    static func hexValue(_ c: UInt32) -> UInt32 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
    static func isAlpha(_ c: UInt32) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }
    static func isDigit(_ c: UInt32) -> Bool { c >= 48 && c <= 57 }

    /// Returns false on a YARR syntax error.
    mutating func parse(_ d: inout PatternDelegate) -> Bool {
        if data.count > URLFilterParser.maximumPatternSize { return false }
        parseTokens(&d)
        if error { return false }
        // handleIllegalReferences: backReferenceLimit 0 and no forward references leave only this check.
        if kIdentityEscapeSeen && !captureGroupNames.isEmpty { return false }
        return true
    }

    mutating func parseTokens(_ d: inout PatternDelegate) {
        var last = TokenType.notAtom
        while !atEnd {
            switch data[index] {
            case UInt8(ascii: "|"):
                parseDisjunction(&d)
                last = .notAtom
            case UInt8(ascii: "("):
                parseParenthesesBegin(&d)
                last = .notAtom
            case UInt8(ascii: ")"):
                last = parseParenthesesEnd(&d)
            case UInt8(ascii: "^"):
                index += 1
                d.assertionBOL()
                last = .notAtom
            case UInt8(ascii: "$"):
                index += 1
                d.assertionEOL()
                last = .notAtom
            case UInt8(ascii: "."):
                index += 1
                d.atomBuiltInCharacterClass(isDot: true)
                last = .atom
            case UInt8(ascii: "["):
                parseCharacterClass(&d)
                last = .atom
            case UInt8(ascii: "\\"):
                last = parseEscape(&d, inClass: nil)
            case UInt8(ascii: "*"):
                index += 1
                parseQuantifier(&d, last, 0, UInt32.max)
                last = .notAtom
            case UInt8(ascii: "+"):
                index += 1
                parseQuantifier(&d, last, 1, UInt32.max)
                last = .notAtom
            case UInt8(ascii: "?"):
                index += 1
                parseQuantifier(&d, last, 0, 1)
                last = .notAtom
            case UInt8(ascii: "{"):
                last = parseBraceQuantifier(&d, last)
            default:
                d.atomPatternCharacter(consume())
                last = .atom
            }
            if error { return }
        }
        if !parenthesesStack.isEmpty { error = true } // MissingParentheses
    }

    /// `|`: a new alternative; the names captured in the one before it stay known to the enclosing group.
    mutating func parseDisjunction(_ d: inout PatternDelegate) {
        index += 1
        d.disjunction()
        nestedNames[nestedNames.count - 1].formUnion(activeNames[activeNames.count - 1])
        activeNames[activeNames.count - 1] = []
        if activeNames.count > 1 { activeNames[activeNames.count - 1].formUnion(activeNames[activeNames.count - 2]) }
    }

    /// At `{`: a `{min}`, `{min,}` or `{min,max}` quantifier, or else a literal `{`. The type of the last term.
    mutating func parseBraceQuantifier(_ d: inout PatternDelegate, _ last: TokenType) -> TokenType {
        let state = index
        index += 1
        if peekIsDigit {
            let min = consumeNumber64()
            var max = min
            if tryConsume(UInt8(ascii: ",")) { max = peekIsDigit ? consumeNumber64() : UInt64.max }
            if tryConsume(UInt8(ascii: "}")) {
                if min == UInt64.max {
                    error = true // QuantifierTooLarge
                } else if min <= max {
                    parseQuantifier(
                        &d, last, UInt32(Swift.min(min, UInt64(UInt32.max))), UInt32(Swift.min(max, UInt64(UInt32.max)))
                    )
                } else {
                    error = true // QuantifierOutOfOrder
                }
                return .notAtom
            }
        }
        index = state
        d.atomPatternCharacter(consume())
        return .atom
    }

    mutating func consumeNumber64() -> UInt64 {
        var n: UInt64 = 0
        var overflow = false
        while peekIsDigit {
            let digit = UInt64(consume() - 48)
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(digit)
            if o1 || o2 { overflow = true }
            n = s
        }
        return overflow ? UInt64.max : n
    }

    mutating func consumeOctal(_ count: Int) -> UInt32 {
        var octal: UInt32 = 0
        var remaining = count
        while remaining > 0 && octal < 32 && !atEnd && data[index] >= 48 && data[index] <= 55 {
            octal = octal * 8 + (consume() - 48)
            remaining -= 1
        }
        return octal
    }

    mutating func tryConsumeHex(_ count: Int) -> UInt32 {
        let state = index
        var n: UInt32 = 0
        for _ in 0..<count {
            if atEnd || !YarrSyntax.isHex(peek()) {
                index = state
                return YarrSyntax.errorCodePoint
            }
            n = (n << 4) | YarrSyntax.hexValue(consume())
        }
        return n
    }

    mutating func parseQuantifier(_ d: inout PatternDelegate, _ last: TokenType, _ min: UInt32, _ max: UInt32) {
        switch last {
        case .atom:
            _ = tryConsume(UInt8(ascii: "?")) // lazy: ignored
            d.quantifyAtom(min: min, max: max)
        case .lookbehind, .notAtom:
            error = true // CantQuantifyAtom / QuantifierWithoutAtom
        }
    }

    // MARK: escapes

    /// Escape handling shared by atoms (inClass == nil) and classes (inClass != nil: the class delegate state).
    @discardableResult
    mutating func parseEscape(_ d: inout PatternDelegate, inClass cls: UnsafeMutablePointer<ClassBuilder>?) -> TokenType
    {
        index += 1 // '\'
        if atEnd { error = true; return .notAtom } // EscapeUnterminated
        func emit(_ c: UInt32, _ d: inout PatternDelegate) { Self.emitCharacter(c, cls, &d) }
        func builtin(_ d: inout PatternDelegate) {
            if let cls { cls.pointee.atomBuiltInCharacterClass(&d) } else { d.atomBuiltInCharacterClass(isDot: false) }
        }
        let c = peek()
        switch c {
        case UInt32(UInt8(ascii: "b")):
            index += 1
            if cls != nil { emit(8, &d) } else { d.assertionWordBoundary(); return .notAtom }
        case UInt32(UInt8(ascii: "B")):
            index += 1
            if cls != nil { emit(c, &d) } else { d.assertionWordBoundary(); return .notAtom }
        case UInt32(UInt8(ascii: "d")), UInt32(UInt8(ascii: "s")), UInt32(UInt8(ascii: "w")),
            UInt32(UInt8(ascii: "D")), UInt32(UInt8(ascii: "S")), UInt32(UInt8(ascii: "W")):
            index += 1
            builtin(&d)
        case UInt32(UInt8(ascii: "0")):
            index += 1
            if !peekIsDigit { emit(0, &d) } else { emit(consumeOctal(2), &d) }
        case 49...57: // 1-9: never a back-reference (limit 0): octal for 1-7, the digit itself for 8 and 9
            emit(c < 56 ? consumeOctal(3) : consume(), &d)
        case UInt32(UInt8(ascii: "f")): index += 1; emit(12, &d)
        case UInt32(UInt8(ascii: "n")): index += 1; emit(10, &d)
        case UInt32(UInt8(ascii: "r")): index += 1; emit(13, &d)
        case UInt32(UInt8(ascii: "t")): index += 1; emit(9, &d)
        case UInt32(UInt8(ascii: "v")): index += 1; emit(11, &d)
        case UInt32(UInt8(ascii: "c")):
            parseControlEscape(&d, inClass: cls)
        case UInt32(UInt8(ascii: "x")):
            index += 1
            let x = tryConsumeHex(2)
            emit(x == YarrSyntax.errorCodePoint ? c : x, &d)
        case UInt32(UInt8(ascii: "k")):
            parseNamedBackReference(&d, inClass: cls)
        case UInt32(UInt8(ascii: "u")):
            index += 1 // tryConsume('u')
            var codePoint = YarrSyntax.errorCodePoint
            if !atEnd { codePoint = tryConsumeHex(4) }
            emit(codePoint == YarrSyntax.errorCodePoint ? c : codePoint, &d)
        default:
            // Identity escape (everything in legacy mode, including p, P, q, k handled above).
            emit(consume(), &d)
        }
        return .atom
    }

    /// A character of an escape, as an atom or as a member of the class being built.
    static func emitCharacter(_ c: UInt32, _ cls: UnsafeMutablePointer<ClassBuilder>?, _ d: inout PatternDelegate) {
        if let cls { cls.pointee.atomPatternCharacter(c, hyphenIsRange: false, &d) } else { d.atomPatternCharacter(c) }
    }

    /// At the `c` of `\c`: a control letter (in a class also a digit or `_`) gives its low five bits; anything
    /// else leaves a literal backslash, with the `c` still to be read.
    mutating func parseControlEscape(_ d: inout PatternDelegate, inClass cls: UnsafeMutablePointer<ClassBuilder>?) {
        let state = index
        index += 1
        if !atEnd {
            let control = consume()
            if YarrSyntax.isAlpha(control)
                || (cls != nil && (YarrSyntax.isDigit(control) || control == UInt32(UInt8(ascii: "_"))))
            {
                Self.emitCharacter(control & 0x1f, cls, &d)
                return
            }
        }
        index = state
        Self.emitCharacter(UInt32(UInt8(ascii: "\\")), cls, &d)
    }

    /// At the `k` of `\k`: outside a class, `<name>` of a known group is a named back-reference; anything else
    /// is an identity escape of `k`.
    mutating func parseNamedBackReference(_ d: inout PatternDelegate, inClass cls: UnsafeMutablePointer<ClassBuilder>?)
    {
        index += 1
        let state = index
        if cls == nil && tryConsume(UInt8(ascii: "<")) {
            let name = tryConsumeGroupName()
            if error { return }
            if let name, captureGroupNames.contains(name) {
                d.atomNamedBackReference()
                return
            }
        }
        index = state
        Self.emitCharacter(UInt32(UInt8(ascii: "k")), cls, &d)
        kIdentityEscapeSeen = true
    }

    // MARK: classes

    struct ClassBuilder {
        var state = ClassState.empty
        var character: UInt32 = 0
        var error = false

        mutating func atomPatternCharacter(_ ch: UInt32, hyphenIsRange: Bool, _ d: inout PatternDelegate) {
            switch state {
            case .afterCharacterClass:
                if hyphenIsRange && ch == UInt32(UInt8(ascii: "-")) {
                    d.atomCharacterClassAtom(ch)
                    state = .afterCharacterClassHyphen
                    return
                }
                character = ch
                state = .cachedCharacter
            case .empty:
                character = ch
                state = .cachedCharacter
            case .cachedCharacter:
                if hyphenIsRange && ch == UInt32(UInt8(ascii: "-")) {
                    state = .cachedCharacterHyphen
                } else {
                    d.atomCharacterClassAtom(character)
                    character = ch
                }
            case .cachedCharacterHyphen:
                if ch < character { error = true; return } // CharacterClassRangeOutOfOrder
                d.atomCharacterClassRange(character, ch)
                state = .empty
            case .afterCharacterClassHyphen:
                d.atomCharacterClassAtom(ch)
                state = .empty
            }
        }

        mutating func atomBuiltInCharacterClass(_ d: inout PatternDelegate) {
            switch state {
            case .cachedCharacter:
                d.atomCharacterClassAtom(character)
                d.atomCharacterClassBuiltIn()
                state = .afterCharacterClass
            case .empty, .afterCharacterClass:
                d.atomCharacterClassBuiltIn()
                state = .afterCharacterClass
            case .cachedCharacterHyphen:
                d.atomCharacterClassAtom(character)
                d.atomCharacterClassAtom(UInt32(UInt8(ascii: "-")))
                d.atomCharacterClassBuiltIn()
                state = .empty
            case .afterCharacterClassHyphen:
                d.atomCharacterClassBuiltIn()
                state = .empty
            }
        }

        mutating func end(_ d: inout PatternDelegate) {
            if state == .cachedCharacter {
                d.atomCharacterClassAtom(character)
            } else if state == .cachedCharacterHyphen {
                d.atomCharacterClassAtom(character)
                d.atomCharacterClassAtom(UInt32(UInt8(ascii: "-")))
            }
        }
    }

    mutating func parseCharacterClass(_ d: inout PatternDelegate) {
        index += 1 // '['
        var builder = ClassBuilder()
        d.atomCharacterClassBegin(inverted: tryConsume(UInt8(ascii: "^")))
        while !atEnd {
            switch data[index] {
            case UInt8(ascii: "]"):
                index += 1
                builder.end(&d)
                return
            case UInt8(ascii: "\\"):
                withUnsafeMutablePointer(to: &builder) { p in
                    _ = parseEscape(&d, inClass: p)
                }
            default:
                builder.atomPatternCharacter(consume(), hyphenIsRange: true, &d)
            }
            if builder.error { error = true }
            if error { return }
        }
        error = true // CharacterClassUnmatched
    }

    // MARK: parentheses

    mutating func parseParenthesesBegin(_ d: inout PatternDelegate) {
        index += 1 // '('
        var type = ParenType.subpattern
        if tryConsume(UInt8(ascii: "?")) {
            if atEnd { error = true; return } // ParenthesesTypeInvalid
            switch data[index] {
            case UInt8(ascii: ":"):
                index += 1
                d.atomParenthesesSubpatternBegin()
            case UInt8(ascii: "="), UInt8(ascii: "!"):
                index += 1
                d.atomParentheticalAssertionBegin()
                type = .assertion
            case UInt8(ascii: "<"):
                index += 1
                let name = tryConsumeGroupName()
                if error { break }
                if let name {
                    if kIdentityEscapeSeen { error = true; break } // InvalidNamedBackReference
                    captureGroupNames.insert(name)
                    if activeNames[activeNames.count - 1].insert(name).inserted {
                        d.atomParenthesesSubpatternBegin()
                    } else {
                        error = true // DuplicateGroupName
                    }
                } else if tryConsume(UInt8(ascii: "=")) || tryConsume(UInt8(ascii: "!")) {
                    d.atomParentheticalAssertionBegin()
                    type = .lookbehind
                } else {
                    error = true // InvalidGroupName
                }
            case UInt8(ascii: "-"), UInt8(ascii: "i"), UInt8(ascii: "m"), UInt8(ascii: "s"):
                var set = Set<UInt8>(), unset = Set<UInt8>()
                var negated = false
                while !atEnd {
                    let c = data[index]
                    index += 1
                    if c == UInt8(ascii: ":") { break }
                    switch c {
                    case UInt8(ascii: "-"):
                        if negated { error = true }
                        negated = true
                    case UInt8(ascii: "i"), UInt8(ascii: "m"), UInt8(ascii: "s"):
                        if negated {
                            if !unset.insert(c).inserted { error = true }
                        } else {
                            if !set.insert(c).inserted { error = true }
                        }
                    default:
                        error = true // ParenthesesTypeInvalid
                    }
                }
                if error { break }
                if !set.isDisjoint(with: unset) || (set.isEmpty && unset.isEmpty) { error = true }
                d.atomParentheticalModifierBegin()
            default:
                error = true // ParenthesesTypeInvalid
            }
        } else {
            d.atomParenthesesSubpatternBegin()
        }
        parenthesesStack.append(type)
        let top = activeNames[activeNames.count - 1]
        nestedNames.append([])
        activeNames.append(top)
    }

    mutating func parseParenthesesEnd(_ d: inout PatternDelegate) -> TokenType {
        index += 1 // ')'
        guard let type = parenthesesStack.popLast() else { error = true; return .notAtom } // ParenthesesUnmatched
        d.atomParenthesesEnd()
        let active = activeNames.removeLast()
        var nested = nestedNames.removeLast()
        nested.formUnion(active)
        activeNames[activeNames.count - 1].formUnion(nested)
        return type == .lookbehind ? .lookbehind : .atom
    }

    // MARK: group names

    mutating func tryConsumeGroupNameUnicodeEscape() -> UInt32 {
        // GroupName context: `\u{...}` and surrogate pairs allowed; any malformation is an error.
        if !tryConsume(UInt8(ascii: "u")) || atEnd { error = true; return YarrSyntax.errorCodePoint }
        if tryConsume(UInt8(ascii: "{")) {
            var codePoint: UInt32 = 0
            repeat {
                if atEnd || !YarrSyntax.isHex(peek()) { error = true; return YarrSyntax.errorCodePoint }
                codePoint = (codePoint << 4) | YarrSyntax.hexValue(consume())
                if codePoint > 0x10FFFF { error = true; return YarrSyntax.errorCodePoint }
            } while !atEnd && peek() != UInt32(UInt8(ascii: "}"))
            if !tryConsume(UInt8(ascii: "}")) { error = true; return YarrSyntax.errorCodePoint }
            return codePoint
        }
        let unit = tryConsumeHex(4)
        if unit == YarrSyntax.errorCodePoint { error = true; return unit }
        if unit >= 0xD800 && unit <= 0xDBFF && data.count - index >= 6 && peek() == UInt32(UInt8(ascii: "\\")) {
            let state = index
            index += 1
            if tryConsume(UInt8(ascii: "u")) {
                let trail = tryConsumeHex(4)
                if trail >= 0xDC00 && trail <= 0xDFFF {
                    return 0x10000 + ((unit - 0xD800) << 10) + (trail - 0xDC00)
                }
            }
            index = state
        }
        return unit
    }

    mutating func tryConsumeIdentifierCharacter() -> UInt32 {
        if tryConsume(UInt8(ascii: "\\")) { return tryConsumeGroupNameUnicodeEscape() }
        return consume()
    }

    static func isIdentifierStart(_ c: UInt32) -> Bool {
        if c < 128 { return isAlpha(c) || c == 95 || c == 36 }
        guard let s = Unicode.Scalar(c) else { return false }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    static func isIdentifierPart(_ c: UInt32) -> Bool {
        if c < 128 { return isAlpha(c) || c == 95 || c == 36 || isDigit(c) }
        if c == 0x200C || c == 0x200D { return true }
        guard let s = Unicode.Scalar(c) else { return false }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation:
            return true
        default: return false
        }
    }

    mutating func tryConsumeGroupName() -> String? {
        if atEnd { return nil }
        let state = index
        var ch = tryConsumeIdentifierCharacter()
        if error { return nil }
        if YarrSyntax.isIdentifierStart(ch) {
            var name = String(Unicode.Scalar(ch).map(Character.init) ?? "?")
            while !atEnd {
                ch = tryConsumeIdentifierCharacter()
                if error { return nil }
                if ch == UInt32(UInt8(ascii: ">")) { return name }
                if !YarrSyntax.isIdentifierPart(ch) { break }
                if let s = Unicode.Scalar(ch) { name.unicodeScalars.append(s) }
            }
        }
        index = state
        return nil
    }
}
