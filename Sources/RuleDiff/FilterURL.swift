// A URL a filter's pattern matches, or a near miss of it (one letter changed): the URLs of the filter-list corpus
// (FilterCorpus). `*` becomes nothing or a short piece, `^` a separator (`/` right after a `||` host), and the
// pattern's anchors decide where it sits: a subdomain or none before a `||` host, the URL's start for `|`, a path
// of another site otherwise. Patterns no URL can spell as written (spaces, `..`, a regex) give none.

import FilterLists

enum FilterURL {
    /// The example URL of `pattern`, nil when it has none.
    static func example(_ pattern: FilterPattern, miss: Bool, rng: inout CorpusRandom) -> String? {
        guard case .plain(let start, let body, let endAnchored) = pattern, !body.isEmpty, urlSafe(body),
            !body.contains("..")
        else { return nil }
        var url: String
        switch start {
        case .host:
            let filled = fill(body, hostFirst: true, miss: miss, rng: &rng)
            let slash = filled.firstIndex(of: "/") ?? filled.endIndex
            var host = String(filled[..<slash])
            guard !host.isEmpty, !host.contains(where: { "?&=:*".contains($0) }) else { return nil }
            if host.hasSuffix(".") { host += "com" }
            // A host ending in a number is an IPv4 address to the URL parser: no subdomains there.
            let last = host.split(separator: ".").last ?? ""
            let prefix = last.allSatisfy(\.isNumber) ? "" : rng.pick(["", "cdn.", "a.b."])
            let path = slash == filled.endIndex ? "" : filled[filled.index(after: slash)...]
            url = "https://\(prefix)\(host)/\(path)"
        case .url:
            url = fill(body, hostFirst: false, miss: miss, rng: &rng)
            guard startsWithWebHost(url) else { return nil }
        case .none:
            let piece = fill(body, hostFirst: false, miss: miss, rng: &rng)
            let base = "https://site\(rng.below(100)).example/"
            url = piece.hasPrefix("/") ? base + piece.drop { $0 == "/" } : base + "p" + piece
        }
        if !endAnchored { url += rng.pick(["", "", "?r=1", "x.js"]) }
        return url
    }

    /// The characters a URL may hold as written (and a pattern's `*` and `^`).
    static func urlSafe(_ s: String) -> Bool {
        s.utf8.allSatisfy { b in
            (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
                || "._~:/?#@!$&'()+,;=%*^-".utf8.contains(b)
        }
    }

    /// `body` with its wildcards and separators spelled out; a near miss has one letter changed.
    static func fill(_ body: String, hostFirst: Bool, miss: Bool, rng: inout CorpusRandom) -> String {
        var out = ""
        var inHost = hostFirst
        for c in body {
            switch c {
            case "*": out += inHost ? rng.pick(["", "x"]) : rng.pick(["", "x", "ab1", "/q/"])
            case "^": out += inHost ? "/" : rng.pick(["/", "?", "&", "="])
            default: out.append(c)
            }
            if c == "/" || c == "^" { inHost = false }
        }
        guard miss else { return out }
        var chars = Array(out)
        let letters = chars.indices.filter { chars[$0].isLetter }
        guard !letters.isEmpty else { return out }
        let i = rng.pick(letters)
        chars[i] = chars[i] == "q" ? "z" : "q"
        return String(chars)
    }

    /// `scheme://host/` with a web scheme and a plain host, as a `|` pattern's example must start.
    static func startsWithWebHost(_ url: String) -> Bool {
        guard let sep = url.range(of: "://") else { return false }
        guard ["http", "https", "ws", "wss"].contains(String(url[..<sep.lowerBound])) else { return false }
        let rest = url[sep.upperBound...]
        guard let slash = rest.firstIndex(of: "/"), slash > rest.startIndex else { return false }
        return rest[..<slash].allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// The host of an example URL.
    static func host(of url: String) -> String {
        guard let sep = url.range(of: "://") else { return url }
        let rest = url[sep.upperBound...]
        return String(rest.prefix { $0 != "/" && $0 != ":" && $0 != "?" })
    }
}
