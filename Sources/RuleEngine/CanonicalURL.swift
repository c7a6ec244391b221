// URLs as WebKit sees them: WHATWG URL parsing and serialization (WTF::URLParser), because the
// rule automata run over `URL::string()` and a rule that matches "http://a.com:80/" must not be
// fooled into missing "HTTP://A.COM/". Invalid URLs are nil: WebKit never matches them.
//
// Covered: scheme lowercasing, special schemes (http, https, ws, wss, ftp, file) with their default
// ports, slash/backslash handling, user info, hosts (percent-decoding, IDNA to punycode, forbidden
// code points, IPv4 in all WHATWG notations, IPv6 compression), dot segments, and WebKit's
// percent-encode sets for path, query (special: also "'"), fragment and user info. Internationalized
// hosts go through ICU's UTS #46 configured as WebKit configures it. The host itself is ContentRules'
// WHATWGHost, the parser the redirect-URL check uses too.

import CSystem
import ContentRules

public struct CanonicalURL: Sendable, Hashable, CustomStringConvertible {
    /// The serialized URL (ASCII).
    public let bytes: [UInt8]
    public let schemeEnd: Int
    public let hostRange: Range<Int>

    public var string: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { string }
    public var scheme: String { String(decoding: bytes[0..<schemeEnd], as: UTF8.self) }
    /// The host as WebKit's `URL::host()` returns it (IPv6 with brackets); empty when there is none.
    public var host: String { String(decoding: bytes[hostRange], as: UTF8.self) }
    public var isData: Bool {
        schemeEnd == 4 && bytes[0] == UInt8(ascii: "d") && bytes[1] == UInt8(ascii: "a")
            && bytes[2] == UInt8(ascii: "t") && bytes[3] == UInt8(ascii: "a")
    }

    /// Parses `input` as an absolute URL (there is no base URL); nil when WebKit would consider it invalid.
    public static func parse(_ input: String) -> CanonicalURL? {
        var copy = input
        return copy.withUTF8 { parse(utf8: $0) }
    }

    public static func parse(utf8 input: [UInt8]) -> CanonicalURL? {
        input.withUnsafeBufferPointer { parse(utf8: $0) }
    }

    public static func parse(utf8 input: UnsafeBufferPointer<UInt8>) -> CanonicalURL? {
        parse(utf8: input, plainHost: plainHost(input))
    }

    /// As `parse(utf8:)`, given `plainHost(input)` (a caller that read it already).
    public static func parse(utf8 input: UnsafeBufferPointer<UInt8>, plainHost plain: PlainHost?) -> CanonicalURL? {
        if let plain, let fast = alreadyCanonical(input, plainHost: plain) { return fast }
        return parseWithoutShortcut(Array(input))
    }

    /// The full parser (the shortcut must always agree with it).
    static func parseWithoutShortcut(_ input: [UInt8]) -> CanonicalURL? {
        var parser = URLCanonicalizer(input)
        return parser.parse()
    }

    /// The common case, decided in one pass: an http(s) URL that WebKit's parser would leave as it is
    /// (lowercase plain host without port, no dot segments, nothing to percent-encode).
    static func alreadyCanonical(_ u: UnsafeBufferPointer<UInt8>) -> CanonicalURL? {
        plainHost(u).flatMap { alreadyCanonical(u, plainHost: $0) }
    }

