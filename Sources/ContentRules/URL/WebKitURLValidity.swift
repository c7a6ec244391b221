// Is a string a valid absolute URL for WebKit (WTF::URLParser without a base, i.e. WHATWG URL parsing)?
// Only validity matters here (redirect "url" members), so this follows the parser's failure paths — scheme,
// authority, host (IPv4 numbers, IPv6, forbidden code points, "ends in a number"), port — without building
// the serialized URL.
//
// The host is WHATWGHost's (the parser RuleEngine's CanonicalURL serializes with): percent-decoding, IDNA through
// ICU's UTS #46 with WebKit's options and tolerated errors, IPv4, IPv6, forbidden code points.

enum WebKitURLValidity {
    struct ParsedURL: Equatable {
        /// Lowercased scheme, e.g. "https".
        let scheme: String
    }

    /// URLParser::maybeCanonicalizeScheme: leading TAB/LF/CR skipped, an ASCII letter, then letters, digits,
    /// '+', '-', '.' (TAB/LF/CR ignored anywhere); lowercased. Nil for anything else, including "".
    static func canonicalizeScheme(_ s: String) -> String? {
        var out: [UInt8] = []
        var sawFirst = false
        for c in s.utf16 {
            if isTabOrNewline(UInt32(c)) { continue }
            guard c < 0x80 else { return nil }
            let b = UInt8(c)
            if !sawFirst {
                guard isAlpha(b) else { return nil }
                sawFirst = true
            } else {
                guard
                    isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
                        || b == UInt8(ascii: ".")
                else { return nil }
            }
            out.append(lower(b))
        }
        return sawFirst ? String(decoding: out, as: UTF8.self) : nil
    }

    static let specialSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp", "file"]

    /// Nil when WebKit's URL parser fails on `input` (with no base URL).
    static func parse(_ input: String) -> ParsedURL? {
        var cps = Array(input.unicodeScalars.map(\.value))
        // Leading/trailing C0 control or space are stripped, TAB/LF/CR are ignored everywhere.
        var start = 0, end = cps.count
        while start < end, cps[start] <= 0x20 { start += 1 }
        while end > start, cps[end - 1] <= 0x20 { end -= 1 }
        cps = cps[start..<end].filter { !isTabOrNewline($0) }

        // Scheme: an ASCII letter, then letters/digits/+/-/. up to ':'. Anything else means "no scheme",
        // which fails without a base URL.
        guard let first = cps.first, first < 0x80, isAlpha(UInt8(first)) else { return nil }
        var i = 1
        while i < cps.count, cps[i] < 0x80, isSchemeChar(UInt8(cps[i])) { i += 1 }
        guard i < cps.count, cps[i] == UInt32(UInt8(ascii: ":")) else { return nil }
        let scheme = String(decoding: cps[0..<i].map { lower(UInt8($0)) }, as: UTF8.self)
        let rest = Array(cps[(i + 1)...])

        switch scheme {
        case "file": return parseFileRest(rest) ? ParsedURL(scheme: scheme) : nil
        case "http", "https", "ws", "wss", "ftp": return parseSpecialRest(rest) ? ParsedURL(scheme: scheme) : nil
        default: return parseNonSpecialRest(rest) ? ParsedURL(scheme: scheme) : nil
        }
    }

    // MARK: after the scheme

    static func isSlash(_ c: UInt32) -> Bool { c == 0x2F || c == 0x5C }

    /// http(s)/ws(s)/ftp: any run of slashes or backslashes, then an authority that must have a host.
    static func parseSpecialRest(_ rest: [UInt32]) -> Bool {
        var i = 0
        while i < rest.count, isSlash(rest[i]) { i += 1 }
        var end = i
        while end < rest.count, !isSlash(rest[end]), rest[end] != 0x3F, rest[end] != 0x23 { end += 1 }
        let authority = Array(rest[i..<end])
        if authority.isEmpty { return false }
        let hostAndPort = afterLastAt(authority)
        return hostAndPortIsValid(hostAndPort, special: true, file: false)
    }

