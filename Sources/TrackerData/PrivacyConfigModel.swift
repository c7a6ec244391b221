// Privacy configuration v4: the parts the content-blocker conversion uses, plus the raw JSON.

import StrictJSON

public struct PrivacyConfig: Sendable, Hashable {
    public var version: Double?
    /// `unprotectedTemporary[].domain`, normalised, whitespace-only entries dropped, in file order.
    public var unprotectedTemporary: [String]
    /// `features.contentBlocking.state == "enabled"` (absent feature or state counts as disabled).
    public var contentBlockingEnabled: Bool
    /// `features.contentBlocking.exceptions[].domain`, normalised, in file order.
    public var contentBlockingExceptions: [String]
    public var trackerAllowlist: TrackerAllowlist
    /// `features.contentBlocking.state` as given (nil when the feature or its state is absent).
    public var contentBlockingState: String?
    public var requestBlocklist: RequestBlocklist = RequestBlocklist()
    public var clickToLoad: ClickToLoad = ClickToLoad()
    public var adClickAttribution: AdClickAttribution = AdClickAttribution()
    /// `features.autoconsent`: governs the cookie pop-up list (CookiePopupConfig.swift).
    public var cookiePopups: CookiePopupConfig = CookiePopupConfig()
    /// The whole config as parsed (object key order kept), for hashing and for features we do not model.
    public var raw: JSONValue

    public init(
        version: Double? = nil, unprotectedTemporary: [String] = [], contentBlockingEnabled: Bool = true,
        contentBlockingExceptions: [String] = [], trackerAllowlist: TrackerAllowlist = TrackerAllowlist(),
        raw: JSONValue = .object(JSONObject())
    ) {
        self.version = version
        self.unprotectedTemporary = unprotectedTemporary
        self.contentBlockingEnabled = contentBlockingEnabled
        self.contentBlockingExceptions = contentBlockingExceptions
        self.trackerAllowlist = trackerAllowlist
        self.raw = raw
    }

    /// The "temp list": `unprotectedTemporary` followed by the contentBlocking exceptions (each domain covers
    /// itself and all subdomains). Order kept, as the apps hash it in this order.
    public var tempUnprotected: [String] { unprotectedTemporary + contentBlockingExceptions }
}

public struct TrackerAllowlist: Sendable, Hashable {
    /// `state == "enabled"`.
    public var enabled: Bool
    /// The `state` string as given ("enabled", "disabled", ...), nil when absent.
    public var state: String?
    /// `features.trackerAllowlist.hash` (md5 of the feature, computed by the config build).
    public var hash: String?
    /// Entries sorted by tracker domain (byte order), rules in file order within a tracker.
    public var entries: [AllowlistEntry]
    /// Sites (with subdomains) where the allowlist does not apply: `features.trackerAllowlist.exceptions[].domain`.
    public var exceptions: [String] = []

    public init(enabled: Bool = false, state: String? = nil, hash: String? = nil, entries: [AllowlistEntry] = []) {
        self.enabled = enabled
        self.state = state
        self.hash = hash
        self.entries = entries
    }

    /// Number of distinct tracker domains with at least one entry.
    public var trackerCount: Int { Set(entries.map(\.trackerDomain)).count }
}

public struct AllowlistEntry: Sendable, Hashable {
    public enum Sites: Sendable, Hashable {
        /// `"<all>"` in `domains`: every site.
        case all
        /// Normalised site domains (each covers its subdomains).
        case domains([String])
    }

    /// The key in `allowlistedTrackers` (normalised).
    public var trackerDomain: String
    /// `host[/path-prefix]` as given: a plain string, not a regex (though some entries use `.*`).
    public var rule: String
    public var sites: Sites

    public init(trackerDomain: String, rule: String, sites: Sites) {
        self.trackerDomain = trackerDomain
        self.rule = rule
        self.sites = sites
    }
}

/// User-unprotected sites: each host covers its subdomains (DuckDuckGo's reference tests), normalised, in file order
/// without duplicates.
public struct UnprotectedSites: Sendable, Hashable {
    public var hosts: [String]
    public init(hosts: [String] = []) { self.hosts = hosts }
}