    private static func alreadyCanonical(_ u: UnsafeBufferPointer<UInt8>, plainHost: PlainHost) -> CanonicalURL? {
        let (schemeEnd, hostRange) = plainHost
        let n = u.count, hostEnd = hostRange.upperBound
        // Path: no dot segments, nothing from the path percent-encode set, no backslash. Letters and digits are in
        // no percent-encode set and end no segment: only the other bytes are visited.
        var state = 0 // 0 path, 1 query, 2 fragment
        var segmentStart = hostEnd
        var clean = true
        /// Whether the path segment that ends at a separator is a dot segment or may be one ("%2e").
        func dotSegmentEnds(at p: Int) -> Bool {
            p > segmentStart && (u[segmentStart] == UInt8(ascii: ".") || u[segmentStart] == UInt8(ascii: "%"))
        }
        _ = visitNonAlphanumeric(u, from: hostEnd, lowercaseOnly: false) { at in
            let b = u[at]
            if b <= 0x20 || b >= 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") {
                clean = false
                return false
            }
            switch state {
            case 0:
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") {
                    if dotSegmentEnds(at: at) {
                        clean = false
                        return false
                    }
                    segmentStart = at + 1
                    if b == UInt8(ascii: "?") { state = 1 } else if b == UInt8(ascii: "#") { state = 2 }
                } else if b == UInt8(ascii: "\\") || b == UInt8(ascii: "^") || b == UInt8(ascii: "`")
                    || b == UInt8(ascii: "{") || b == UInt8(ascii: "}")
                {
                    clean = false
                }
            case 1:
                if b == UInt8(ascii: "'") { clean = false }
                if b == UInt8(ascii: "#") { state = 2 }
            default:
                if b == UInt8(ascii: "`") { clean = false }
            }
            return clean
        }
        if !clean || (state == 0 && dotSegmentEnds(at: n)) { return nil }
        var bytes: [UInt8]
        if rawHead(u, hostEnd: hostEnd) != nil {
            bytes = Array(u)
        } else {
            bytes = []
            bytes.reserveCapacity(n + 1)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[0..<hostEnd]))
            bytes.append(UInt8(ascii: "/"))
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[hostEnd...]))
        }
        return CanonicalURL(bytes: bytes, schemeEnd: schemeEnd, hostRange: hostRange)
    }

    /// Calls `visit` with the offset of each byte of `u` from `start` on that is not an ASCII letter or digit
    /// (`lowercaseOnly`: not a lowercase letter or digit), in order, until it returns false; returns that offset,
    /// or `u.count` when it never does.
    @inline(__always) static func visitNonAlphanumeric(
        _ u: UnsafeBufferPointer<UInt8>, from start: Int, lowercaseOnly: Bool, _ visit: (Int) -> Bool
    ) -> Int {
        let n = u.count
        var i = start
        if let base = u.baseAddress {
            while i + 16 <= n {
                var m = rb_non_alphanumeric_mask(base + i, lowercaseOnly ? 1 : 0)
                while m != 0 {
                    let p = i + m.trailingZeroBitCount
                    if !visit(p) { return p }
                    m &= m - 1
                }
                i += 16
            }
        }
        while i < n {
            let b = u[i]
            if !(lowercaseOnly ? isLowercaseLetterOrDigit(b) : isASCIIAlphanumeric(b)), !visit(i) { return i }
            i += 1
        }
        return n
    }

    @inline(__always) static func isLowercaseLetterOrDigit(_ b: UInt8) -> Bool { (b &- 0x61) < 26 || (b &- 0x30) < 10 }

    @inline(__always) static func isASCIIAlphanumeric(_ b: UInt8) -> Bool {
        isLowercaseLetterOrDigit(b) || (b &- 0x41) < 26
    }

    /// A URL with a plain host ending at `hostEnd`, as a request gives it: its bytes up to the '/' after the
    /// host, when that '/' is there. They begin its serialization (the key of the url-prefix caches); nil
    /// when '?', '#' or the end follows the host, where the serialization inserts the '/'.
    static func rawHead(_ raw: UnsafeBufferPointer<UInt8>, hostEnd: Int) -> UnsafeBufferPointer<UInt8>? {
        hostEnd < raw.count && raw[hostEnd] == UInt8(ascii: "/") ? UnsafeBufferPointer(rebasing: raw[...hostEnd]) : nil
    }

    /// Where a plain host's URL has its scheme end and its host (see `plainHost`).
    public typealias PlainHost = (schemeEnd: Int, hostRange: Range<Int>)

    /// The start of the common case: an http(s) URL whose scheme and host WebKit's parser leaves as they are
    /// (lowercase plain host, no user info, no port). Such a URL, when valid, serializes with these same bytes
    /// up to `hostRange.upperBound`, whatever its path (a path only ever changes after the host).
    public static func plainHost(_ u: UnsafeBufferPointer<UInt8>) -> PlainHost? {
        let n = u.count
        var p: Int
        let schemeEnd: Int
        if n > 8, u[0] == 0x68, u[1] == 0x74, u[2] == 0x74, u[3] == 0x70 { // "http"
            if u[4] == UInt8(ascii: ":") {
                schemeEnd = 4
            } else if u[4] == UInt8(ascii: "s"), u[5] == UInt8(ascii: ":") {
                schemeEnd = 5
            } else {
                return nil
            }
        } else {
            return nil
        }
        p = schemeEnd + 1
        guard p + 2 < n, u[p] == UInt8(ascii: "/"), u[p + 1] == UInt8(ascii: "/") else { return nil }
        p += 2
        let hostStart = p
        var labelStart = p
        var plain = true
        // Lowercase letters and digits are most of a host and need nothing more: only the other bytes are visited.
        let hostEnd = visitNonAlphanumeric(u, from: hostStart, lowercaseOnly: true) { at in
            let b = u[at]
            if b == UInt8(ascii: ".") {
                // An empty label: the host starts with a dot or has two in a row.
                if at == hostStart || u[at - 1] == UInt8(ascii: ".") {
                    plain = false
                    return false
                }
                labelStart = at + 1
                return true
            }
            if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { return false }
            // "xn--" anywhere in the host: it may be punycode, which the full path decodes and checks.
            plain =
                b == UInt8(ascii: "-")
                && !(at - 3 >= hostStart && u[at - 1] == UInt8(ascii: "-") && u[at - 2] == UInt8(ascii: "n")
                    && u[at - 3] == UInt8(ascii: "x"))
            return plain
        }
        guard plain, hostEnd > hostStart else { return nil }
        // Hosts that could be IPv4 numbers or punycode take the full path. A last label that starts with a letter
        // or '-' fails WebKit's first IPv4 piece there, so the host is a domain; one that starts with a digit may not
        // be ("42949672950x" overflows into a hex piece and is refused), nor may an empty one (a trailing dot).
        if labelStart == hostEnd || WHATWGHost.isDigit(u[labelStart]) { return nil }
        return (schemeEnd, hostStart..<hostEnd)
    }

    public static let defaultPorts: [String: Int] = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]
    static let specialSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp", "file"]
}

