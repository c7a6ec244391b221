// Domains from datasets are normalised the way WebKit requires for if-domain/unless-domain:
// lowercase ASCII, non-ASCII labels encoded as punycode (IDNA 2008 with UTS #46 mapping, via libidn2).

import CIDN2
#if canImport(Glibc)
    import Glibc
#endif

public enum DomainError: Error, Equatable, CustomStringConvertible {
    case empty
    case invalid(String, reason: String)

    public var description: String {
        switch self {
        case .empty: return "empty domain"
        case .invalid(let d, let reason): return "invalid domain \"\(d)\": \(reason)"
        }
    }
}

public enum DomainNormalizer {
    /// Lowercases, trims whitespace and a trailing dot, and punycodes non-ASCII labels.
    /// A leading "*." or "*" wildcard is kept as is (callers decide what it means).
    public static func normalize(_ raw: String) throws -> String {
        var s = raw.trimmingWhitespace()
        if s.hasSuffix(".") { s.removeLast() }
        guard !s.isEmpty else { throw DomainError.empty }
        if s.unicodeScalars.allSatisfy({ $0.isASCII }) {
            let lower = s.lowercased()
            guard lower.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw DomainError.invalid(raw, reason: "contains whitespace or control characters")
            }
            return lower
        }
        var output: UnsafeMutablePointer<CChar>? = nil
        let flags = Int32(IDN2_NFC_INPUT.rawValue | IDN2_NONTRANSITIONAL.rawValue)
        var rc = idn2_to_ascii_8z(s, &output, flags)
        if rc != Int32(IDN2_OK.rawValue) {
            // Some real-world names are valid only under transitional processing.
            rc = idn2_to_ascii_8z(s, &output, Int32(IDN2_NFC_INPUT.rawValue | IDN2_TRANSITIONAL.rawValue))
        }
        guard rc == Int32(IDN2_OK.rawValue), let out = output else {
            let reason = String(cString: idn2_strerror(rc))
            throw DomainError.invalid(raw, reason: reason)
        }
        defer { free(out) }
        return String(cString: out).lowercased()
    }
}

extension String {
    /// Without leading and trailing Unicode white space (a domain, a line of a list file).
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}
