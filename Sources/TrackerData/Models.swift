// The Tracker Data Set (TDS v5) model: plain value types, decoded leniently by TDSDecoder.swift.
// All domains (tracker keys, entity domains, `domains` keys, cnames, matcher domains) are stored
// normalised: lowercase ASCII with punycode, so lookups never need to normalise again.

import Domains
import Foundation

public struct TrackerDataSet: Sendable, Hashable {
    /// Tracker domain (eTLD+1 or deeper) -> tracker.
    public var trackers: [String: Tracker]
    /// Entity name -> entity.
    public var entities: [String: Entity]
    /// Domain (property) -> entity name.
    public var domains: [String: String]
    /// First-party alias host -> cloaked target host.
    public var cnames: [String: String]
    /// `cpm.filterList` of TDS v7/v8: the cookie pop-up list (Adblock Plus cosmetic filters), as written.
    public var cookiePopupFilterList: String? = nil

    public init(
        trackers: [String: Tracker] = [:], entities: [String: Entity] = [:],
        domains: [String: String] = [:], cnames: [String: String] = [:]
    ) {
        self.trackers = trackers
        self.entities = entities
        self.domains = domains
        self.cnames = cnames
    }

    /// Number of rules over all trackers.
    public var ruleCount: Int { trackers.values.reduce(0) { $0 + $1.rules.count } }

    /// The tracker for a (normalised) host: the longest suffix of `host` that is a tracker key.
    public func findTracker(forHost host: String) -> Tracker? {
        for suffix in Host.suffixes(of: host) {
            if let t = trackers[suffix] { return t }
        }
        return nil
    }

    /// The name of the entity owning `host`: the longest suffix of `host` listed in `domains`.
    public func entityName(ofHost host: String) -> String? {
        for suffix in Host.suffixes(of: host) {
            if let name = domains[suffix] { return name }
        }
        return nil
    }

    /// The entity owning `host` (see `entityName(ofHost:)`), when that entity is defined in `entities`.
    public func entity(ofHost host: String) -> Entity? {
        entityName(ofHost: host).flatMap { entities[$0] }
    }

    /// The CNAME target when `host` or one of its parents is a key in `cnames`, else nil.
    public func cnameTarget(ofHost host: String) -> String? {
        for suffix in Host.suffixes(of: host) {
            if let target = cnames[suffix] { return target }
        }
        return nil
    }

    /// The host a request really goes to: the CNAME target when the host is cloaked, else the host itself.
    public func uncloak(host: String) -> String { cnameTarget(ofHost: host) ?? host }

    /// Tracker domains in a deterministic order (byte order).
    public var sortedTrackerDomains: [String] { trackers.keys.sorted(by: byteOrder) }
}

/// Byte-wise string order (what the canonical JSON writer uses), independent of locale and Unicode folding.
@inlinable public func byteOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