// MARK: - Character classes (WebKit's URLParser table)

private enum EncodeSet {
    case c0Control, fragment, path, query, specialQuery, userInfo

    func contains(_ b: UInt8) -> Bool {
        if WHATWGHost.isC0ControlPercentEncoded(b) { return true }
        switch self {
        case .c0Control: return false
        case .fragment:
            return b == 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
                || b == UInt8(ascii: "`")
        case .query, .specialQuery:
            switch b {
            case 0x20, UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "<"), UInt8(ascii: ">"): return true
            case UInt8(ascii: "'"): return self == .specialQuery
            default: return false
            }
        case .path:
            switch b {
            case 0x20, UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"),
                UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "}"):
                return true
            default: return false
            }
        case .userInfo:
            switch b {
            case 0x20, UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: ";"),
                UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"),
                UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "`"),
                UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                return true
            default: return false
            }
        }
    }
}

@inline(__always) private func isAlpha(_ b: UInt8) -> Bool { WHATWGHost.isAlpha(b) }
@inline(__always) private func isDigit(_ b: UInt8) -> Bool { WHATWGHost.isDigit(b) }
@inline(__always) private func lower(_ b: UInt8) -> UInt8 { WHATWGHost.lowercased(b) }

// MARK: - Parser

private struct URLCanonicalizer {
    var input: [UInt8]
    var out: [UInt8] = []

    init(_ raw: [UInt8]) {
        // Leading/trailing C0 controls and spaces are stripped; tabs and newlines are removed anywhere.
        var start = 0, end = raw.count
        while start < end, raw[start] <= 0x20 { start += 1 }
        while end > start, raw[end - 1] <= 0x20 { end -= 1 }
        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(end - start)
        for i in start..<end {
            let b = raw[i]
            if b == 0x09 || b == 0x0A || b == 0x0D { continue }
            cleaned.append(b)
        }
        input = cleaned
        out.reserveCapacity(input.count + 8)
    }

    mutating func parse() -> CanonicalURL? {
        // Scheme.
        guard let first = input.first, isAlpha(first) else { return nil }
        var i = 1
        while i < input.count {
            let b = input[i]
            if isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") {
                i += 1
                continue
            }
            break
        }
        guard i < input.count, input[i] == UInt8(ascii: ":") else { return nil }
        for j in 0..<i { out.append(lower(input[j])) }
        let schemeEnd = out.count
        let scheme = String(decoding: out, as: UTF8.self)
        out.append(UInt8(ascii: ":"))
        var p = i + 1
        let special = CanonicalURL.specialSchemes.contains(scheme)

