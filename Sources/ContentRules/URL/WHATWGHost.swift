// The host of a URL as WebKit's URLParser parses it (WHATWG "host parsing"): the one home for the redirect-URL
// check (WebKitURLValidity, which only asks whether a host parses) and the request canonicaliser (RuleEngine's
// CanonicalURL, which also needs the serialized host the rule automata run over).
//
// Special URLs (http, https, ws, wss, ftp, file): percent-decoding, IDNA to punycode (WebKitIDNA), forbidden domain
// code points, IPv4 in every WHATWG notation with "ends in a number", IPv6 with compression and an IPv4 tail.
// Other URLs have an opaque host: forbidden host code points refused, C0 controls and non-ASCII percent-encoded.

public enum WHATWGHost {
    /// The serialized host of a special URL (IPv6 in brackets, IPv4 dotted-decimal, a domain lowercased and in
    /// punycode) from its raw UTF-8 text, still percent-encoded; nil when WebKit's parser fails on it.
    public static func parseSpecial(_ raw: [UInt8]) -> [UInt8]? {
        if raw.first == UInt8(ascii: "[") { return parseBracketedIPv6(raw) }
        guard let ascii = domainToASCII(percentDecode(raw)) else { return nil }
        if ascii.isEmpty || ascii.contains(where: isForbiddenDomainCodePoint) { return nil }
        switch parseIPv4(ascii) {
        case .address(let a): return serializeIPv4(a)
        case .failure: return nil
        case .notIPv4: return endsInANumber(ascii) ? nil : ascii
        }
    }

    /// The serialized opaque host of a non-special URL from its raw UTF-8 text; nil when WebKit's parser fails.
    public static func parseOpaque(_ raw: [UInt8]) -> [UInt8]? {
        if raw.first == UInt8(ascii: "[") { return parseBracketedIPv6(raw) }
        var result: [UInt8] = []
        result.reserveCapacity(raw.count)
        for b in raw {
            // '%' is allowed: an opaque host is kept percent-encoded, not decoded.
            if b != UInt8(ascii: "%"), isForbiddenHostCodePoint(b) { return nil }
            if isC0ControlPercentEncoded(b) {
                appendPercentEncoded(b, to: &result)
            } else {
                result.append(b)
            }
        }
        return result
    }

    static func parseBracketedIPv6(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.last == UInt8(ascii: "]"), let v6 = parseIPv6(Array(raw.dropFirst().dropLast())) else { return nil }
        return [UInt8(ascii: "[")] + serializeIPv6(v6) + [UInt8(ascii: "]")]
    }

    // MARK: domains

    /// "%XY" becomes the byte XY; a '%' without two hex digits after it stays as it is.
    public static func percentDecode(_ raw: [UInt8]) -> [UInt8] {
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
        return decoded
    }

    /// URLParser::domainToASCII: plain ASCII without an "xn--" label is only lowercased; anything else must be
    /// UTF-8 and goes through ICU's UTS #46 with WebKit's options and tolerated errors, which must give ASCII.
    static func domainToASCII(_ decoded: [UInt8]) -> [UInt8]? {
        if decoded.allSatisfy({ $0 < 0x80 }) && !hasPunycodeLabel(decoded) { return decoded.map(lowercased) }
        guard let domain = String(validating: decoded, as: UTF8.self), let converted = WebKitIDNA.toASCII(domain),
            converted.allSatisfy({ $0 < 0x80 })
        else { return nil }
        return converted.map { UInt8(truncatingIfNeeded: $0) }
    }

    /// Any label starting, case-insensitively, with "xn--".
    public static func hasPunycodeLabel(_ host: [UInt8]) -> Bool {
        var labelStart = 0
        for (k, b) in host.enumerated() where b == UInt8(ascii: ".") || k == host.count - 1 {
            if k + 1 - labelStart >= 4, lowercased(host[labelStart]) == UInt8(ascii: "x"),
                lowercased(host[labelStart + 1]) == UInt8(ascii: "n"),
                host[labelStart + 2] == UInt8(ascii: "-"), host[labelStart + 3] == UInt8(ascii: "-")
            {
                return true
            }
            labelStart = k + 1
        }
        return false
    }

