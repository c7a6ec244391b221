// The unit a split keeps in one list (RuleListSplitter): the registrable domain of the host a rule is about. Every
// rule that can match a request to a host lives in the unit of that host's registrable domain: a tracker's rules
// are scoped to its domain and subdomains, a subdomain tracker's to a part of its parent's, a CNAME copy's to its
// alias host. (A tracker allowlist rule is scoped as the TDS rules are, but placed by its scope: see `allowlisted`.)

import Domains
import Provenance

public enum ListUnit {
    /// The unit of a tracker's or an alias's host.
    public static func of(host: String) -> String {
        PublicSuffixList.shared.registrableDomain(host) ?? host
    }

    /// The unit of a rule, or nil for rules that every list must carry.
    public static func of(_ p: RuleProvenance) -> String? {
        switch p.source {
        case .tds, .adClickAttribution:
            return scope(p).map(of(host:))
        case .requestBlocklist:
            return p.tracker.map { "requestBlocklist/" + $0 }
        case .tempList, .userUnprotected, .allowlist, .topLevel, .featureState, .clickToLoad, .cookiePopups,
            .filterList:
            return nil
        }
    }

    /// The allowlisted tracker domain of a tracker allowlist rule (nil for every other rule). The rule matches only
    /// requests to hosts under it, which only rules of a scope nested with it (`nests`) and rules of no unit can
    /// block. Not its unit: a private public suffix (`cloudfront.net`) puts trackers under it in units of their own.
    public static func allowlisted(_ p: RuleProvenance) -> String? {
        p.source == .allowlist ? p.tracker : nil
    }

    /// The host scope of a tracker rule: its CNAME alias or its tracker's domain; nil for every other rule.
    public static func scope(_ p: RuleProvenance) -> String? {
        switch p.source {
        case .tds, .adClickAttribution: return p.cnameAlias ?? p.tracker
        default: return nil
        }
    }

    /// Whether two host scopes share a host: one is the other or under it.
    public static func nests(_ a: String, _ b: String) -> Bool {
        Host.isSameOrSubdomain(a, of: b) || Host.isSameOrSubdomain(b, of: a)
    }
}
