// The quirks-mode rewrite of css-display-none selectors: `#Id` -> `[id="Id"]`, `.Class` -> `[class~="Class"]` for
// the ID and class selectors that hold an upper-case letter.
//
// Why: in WebKit a content rule list's ID or class selector with an upper-case letter hides nothing on a page
// without a doctype (quirks mode), while attribute selectors hide in both modes (specs/webkit-content-rules.md,
// fact 12). In a standards-mode page the two forms select the same elements (`~=` splits at white space as HTML's
// class attribute does), so the rewrite changes nothing there. In quirks mode the attribute form matches the ID or
// class as written, case-sensitively, where CSS would match it in any case (docs/filter-lists.md, "Cosmetic
// filters"). All-lower-case names are left as written: WebKit hides them in both modes.
//
// The scan follows CSS's tokens: nothing inside quotes or `[...]` is touched, and inside parentheses only those of
// the pseudo-classes that take selectors (`:not()`, `:is()`, `:has()`, ...); an escape (`\41`, `\.`) is part of the
// name and means the same inside a quoted attribute value, so the name is copied as written.

public enum QuirksModeSelectors {
    /// The selector with every mixed-case ID and class selector in its attribute form.
    public static func rewrite(_ selector: String) -> String {
        // Only a name with a letter A-Z is rewritten: without one anywhere, the selector is its own rewrite.
        guard selector.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return selector
        }
        let s = Array(selector.unicodeScalars)
        guard s.contains(where: { $0 == "#" || $0 == "." }) else { return selector }
        var out = String.UnicodeScalarView()
        var scanner = Scanner(scalars: s)
        while let piece = scanner.next() {
            switch piece {
            case .text(let range): out.append(contentsOf: s[range])
            case .name(let marker, let range):
                let name = String(String.UnicodeScalarView(s[range]))
                if name.unicodeScalars.contains(where: { ("A"..."Z").contains($0) }) {
                    out.append(contentsOf: (marker == "#" ? "[id=\"" : "[class~=\"").unicodeScalars)
                    out.append(contentsOf: name.unicodeScalars)
                    out.append(contentsOf: "\"]".unicodeScalars)
                } else {
                    out.append(marker)
                    out.append(contentsOf: s[range])
                }
            }
        }
        return String(out)
    }

    /// Pseudo-classes whose argument is a selector list, where `#` and `.` are ID and class selectors again.
    static let selectorArguments: Set<String> = [
        "not", "is", "where", "has", "matches", "-webkit-any", "any", "nth-child", "nth-last-child", "host",
        "host-context",
    ]

    enum Piece {
        /// Copied as written.
        case text(Range<Int>)
        /// An ID (`#`) or class (`.`) selector's name, without its marker.
        case name(Unicode.Scalar, Range<Int>)
    }

    /// Cuts a selector into names of ID and class selectors and the text between them.
    struct Scanner {
        let scalars: [Unicode.Scalar]
        var i = 0
        /// For each open parenthesis: whether its content is a selector list.
        var parentheses: [Bool] = []
        var bracketDepth = 0

        init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var inSelector: Bool { bracketDepth == 0 && parentheses.allSatisfy { $0 } }

        mutating func next() -> Piece? {
            guard i < scalars.count else { return nil }
            let start = i
            let c = scalars[i]
            if (c == "#" || c == ".") && inSelector, i + 1 < scalars.count, startsName(at: i + 1) {
                i += 1
                let nameStart = i
                skipName()
                return .name(c, nameStart..<i)
            }
            switch c {
            case "\"", "'": skipString(quote: c)
            case "\\": i = min(i + 2, scalars.count)
            case "[":
                bracketDepth += 1
                i += 1
            case "]":
                bracketDepth = max(0, bracketDepth - 1)
                i += 1
            case "(":
                parentheses.append(QuirksModeSelectors.selectorArguments.contains(pseudoClassName(before: i)))
                i += 1
            case ")":
                _ = parentheses.popLast()
                i += 1
            default:
                i += 1
                // A plain run of text goes out in one piece.
                while i < scalars.count, !"#.\"'\\[]()".unicodeScalars.contains(scalars[i]) { i += 1 }
            }
            return .text(start..<i)
        }

        func isNameScalar(_ c: Unicode.Scalar) -> Bool {
            c.value >= 0x80 || c == "_" || c == "-" || ("a"..."z").contains(c) || ("A"..."Z").contains(c)
                || ("0"..."9").contains(c)
        }

        /// CSS's "would start an identifier" at `j` (a name never starts with a digit, nor `-` then a digit).
        func startsName(at j: Int) -> Bool {
            let c = scalars[j]
            if c == "\\" { return j + 1 < scalars.count && scalars[j + 1] != "\n" }
            if c == "-" {
                guard j + 1 < scalars.count else { return false }
                let d = scalars[j + 1]
                return d == "-" || (isNameScalar(d) && !("0"..."9").contains(d)) || d == "\\"
            }
            return isNameScalar(c) && !("0"..."9").contains(c)
        }

        mutating func skipName() {
            while i < scalars.count {
                let c = scalars[i]
                if c == "\\" {
                    i += 1
                    guard i < scalars.count else { return }
                    if scalars[i].properties.isASCIIHexDigit {
                        var n = 0
                        while i < scalars.count && n < 6 && scalars[i].properties.isASCIIHexDigit { i += 1; n += 1 }
                        // One white space after a hex escape belongs to it.
                        if i < scalars.count && " \t".unicodeScalars.contains(scalars[i]) { i += 1 }
                    } else {
                        i += 1
                    }
                } else if isNameScalar(c) {
                    i += 1
                } else {
                    return
                }
            }
        }

        mutating func skipString(quote: Unicode.Scalar) {
            i += 1
            while i < scalars.count && scalars[i] != quote { i += scalars[i] == "\\" ? 2 : 1 }
            i = min(i + 1, scalars.count)
        }

        /// The name of the pseudo-class right before `(` at `j`, lowercased ("" if none).
        func pseudoClassName(before j: Int) -> String {
            var k = j
            while k > 0 && (isNameScalar(scalars[k - 1])) { k -= 1 }
            guard k > 0 && scalars[k - 1] == ":" else { return "" }
            return String(String.UnicodeScalarView(scalars[k..<j])).lowercased()
        }
    }
}