    // MARK: IPv4 (URLParser::parseIPv4Host)

    public enum IPv4Result: Equatable { case address(UInt32), notIPv4, failure }

    enum PieceResult { case value(UInt64), failure, overflow }

    /// A literal port of WebKit's loop on a lowercased ASCII domain, including its quirk that a failed or
    /// overflowing piece leaves the position where it stopped (the next piece starts there), so the number of
    /// pieces can exceed the number of dots: real WebKit 2.50.6 refuses "http://42949672950x/" but accepts
    /// "http://999999999999x/", which the WHATWG algorithm would not tell apart. `.notIPv4` is a domain, unless
    /// it `endsInANumber`.
    public static func parseIPv4(_ s: [UInt8]) -> IPv4Result {
        if s.first == UInt8(ascii: ".") { return .notIPv4 }
        var pieces: [PieceResult] = []
        var i = 0
        while i < s.count {
            if pieces.count >= 4 { return .notIPv4 }
            pieces.append(parseIPv4Piece(s, &i))
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
    static func parseIPv4Piece(_ s: [UInt8], _ i: inout Int) -> PieceResult {
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
                guard let d = hexValue(c).map(UInt64.init), d < radix else { return .failure }
                value = value * radix + d
                if value > UInt64(UInt32.max) { return .overflow }
                i += 1
            }
        }
        return .value(value)
    }

    /// The WHATWG "ends in a number" check on a host that is not an IPv4 address: its last label (a trailing
    /// dot aside) is all decimal digits, or "0x" and hex digits.
    public static func endsInANumber(_ s: [UInt8]) -> Bool {
        var parts = s.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true, parts.count > 1 { parts.removeLast() }
        guard let last = parts.last, let f = last.first, isDigit(f) else { return false }
        if last.count == 1 { return true }
        let l = Array(last)
        if f == UInt8(ascii: "0"), l[1] == UInt8(ascii: "x") || l[1] == UInt8(ascii: "X") {
            return l[2...].allSatisfy { hexValue($0) != nil }
        }
        return l.allSatisfy(isDigit)
    }

    static func serializeIPv4(_ a: UInt32) -> [UInt8] {
        Array("\(a >> 24).\((a >> 16) & 0xFF).\((a >> 8) & 0xFF).\(a & 0xFF)".utf8)
    }

    // MARK: IPv6 (URLParser::parseIPv6Host), on the text between the brackets

