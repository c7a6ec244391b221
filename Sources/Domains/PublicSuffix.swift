// Registrable domains (eTLD+1) from the public suffix list, through libpsl. Debian's libpsl has no
// built-in list, so the system list (package publicsuffix) is loaded with psl_latest(NULL).
// WebKit (GTK) decides first/third party from the same list, so this must not be a hand-written table.

import CPSL
import Foundation

public final class PublicSuffixList: @unchecked Sendable {
    // A loaded psl_ctx_t is read-only, so concurrent queries are safe.
    private let context: OpaquePointer

    public static let shared: PublicSuffixList = {
        guard let list = PublicSuffixList() else {
            fatalError("radarblock: cannot load the public suffix list (install Debian's publicsuffix package)")
        }
        return list
    }()

    /// The list's text form, for the rules libpsl does not enumerate (isSiteStable); nil when unknown.
    private let textPath: String?
    private let ruleIndexLock = NSLock()
    private var ruleIndexCache: PublicSuffixRuleIndex??

    public init?() {
        guard let ctx = psl_latest(nil) else { return nil }
        context = ctx
        // Debian installs the list twice, as text (.dat) and compiled (.dafsa); psl_latest loads the newer.
        textPath = [psl_builtin_filename(), psl_dist_filename()].compactMap { $0.map { String(cString: $0) } }.first {
            $0.hasSuffix(".dat")
        }
    }

    public init?(file path: String) {
        guard let ctx = psl_load_file(path) else { return nil }
        context = ctx
        textPath = path
    }

    deinit { psl_free(context) }

    /// eTLD+1 of a lowercase ASCII host, or nil when the host is a public suffix itself or empty.
    /// Unknown TLDs fall back to the last two labels (the list's implicit "*" rule).
    public func registrableDomain(_ host: String) -> String? {
        guard !host.isEmpty else { return nil }
        // libpsl returns a pointer into its argument: copy it while the temporary C string is alive.
        return host.withCString { c in psl_registrable_domain(context, c).map { String(cString: $0) } }
    }

    /// True when every host at or under `domain` has the registrable domain of `domain`: `domain` is not a
    /// public suffix and no rule of the list lies at or under it (as `s3.amazonaws.com` lies under `amazonaws.com`,
    /// which makes `a.amazonaws.com` and `b.s3.amazonaws.com` different sites). False when the list's text cannot
    /// be read, so a caller that drops a rule on this answer never drops one it would need.
    public func isSiteStable(_ domain: String) -> Bool {
        guard !domain.isEmpty, !Host.isIPAddress(domain), registrableDomain(domain) != nil, let index = ruleIndex
        else { return false }
        return !index.containsRuleAtOrUnder(domain)
    }

    /// The list's rules, read once from its text form; nil when there is none (a compiled .dafsa file only).
    private var ruleIndex: PublicSuffixRuleIndex? {
        ruleIndexLock.lock()
        defer { ruleIndexLock.unlock() }
        if let cached = ruleIndexCache { return cached }
        let index = textPath.flatMap { FileManager.default.contents(atPath: $0) }.map {
            PublicSuffixRuleIndex(listText: [UInt8]($0))
        }
        ruleIndexCache = .some(index)
        return index
    }

    /// WebKit's RegistrableDomain: eTLD+1, else the host itself (suffixes, single labels, localhost, IP addresses).
    public func webKitRegistrableDomain(host: String) -> String {
        if host.isEmpty { return "" }
        if Host.isIPAddress(host) { return host }
        return registrableDomain(host) ?? host
    }
}

public enum Host {
    public static func isIPAddress(_ host: String) -> Bool {
        // One pass over the bytes: this runs for every new host a request names.
        var parts = 0, digits = 0, value = 0
        for (i, b) in host.utf8.enumerated() {
            if i == 0 && b == UInt8(ascii: "[") { return true }
            if b == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                parts += 1
                digits = 0
                value = 0
            } else if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                digits += 1
                value = value * 10 + Int(b - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return parts == 3 && digits > 0
    }

    /// `host` equals `domain` or is a subdomain of it (label boundary).
    public static func isSameOrSubdomain(_ host: String, of domain: String) -> Bool {
        if host == domain { return true }
        guard host.count > domain.count, host.hasSuffix(domain) else { return false }
        return host.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: ".")
    }

    /// The host and each parent domain, longest first: a.b.c.com → a.b.c.com, b.c.com, c.com, com.
    public static func suffixes(of host: String) -> [String] {
        var out = [host]
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { out.append(String(rest)) }
        }
        return out
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
