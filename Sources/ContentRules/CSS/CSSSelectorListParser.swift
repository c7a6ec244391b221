// WebKit's CSSSelectorParser, keeping only what decides validity.

enum SimpleSelector {
    case id, className, attribute, nesting, pseudoClass(String), pseudoElement(PseudoElementKind)
    var pseudoElementKind: PseudoElementKind? { if case .pseudoElement(let k) = self { return k } else { return nil } }
}

struct CSSSelectorListParser {
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
            count += 1 // either the selector or an unknown placeholder
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
    mutating func consumeName(_ range: inout TokenRange) -> String?? {
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
            if range.peek().kind == .ident {
                range.consume(); selector = .className
            } else {
                fail("'.' must be followed by a class name")
            }
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
        case .userAgentPart, .userAgentPartLegacyAlias, .webKitUnknown:
            return CSSPseudoTables.userActionPseudoClasses.contains(pc)
        default: return false
        }
    }

    mutating func consumeAttribute(_ range: inout TokenRange) -> SimpleSelector? {
        var block = range.consumeBlock()
        block.consumeWhitespace()
        guard case .some(let prefix) = consumeName(&block) else {
            fail("an attribute selector needs a name"); return nil
        }
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
        guard value.kind == .ident || value.kind == .string else {
            fail("an attribute value must be an identifier or a string"); return nil
        }
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
        guard token.kind == .ident || token.kind == .function else {
            fail("':' must be followed by a name"); return nil
        }
        let name = WHATWGHost.lowercased(token.text)
        guard let (selector, argument) = lookUpPseudo(name, token: token, colons: colons) else { return nil }
        if selector.pseudoElementKind != nil, disallowPseudoElements {
            fail("pseudo-elements are not allowed inside functional pseudo-classes")
            return nil
        }
        let savedDisallow = disallowPseudoElements
        disallowPseudoElements = true
        defer { disallowPseudoElements = savedDisallow }

        if token.kind == .ident {
            range.consume()
            if let k = selector.pseudoElementKind, k.requiresArgument {
                fail("::\(name) needs an argument"); return nil
            }
            if argument == "required" { fail(":\(name) needs an argument"); return nil }
            return selector
        }
        var block = range.consumeBlock()
        block.consumeWhitespace()
        if case .pseudoClass(let pc) = selector {
            return consumePseudoClassArgument(pc, &block) ? selector : nil
        }
        return consumePseudoElementArgument(selector.pseudoElementKind, name: name, &block) ? selector : nil
    }

    /// The selector a pseudo-class (one colon) or pseudo-element (two) name makes, with the pseudo-class's
    /// argument requirement from the table; nil (after `fail`) for an unknown or disabled name.
    mutating func lookUpPseudo(_ name: String, token: CSSToken, colons: Int) -> (SimpleSelector, String)? {
        if colons == 1 {
            if let arg = CSSPseudoTables.pseudoClasses[name] {
                return (.pseudoClass(name == "matches" ? "is" : name), arg)
            } else if let k = CSSPseudoTables.compatibilityPseudoElements[name] {
                return (.pseudoElement(k), "")
            }
            fail("unknown or disabled pseudo-class :\(token.text)")
            return nil
        }
        guard var k = CSSPseudoTables.pseudoElement(name) else {
            fail("unknown or disabled pseudo-element ::\(token.text)")
            return nil
        }
        if k == .cue, token.kind == .ident { k = .userAgentPart }
        return (.pseudoElement(k), "")
    }

    /// The argument block of a functional pseudo-class; false after `fail`.
    mutating func consumePseudoClassArgument(_ pc: String, _ block: inout TokenRange) -> Bool {
        switch pc {
        case "not":
            let n = consumeComplexSelectorList(&block)
            if n < 1 || !block.atEnd { fail("invalid :not() argument"); return false }
        case "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type":
            return consumeNthArgument(pc, &block)
        case "lang":
            guard consumeLangList(&block), block.atEnd else { fail("invalid :lang() argument"); return false }
        case "is", "where", "-webkit-any":
            _ = consumeForgivingSelectorList(&block)
            if !block.atEnd { fail("invalid :\(pc)() argument"); return false }
        case "host":
            let inner = consumeCompoundSelector(&block)
            block.consumeWhitespace()
            if inner == nil || !block.atEnd { fail("invalid :host() argument"); return false }
        case "has":
            if disallowHasPseudoClass { fail(":has() cannot be nested"); return false }
            let savedHas = disallowHasPseudoClass
            disallowHasPseudoClass = true
            defer { disallowHasPseudoClass = savedHas }
            let n = consumeRelativeSelectorList(&block)
            if n == 0 || !block.atEnd { fail("invalid :has() argument"); return false }
        case "dir", "state":
            let ident = block.consumeIncludingWhitespace()
            if ident.kind != .ident || !block.atEnd { fail("invalid :\(pc)() argument"); return false }
        default:
            fail(":\(pc) takes no argument")
            return false
        }
        return true
    }

    /// An+B, then (for :nth-child and :nth-last-child) an optional `of` selector list; false after `fail`.
    mutating func consumeNthArgument(_ pc: String, _ block: inout TokenRange) -> Bool {
        guard consumeANPlusB(&block) else { fail("invalid An+B in :\(pc)()"); return false }
        block.consumeWhitespace()
        if block.atEnd { return true }
        if pc == "nth-of-type" || pc == "nth-last-of-type" { fail("unexpected tokens in :\(pc)()"); return false }
        guard block.peek().kind == .ident else { fail("expected 'of' in :\(pc)()"); return false }
        let of = block.consume()
        guard WHATWGHost.lowercased(of.text) == "of" else { fail("expected 'of' in :\(pc)()"); return false }
        block.consumeWhitespace()
        let n = consumeComplexSelectorList(&block)
        if n == 0 || !block.atEnd { fail("invalid selector list after 'of'"); return false }
        return true
    }

    /// The argument block of a functional pseudo-element; false after `fail`.
    mutating func consumePseudoElementArgument(
        _ kind: PseudoElementKind?, name: String,
        _ block: inout TokenRange
    ) -> Bool {
        switch kind {
        case .cue?:
            guard consumeCompoundSelectorList(&block), block.atEnd else {
                fail("invalid ::cue() argument"); return false
            }
        case .highlight?:
            let ident = block.consumeIncludingWhitespace()
            if ident.kind != .ident || !block.atEnd { fail("invalid ::highlight() argument"); return false }
        case .part?:
            repeat {
                let ident = block.consumeIncludingWhitespace()
                if ident.kind != .ident { fail("invalid ::part() argument"); return false }
            } while !block.atEnd
        case .slotted?:
            let inner = consumeCompoundSelector(&block)
            block.consumeWhitespace()
            if inner == nil || !block.atEnd { fail("invalid ::slotted() argument"); return false }
        default:
            fail("::\(name) takes no argument")
            return false
        }
        return true
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
            let v = WHATWGHost.lowercased(token.text)
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
}
