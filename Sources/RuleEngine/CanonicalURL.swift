// URLs as WebKit sees them: WHATWG URL parsing and serialization (WTF::URLParser), because the
// rule automata run over `URL::string()` and a rule that matches "http://a.com:80/" must not be
// fooled into missing "HTTP://A.COM/". Invalid URLs are nil: WebKit never matches them.
//
// Covered: scheme lowercasing, special schemes (http, https, ws, wss, ftp, file) with their default
// ports, slash/backslash handling, user info, hosts (percent-decoding, IDNA to punycode, forbidden
// code points, IPv4 in all WHATWG notations, IPv6 compression), dot segments, and WebKit's
// percent-encode sets for path, query (special: also "'"), fragment and user info. Internationalized
// hosts go through ICU's UTS #46 configured as WebKit configures it.

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
        schemeEnd == 4 && bytes[0] == UInt8(ascii: "d") && bytes[1] == UInt8(ascii: "a") && bytes[2] == UInt8(ascii: "t") && bytes[3] == UInt8(ascii: "a")
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
        if let fast = alreadyCanonical(input) { return fast }
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
        let n = u.count
        var p: Int
        let schemeEnd: Int
        if n > 8, u[0] == 0x68, u[1] == 0x74, u[2] == 0x74, u[3] == 0x70 {  // "http"
            if u[4] == UInt8(ascii: ":") { schemeEnd = 4 } else if u[4] == UInt8(ascii: "s"), u[5] == UInt8(ascii: ":") { schemeEnd = 5 } else { return nil }
        } else {
            return nil
        }
        p = schemeEnd + 1
        guard p + 2 < n, u[p] == UInt8(ascii: "/"), u[p + 1] == UInt8(ascii: "/") else { return nil }
        p += 2
        let hostStart = p
        var labelStart = p
        var lastLabelAllDigits = true
        var previous: UInt8 = UInt8(ascii: ".")
        while p < n {
            let b = u[p]
            if (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-") {
                lastLabelAllDigits = false
            } else if b >= 0x30 && b <= 0x39 {
            } else if b == UInt8(ascii: ".") {
                if previous == UInt8(ascii: ".") { return nil }
                labelStart = p + 1
                lastLabelAllDigits = true
            } else if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") {
                break
            } else {
                return nil
            }
            previous = b
            p += 1
        }
        let hostEnd = p
        guard hostEnd > hostStart, u[hostStart] != UInt8(ascii: ".") else { return nil }
        // Hosts that could be IPv4 numbers or punycode take the full path.
        if lastLabelAllDigits { return nil }
        if hostEnd - labelStart >= 2, u[labelStart] == UInt8(ascii: "0"), u[labelStart + 1] == UInt8(ascii: "x") { return nil }
        var k = hostStart
        while k + 3 < hostEnd {
            if u[k] == UInt8(ascii: "x"), u[k + 1] == UInt8(ascii: "n"), u[k + 2] == UInt8(ascii: "-"), u[k + 3] == UInt8(ascii: "-") { return nil }
            k += 1
        }
        // Path: no dot segments, nothing from the path percent-encode set, no backslash.
        var state = 0  // 0 path, 1 query, 2 fragment
        var segmentStart = p
        while p < n {
            let b = u[p]
            if b <= 0x20 || b >= 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") { return nil }
            switch state {
            case 0:
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") {
                    if p > segmentStart, u[segmentStart] == UInt8(ascii: ".") || u[segmentStart] == UInt8(ascii: "%") { return nil }
                    segmentStart = p + 1
                    if b == UInt8(ascii: "?") { state = 1 } else if b == UInt8(ascii: "#") { state = 2 }
                } else if b == UInt8(ascii: "\\") || b == UInt8(ascii: "^") || b == UInt8(ascii: "`") || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") {
                    return nil
                }
            case 1:
                if b == UInt8(ascii: "'") { return nil }
                if b == UInt8(ascii: "#") { state = 2 }
            default:
                if b == UInt8(ascii: "`") { return nil }
            }
            p += 1
        }
        if state == 0, p > segmentStart, u[segmentStart] == UInt8(ascii: ".") || u[segmentStart] == UInt8(ascii: "%") { return nil }
        var bytes: [UInt8]
        if hostEnd == n || u[hostEnd] != UInt8(ascii: "/") {
            bytes = []
            bytes.reserveCapacity(n + 1)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[0..<hostEnd]))
            bytes.append(UInt8(ascii: "/"))
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[hostEnd...]))
        } else {
            bytes = Array(u)
        }
        return CanonicalURL(bytes: bytes, schemeEnd: schemeEnd, hostRange: hostStart..<hostEnd)
    }

    public static let defaultPorts: [String: Int] = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]
    static let specialSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp", "file"]
}

