// The request corpus radarblock derives from two datasets when the user gives none: for every tracker and
// rule of either side, URLs its pattern matches and near misses, loaded as scripts and images from
// third-party, first-party and same-entity sites, and from the sites its options and exceptions name.
// Deterministic: the same datasets always give the same corpus in the same order.

import Domains
import Parallel
import RuleEngine
import TrackerData

public enum RequestCorpus {
    static let thirdPartySite = "https://news-site.radarblock.test/"

    /// The corpus as one array; `stream(from:)` gives the same requests a chunk at a time, as a diff reads them.
    public static func derive(from datasets: [TrackerDataSet]) -> [MatchRequest] {
        stream(from: datasets).all
    }

    /// The corpus, whose requests are made a chunk at a time as a diff reads them: the probes of every tracker
    /// are made first, on every core (each tracker's URLs and sites are independent of the others'), then the
    /// sites each URL was already loaded from are found in a pass in domain order.
    public static func stream(from datasets: [TrackerDataSet]) -> DerivedRequests {
        var domains = Set<String>()
        for tds in datasets { domains.formUnion(tds.trackers.keys) }
        let sorted = domains.sorted(by: byteOrder)
        let shares = Parallel.workers(for: sorted.count) * 8
        let probes = Parallel.mapShares(sorted.count, workers: shares) { $0.map { probe(sorted[$0], datasets) } }.flatMap { $0 }
        // Each URL of a tracker is loaded from each of its sites, as a script and as an image. A URL names its
        // tracker's domain, so another tracker rarely gives it again: duplicates are found per URL (the sites
        // it was loaded from), not by hashing every request, with one lookup for a URL not seen before.
        // URLs and sites are told apart by their bytes (`ExactString`): equal Strings can be two URLs.
        var sitesOfURL: [ExactString: [String]] = [:]
        var earlier: [[[String]?]] = []
        earlier.reserveCapacity(probes.count)
        for p in probes {
            earlier.append(p.urls.map { url in
                let key = ExactString(string: url)
                guard let before = sitesOfURL.updateValue(p.sites, forKey: key) else { return nil }
                sitesOfURL[key] = unique(before + p.sites)
                return before
            })
        }
        var aliasProbes: [MatchRequest] = []
        var seenAliasProbes = Set<[ExactString]>()
        for tds in datasets {
            for alias in tds.cnames.keys.sorted(by: byteOrder) {
                let url = "https://\(alias)/radarblock-probe.js"
                for site in ["https://" + (PublicSuffixList.shared.registrableDomain(alias) ?? alias) + "/", thirdPartySite] {
                    let r = MatchRequest(url: url, topURL: site, resourceType: "script")
                    if !loaded(sitesOfURL[ExactString(string: url)], from: site),
                       seenAliasProbes.insert([ExactString(string: url), ExactString(string: site)]).inserted { aliasProbes.append(r) }
                }
            }
        }
        return DerivedRequests(probes: probes, earlier: earlier, aliasProbes: aliasProbes)
    }

    /// A tracker's URLs (its pattern's examples and near misses) and the sites it is loaded from, each once.
    private static func probe(_ domain: String, _ datasets: [TrackerDataSet]) -> DerivedRequests.Probe {
        var sites = [thirdPartySite, "https://www.\(domain)/"]
        var urls = ["https://\(domain)/radarblock-probe.js", "https://cdn.\(domain):8443/p/radarblock-probe.gif"]
        for tds in datasets {
            guard let tracker = tds.trackers[domain] else { continue }
            if let owner = tracker.owner?.name, let other = tds.entities[owner]?.domains.first(where: { $0 != domain }) {
                sites.append("https://\(other)/")
            }
            for rule in tracker.rules {
                if let example = RegexExample.string(matching: rule.rule) {
                    let url = example.contains(domain) ? "https://" + example : "https://\(domain)/" + example
                    urls.append(url)
                    urls.append(url + "-near-miss")
                }
                for d in (rule.options?.domains ?? []) + (rule.exceptions?.domains ?? []) { sites.append("https://\(d)/") }
            }
        }
        return DerivedRequests.Probe(sites: unique(sites), urls: unique(urls))
    }

    /// Whether `site` is one of `sites` (nil: none), by its bytes.
    static func loaded(_ sites: [String]?, from site: String) -> Bool {
        sites?.contains { sameBytes($0, site) } ?? false
    }

    private static func unique(_ items: [String]) -> [String] {
        var seen = Set<ExactString>()
        return items.filter { seen.insert(ExactString(string: $0)).inserted }
    }
}

/// The derived corpus as a stream: per tracker in domain order, each of its sites, each of its URLs not loaded
/// from that site before, as a script and as an image; then the CNAME aliases' probes. A chunk's requests are
/// made when the diff reads it, while the chunk before is answered, so no array of the whole corpus is made.
public final class DerivedRequests: RequestStream {
    struct Probe {
        var sites: [String]
        var urls: [String]
    }

    private let probes: [Probe]
    /// Per probe, per URL: the sites it was loaded from by earlier probes (nil: none).
    private let earlier: [[[String]?]]
    private let aliasProbes: [MatchRequest]
    /// Where the next request comes from: probe, site, URL, type (0: script, 1: image); then the alias probes.
    private var probe = 0, site = 0, url = 0, type = 0, alias = 0