    /// Non-special schemes: "//" starts an authority (the host may be empty unless credentials precede it);
    /// anything else is a path or an opaque path, which cannot fail.
    static func parseNonSpecialRest(_ rest: [UInt32]) -> Bool {
        guard rest.count >= 2, rest[0] == 0x2F, rest[1] == 0x2F else { return true }
        var end = 2
        while end < rest.count, rest[end] != 0x2F, rest[end] != 0x3F, rest[end] != 0x23 { end += 1 }
        let authority = Array(rest[2..<end])
        if authority.isEmpty { return true }
        if authority.contains(0x40) {
            // Credentials: the host after the last '@' is parsed even when empty (and an empty host fails).
            return hostAndPortIsValid(afterLastAt(authority), special: false, file: false)
        }
        return hostAndPortIsValid(authority, special: false, file: false)
    }

    /// file: only "file://HOST/..." has a host; a port is never allowed; "C:" / "C|" is a drive letter, not a host.
    static func parseFileRest(_ rest: [UInt32]) -> Bool {
        guard rest.count >= 2, isSlash(rest[0]), isSlash(rest[1]) else { return true }
        var end = 2
        while end < rest.count, !isSlash(rest[end]), rest[end] != 0x3F, rest[end] != 0x23 { end += 1 }
        let host = Array(rest[2..<end])
        if host.isEmpty { return true }
        if host.count == 2, host[0] < 0x80, isAlpha(UInt8(host[0])), host[1] == 0x3A || host[1] == 0x7C { return true }
        return hostAndPortIsValid(host, special: true, file: true)
    }

    static func afterLastAt(_ authority: [UInt32]) -> [UInt32] {
        guard let at = authority.lastIndex(of: 0x40) else { return authority }
        return Array(authority[(at + 1)...])
    }

    // MARK: host and port (URLParser::parseHostAndPort)

    /// The host runs to the first ':' (after an IPv6 literal's ']'), the port after it.
    static func hostAndPortIsValid(_ s: [UInt32], special: Bool, file: Bool) -> Bool {
        guard let first = s.first, first != 0x3A else { return false }
        let hostEnd: Int
        if first == 0x5B {
            guard let close = s.firstIndex(of: 0x5D) else { return false }
            hostEnd = close + 1
            if hostEnd < s.count, s[hostEnd] != 0x3A { return false }
        } else {
            hostEnd = s.firstIndex(of: 0x3A) ?? s.count
        }
        let host = utf8(s[..<hostEnd])
        guard (special ? WHATWGHost.parseSpecial(host) : WHATWGHost.parseOpaque(host)) != nil else { return false }
        guard hostEnd < s.count else { return true }
        return portIsValid(Array(s[(hostEnd + 1)...]), file: file)
    }

    /// WHATWGHost reads UTF-8, as CanonicalURL gets it from request lines.
    static func utf8(_ codePoints: ArraySlice<UInt32>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(codePoints.count)
        for c in codePoints { out.append(contentsOf: String(Unicode.Scalar(c) ?? "\u{FFFD}").utf8) }
        return out
    }

    static func portIsValid(_ p: [UInt32], file: Bool) -> Bool {
        if file { return false }
        var value = 0
        for c in p {
            guard c >= 0x30, c <= 0x39 else { return false }
            value = value * 10 + Int(c - 0x30)
            if value > 65535 { return false }
        }
        return true
    }

    // MARK: character classes

    static func isTabOrNewline(_ c: UInt32) -> Bool { c == 0x09 || c == 0x0A || c == 0x0D }
    static func isAlpha(_ b: UInt8) -> Bool { WHATWGHost.isAlpha(b) }
    static func isDigit(_ b: UInt8) -> Bool { WHATWGHost.isDigit(b) }
    static func isSchemeChar(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }
    static func lower(_ b: UInt8) -> UInt8 { WHATWGHost.lowercased(b) }
}