// MARK: - Character classes (WebKit's URLParser table)

private enum EncodeSet {
    case c0Control, fragment, path, query, specialQuery, userInfo

    func contains(_ b: UInt8) -> Bool {
        if b < 0x20 || b > 0x7E { return true }
        switch self {
        case .c0Control: return false
        case .fragment:
            return b == 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b == UInt8(ascii: "`")
        case .query, .specialQuery:
            switch b {
            case 0x20, UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "<"), UInt8(ascii: ">"): return true
            case UInt8(ascii: "'"): return self == .specialQuery
            default: return false
            }
        case .path:
            switch b {
            case 0x20, UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"),
                 UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "}"): return true
            default: return false
            }
        case .userInfo:
            switch b {
            case 0x20, UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: ";"),
                 UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"),
                 UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "`"),
                 UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"): return true
            default: return false
            }
        }
    }
}

/// Forbidden in a domain (special URLs), after IDNA.
private func isForbiddenDomainByte(_ b: UInt8) -> Bool {
    if b <= 0x20 || b == 0x7F { return true }
    switch b {
    case UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "<"), UInt8(ascii: ">"),
         UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"),
         UInt8(ascii: "|"): return true
    default: return false
    }
}

/// Forbidden in an opaque host (non-special URLs).
private func isForbiddenHostByte(_ b: UInt8) -> Bool {
    switch b {
    case 0, 0x09, 0x0A, 0x0D, 0x20, UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "<"),
         UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"),
         UInt8(ascii: "^"), UInt8(ascii: "|"): return true
    default: return false
    }
}

private let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

@inline(__always) private func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: return b - 0x30
    case 0x41...0x46: return b - 0x41 + 10
    case 0x61...0x66: return b - 0x61 + 10
    default: return nil
    }
}