    init(probes: [Probe], earlier: [[[String]?]], aliasProbes: [MatchRequest]) {
        self.probes = probes
        self.earlier = earlier
        self.aliasProbes = aliasProbes
    }

    public func next(_ limit: Int, into chunk: inout [MatchRequest]) -> Bool {
        let end = limit >= Int.max - chunk.count ? Int.max : chunk.count + limit
        while probe < probes.count {
            let p = probes[probe]
            while site < p.sites.count {
                let s = p.sites[site]
                while url < p.urls.count {
                    if RequestCorpus.loaded(earlier[probe][url], from: s) {
                        url += 1
                        continue
                    }
                    guard chunk.count < end else { return true }
                    chunk.append(MatchRequest(url: p.urls[url], topURL: s, resourceType: type == 0 ? "script" : "image"))
                    if type == 0 {
                        type = 1
                    } else {
                        type = 0
                        url += 1
                    }
                }
                url = 0
                site += 1
            }
            site = 0
            probe += 1
        }
        let n = min(aliasProbes.count - alias, end - chunk.count)
        chunk.append(contentsOf: aliasProbes[alias..<alias + n])
        alias += n
        return alias < aliasProbes.count
    }

    /// Every request of the stream (from where it is now).
    var all: [MatchRequest] {
        var out: [MatchRequest] = []
        while next(1 << 16, into: &out) {}
        return out
    }
}

/// A string that a TDS rule regex (JavaScript syntax) matches, built by taking the shortest path through it:
/// optional and starred parts are left out, `+` repeats once, classes give their first member, the first
/// alternative is taken. Returns nil for patterns it cannot read.
public enum RegexExample {
    public static func string(matching pattern: String) -> String? {
        var chars = Array(pattern.unicodeScalars)
        var i = 0
        guard let s = sequence(&chars, &i, depth: 0), i == chars.count else { return nil }
        return s
    }

    private static func sequence(_ c: inout [Unicode.Scalar], _ i: inout Int, depth: Int) -> String? {
        guard depth < 50 else { return nil }
        var out = ""
        var alternativeDone = false
        while i < c.count {
            let ch = c[i]
            if ch == ")" { break }
            if ch == "|" {
                // Keep the first alternative; skip the rest of this group level.
                alternativeDone = true
                i += 1
                var nesting = 0
                while i < c.count {
                    if c[i] == "\\" { i += 2; continue }
                    if c[i] == "(" { nesting += 1 }
                    if c[i] == ")" { if nesting == 0 { break }; nesting -= 1 }
                    i += 1
                }
                break
            }
            var atom: String
            switch ch {
            case "^", "$":
                i += 1
                continue
            case "(":
                i += 1
                if i + 1 < c.count, c[i] == "?" {
                    if c[i + 1] == ":" { i += 2 } else { return nil }  // lookarounds are not examples
                }
                guard let inner = sequence(&c, &i, depth: depth + 1), i < c.count, c[i] == ")" else { return nil }
                i += 1
                atom = inner
            case "[":
                i += 1
                guard let member = classMember(&c, &i) else { return nil }
                atom = member
            case "\\":
                guard i + 1 < c.count else { return nil }
                let e = c[i + 1]
                i += 2
                switch e {
                case "d": atom = "1"
                case "w": atom = "a"
                case "s": atom = " "
                case "D", "W", "S", "b", "B": atom = e == "b" || e == "B" ? "" : "-"
                default: atom = String(e)
                }
            case ".":
                i += 1
                atom = "a"
            default:
                i += 1
                atom = String(ch)
            }
            // Quantifier.
            if i < c.count {
                switch c[i] {
                case "*", "?":
                    atom = ""
                    i += 1
                case "+":
                    i += 1
                case "{":
                    var j = i + 1
                    var digits = ""
                    while j < c.count, c[j].properties.numericType != nil { digits.unicodeScalars.append(c[j]); j += 1 }
                    if j < c.count, c[j] == "," || c[j] == "}", let n = Int(digits) {
                        while j < c.count, c[j] != "}" { j += 1 }
                        guard j < c.count else { return nil }
                        atom = String(repeating: atom, count: min(n, 20))
                        i = j + 1
                    }
                default: break
                }
                if i < c.count, c[i] == "?" { i += 1 }  // lazy
            }
            out += atom
        }
        _ = alternativeDone
        return out
    }

    private static func classMember(_ c: inout [Unicode.Scalar], _ i: inout Int) -> String? {
        var negated = false
        if i < c.count, c[i] == "^" { negated = true; i += 1 }
        var members: [Unicode.Scalar] = []
        var first = true
        while i < c.count, c[i] != "]" || first {
            first = false
            var ch = c[i]
            if ch == "\\", i + 1 < c.count {
                let e = c[i + 1]
                ch = e == "d" ? "1" : e == "w" ? "a" : e
                i += 2
            } else {
                i += 1
            }
            if i + 1 < c.count, c[i] == "-", c[i + 1] != "]" {
                let hi = c[i + 1]
                i += 2
                if ch.value <= hi.value { for v in ch.value...min(hi.value, ch.value + 64) { if let s = Unicode.Scalar(v) { members.append(s) } } }
            } else {
                members.append(ch)
            }
        }
        guard i < c.count else { return nil }
        i += 1
        if negated {
            for candidate in "a1-_x".unicodeScalars where !members.contains(candidate) { return String(candidate) }
            return nil
        }
        return members.first.map { String($0) }
    }
}