        var hostRange = out.count..<out.count
        if scheme == "file" {
            guard let r = parseFile(from: &p) else { return nil }
            hostRange = r
        } else if special {
            // Special authority: any run of slashes and backslashes is ignored.
            while p < input.count, input[p] == UInt8(ascii: "/") || input[p] == UInt8(ascii: "\\") { p += 1 }
            guard let r = parseAuthorityAndPath(from: &p, special: true, scheme: scheme) else { return nil }
            hostRange = r
        } else if p + 1 < input.count, input[p] == UInt8(ascii: "/"), input[p + 1] == UInt8(ascii: "/") {
            p += 2
            guard let r = parseAuthorityAndPath(from: &p, special: false, scheme: scheme) else { return nil }
            hostRange = r
        } else if p < input.count, input[p] == UInt8(ascii: "/") {
            parsePath(from: &p, special: false, hasHost: false)
        } else {
            // Opaque path ("about:blank", "javascript:...", "data:...").
            while p < input.count, input[p] != UInt8(ascii: "?"), input[p] != UInt8(ascii: "#") {
                appendEncoded(input[p], .c0Control)
                p += 1
            }
        }
        parseQueryAndFragment(from: &p, special: special)
        return CanonicalURL(bytes: out, schemeEnd: schemeEnd, hostRange: hostRange)
    }

    mutating func appendEncoded(_ b: UInt8, _ set: EncodeSet) {
        if set.contains(b) {
            WHATWGHost.appendPercentEncoded(b, to: &out)
        } else {
            out.append(b)
        }
    }

    mutating func parseQueryAndFragment(from p: inout Int, special: Bool) {
        if p < input.count, input[p] == UInt8(ascii: "?") {
            out.append(UInt8(ascii: "?"))
            p += 1
            while p < input.count, input[p] != UInt8(ascii: "#") {
                appendEncoded(input[p], special ? .specialQuery : .query)
                p += 1
            }
        }
        if p < input.count, input[p] == UInt8(ascii: "#") {
            out.append(UInt8(ascii: "#"))
            p += 1
            while p < input.count {
                appendEncoded(input[p], .fragment)
                p += 1
            }
        }
    }

    /// "//", the authority (up to '/', '?', '#', and for special URLs '\') and the path after it; returns the host's
    /// range in the output.
    mutating func parseAuthorityAndPath(from p: inout Int, special: Bool, scheme: String) -> Range<Int>? {
        out.append(contentsOf: [UInt8(ascii: "/"), UInt8(ascii: "/")])
        var end = p
        while end < input.count {
            let b = input[end]
            if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")
                || (special && b == UInt8(ascii: "\\"))
            {
                break
            }
            end += 1
        }
        guard let hostRange = parseAuthority(p..<end, special: special, scheme: scheme) else { return nil }
        p = end
        parsePath(from: &p, special: special, hasHost: true)
        return hostRange
    }

    /// Writes `[userinfo@]host[:port]`; returns the host's range in the output.
    mutating func parseAuthority(_ range: Range<Int>, special: Bool, scheme: String) -> Range<Int>? {
        var hostStart = range.lowerBound
        if let at = input[range].lastIndex(of: UInt8(ascii: "@")) {
            let info = range.lowerBound..<at
            let colon = input[info].firstIndex(of: UInt8(ascii: ":"))
            let userEnd = colon ?? at
            let hasPassword = colon.map { $0 + 1 < at } ?? false
            if userEnd > info.lowerBound || hasPassword {
                for j in info.lowerBound..<userEnd { appendEncoded(input[j], .userInfo) }
                if hasPassword, let c = colon {
                    out.append(UInt8(ascii: ":"))
                    for j in (c + 1)..<at { appendEncoded(input[j], .userInfo) }
                }
                out.append(UInt8(ascii: "@"))
            }
            hostStart = at + 1
            // Credentials without a host are invalid.
            if hostStart == range.upperBound { return nil }
        }
        // Split host and port: the port follows the first ':' outside IPv6 brackets.
        var hostEnd = range.upperBound
        var portStart: Int? = nil
        var inBrackets = false
        var j = hostStart
        while j < range.upperBound {
            let b = input[j]
            if b == UInt8(ascii: "[") {
                inBrackets = true
            } else if b == UInt8(ascii: "]") {
                inBrackets = false
            } else if b == UInt8(ascii: ":"), !inBrackets {
                hostEnd = j
                portStart = j + 1
                break
            }
            j += 1
        }
        let hostOut = out.count
        if special {
            if hostEnd == hostStart { return nil }
            guard let host = WHATWGHost.parseSpecial(Array(input[hostStart..<hostEnd])) else { return nil }
            out.append(contentsOf: host)
        } else {
            guard let host = WHATWGHost.parseOpaque(Array(input[hostStart..<hostEnd])) else { return nil }
            out.append(contentsOf: host)
        }
        let hostRange = hostOut..<out.count
        if let ps = portStart {
            var value = 0
            var digits = 0
            for k in ps..<range.upperBound {
                let b = input[k]
                guard isDigit(b) else { return nil }
                value = value * 10 + Int(b - 0x30)
                digits += 1
                if value > 65535 { return nil }
            }
            if digits > 0, value != CanonicalURL.defaultPorts[scheme] {
                if hostRange.isEmpty { return nil }
                out.append(UInt8(ascii: ":"))
                out.append(contentsOf: Array(String(value).utf8))
            }
        }
        return hostRange
    }

    mutating func parseFile(from p: inout Int) -> Range<Int>? {
        out.append(contentsOf: [UInt8(ascii: "/"), UInt8(ascii: "/")])
        var hostRange = out.count..<out.count
        var slashes = 0
        while p < input.count, slashes < 2, input[p] == UInt8(ascii: "/") || input[p] == UInt8(ascii: "\\") {
            p += 1
            slashes += 1
        }
        if slashes == 2 {
            var end = p
            while end < input.count {
                let b = input[end]
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "\\") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")
                {
                    break
                }
                end += 1
            }
            let raw = Array(input[p..<end])
            let isDrive =
                raw.count == 2 && isAlpha(raw[0]) && (raw[1] == UInt8(ascii: ":") || raw[1] == UInt8(ascii: "|"))
            if !raw.isEmpty, !isDrive {
                guard let host = WHATWGHost.parseSpecial(raw) else { return nil }
                if host != Array("localhost".utf8) {
                    let start = out.count
                    out.append(contentsOf: host)
                    hostRange = start..<out.count
                }
                p = end
            }
        } else {
            p -= slashes
        }
        parsePath(from: &p, special: true, hasHost: true)
        return hostRange
    }

    /// Path segments with dot-segment removal; special URLs also split on backslashes.
    mutating func parsePath(from p: inout Int, special: Bool, hasHost: Bool) {
        var segments: [[UInt8]] = []
        var sawAny = false
        if p < input.count, input[p] == UInt8(ascii: "/") || (special && input[p] == UInt8(ascii: "\\")) {
            p += 1
            sawAny = true
        } else if p < input.count, input[p] != UInt8(ascii: "?"), input[p] != UInt8(ascii: "#") {
            sawAny = true
        }
        if sawAny || special {
            var buffer: [UInt8] = []
            while true {
                let atEnd = p >= input.count || input[p] == UInt8(ascii: "?") || input[p] == UInt8(ascii: "#")
                let isSlash = !atEnd && (input[p] == UInt8(ascii: "/") || (special && input[p] == UInt8(ascii: "\\")))
                if atEnd || isSlash {
                    if Self.isDoubleDot(buffer) {
                        if !segments.isEmpty { segments.removeLast() }
                        if !isSlash { segments.append([]) }
                    } else if Self.isSingleDot(buffer) {
                        if !isSlash { segments.append([]) }
                    } else {
                        segments.append(buffer)
                    }
                    buffer.removeAll(keepingCapacity: true)
                    if atEnd { break }
                    p += 1
                } else {
                    let b = input[p]
                    if EncodeSet.path.contains(b) {
                        WHATWGHost.appendPercentEncoded(b, to: &buffer)
                    } else {
                        buffer.append(b)
                    }
                    p += 1
                }
            }
        }
        if !hasHost, segments.count > 1, segments[0].isEmpty {
            // "/." prefix keeps a path that starts with "//" from looking like an authority.
            out.append(contentsOf: [UInt8(ascii: "/"), UInt8(ascii: ".")])
        }
        for s in segments {
            out.append(UInt8(ascii: "/"))
            out.append(contentsOf: s)
        }
    }

    static func isSingleDot(_ s: [UInt8]) -> Bool {
        s == [UInt8(ascii: ".")]
            || (s.count == 3 && s[0] == UInt8(ascii: "%") && s[1] == UInt8(ascii: "2")
                && s[2] | 0x20 == UInt8(ascii: "e"))
    }

    static func isDoubleDot(_ s: [UInt8]) -> Bool {
        func dotAt(_ i: Int) -> Int? {
            if i < s.count, s[i] == UInt8(ascii: ".") { return i + 1 }
            if i + 2 < s.count, s[i] == UInt8(ascii: "%"), s[i + 1] == UInt8(ascii: "2"),
                s[i + 2] | 0x20 == UInt8(ascii: "e")
            {
                return i + 3
            }
            return nil
        }
        guard let a = dotAt(0), let b = dotAt(a) else { return false }
        return b == s.count
    }
}
