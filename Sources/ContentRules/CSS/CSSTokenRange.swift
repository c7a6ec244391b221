/// WebKit's CSSParserTokenRange: a window on the token array.
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
