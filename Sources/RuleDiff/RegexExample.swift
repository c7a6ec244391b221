// RegexExample: an example URL part for a TDS rule regex, for the derived request corpus (RequestCorpus).

/// A string that a TDS rule regex (JavaScript syntax) matches, built by taking the shortest path through it:
/// optional and starred parts are left out, `+` repeats once, classes give their first member, the first
/// alternative is taken. Returns nil for patterns it cannot read.
public enum RegexExample {
    public static func string(matching pattern: String) -> String? {
        var chars = Array(pattern.unicodeScalars)
        var i = 0
        guard let s = sequence(&chars, &i, depth: 0), i == chars.count else { return nil }
        return s
    }

    private static func sequence(_ c: inout [Unicode.Scalar], _ i: inout Int, depth: Int) -> String? {
        guard depth < 50 else { return nil }
        var out = ""
        while i < c.count {
            let ch = c[i]
            if ch == ")" { break }
            if ch == "|" {
                skipOtherAlternatives(c, &i)
                break
            }
            if ch == "^" || ch == "$" {
                i += 1
                continue
            }
            guard let atom = atom(&c, &i, depth: depth), let repeated = quantified(atom, c, &i) else { return nil }
            out += repeated
        }
        return out
    }

    /// Keeps the first alternative: skips the rest of this group level, up to its `)` or the end.
    private static func skipOtherAlternatives(_ c: [Unicode.Scalar], _ i: inout Int) {
        i += 1
        var nesting = 0
        while i < c.count {
            if c[i] == "\\" { i += 2; continue }
            if c[i] == "(" { nesting += 1 }
            if c[i] == ")" { if nesting == 0 { break }; nesting -= 1 }
            i += 1
        }
    }

    /// The example of the atom at `i`: a group, a class, an escape, `.` or a literal character.
    private static func atom(_ c: inout [Unicode.Scalar], _ i: inout Int, depth: Int) -> String? {
        let ch = c[i]
        switch ch {
        case "(":
            i += 1
            if i + 1 < c.count, c[i] == "?" {
                if c[i + 1] == ":" { i += 2 } else { return nil } // lookarounds are not examples
            }
            guard let inner = sequence(&c, &i, depth: depth + 1), i < c.count, c[i] == ")" else { return nil }
            i += 1
            return inner
        case "[":
            i += 1
            return classMember(&c, &i)
        case "\\":
            guard i + 1 < c.count else { return nil }
            let e = c[i + 1]
            i += 2
            switch e {
            case "d": return "1"
            case "w": return "a"
            case "s": return " "
            case "D", "W", "S", "b", "B": return e == "b" || e == "B" ? "" : "-"
            default: return String(e)
            }
        case ".":
            i += 1
            return "a"
        default:
            i += 1
            return String(ch)
        }
    }

    /// `atom` under the quantifier at `i`, if any: left out for `*` and `?`, once for `+`, n times (at most
    /// 20) for `{n}` and `{n,...}`.
    private static func quantified(_ atom: String, _ c: [Unicode.Scalar], _ i: inout Int) -> String? {
        guard i < c.count else { return atom }
        var atom = atom
        switch c[i] {
        case "*", "?":
            atom = ""
            i += 1
        case "+":
            i += 1
        case "{":
            var j = i + 1
            var digits = ""
            while j < c.count, c[j].properties.numericType != nil { digits.unicodeScalars.append(c[j]); j += 1 }
            if j < c.count, c[j] == "," || c[j] == "}", let n = Int(digits) {
                while j < c.count, c[j] != "}" { j += 1 }
                guard j < c.count else { return nil }
                atom = String(repeating: atom, count: min(n, 20))
                i = j + 1
            }
        default: break
        }
        if i < c.count, c[i] == "?" { i += 1 } // lazy
        return atom
    }

    private static func classMember(_ c: inout [Unicode.Scalar], _ i: inout Int) -> String? {
        var negated = false
        if i < c.count, c[i] == "^" { negated = true; i += 1 }
        var members: [Unicode.Scalar] = []
        var first = true
        while i < c.count, c[i] != "]" || first {
            first = false
            var ch = c[i]
            if ch == "\\", i + 1 < c.count {
                let e = c[i + 1]
                ch = e == "d" ? "1" : e == "w" ? "a" : e
                i += 2
            } else {
                i += 1
            }
            if i + 1 < c.count, c[i] == "-", c[i + 1] != "]" {
                let hi = c[i + 1]
                i += 2
                if ch.value <= hi.value {
                    for v in ch.value...min(hi.value, ch.value + 64) {
                        if let s = Unicode.Scalar(v) { members.append(s) }
                    }
                }
            } else {
                members.append(ch)
            }
        }
        guard i < c.count else { return nil }
        i += 1
        if negated {
            for candidate in "a1-_x".unicodeScalars where !members.contains(candidate) { return String(candidate) }
            return nil
        }
        return members.first.map { String($0) }
    }
}