/// Byte-wise string equality, the twin of `byteOrder`. Not `==`, which is canonical equivalence: "é" as one scalar
/// and as "e" with a combining accent are equal Strings, but WebKit, which compares code units, sees two URLs (their
/// paths percent-encode differently), two selectors, two rules.
public func sameBytes(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { x in
        b.withUTF8 { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
    }
}

public enum DefaultAction: String, Sendable, Hashable, CaseIterable {
    case block
    case ignore
}

public struct Owner: Sendable, Hashable {
    public var name: String?
    public var displayName: String?
    /// Parent entity name (e.g. "Google Ads" is owned by "Google LLC").
    public var ownedBy: String?
    public var localizedName: String?
    public var privacyPolicy: String?
    public var url: String?

    public init(
        name: String? = nil, displayName: String? = nil, ownedBy: String? = nil,
        localizedName: String? = nil, privacyPolicy: String? = nil, url: String? = nil
    ) {
        self.name = name
        self.displayName = displayName
        self.ownedBy = ownedBy
        self.localizedName = localizedName
        self.privacyPolicy = privacyPolicy
        self.url = url
    }
}

public struct Tracker: Sendable, Hashable {
    /// The tracker's domain (normalised). Equals its key in `TrackerDataSet.trackers`.
    public var domain: String
    public var owner: Owner?
    public var prevalence: Double?
    public var fingerprinting: Int?
    public var cookies: Double?
    public var categories: [String]?
    /// `default` in the JSON. nil when missing or malformed (TrackerRadarKit then emits no domain-wide rule).
    public var defaultAction: DefaultAction?
    /// In TDS order (the first matching rule wins in TDS semantics).
    public var rules: [TrackerRule]

    public init(
        domain: String, owner: Owner? = nil, prevalence: Double? = nil, fingerprinting: Int? = nil,
        cookies: Double? = nil, categories: [String]? = nil, defaultAction: DefaultAction? = nil,
        rules: [TrackerRule] = []
    ) {
        self.domain = domain
        self.owner = owner
        self.prevalence = prevalence
        self.fingerprinting = fingerprinting
        self.cookies = cookies
        self.categories = categories
        self.defaultAction = defaultAction
        self.rules = rules
    }
}

public struct Entity: Sendable, Hashable {
    public var displayName: String?
    /// Normalised domains owned by the entity (same-entity requests are first party).
    public var domains: [String]
    public var prevalence: Double?

    public init(displayName: String? = nil, domains: [String] = [], prevalence: Double? = nil) {
        self.displayName = displayName
        self.domains = domains
        self.prevalence = prevalence
    }
}

/// A rule's `action`. Unknown actions are not representable: the decoder drops (and reports) such rules.
public enum RuleAction: Sendable, Hashable, CustomStringConvertible {
    case ignore
    /// "block-ctl-fb": Facebook click-to-load (the one CTL action TrackerRadarKit decodes).
    case blockCTLFB
    /// Any other "block-ctl-<name>" action; the payload is `<name>` (e.g. "yt"). TrackerRadarKit drops these
    /// rules; we keep them so that the builder can decide.
    case blockCTL(String)

    public init?(rawValue: String) {
        if rawValue == "ignore" { self = .ignore; return }
        if rawValue == "block-ctl-fb" { self = .blockCTLFB; return }
        let prefix = "block-ctl-"
        if rawValue.hasPrefix(prefix), rawValue.utf8.count > prefix.utf8.count {
            self = .blockCTL(String(rawValue.dropFirst(prefix.count)))
            return
        }
        return nil
    }

    public var rawValue: String {
        switch self {
        case .ignore: return "ignore"
        case .blockCTLFB: return "block-ctl-fb"
        case .blockCTL(let name): return name == "fb" ? "block-ctl-fb" : "block-ctl-" + name
        }
    }

    public var description: String { rawValue }

    /// True for the click-to-load actions, which block like a rule without action.
    public var isBlockCTL: Bool { self != .ignore }

    /// The click-to-load name ("fb", "yt", ...) for block-ctl-* actions.
    public var clickToLoadName: String? {
        switch self {
        case .ignore: return nil
        case .blockCTLFB: return "fb"
        case .blockCTL(let name): return name
        }
    }

    public static func == (a: RuleAction, b: RuleAction) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }
}

/// `options` / `exceptions` of a rule. nil members mean "no condition on this"; an empty list is kept as empty.
public struct RuleMatcher: Sendable, Hashable {
    /// Normalised site domains (each covers its subdomains).
    public var domains: [String]?
    /// Resource types as given in the TDS (webRequest names such as "script", "xmlhttprequest");
    /// mapping them to WebKit types is the rule builder's job.
    public var types: [String]?

    public init(domains: [String]? = nil, types: [String]? = nil) {
        self.domains = domains
        self.types = types
    }
}

public struct TrackerRule: Sendable, Hashable {
    /// The rule regex (unanchored, matched case-insensitively against the full URL), exactly as in the TDS.
    public var rule: String
    /// File name of a surrogate script (key in surrogates.txt).
    public var surrogate: String?
    public var action: RuleAction?
    public var options: RuleMatcher?
    public var exceptions: RuleMatcher?
    public var fingerprinting: Int?
    public var cookies: Double?
    public var comment: String?

    public init(
        rule: String, surrogate: String? = nil, action: RuleAction? = nil, options: RuleMatcher? = nil,
        exceptions: RuleMatcher? = nil, fingerprinting: Int? = nil, cookies: Double? = nil,
        comment: String? = nil
    ) {
        self.rule = rule
        self.surrogate = surrogate
        self.action = action
        self.options = options
        self.exceptions = exceptions
        self.fingerprinting = fingerprinting
        self.cookies = cookies
        self.comment = comment
    }
}
