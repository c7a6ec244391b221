// The request corpus radarblock derives from filter lists (a filter-list diff, and the exactness check of
// scripts/filterlists/exactness.py through `diff --save-corpus`): for every network filter, a URL its pattern
// matches and a near miss (one letter changed), each loaded on the filter's own ground (a `$domain` site, the
// party it names, one of its types) and elsewhere (a `~`site or another site, the other party, another type), one
// load in five from a frame of another page, a frame's own document load as WebKit gives it (about:blank,
// child-frame). Deterministic: each filter's requests come from a generator seeded with the corpus seed and the
// filter's text, so a filter gives the same requests whatever list holds it.

import AdblockSyntax
import FilterLists
import RuleEngine

public enum FilterCorpus {
    /// The seed every derived corpus uses (the exactness check's figures are made with it).
    public static let seed: UInt64 = 40
    /// At most this many filters take part: a larger set is sampled, every k-th filter, so a hostile list's corpus
    /// stays bounded (EasyPrivacy and EasyList together hold about 110,000 network filters).
    public static let maxFilters = 400_000

    /// The requests of every distinct network filter of `lists` (by text, the first occurrence), in list order;
    /// `$badfilter` filters and the filters they disable are left out, as they decide nothing.
    public static func derive(from lists: [FilterList], seed: UInt64 = seed) -> [MatchRequest] {
        var seen = Set<String>()
        var filters: [NetworkFilter] = []
        for list in lists {
            for f in list.network where !f.options.badfilter && seen.insert(f.text).inserted { filters.append(f) }
        }
        let step = (filters.count + maxFilters - 1) / maxFilters
        return stride(from: 0, to: filters.count, by: max(step, 1)).flatMap { requests(for: filters[$0], seed: seed) }
    }

    /// One filter's requests: its matching URL and its near miss, each on its own ground and elsewhere.
    public static func requests(for filter: NetworkFilter, seed: UInt64 = seed) -> [MatchRequest] {
        var rng = CorpusRandom(seed: seed ^ fnv1a(filter.text))
        var out: [MatchRequest] = []
        for miss in [false, true] {
            guard let url = FilterURL.example(filter.pattern, miss: miss, rng: &rng) else { continue }
            for own in [true, false] {
                out.append(load(url, filter: filter, own: own, rng: &rng))
            }
        }
        return out
    }

    /// The request types a filter names, as `match --requests` names them (the types a load can have).
    static let requestTypes: [FilterRequestType: String] = [
        .script: "script", .image: "image", .stylesheet: "stylesheet", .font: "font", .media: "media",
        .subdocument: "sub_frame", .xmlhttprequest: "xmlhttprequest", .websocket: "websocket", .ping: "ping",
        .other: "other", .document: "main_frame",
    ]
    /// The types of a filter that names none: the common ones, scripts and images twice as likely.
    static let commonTypes = ["script", "image", "xmlhttprequest", "sub_frame", "stylesheet", "script", "image"]
    static let allTypes = FilterRequestType.allCases.compactMap { requestTypes[$0] }

    /// `url` loaded on the filter's ground (`own`) or elsewhere: the page it comes from, its type, maybe a frame.
    static func load(_ url: String, filter: NetworkFilter, own: Bool, rng: inout CorpusRandom) -> MatchRequest {
        let o = filter.options
        let named = o.types.sorted { $0.rawValue < $1.rawValue }.compactMap { requestTypes[$0] }
        let types = named.isEmpty ? commonTypes : named
        let type = own || rng.below(2) == 0 ? rng.pick(types) : rng.pick(allTypes)
        if type == "main_frame" { return MatchRequest(url: url, topURL: url, resourceType: type) }
        let source = page(of: url, domains: o.domains, thirdParty: o.thirdParty, own: own, rng: &rng)
        let nested = rng.below(5) == 0
        // A frame's own document loads in the child frame, whose URL is then about:blank (its initial document), as
        // WebKit gives it; the page holding the frame is the top page. A frame of a frame is not drawn: a request
        // names no parent document, which is where ABP judges it (WebKit judges the top page).
        if type == "sub_frame" {
            return MatchRequest(
                url: url, topURL: source, frameURL: "about:blank", resourceType: type, loadContext: "child-frame")
        }
        guard nested else { return MatchRequest(url: url, topURL: source, resourceType: type) }
        let top = "https://portal\(rng.below(20)).test/"
        return MatchRequest(url: url, topURL: top, frameURL: source, resourceType: type)
    }

    /// The document a load comes from: on its own ground a `$domain` site (or its `www.`), else the party the filter
    /// names (either when it names none); elsewhere a `~`site, or a site of the other party.
    static func page(
        of url: String, domains: [DomainEntry], thirdParty: Bool?, own: Bool, rng: inout CorpusRandom
    ) -> String {
        let sites = domains.filter { !$0.excluded }.map(\.domain), excluded = domains.filter(\.excluded).map(\.domain)
        let firstParty = "https://\(FilterURL.host(of: url))/page"
        let thirdPartyPage = "https://news\(rng.below(50)).test/page"
        if own {
            if !sites.isEmpty { return "https://\(rng.pick(["", "www."]))\(trimmedEntity(rng.pick(sites)))/page" }
            let third = thirdParty ?? (rng.below(2) == 0)
            return third ? thirdPartyPage : firstParty
        }
        if !excluded.isEmpty { return "https://\(trimmedEntity(rng.pick(excluded)))/page" }
        if !sites.isEmpty { return thirdPartyPage }
        return thirdParty == true ? firstParty : thirdPartyPage
    }

    /// An entity entry `a.*` as a site: `a.com`.
    static func trimmedEntity(_ site: String) -> String { site.hasSuffix(".*") ? site.dropLast() + "com" : site }

    static func fnv1a(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}

/// SplitMix64: the corpus's generator, fixed here so that a corpus never changes with the standard library.
struct CorpusRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0 ..< n (n > 0).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
