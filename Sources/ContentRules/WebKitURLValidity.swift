// Is a string a valid absolute URL for WebKit (WTF::URLParser without a base, i.e. WHATWG URL parsing)?
// Only validity matters here (redirect "url" members), so this follows the parser's failure paths — scheme,
// authority, host (IPv4 numbers, IPv6, forbidden code points, "ends in a number"), port — without building
// the serialized URL.
//
// Hosts that need IDNA processing (non-ASCII after percent-decoding, or a label starting with "xn--") go through
// ICU's UTS #46 with WebKit's options and tolerated errors (CICU's shim), like WebKit itself.

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
                guard isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") else { return nil }
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

    static func hostAndPortIsValid(_ s: [UInt32], special: Bool, file: Bool) -> Bool {
        guard let first = s.first, first != 0x3A else { return false }
        if first == 0x5B {
            guard let close = s.firstIndex(of: 0x5D) else { return false }
            guard isValidIPv6(Array(s[1..<close])) else { return false }
            let after = s[(close + 1)...]
            if after.isEmpty { return true }
            guard after.first == 0x3A else { return false }
            return portIsValid(Array(after.dropFirst()), file: file)
        }
        let colon = s.firstIndex(of: 0x3A)
        let host = Array(s[..<(colon ?? s.count)])
        let port = colon.map { Array(s[($0 + 1)...]) }
        if !special {
            for c in host where c < 0x80 && isForbiddenHost(c) && c != 0x25 { return false }
            return port.map { portIsValid($0, file: file) } ?? true
        }
        let needsSlowPath = s.contains { $0 >= 0x80 || $0 == 0x25 } || labelStartsWithXNDashDash(host)
        var ascii: [UInt8]
        if !needsSlowPath {
            for c in host where isForbiddenDomain(c) { return false }
            ascii = host.map { lower(UInt8($0)) }
        } else {
            // Percent-decode the UTF-8 of the host, which must then be valid UTF-8.
            var utf8: [UInt8] = []
            for c in host { utf8.append(contentsOf: Array(String(Unicode.Scalar(c) ?? "\u{FFFD}").utf8)) }
            let decoded = percentDecode(utf8)
            guard let domain = String(validating: decoded, as: UTF8.self) else { return false }
            let scalars = domain.unicodeScalars.map(\.value)
            if scalars.allSatisfy({ $0 < 0x80 }) && !labelStartsWithXNDashDash(scalars) {
                ascii = scalars.map { lower(UInt8($0)) }
            } else {
                guard let converted = WebKitIDNA.toASCII(domain) else { return false }
                ascii = converted.map { UInt8(truncatingIfNeeded: $0) }
            }
            for c in ascii where isForbiddenDomain(UInt32(c)) { return false }
        }
        switch parseIPv4(ascii) {
        case .address: break
        case .failure: return false
        case .notIPv4:
            if endsInANumber(ascii) { return false }
        }
        return port.map { portIsValid($0, file: file) } ?? true
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

    static func percentDecode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count, let h = hex(bytes[i + 1]), let l = hex(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// Any label (case-insensitively) starting with "xn--"; the scan stops at ':' '/' '?' '#'.
    static func labelStartsWithXNDashDash(_ host: [UInt32]) -> Bool {
        var atLabelStart = true
        var i = 0
        while i < host.count {
            let c = host[i]
            if c == 0x3A || c == 0x2F || c == 0x3F || c == 0x23 { return false }
            if atLabelStart, i + 3 < host.count, host[i] | 0x20 == 0x78, host[i + 1] | 0x20 == 0x6E,
               host[i + 2] == 0x2D, host[i + 3] == 0x2D { return true }
            atLabelStart = c == 0x2E
            i += 1
        }
        return false
    }

    // MARK: IPv4 (URLParser::parseIPv4Host)

    enum IPv4Result { case address(UInt32), notIPv4, failure }

    enum PieceResult { case value(UInt64), failure, overflow }

    /// A literal port of WebKit's loop, including its quirk that a failed piece leaves the position where
    /// it failed (the next piece starts there), so the number of pieces can exceed the number of dots.
    static func parseIPv4(_ s: [UInt8]) -> IPv4Result {
        if s.first == UInt8(ascii: ".") { return .notIPv4 }
        var pieces: [PieceResult] = []
        var i = 0
        while i < s.count {
            if pieces.count >= 4 { return .notIPv4 }
            pieces.append(parsePiece(s, &i))
            if i < s.count, s[i] == UInt8(ascii: ".") {
                i += 1
                if i < s.count, s[i] == UInt8(ascii: ".") { return .notIPv4 }
            }
        }
        if pieces.isEmpty { return .notIPv4 }
        for p in pieces { if case .failure = p { return .notIPv4 } }
        for p in pieces { if case .overflow = p { return .failure } }
        let values = pieces.map { if case .value(let v) = $0 { return v } else { return 0 } }
        for v in values.dropLast() where v > 255 { return .failure }
        if values.last! >= (1 as UInt64) << (8 * (5 - values.count)) { return .failure }
        var address: UInt64 = values.last!
        for (k, v) in values.dropLast().enumerated() { address += v << (8 * (3 - k)) }
        return .address(UInt32(truncatingIfNeeded: address))
    }

    /// URLParser::parseIPv4Piece: decimal, 0-prefixed octal, 0x-prefixed hex; stops at '.' or the end.
    static func parsePiece(_ s: [UInt8], _ i: inout Int) -> PieceResult {
        enum State { case unknownBase, decimal, octalOrHex, octal, hex }
        var state = State.unknownBase
        var value: UInt64 = 0
        if i < s.count, s[i] == UInt8(ascii: ".") { return .failure }
        while i < s.count {
            let c = s[i]
            if c == UInt8(ascii: ".") { return .value(value) }
            switch state {
            case .unknownBase:
                if c == UInt8(ascii: "0") { i += 1; state = .octalOrHex } else { state = .decimal }
            case .octalOrHex:
                if c == UInt8(ascii: "x") || c == UInt8(ascii: "X") { i += 1; state = .hex } else { state = .octal }
            case .decimal, .octal, .hex:
                let radix: UInt64 = state == .decimal ? 10 : state == .octal ? 8 : 16
                guard let d = hex(c).map(UInt64.init), d < radix else { return .failure }
                value = value * radix + d
                if value > UInt64(UInt32.max) { return .overflow }
                i += 1
            }
        }
        return .value(value)
    }

    /// The WHATWG "ends in a number" check on a host that is not an IPv4 address.
    static func endsInANumber(_ s: [UInt8]) -> Bool {
        var parts = s.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true, parts.count > 1 { parts.removeLast() }
        guard let last = parts.last, let f = last.first, isDigit(f) else { return false }
        if last.count == 1 { return true }
        let l = Array(last)
        if f == UInt8(ascii: "0"), l[1] == UInt8(ascii: "x") || l[1] == UInt8(ascii: "X") {
            return l[2...].allSatisfy { hex($0) != nil }
        }
        return l.allSatisfy(isDigit)
    }

    // MARK: IPv6 (URLParser::parseIPv6Host), on the text between the brackets

    static func isValidIPv6(_ s: [UInt32]) -> Bool {
        var c = 0
        let n = s.count
        if n == 0 { return false }
        var piecePointer = 0
        var compress: Int? = nil
        if s[0] == 0x3A {
            guard n > 1, s[1] == 0x3A else { return false }
            c = 2
            piecePointer = 1
            compress = 1
        }
        while c < n {
            if piecePointer == 8 { return false }
            if s[c] == 0x3A {
                if compress != nil { return false }
                c += 1
                piecePointer += 1
                compress = piecePointer
                continue
            }
            if piecePointer == 6 || (compress != nil && piecePointer < 6), ipv4InsideIPv6(Array(s[c...])) {
                if compress != nil && piecePointer == 5 { return false }
                piecePointer += 2
                c = n
                break
            }
            var length = 0
            while length < 4, c < n, s[c] < 0x80, hex(UInt8(s[c])) != nil {
                length += 1
                c += 1
            }
            piecePointer += 1
            if c >= n { break }
            if piecePointer == 8 || s[c] != 0x3A { return false }
            c += 1
        }
        if c < n { return false }
        if compress == nil && piecePointer != 8 { return false }
        return true
    }

    static func ipv4InsideIPv6(_ s: [UInt32]) -> Bool {
        var c = 0
        for k in 0..<4 {
            guard c < s.count else { return false }
            var piece = 0
            var leadingZero = false
            var digits = 0
            while c < s.count {
                let ch = s[c]
                guard ch >= 0x30, ch <= 0x39 else { return false }
                if piece == 0 && ch == 0x30 {
                    if leadingZero { return false }
                    leadingZero = true
                }
                piece = piece * 10 + Int(ch - 0x30)
                if piece > 255 { return false }
                digits += 1
                c += 1
                if c >= s.count || s[c] == 0x2E { break }
            }
            if piece != 0 && leadingZero { return false }
            if k < 3 {
                guard c < s.count, s[c] == 0x2E else { return false }
                c += 1
            } else if c < s.count {
                return false
            }
        }
        return true
    }

    // MARK: character classes

    static func isTabOrNewline(_ c: UInt32) -> Bool { c == 0x09 || c == 0x0A || c == 0x0D }
    static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isSchemeChar(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }
    static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b + 0x20 : b }
    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x61...0x66: return b - 0x61 + 10
        case 0x41...0x46: return b - 0x41 + 10
        default: return nil
        }
    }

    /// WHATWG forbidden host code points: NUL TAB LF CR space # / : < > ? @ [ \ ] ^ |
    static func isForbiddenHost(_ c: UInt32) -> Bool {
        switch c {
        case 0x00, 0x09, 0x0A, 0x0D, 0x20, 0x23, 0x2F, 0x3A, 0x3C, 0x3E, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x5E, 0x7C: return true
        default: return false
        }
    }

    /// Forbidden domain code points: the forbidden host code points, C0 controls, '%' and DEL.
    static func isForbiddenDomain(_ c: UInt32) -> Bool {
        c < 0x80 && (isForbiddenHost(c) || c <= 0x1F || c == 0x25 || c == 0x7F)
    }
}
