// Checks that a surrogate body can be wrapped as `function () {\n<body>\n}` without changing the bundle's
// structure, and makes it safe to inline in an HTML <script> element.
//
// Surrogate bodies are code by design (trusted like the TDS authors' scripts), so this is not a sandbox.
// It guards against the accidents that would break every page: a body whose brackets do not balance
// (an extra `}` would close the wrapper and run the rest at the bundle's top level; a missing one would
// swallow the rest of the bundle), an unterminated string, comment, template or regular expression, and
// a `</script` that would end an inline <script> element. The scanner is a JavaScript tokenizer that knows
// strings, template literals (with nested `${}`), comments (including the HTML-like `<!--` and `-->`),
// regular expression literals and bracket nesting. A `/` is a regular expression where an expression may
// start (the usual previous-token rule: after an operator, an opening bracket, `}`, or a keyword such as
// `return`), otherwise division.
//
// Rewriting: inside strings, templates, regular expressions and comments a `/` that follows `<` is written
// as `\/`, which means the same character there (in a template it changes only `String.raw` text); in code a
// space is put between `<` and a following `/`. Likewise `<!--` (which sends an HTML parser's script data
// into its escaped states) becomes `<\x21--` in quoted text and `//` (the same one-line comment) in code, and
// U+2028/U+2029 (line breaks to JavaScript, not to every consumer of the text) become `\u2028`/`\u2029` in
// strings and templates and a plain line break elsewhere. Nothing else in the body changes.

public struct ScriptBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line within the body.
    public var line: Int
    public var message: String
    public var description: String { "line \(line) of the script: \(message)" }
}