    /// The eight pieces of an IPv6 address, nil when WebKit's loop fails. Like WebKit (and unlike the WHATWG
    /// text) a single ':' may end the address after a compression ("[::1:]" is "[::1]"), and an IPv4 tail is
    /// tried first where one may stand.
    public static func parseIPv6(_ s: [UInt8]) -> [UInt16]? {
        let colon = UInt8(ascii: ":")
        let n = s.count
        if n == 0 { return nil }
        var address = [UInt16](repeating: 0, count: 8)
        var c = 0
        var piecePointer = 0
        var compress: Int? = nil
        if s[0] == colon {
            guard n > 1, s[1] == colon else { return nil }
            c = 2
            piecePointer = 1
            compress = 1
        }
        while c < n {
            if piecePointer == 8 { return nil }
            if s[c] == colon {
                if compress != nil { return nil }
                c += 1
                piecePointer += 1
                compress = piecePointer
                continue
            }
            if piecePointer == 6 || (compress != nil && piecePointer < 6), let v4 = parseIPv4InsideIPv6(s[c...]) {
                if compress != nil && piecePointer == 5 { return nil }
                address[piecePointer] = UInt16(v4 >> 16)
                address[piecePointer + 1] = UInt16(v4 & 0xFFFF)
                piecePointer += 2
                c = n
                break
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, c < n, let h = hexValue(s[c]) {
                value = value << 4 | UInt16(h)
                length += 1
                c += 1
            }
            address[piecePointer] = value
            piecePointer += 1
            if c >= n { break }
            if piecePointer == 8 || s[c] != colon { return nil }
            c += 1
        }
        guard let compress else { return piecePointer == 8 ? address : nil }
        moveAfterCompression(&address, compress: compress, piecesSeen: piecePointer)
        return address
    }

    /// The pieces written after "::" move to the end; the gap they leave is the compressed zeros.
    static func moveAfterCompression(_ address: inout [UInt16], compress: Int, piecesSeen: Int) {
        var swaps = piecesSeen - compress
        var pieceIndex = 7
        while pieceIndex != 0, swaps > 0 {
            address.swapAt(pieceIndex, compress + swaps - 1)
            pieceIndex -= 1
            swaps -= 1
        }
    }

    /// URLParser::parseIPv4AddressInsideIPv6: exactly four dotted decimal numbers 0-255 without leading zeros,
    /// reaching the end of the address.
    static func parseIPv4InsideIPv6(_ s: ArraySlice<UInt8>) -> UInt32? {
        var c = s.startIndex
        var address: UInt32 = 0
        for k in 0..<4 {
            guard c < s.endIndex else { return nil }
            var piece: UInt32 = 0
            var leadingZero = false
            while c < s.endIndex {
                let ch = s[c]
                guard isDigit(ch) else { return nil }
                if piece == 0 && ch == UInt8(ascii: "0") {
                    if leadingZero { return nil }
                    leadingZero = true
                }
                piece = piece * 10 + UInt32(ch - 0x30)
                if piece > 255 { return nil }
                c += 1
                if c >= s.endIndex || s[c] == UInt8(ascii: ".") { break }
            }
            if piece != 0 && leadingZero { return nil }
            address = address << 8 | piece
            if k < 3 {
                guard c < s.endIndex, s[c] == UInt8(ascii: ".") else { return nil }
                c += 1
            } else if c < s.endIndex {
                return nil
            }
        }
        return address
    }

    /// Lowercase hex pieces, the first longest run of two or more zero pieces compressed to "::".
    public static func serializeIPv6(_ a: [UInt16]) -> [UInt8] {
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

    // MARK: code points

    /// WHATWG forbidden host code points: NUL TAB LF CR space # / : < > ? @ [ \ ] ^ |
    public static func isForbiddenHostCodePoint(_ b: UInt8) -> Bool {
        switch b {
        case 0x00, 0x09, 0x0A, 0x0D, 0x20, UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "<"),
            UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"),
            UInt8(ascii: "]"),
            UInt8(ascii: "^"), UInt8(ascii: "|"):
            return true
        default: return false
        }
    }

    /// Forbidden domain code points: the forbidden host code points, C0 controls, '%' and DEL.
    public static func isForbiddenDomainCodePoint(_ b: UInt8) -> Bool {
        isForbiddenHostCodePoint(b) || b <= 0x1F || b == UInt8(ascii: "%") || b == 0x7F
    }

    /// The C0 control percent-encode set: C0 controls and everything above '~'.
    public static func isC0ControlPercentEncoded(_ b: UInt8) -> Bool { b < 0x20 || b > 0x7E }

    @inlinable public static func appendPercentEncoded(_ b: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(upperHexDigits[Int(b >> 4)])
        out.append(upperHexDigits[Int(b & 0xF)])
    }

    @usableFromInline static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    @inlinable public static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    @inlinable public static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    @inlinable public static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    @inlinable public static func lowercased(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }
    /// ASCII lowercase (WHATWG Infra): A-Z only, every other byte as it is.
    public static func lowercased(_ s: String) -> String { String(decoding: s.utf8.map(lowercased), as: UTF8.self) }
}
