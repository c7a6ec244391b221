// Raw Tracker Radar files (duckduckgo/tracker-radar `domains/<REGION>/<domain>.json` and
// `entities/<Name>.json`), as summarised in data/ddg/tracker-radar-sample/FORMAT.md.
// Missing fields take empty/zero defaults (some keys are legitimately absent, e.g. topInitiators);
// fields of the wrong type are reported by the decoder.

import StrictJSON

public struct RadarOwner: Sendable, Hashable {
    public var name: String
    public var displayName: String?
    public var privacyPolicy: String?
    public var url: String?

    public init(name: String, displayName: String? = nil, privacyPolicy: String? = nil, url: String? = nil) {
        self.name = name
        self.displayName = displayName
        self.privacyPolicy = privacyPolicy
        self.url = url
    }
}

public struct RadarCNAME: Sendable, Hashable {
    /// First-party alias host (normalised).
    public var original: String
    /// Host the alias resolves to (normalised).
    public var resolved: String

    public init(original: String, resolved: String) {
        self.original = original
        self.resolved = resolved
    }
}

public struct RadarPerformance: Sendable, Hashable {
    public var time: Int?
    public var size: Int?
    public var cpu: Int?
    public var cache: Int?

    public init(time: Int? = nil, size: Int? = nil, cpu: Int? = nil, cache: Int? = nil) {
        self.time = time
        self.size = size
        self.cpu = cpu
        self.cache = cache
    }

    public var isEmpty: Bool { time == nil && size == nil && cpu == nil && cache == nil }
}

public struct RadarInitiator: Sendable, Hashable {
    /// An initiating domain, or "first party".
    public var domain: String
    public var prevalence: Double

    public init(domain: String, prevalence: Double) {
        self.domain = domain
        self.prevalence = prevalence
    }
}

public struct RadarFirstPartyCookie: Sendable, Hashable {
    /// Median seconds until expiry; nil = session cookie.
    public var ttl: Double?
    public var length: Double?
    public var prevalence: Double?
    public var uniqueness: Double?

    public init(ttl: Double? = nil, length: Double? = nil, prevalence: Double? = nil, uniqueness: Double? = nil) {
        self.ttl = ttl
        self.length = length
        self.prevalence = prevalence
        self.uniqueness = uniqueness
    }
}

public struct RadarResource: Sendable, Hashable {
    /// Escaped regex for the URL without query and subdomain, e.g. `00px\.net\/static\/a\.js`.
    public var rule: String
    /// Request type as the browser saw it (Script, XHR, Image, ...).
    public var type: String?
    public var cookies: Double
    public var fingerprinting: Int
    public var subdomains: [String]
    public var apis: [String: Int]
    public var sites: Int
    public var prevalence: Double
    public var cnames: [RadarCNAME]
    public var responseHashes: [String]
    public var firstPartyCookies: [String: RadarFirstPartyCookie]
    public var firstPartyCookiesSent: [String: Double]
    public var exampleSites: [String]

    public init(
        rule: String, type: String? = nil, cookies: Double = 0, fingerprinting: Int = 0, subdomains: [String] = [],
        apis: [String: Int] = [:], sites: Int = 0, prevalence: Double = 0, cnames: [RadarCNAME] = [],
        responseHashes: [String] = [], firstPartyCookies: [String: RadarFirstPartyCookie] = [:],
        firstPartyCookiesSent: [String: Double] = [:], exampleSites: [String] = []
    ) {
        self.rule = rule
        self.type = type
        self.cookies = cookies
        self.fingerprinting = fingerprinting
        self.subdomains = subdomains
        self.apis = apis
        self.sites = sites
        self.prevalence = prevalence
        self.cnames = cnames
        self.responseHashes = responseHashes
        self.firstPartyCookies = firstPartyCookies
        self.firstPartyCookiesSent = firstPartyCookiesSent
        self.exampleSites = exampleSites
    }
}

public struct RadarDomain: Sendable, Hashable {
    /// The third-party domain (normalised; usually eTLD+1, sometimes a host under a shared suffix or an IP).
    public var domain: String
    /// Crawl region(s) this record comes from ("US", ...). One region for a file; several after merging.
    public var regions: [String]
    /// nil when the file has `owner: {}` (unknown owner).
    public var owner: RadarOwner?
    public var source: [String]
    public var prevalence: Double
    public var sites: Int
    public var subdomains: [String]
    public var cnames: [RadarCNAME]
    public var fingerprinting: Int
    public var resources: [RadarResource]
    public var categories: [String]
    public var performance: RadarPerformance
    public var cookies: Double
    /// nil when the key is absent (some Tracker Radar files leave it out).
    public var topInitiators: [RadarInitiator]?
    public var types: [String: Int]
    public var nameservers: [String]
    /// Documented but absent from current files; kept raw when present.
    public var breaking: JSONValue?
    public var surrogates: JSONValue?

    public init(
        domain: String, regions: [String] = [], owner: RadarOwner? = nil, source: [String] = [],
        prevalence: Double = 0, sites: Int = 0, subdomains: [String] = [], cnames: [RadarCNAME] = [],
        fingerprinting: Int = 0, resources: [RadarResource] = [], categories: [String] = [],
        performance: RadarPerformance = RadarPerformance(), cookies: Double = 0,
        topInitiators: [RadarInitiator]? = nil, types: [String: Int] = [:], nameservers: [String] = [],
        breaking: JSONValue? = nil, surrogates: JSONValue? = nil
    ) {
        self.domain = domain
        self.regions = regions
        self.owner = owner
        self.source = source
        self.prevalence = prevalence
        self.sites = sites
        self.subdomains = subdomains
        self.cnames = cnames
        self.fingerprinting = fingerprinting
        self.resources = resources
        self.categories = categories
        self.performance = performance
        self.cookies = cookies
        self.topInitiators = topInitiators
        self.types = types
        self.nameservers = nameservers
        self.breaking = breaking
        self.surrogates = surrogates
    }
}

public struct RadarEntityPrevalence: Sendable, Hashable {
    public var tracking: Double
    public var nonTracking: Double
    public var total: Double

    public init(tracking: Double = 0, nonTracking: Double = 0, total: Double = 0) {
        self.tracking = tracking
        self.nonTracking = nonTracking
        self.total = total
    }
}

public struct RadarEntity: Sendable, Hashable {
    /// Entity name (= file name without `.json`, = `owner.name` in domain files).
    public var name: String
    public var displayName: String?
    /// Domains the company owns (normalised, file order).
    public var properties: [String]
    public var prevalence: RadarEntityPrevalence
    /// Documented optional parent entity; absent from current files.
    public var parent: String?

    public init(
        name: String, displayName: String? = nil, properties: [String] = [],
        prevalence: RadarEntityPrevalence = RadarEntityPrevalence(), parent: String? = nil
    ) {
        self.name = name
        self.displayName = displayName
        self.properties = properties
        self.prevalence = prevalence
        self.parent = parent
    }
}

/// Everything loaded from a Tracker Radar tree, in deterministic order.
public struct RadarData: Sendable, Hashable {
    /// Sorted by domain (byte order); one record per domain (regions merged, see RadarLoader).
    public var domains: [RadarDomain]
    /// Sorted by name (byte order).
    public var entities: [RadarEntity]
    /// Problems found, sorted by file and position; files that could not be read are reported here and skipped.
    public var issues: [DecodeIssue]

    public init(domains: [RadarDomain] = [], entities: [RadarEntity] = [], issues: [DecodeIssue] = []) {
        self.domains = domains
        self.entities = entities
        self.issues = issues
    }
}