@inline(__always) private func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
@inline(__always) private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
@inline(__always) private func lower(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }

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
            out.append(contentsOf: [UInt8(ascii: "/"), UInt8(ascii: "/")])
            var end = p
            while end < input.count {
                let b = input[end]
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "\\") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { break }
                end += 1
            }
            guard let r = parseAuthority(p..<end, special: true, scheme: scheme) else { return nil }
            hostRange = r
            p = end
            parsePath(from: &p, special: true, hasHost: true)
        } else if p + 1 < input.count, input[p] == UInt8(ascii: "/"), input[p + 1] == UInt8(ascii: "/") {
            p += 2
            out.append(contentsOf: [UInt8(ascii: "/"), UInt8(ascii: "/")])
            var end = p
            while end < input.count {
                let b = input[end]
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { break }
                end += 1
            }
            guard let r = parseAuthority(p..<end, special: false, scheme: scheme) else { return nil }
            hostRange = r
            p = end
            parsePath(from: &p, special: false, hasHost: true)
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
            out.append(UInt8(ascii: "%"))
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0xF)])
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
            if b == UInt8(ascii: "[") { inBrackets = true }
            else if b == UInt8(ascii: "]") { inBrackets = false }
            else if b == UInt8(ascii: ":"), !inBrackets {
                hostEnd = j
                portStart = j + 1
                break
            }
            j += 1
        }
        let hostOut = out.count
        if special {
            if hostEnd == hostStart { return nil }
            guard let host = Self.parseSpecialHost(Array(input[hostStart..<hostEnd])) else { return nil }
            out.append(contentsOf: host)
        } else {
            guard let host = Self.parseOpaqueHost(Array(input[hostStart..<hostEnd])) else { return nil }
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

    static func parseOpaqueHost(_ raw: [UInt8]) -> [UInt8]? {
        if raw.first == UInt8(ascii: "[") {
            guard raw.last == UInt8(ascii: "]"), let v6 = parseIPv6(Array(raw.dropFirst().dropLast())) else { return nil }
            return [UInt8(ascii: "[")] + serializeIPv6(v6) + [UInt8(ascii: "]")]
        }
        var result: [UInt8] = []
        for b in raw {
            if b != UInt8(ascii: "%"), isForbiddenHostByte(b) { return nil }
            if EncodeSet.c0Control.contains(b) {
                result.append(UInt8(ascii: "%"))
                result.append(hexDigits[Int(b >> 4)])
                result.append(hexDigits[Int(b & 0xF)])
            } else {
                result.append(b)
            }
        }
        return result
    }

    static func parseSpecialHost(_ raw: [UInt8]) -> [UInt8]? {
        if raw.first == UInt8(ascii: "[") {
            guard raw.last == UInt8(ascii: "]"), let v6 = parseIPv6(Array(raw.dropFirst().dropLast())) else { return nil }
            return [UInt8(ascii: "[")] + serializeIPv6(v6) + [UInt8(ascii: "]")]
        }
        // Percent-decode, then domain to ASCII.
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var k = 0
        while k < raw.count {
            let b = raw[k]
            if b == UInt8(ascii: "%"), k + 2 < raw.count, let h = hexValue(raw[k + 1]), let l = hexValue(raw[k + 2]) {
                decoded.append(h << 4 | l)
                k += 3
            } else {
                decoded.append(b)
                k += 1
            }
        }
        var ascii: [UInt8]
        if decoded.allSatisfy({ $0 < 0x80 }) && !hasPunycodeLabel(decoded) {
            ascii = decoded.map(lower)
        } else {
            // URLParser::domainToASCII: ICU UTS #46 with WebKit's options and tolerated errors.
            guard let s = String(validating: decoded, as: UTF8.self), let converted = idnaToASCII(s) else { return nil }
            ascii = converted
        }
        if ascii.isEmpty || ascii.contains(where: isForbiddenDomainByte) { return nil }
        switch parseIPv4(ascii) {
        case .notIPv4: return ascii
        case .failure: return nil
        case .address(let a):
            return Array("\(a >> 24).\((a >> 16) & 0xFF).\((a >> 8) & 0xFF).\(a & 0xFF)".utf8)
        }
    }

    /// WebKit's ToASCII, nil unless the result is ASCII.
    static func idnaToASCII(_ domain: String) -> [UInt8]? {
        guard let out = WebKitIDNA.toASCII(domain), out.allSatisfy({ $0 < 0x80 }) else { return nil }
        return out.map { UInt8(truncatingIfNeeded: $0) }
    }

    static func hasPunycodeLabel(_ host: [UInt8]) -> Bool {
        var labelStart = 0
        for (k, b) in host.enumerated() where b == UInt8(ascii: ".") || k == host.count - 1 {
            if k + 1 - labelStart >= 4, lower(host[labelStart]) == UInt8(ascii: "x"), lower(host[labelStart + 1]) == UInt8(ascii: "n"),
               host[labelStart + 2] == UInt8(ascii: "-"), host[labelStart + 3] == UInt8(ascii: "-") { return true }
            labelStart = k + 1
        }
        return false
    }

    enum IPv4Result { case notIPv4, failure, address(UInt32) }

    /// WHATWG IPv4 parser, entered only when the last label "ends in a number".
    static func parseIPv4(_ host: [UInt8]) -> IPv4Result {
        var parts = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        if parts.count > 1, parts.last!.isEmpty { parts.removeLast() }
        guard let last = parts.last, endsInNumber(last) else { return .notIPv4 }
        if parts.count > 4 { return .failure }
        var numbers: [UInt64] = []
        for part in parts {
            guard let n = parseIPv4Number(part) else { return .failure }
            numbers.append(n)
        }
        for n in numbers.dropLast() where n > 255 { return .failure }
        let limit = UInt64(1) << (8 * UInt64(5 - numbers.count))
        if numbers.last! >= limit { return .failure }
        var ipv4 = numbers.last!
        for (idx, n) in numbers.dropLast().enumerated() { ipv4 += n << (8 * UInt64(3 - idx)) }
        return .address(UInt32(ipv4))
    }

    static func endsInNumber(_ label: [UInt8]) -> Bool {
        if !label.isEmpty, label.allSatisfy(isDigit) { return true }
        if label.count >= 2, label[0] == UInt8(ascii: "0"), label[1] | 0x20 == UInt8(ascii: "x") {
            return label.dropFirst(2).allSatisfy { hexValue($0) != nil }
        }
        return false
    }

    static func parseIPv4Number(_ s: [UInt8]) -> UInt64? {
        if s.isEmpty { return nil }
        var digits = ArraySlice(s)
        var radix: UInt64 = 10
        if s.count >= 2, s[0] == UInt8(ascii: "0"), s[1] | 0x20 == UInt8(ascii: "x") {
            digits = s.dropFirst(2)
            radix = 16
        } else if s.count >= 2, s[0] == UInt8(ascii: "0") {
            digits = s.dropFirst(1)
            radix = 8
        }
        if digits.isEmpty { return 0 }
        var value: UInt64 = 0
        for b in digits {
            guard let d = hexValue(b), UInt64(d) < radix else { return nil }
            value = value * radix + UInt64(d)
            if value > UInt64(UInt32.max) * 256 { return UInt64(UInt32.max) * 256 }  // saturate: already too large
        }
        return value
    }

    static func parseIPv6(_ s: [UInt8]) -> [UInt16]? {
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int? = nil
        var p = 0
        if p < s.count, s[p] == UInt8(ascii: ":") {
            guard p + 1 < s.count, s[p + 1] == UInt8(ascii: ":") else { return nil }
            p += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while p < s.count {
            if pieceIndex == 8 { return nil }
            if s[p] == UInt8(ascii: ":") {
                if compress != nil { return nil }
                p += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, p < s.count, let h = hexValue(s[p]) {
                value = value << 4 | UInt16(h)
                p += 1
                length += 1
            }
            if p < s.count, s[p] == UInt8(ascii: ".") {
                if length == 0 { return nil }
                p -= length
                if pieceIndex > 6 { return nil }
                var numbersSeen = 0
                while p < s.count {
                    var ipv4Piece: Int? = nil
                    if numbersSeen > 0 {
                        if s[p] == UInt8(ascii: "."), numbersSeen < 4 { p += 1 } else { return nil }
                    }
                    guard p < s.count, isDigit(s[p]) else { return nil }
                    while p < s.count, isDigit(s[p]) {
                        let n = Int(s[p] - 0x30)
                        if let v = ipv4Piece {
                            if v == 0 { return nil }
                            ipv4Piece = v * 10 + n
                        } else {
                            ipv4Piece = n
                        }
                        if ipv4Piece! > 255 { return nil }
                        p += 1
                    }
                    address[pieceIndex] = address[pieceIndex] * 0x100 + UInt16(ipv4Piece!)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                if numbersSeen != 4 { return nil }
                break
            } else if p < s.count, s[p] == UInt8(ascii: ":") {
                p += 1
                if p >= s.count { return nil }
            } else if p < s.count {
                return nil
            }
            address[pieceIndex] = value
            pieceIndex += 1
        }
        if let c = compress {
            var swaps = pieceIndex - c
            pieceIndex = 7
            while pieceIndex != 0, swaps > 0 {
                address.swapAt(pieceIndex, c + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return address
    }

    static func serializeIPv6(_ a: [UInt16]) -> [UInt8] {
        // Compress the first longest run of two or more zero pieces.
        var bestStart = -1, bestLength = 1
        var k = 0
        while k < 8 {
            if a[k] == 0 {
                var e = k
                while e < 8, a[e] == 0 { e += 1 }
                if e - k > bestLength { bestStart = k; bestLength = e - k }
                k = e
            } else {
                k += 1
            }
        }
        var s = ""
        var ignore0 = false
        for idx in 0..<8 {
            if ignore0, a[idx] == 0 { continue }
            ignore0 = false
            if idx == bestStart {
                s += idx == 0 ? "::" : ":"
                ignore0 = true
                continue
            }
            s += String(a[idx], radix: 16)
            if idx != 7 { s += ":" }
        }
        return Array(s.utf8)
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
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "\\") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { break }
                end += 1
            }
            let raw = Array(input[p..<end])
            let isDrive = raw.count == 2 && isAlpha(raw[0]) && (raw[1] == UInt8(ascii: ":") || raw[1] == UInt8(ascii: "|"))
            if !raw.isEmpty, !isDrive {
                guard let host = Self.parseSpecialHost(raw) else { return nil }
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
                        buffer.append(UInt8(ascii: "%"))
                        buffer.append(hexDigits[Int(b >> 4)])
                        buffer.append(hexDigits[Int(b & 0xF)])
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
        s == [UInt8(ascii: ".")] || (s.count == 3 && s[0] == UInt8(ascii: "%") && s[1] == UInt8(ascii: "2") && s[2] | 0x20 == UInt8(ascii: "e"))
    }

    static func isDoubleDot(_ s: [UInt8]) -> Bool {
        func dotAt(_ i: Int) -> Int? {
            if i < s.count, s[i] == UInt8(ascii: ".") { return i + 1 }
            if i + 2 < s.count, s[i] == UInt8(ascii: "%"), s[i + 1] == UInt8(ascii: "2"), s[i + 2] | 0x20 == UInt8(ascii: "e") { return i + 3 }
            return nil
        }
        guard let a = dotAt(0), let b = dotAt(a) else { return false }
        return b == s.count
    }
}
