/// WebKit's RegistrableDomain(mainDocumentURL).matches(resourceURL) on canonical bytes.
enum RegistrableDomainMatch {
    static let nullOrigin = Array("nullOrigin".utf8)

    /// True when the URL's host is the registrable domain or a subdomain of it (first party).
    static func matches(domain: ArraySlice<UInt8>, url: CanonicalURL?) -> Bool {
        guard let url, !url.hostRange.isEmpty else { return domain.elementsEqual(nullOrigin) }
        let h = url.hostRange
        let n = domain.count
        guard h.count >= n else { return false }
        var i = 0
        let start = h.upperBound - n
        while i < n {
            if url.bytes[start + i] != domain[domain.startIndex + i] { return false }
            i += 1
        }
        return h.count == n || url.bytes[start - 1] == UInt8(ascii: ".")
    }

    /// True when `url`'s host lies outside every registrable domain that `top`'s host could have, so that the
    /// load is third party whatever the public-suffix list says. WebKit's registrable domain of a host is a
    /// suffix of it made of whole labels, and of at least two of them when the host has two: eTLD+1, or the
    /// host itself (a public suffix, localhost, an IP address). A URL whose host shares fewer whole trailing
    /// labels with the site's host than that is outside: a tracker on another top-level domain, most often.
    /// Only for a site host with no empty label (WebKit drops leading dots before the lookup).
    static func outsideEveryRegistrableDomain(of top: CanonicalURL, _ url: CanonicalURL) -> Bool {
        top.bytes.withUnsafeBufferPointer { t in
            url.bytes.withUnsafeBufferPointer { u in
                let (th, uh) = (top.hostRange, url.hostRange)
                guard !th.isEmpty, !uh.isEmpty else { return false }
                // Back over the common end, counting the labels it completes.
                var (i, j, labels) = (th.upperBound, uh.upperBound, 0)
                while i > th.lowerBound, j > uh.lowerBound, t[i - 1] == u[j - 1] {
                    i -= 1
                    j -= 1
                    if t[i] == UInt8(ascii: ".") { labels += 1 }
                }
                // One host is all of the common end, and the other has it as whole labels.
                if (i == th.lowerBound || t[i - 1] == UInt8(ascii: "."))
                    && (j == uh.lowerBound || u[j - 1] == UInt8(ascii: "."))
                {
                    labels += 1
                }
                guard labels < 2 else { return false }
                // Two labels are required of the registrable domain when the site's host has them; with one,
                // only no common label at all rules the URL out. And no empty label anywhere in the site's host.
                var dots = 0, previous = UInt8(ascii: ".")
                for b in t[th] {
                    if b == UInt8(ascii: ".") {
                        if previous == UInt8(ascii: ".") { return false }
                        dots += 1
                    }
                    previous = b
                }
                guard previous != UInt8(ascii: ".") else { return false }
                return labels < min(2, dots + 1)
            }
        }
    }
}
