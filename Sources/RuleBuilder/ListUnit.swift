// The unit a split keeps in one list (RuleListSplitter), and host scopes: which rules can match the same request.
// A tracker's rules are scoped to its domain and subdomains, a subdomain tracker's to a part of its parent's, a CNAME
// copy's to its alias host; two rules of scopes that do not nest never match one URL. A rule's unit is the registrable
// domain of the outermost scope of the list above its own (`Grouping`): rules of one registrable domain share a unit,
// and so do rules of nested scopes, also across a private public suffix (`amazonaws.com` above
// `bucket.s3.amazonaws.com`), where registrable domains alone would part them. (A tracker allowlist rule is scoped as
// the TDS rules are, but placed by its scope: see `allowlisted`.)

import Domains
import Provenance

public enum ListUnit {
    /// The unit of a tracker's or an alias's host.
    public static func of(host: String) -> String {
        PublicSuffixList.shared.registrableDomain(host) ?? host
    }

    /// The units of the rules of one list, or of a dataset's: the scopes above a rule's decide its unit.
    public struct Grouping: Sendable {
        public let scopes: Scopes

        /// Grouping by the scopes of a list's rules.
        public init(_ provenance: [RuleProvenance]) { self.init(scopes: Scopes(provenance.lazy.compactMap(scope))) }

        /// Grouping by `scopes`. With more scopes (a dataset's, where a list holds some of them) units only merge:
        /// units apart under these are apart under the scopes of any list made of them.
        public init(scopes: Scopes) { self.scopes = scopes }

        /// The unit of a host scope.
        public func unit(ofScope scope: String) -> String { of(host: scopes.outermost(above: scope)) }

        /// The unit of a rule, or nil for rules that every list must carry.
        public func unit(of p: RuleProvenance) -> String? {
            switch p.source {
            case .tds, .adClickAttribution:
                return scope(p).map(unit(ofScope:))
            case .requestBlocklist:
                return p.tracker.map { "requestBlocklist/" + $0 }
            case .tempList, .userUnprotected, .allowlist, .topLevel, .featureState, .clickToLoad, .cookiePopups,
                .filterList:
                return nil
            }
        }
    }

    /// A set of host scopes, asked which of them a scope nests with: two scopes nest when they share a host, one
    /// being the other or under it.
    public struct Scopes: Sendable {
        private var members = Set<String>()
        /// Every suffix of a member, members included.
        private var above = Set<String>()

        public init() {}

        public init<S: Sequence<String>>(_ scopes: S) {
            for s in scopes { insert(s) }
        }

        public mutating func insert(_ scope: String) {
            if members.insert(scope).inserted { above.formUnion(Host.suffixes(of: scope)) }
        }

        /// Whether a member nests with `scope`: lies under it, or is it or above it.
        public func nestsWithAny(_ scope: String) -> Bool {
            above.contains(scope) || Host.suffixes(of: scope).contains { members.contains($0) }
        }

        /// The shortest member that is `scope` or above it (`scope` when none is). Scopes that nest have the same one,
        /// and two that share one nest with it: grouping by it never parts rules that can match one URL.
        public func outermost(above scope: String) -> String {
            Host.suffixes(of: scope).last { members.contains($0) } ?? scope
        }
    }

    /// The allowlisted tracker domain of a tracker allowlist rule (nil for every other rule). The rule matches only
    /// requests to hosts under it, which only rules of a scope nested with it (`Scopes.nestsWithAny`) and rules of
    /// no unit can block. Not its unit: a private public suffix (`cloudfront.net`) may put trackers under it in units
    /// of their own.
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
}