public enum ScriptBodyCheck {
    /// Returns the body ready to be embedded, or throws what is wrong with it.
    public static func prepare(_ body: String) throws -> String {
        var scanner = Scanner(Array(body.unicodeScalars))
        try scanner.run()
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scanner.out)
        let result = String(out)
        // Defence in depth: the rewriting above must leave no way to end an enclosing <script>.
        if let line = lineOfScriptEnd(in: scanner.out) {
            throw ScriptBodyError(line: line, message: "contains \"</script\" in a place where it cannot be escaped")
        }
        if let line = lineOf(Array("<!--".unicodeScalars), in: scanner.out) {
            throw ScriptBodyError(line: line, message: "contains \"<!--\" in a place where it cannot be escaped")
        }
        if let line = scanner.out.firstIndex(where: { $0.value == 0x2028 || $0.value == 0x2029 }).map({ i in
            1 + scanner.out[..<i].filter { $0 == "\n" }.count
        }) {
            throw ScriptBodyError(line: line, message: "contains a raw U+2028/U+2029 that cannot be escaped")
        }
        return result
    }

    /// Line of the first occurrence of `needle` (exact) in `scalars`, if any.
    static func lineOf(_ needle: [Unicode.Scalar], in scalars: [Unicode.Scalar]) -> Int? {
        guard needle.count <= scalars.count else { return nil }
        var line = 1
        for i in 0...(scalars.count - needle.count) {
            if scalars[i] == "\n" { line += 1 }
            if scalars[i] == needle[0], Array(scalars[i..<(i + needle.count)]) == needle { return line }
        }
        return nil
    }

    /// Line of the first `</script` (any case) in `scalars`, if any.
    static func lineOfScriptEnd(in scalars: [Unicode.Scalar]) -> Int? {
        let needle = Array("</script".unicodeScalars)
        var line = 1
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\n" { line += 1 }
            if scalars[i] == "<", i + needle.count <= scalars.count {
                var match = true
                for k in 1..<needle.count {
                    let c = scalars[i + k]
                    let lower = (c.value >= 0x41 && c.value <= 0x5A) ? Unicode.Scalar(c.value + 0x20)! : c
                    if lower != needle[k] { match = false; break }
                }
                if match { return line }
            }
            i += 1
        }
        return nil
    }

    private enum Frame {
        case paren(line: Int), bracket(line: Int), brace(line: Int), substitution(line: Int)
        var line: Int {
            switch self {
            case .paren(let l), .bracket(let l), .brace(let l), .substitution(let l): return l
            }
        }
        var opener: String {
            switch self {
            case .paren: return "("
            case .bracket: return "["
            case .brace: return "{"
            case .substitution: return "${"
            }
        }
    }

    private struct Scanner {
        let s: [Unicode.Scalar]
        var i = 0
        var line = 1
        var out: [Unicode.Scalar] = []
        var stack: [Frame] = []
        /// Whether a `/` here starts a regular expression (an expression may start here).
        var regexAllowed = true
        /// Only whitespace and comments since the last line break (for the HTML-like `-->` comment).
        var atLineStart = true

        init(_ s: [Unicode.Scalar]) { self.s = s }

        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

        func error(_ message: String, line: Int? = nil) -> ScriptBodyError {
            ScriptBodyError(line: line ?? self.line, message: message)
        }

        /// Copies one scalar, counting lines.
        mutating func take() {
            let c = s[i]
            if c == "\n" { line += 1 }
            out.append(c)
            i += 1
        }

        /// Copies one scalar inside a string, template, regex or comment, escaping a `/` that follows `<`,
        /// the `!` of `<!--`, and U+2028/U+2029 (line terminators never reach here inside regexes or line
        /// comments, and block comments turn them into "\n" themselves).
        mutating func takeQuoted() {
            if s[i] == "/", out.last == "<" {
                out.append("\\")
            }
            if s[i] == "!", out.last == "<", peek(1) == "-", peek(2) == "-" {
                out.append(contentsOf: "\\x21".unicodeScalars)
                i += 1
                return
            }
            if s[i].value == 0x2028 || s[i].value == 0x2029 {
                out.append(contentsOf: (s[i].value == 0x2028 ? "\\u2028" : "\\u2029").unicodeScalars)
                i += 1
                return
            }
            take()
        }

        /// Copies a line terminator, writing U+2028/U+2029 as "\n" (the same to JavaScript).
        mutating func takeLineTerminator() {
            if s[i].value == 0x2028 || s[i].value == 0x2029 {
                out.append("\n")
                line += 1
                i += 1
            } else {
                take()
            }
        }

        static func isLineTerminator(_ c: Unicode.Scalar) -> Bool {
            c == "\n" || c == "\r" || c.value == 0x2028 || c.value == 0x2029
        }

        static func isWhitespace(_ c: Unicode.Scalar) -> Bool {
            switch c.value {
            case 0x09, 0x0B, 0x0C, 0x20, 0xA0, 0xFEFF, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return true
            default: return false
            }
        }

        static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
            switch c.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x24, 0x5F, 0x5C: return true
            case 0x80...: return !isWhitespace(c) && !isLineTerminator(c)
            default: return false
            }
        }

        /// Keywords after which an expression (so a regular expression) may start.
        static let expressionKeywords: Set<String> = [
            "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else",
            "yield", "await",
        ]

        mutating func run() throws {
            while i < s.count {
                let c = s[i]
                if Scanner.isLineTerminator(c) { takeLineTerminator(); atLineStart = true; continue }
                if Scanner.isWhitespace(c) { take(); continue }
                if c == "/" {
                    if out.last == "<" { out.append(" ") }
                    if peek(1) == "/" { lineComment(); continue }
                    if peek(1) == "*" { try blockComment(); continue }
                    atLineStart = false
                    if regexAllowed {
                        try regex()
                    } else {
                        take()
                        if peek() == "=" { take() }
                        regexAllowed = true
                    }
                    continue
                }
                if c == "<", peek(1) == "!", peek(2) == "-", peek(3) == "-" {
                    // An HTML-like comment: the same one-line comment written as `//`.
                    out.append(contentsOf: "//".unicodeScalars)
                    i += 4
                    lineComment()
                    continue
                }
                if c == "-", atLineStart, peek(1) == "-", peek(2) == ">" { lineComment(); continue }
                atLineStart = false
                switch c {
                case "'", "\"": try string(quote: c)
                case "`": try template(resuming: false)
                case "(": stack.append(.paren(line: line)); take(); regexAllowed = true
                case "[": stack.append(.bracket(line: line)); take(); regexAllowed = true
                case "{": stack.append(.brace(line: line)); take(); regexAllowed = true
                case ")", "]", "}":
                    try close(c)
                case "+", "-":
                    take()
                    if peek() == c { // ++ / -- : an operand came before (postfix) or follows (prefix)
                        take()
                        regexAllowed = false
                    } else {
                        regexAllowed = true
                    }
                default:
                    if c.value >= 0x30 && c.value <= 0x39
                        || (c == "." && (peek(1).map { $0.value >= 0x30 && $0.value <= 0x39 } ?? false))
                    {
                        number()
                    } else if Scanner.isIdentifierPart(c) || c == "#" {
                        identifier()
                    } else {
                        take()
                        regexAllowed = true
                    }
                }
            }
            if let open = stack.last {
                throw error("\"\(open.opener)\" opened here is never closed", line: open.line)
            }
        }

        mutating func close(_ c: Unicode.Scalar) throws {
            guard let top = stack.last else {
                throw error("\"\(c)\" closes nothing (it would close the surrogate's wrapper function)")
            }
            switch (top, c) {
            case (.paren, ")"), (.bracket, "]"), (.brace, "}"):
                stack.removeLast()
                take()
                // After `)` or `]` an operand ended; after `}` a statement block usually did.
                regexAllowed = c == "}"
            case (.substitution, "}"):
                stack.removeLast()
                take()
                try template(resuming: true)
            default:
                throw error("\"\(c)\" does not match \"\(top.opener)\" opened on line \(top.line)")
            }
        }

        mutating func identifier() {
            var word = String.UnicodeScalarView()
            while let c = peek(), Scanner.isIdentifierPart(c) || c == "#" {
                word.append(c)
                take()
            }
            regexAllowed = Scanner.expressionKeywords.contains(String(word))
        }

        mutating func number() {
            while let c = peek(), Scanner.isIdentifierPart(c) || c == "." { take() }
            regexAllowed = false
        }

        mutating func lineComment() {
            while let c = peek(), !Scanner.isLineTerminator(c) { takeQuoted() }
        }

        mutating func blockComment() throws {
            let start = line
            take(); take() // "/*"
            while true {
                guard let c = peek() else { throw error("comment opened here is never closed", line: start) }
                if c == "*", peek(1) == "/" { take(); take(); return }
                if Scanner.isLineTerminator(c) {
                    atLineStart = true
                    takeLineTerminator()
                    continue
                }
                takeQuoted()
            }
        }

        mutating func string(quote: Unicode.Scalar) throws {
            let start = line
            take()
            while true {
                guard let c = peek() else { throw error("string opened here is never closed", line: start) }
                if c == quote { take(); break }
                if c == "\n" || c == "\r" { throw error("line break inside a string", line: line) }
                if c == "\\" {
                    take()
                    guard peek() != nil else { throw error("string opened here is never closed", line: start) }
                    if peek() == "\r", peek(1) == "\n" { take() }
                    take()
                    continue
                }
                takeQuoted()
            }
            regexAllowed = false
        }

        /// Scans template text from after "`" (or after the "}" closing a substitution) to the closing "`"
        /// or the next "${".
        mutating func template(resuming: Bool) throws {
            let start = line
            if !resuming { take() }
            while true {
                guard let c = peek() else { throw error("template literal opened here is never closed", line: start) }
                if c == "`" { take(); regexAllowed = false; return }
                if c == "\\" {
                    take()
                    guard peek() != nil else {
                        throw error("template literal opened here is never closed", line: start)
                    }
                    take()
                    continue
                }
                if c == "$", peek(1) == "{" {
                    take(); take()
                    stack.append(.substitution(line: line))
                    regexAllowed = true
                    return
                }
                takeQuoted()
            }
        }

        mutating func regex() throws {
            let start = line
            take() // "/"
            var inClass = false
            while true {
                guard let c = peek(), !Scanner.isLineTerminator(c) else {
                    throw error("regular expression opened here is never closed", line: start)
                }
                if c == "\\" {
                    take()
                    guard let n = peek(), !Scanner.isLineTerminator(n) else {
                        throw error("regular expression opened here is never closed", line: start)
                    }
                    take()
                    continue
                }
                if c == "[" {
                    inClass = true
                } else if c == "]" {
                    inClass = false
                } else if c == "/" && !inClass {
                    take()
                    break
                }
                takeQuoted()
            }
            while let c = peek(), Scanner.isIdentifierPart(c) { take() } // flags
            regexAllowed = false
        }
    }
}
