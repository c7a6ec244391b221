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
        let probes = Parallel.mapShares(sorted.count, workers: shares) { $0.map { probe(sorted[$0], datasets) } }
            .flatMap { $0 }
        // Each URL of a tracker is loaded from each of its sites, as a script and as an image. A URL names its
        // tracker's domain, so another tracker rarely gives it again: duplicates are found per URL (the sites
        // it was loaded from), not by hashing every request, with one lookup for a URL not seen before.
        // URLs and sites are told apart by their bytes (`ExactString`): equal Strings can be two URLs.
        var sitesOfURL: [ExactString: [String]] = [:]
        var earlier: [[[String]?]] = []
        earlier.reserveCapacity(probes.count)
        for p in probes {
            earlier.append(
                p.urls.map { url in
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
                for site in [
                    "https://" + (PublicSuffixList.shared.registrableDomain(alias) ?? alias) + "/", thirdPartySite,
                ] {
                    let r = MatchRequest(url: url, topURL: site, resourceType: "script")
                    if !loaded(sitesOfURL[ExactString(string: url)], from: site),
                        seenAliasProbes.insert([ExactString(string: url), ExactString(string: site)]).inserted
                    {
                        aliasProbes.append(r)
                    }
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
            if let owner = tracker.owner?.name, let other = tds.entities[owner]?.domains.first(where: { $0 != domain })
            {
                sites.append("https://\(other)/")
            }
            for rule in tracker.rules {
                if let example = RegexExample.string(matching: rule.rule) {
                    let url = example.contains(domain) ? "https://" + example : "https://\(domain)/" + example
                    urls.append(url)
                    urls.append(url + "-near-miss")
                }
                for d in (rule.options?.domains ?? []) + (rule.exceptions?.domains ?? []) {
                    sites.append("https://\(d)/")
                }
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
                    chunk.append(
                        MatchRequest(url: p.urls[url], topURL: s, resourceType: type == 0 ? "script" : "image"))
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
