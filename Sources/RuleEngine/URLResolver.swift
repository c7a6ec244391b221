import Domains
#if canImport(Glibc)
    import Glibc
#endif

/// Parses top and frame URLs once per run of equal values (requests of one page share them) and remembers
/// the registrable domains of their hosts (public-suffix lookups are the expensive part).
public final class URLResolver {
    public struct Top {
        public var url: CanonicalURL?
    }
    // Per thread, as LoadedRuleList's caches are (each engine copy has its own resolver): unchecked for the same
    // reason.
    @exclusivity(unchecked) private var lastTopRaw: [UInt8]? = nil
    @exclusivity(unchecked) private var lastTop = Top(url: nil)
    @exclusivity(unchecked) private var lastFrameRaw: [UInt8]? = nil
    @exclusivity(unchecked) private var lastFrame: CanonicalURL? = nil
    /// Registrable domains by host: sites repeat across a corpus, and a corpus can name a great many.
    @exclusivity(unchecked) private var domains = ByteKeyCache<Int>(slots: 1 << 17)

    public init() {}

    public func top(_ raw: String) -> Top {
        var raw = raw
        return raw.withUTF8 { top(utf8: $0) }
    }

    public func top(utf8 raw: UnsafeBufferPointer<UInt8>) -> Top {
        top(utf8: raw) { CanonicalURL.parse(utf8: raw) }
    }

    /// As `top(utf8:)`, given `CanonicalURL.plainHost(raw)` (a caller that read it already).
    func top(utf8 raw: UnsafeBufferPointer<UInt8>, plainHost: CanonicalURL.PlainHost?) -> Top {
        top(utf8: raw) { CanonicalURL.parse(utf8: raw, plainHost: plainHost) }
    }

    private func top(utf8 raw: UnsafeBufferPointer<UInt8>, parsing parse: () -> CanonicalURL?) -> Top {
        if let l = lastTopRaw, Self.equal(l, raw) { return lastTop }
        let url = parse()
        lastTop = Top(url: url)
        // A URL in its canonical form already is its own raw bytes: kept as they are, without a copy.
        if let bytes = url?.bytes, Self.equal(bytes, raw) {
            lastTopRaw = bytes
        } else {
            Self.remember(raw, in: &lastTopRaw)
        }
        return lastTop
    }

    public func frame(_ raw: String) -> CanonicalURL? {
        var raw = raw
        return raw.withUTF8 { frame(utf8: $0) }
    }

    public func frame(utf8 raw: UnsafeBufferPointer<UInt8>) -> CanonicalURL? {
        if let l = lastFrameRaw, Self.equal(l, raw) { return lastFrame }
        lastFrame = CanonicalURL.parse(utf8: raw)
        Self.remember(raw, in: &lastFrameRaw)
        return lastFrame
    }

    private static func equal(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count
            && a.withUnsafeBufferPointer { a in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
    }

    /// Keeps a copy of the last raw URL in storage that is reused.
    private static func remember(_ raw: UnsafeBufferPointer<UInt8>, in storage: inout [UInt8]?) {
        if storage == nil { storage = [] }
        storage!.removeAll(keepingCapacity: true)
        storage!.append(contentsOf: raw)
    }

    /// RegistrableDomain of the URL: eTLD+1, the host itself, or "nullOrigin" without a host.
    public func registrableDomain(of url: CanonicalURL?) -> ArraySlice<UInt8> {
        guard let url, let start = registrableDomainStart(of: url) else {
            return RegistrableDomainMatch.nullOrigin[...]
        }
        return url.bytes[start..<url.hostRange.upperBound]
    }

    /// WebKit's !RegistrableDomain(mainDocumentURL).matches(url): a load of `url` is third party on the site.
    /// Most tracker loads are ruled out by their hosts alone, without a public-suffix lookup (whose cache spans
    /// megabytes, and which costs thousands of instructions for each new site).
    public func isThirdParty(_ url: CanonicalURL?, on top: Top) -> Bool {
        if let site = top.url, let url, RegistrableDomainMatch.outsideEveryRegistrableDomain(of: site, url) {
            return true
        }
        return isThirdPartyByLookup(url, on: top)
    }

    /// The same answer, always from the public-suffix list (tests compare the two).
    func isThirdPartyByLookup(_ url: CanonicalURL?, on top: Top) -> Bool {
        !RegistrableDomainMatch.matches(domain: registrableDomain(of: top.url), url: url)
    }

    /// Where RegistrableDomain of the URL's host starts in `url.bytes` (nil: no host). WebKit's registrable
    /// domain is always a suffix of the host, so the cache keeps its offset in the host, not its bytes.
    func registrableDomainStart(of url: CanonicalURL) -> Int? {
        if url.hostRange.isEmpty { return nil }
        let h = url.hostRange
        return url.bytes.withUnsafeBufferPointer { b in
            let host = UnsafeBufferPointer(rebasing: b[h])
            if let offset = domains.get(host) { return h.lowerBound + Int(offset) }
            let domain = PublicSuffixLookup.webKitRegistrableDomain(url.host).utf8
            let offset = h.count - domain.count
            precondition(
                offset >= 0 && host[offset...].elementsEqual(domain), "a registrable domain is a suffix of its host")
            domains.put(host, offset) // a cached host is shorter than ByteKeyCache.keyWidth
            return h.lowerBound + offset
        }
    }
}

enum PublicSuffixLookup {
    /// PublicSuffixStore::topPrivatelyControlledDomain as RegistrableDomain uses it: localhost and IP
    /// addresses are themselves; a host that is a public suffix or a single label is itself.
    static func webKitRegistrableDomain(_ host: String) -> String {
        if host == "localhost" { return host }
        var h = Substring(host)
        while h.hasPrefix(".") { h = h.dropFirst() }
        if h.isEmpty { return host }
        return PublicSuffixList.shared.webKitRegistrableDomain(host: String(h))
    }
}
