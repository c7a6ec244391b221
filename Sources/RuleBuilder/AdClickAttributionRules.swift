// Ad-click attribution (privacy config `adClickAttribution`), as DuckDuckGo's apps do it (BrowserServicesKit's
// splitter and mutator; facts in docs/ad-click-attribution.md):
// - the split: the trackers named by the allowlist's `blocklistEntry` leave the main list and form the
//   "blocking attribution" list, built from a TDS of only those trackers (with their entities' domains), with
//   the same exceptions as the main list;
// - the attributed variant for a vendor site V: the same list where each allowlisted tracker gets a new first
//   rule for its conversion `host`, which blocks except on V and its subdomains.
// ddg mode builds both from exactly the TDS the apps build them from, so TrackerRadarKit's output follows.
// Faithful mode keeps the TDS's meaning across the two lists: the attribution list also carries the CNAME
// aliases of its trackers and resets trackers nested under them (the longest tracker host wins, and those stay
// in the main list); the main list resets a moved tracker nested under one of its trackers. Its first rule is
// written with the anchored host filter (the host and its subdomains, any port), so it means exactly that.

import ContentRules
import Domains
import Provenance
import StrictJSON
import TrackerData

/// The blocking attribution list of a build.
public struct AttributionList: Sendable {
    /// The allowlist entries the list covers (their tracker is in the list), in config order.
    public var entries: [AdClickAttributionEntry]
    /// The TDS the list is built from; the attributed variant is built from it too (`RuleBuilder.attributed`).
    public var tds: TrackerDataSet
    public var rules: [ContentRule]
    public var provenance: [RuleProvenance]
}

/// The attributed variant's first rules: the vendor site and, per tracker, its conversion hosts in config order.
struct AttributedHosts {
    var vendor: String
    var hosts: [String: [String]]
}

/// Which trackers move, and the TDS of each list.
struct AttributionSplit {
    var entries: [AdClickAttributionEntry]
    var moved: Set<String>
    /// The TDS the attribution list is built from.
    var listTDS: TrackerDataSet
    var issues: [ConversionIssue]

    /// nil when the feature is off; `moved` is empty when no entry names a tracker (nothing is split then).
    static func make(tds: TrackerDataSet, config: PrivacyConfig?, mode: RuleBuildMode) -> AttributionSplit? {
        guard let feature = config?.adClickAttribution, feature.enabled else { return nil }
        var entries: [AdClickAttributionEntry] = []
        var issues: [ConversionIssue] = []
        for e in feature.allowlist {
            if tds.trackers[e.blocklistEntry] != nil { entries.append(e); continue }
            issues.append(
                ConversionIssue(
                    kind: .neverApplies, location: .config(e.path / "blocklistEntry"),
                    message: "\(e.blocklistEntry) is not a tracker of the TDS; entry skipped"))
        }
        let moved = Set(entries.map(\.blocklistEntry))
        return AttributionSplit(
            entries: entries, moved: moved, listTDS: listTDS(tds, moved: moved, mode: mode), issues: issues)
    }

    /// ddg: the apps' TDS (the trackers, their owners' entities and those entities' domains, no CNAMEs).
    /// faithful: also the trackers nested under them (reset there) and the CNAME aliases whose tracker moved.
    static func listTDS(_ tds: TrackerDataSet, moved: Set<String>, mode: RuleBuildMode) -> TrackerDataSet {
        var out = TrackerDataSet()
        for domain in moved { out.trackers[domain] = tds.trackers[domain] }
        let owners = Set(moved.compactMap { tds.trackers[$0]?.owner?.name })
        for name in owners { out.entities[name] = tds.entities[name] }
        if mode == .ddg {
            for (name, entity) in out.entities { for d in entity.domains { out.domains[d] = name } }
            return out
        }
        for (d, name) in tds.domains where owners.contains(name) { out.domains[d] = name }
        for domain in tds.trackers.keys
        where !moved.contains(domain) && Host.suffixes(of: domain).dropFirst().contains(where: moved.contains) {
            out.trackers[domain] = Tracker(domain: domain)
        }
        for (alias, target) in tds.cnames where tds.findTracker(forHost: alias) == nil {
            if let t = tds.findTracker(forHost: target), moved.contains(t.domain) { out.cnames[alias] = target }
        }
        return out
    }

    /// ddg mode's main TDS: without the moved trackers (the apps' "regular" TDS).
    static func mainTDS(_ tds: TrackerDataSet, moved: Set<String>) -> TrackerDataSet {
        var out = tds
        for domain in moved { out.trackers[domain] = nil }
        return out
    }
}

extension RuleBuilder {
    /// The attributed variant of a release's attribution list for `vendor` (a site without a leading "www."):
    /// the list built from `tds` (the attribution list's TDS) with each allowlisted tracker's new first rule.
    public static func attributed(
        tds: TrackerDataSet, config: PrivacyConfig, unprotectedSites: UnprotectedSites? = nil,
        mode: RuleBuildMode = .faithful, vendor: String
    ) -> RuleBuildResult {
        let entries = config.adClickAttribution.allowlist.filter { tds.trackers[$0.blocklistEntry] != nil }
        var hosts: [String: [String]] = [:]
        for e in entries { hosts[e.blocklistEntry, default: []].append(e.host) }
        var result = attributionRules(
            tds: tds, moved: Set(hosts.keys), config: config, unprotectedSites: unprotectedSites, mode: mode,
            attribution: AttributedHosts(vendor: vendor, hosts: hosts))
        OutputValidator.validate(&result, mode: mode)
        return result
    }

    /// The attribution list (blocking, or attributed for a vendor) of `tds`: the split's list TDS.
    static func attributionRules(
        tds: TrackerDataSet, moved: Set<String>, config: PrivacyConfig?, unprotectedSites: UnprotectedSites?,
        mode: RuleBuildMode, attribution: AttributedHosts?
    ) -> RuleBuildResult {
        var exceptions = ExceptionInputs(config: config, unprotectedSites: unprotectedSites, mode: mode)
        // The request blocklist is the main list's.
        exceptions.requestBlocklist = nil
        switch mode {
        case .faithful:
            // Faithful allowlist rules match only hosts under their tracker key: an entry whose key is neither
            // above nor under a host of this list can change none of its decisions (the apps append them all).
            let hosts = Array(moved) + Array(tds.cnames.keys)
            exceptions.allowlist = exceptions.allowlist.filter { e in
                hosts.contains {
                    Host.isSameOrSubdomain($0, of: e.entry.trackerDomain)
                        || Host.isSameOrSubdomain(e.entry.trackerDomain, of: $0)
                }
            }
            var b = FaithfulBuilder(tds: tds, exceptions: exceptions)
            b.attribution = attribution
            return b.buildAttribution(moved: moved)
        case .ddg:
            var b = DDGBuilder(tds: tds, exceptions: exceptions)
            if let attribution { b.firstRules = DDGBuilder.attributionFirstRules(attribution) }
            return b.build()
        }
    }

    /// The split of `build`: the blocking attribution list, and its issues.
    static func attributionList(
        _ split: AttributionSplit, config: PrivacyConfig?, unprotectedSites: UnprotectedSites?,
        mode: RuleBuildMode, indexMap: SourceIndexMap
    ) -> (AttributionList, [ConversionIssue]) {
        var list = attributionRules(
            tds: split.listTDS, moved: split.moved, config: config, unprotectedSites: unprotectedSites,
            mode: mode, attribution: nil)
        OutputValidator.validate(&list, mode: mode)
        indexMap.apply(to: &list)
        return (
            AttributionList(entries: split.entries, tds: split.listTDS, rules: list.rules, provenance: list.provenance),
            list.issues
        )
    }
}

extension DDGBuilder {
    /// The mutator's rule, inserted first for each entry (so the last entry of a tracker comes first):
    /// host, an optional port, then `/.*`, with the dots escaped, blocking except on the vendor.
    static func attributionFirstRules(_ a: AttributedHosts) -> [String: [TrackerRule]] {
        a.hosts.mapValues { hosts in
            hosts.reversed().map { host in
                TrackerRule(
                    rule: host.replacingOccurrences(of: ".", with: "\\.") + TDSConventions.optionalPort + "/.*",
                    exceptions: RuleMatcher(domains: [a.vendor]))
            }
        }
    }
}

extension FaithfulBuilder {
    /// The attribution list: the moved trackers (and their CNAME aliases); trackers nested under them are reset,
    /// as they decide for their own hosts in the main list.
    func buildAttribution(moved: Set<String>) -> RuleBuildResult {
        var b = self
        for domain in sortedTrackerDomains(tds) {
            if moved.contains(domain) {
                b.emitTracker(tds.trackers[domain]!, scope: .domain(domain), alias: nil)
            } else if Host.suffixes(of: domain).dropFirst().contains(where: moved.contains) {
                b.emitReset(domain)
            }
        }
        for alias in tds.cnames.keys.sorted(by: byteOrder) where tds.findTracker(forHost: alias) == nil {
            let target = tds.cnames[alias]!
            guard let tracker = tds.findTracker(forHost: target), moved.contains(tracker.domain) else { continue }
            b.emitTracker(tracker, scope: .alias(alias, target: target), alias: alias)
        }
        b.emitExceptions()
        return TopSiteConditions.anchored(b.sink.result)
    }

    /// A tracker of the attribution list, in the main list: its hosts are reset when a main-list tracker is a
    /// parent of it (the longest tracker host wins, and this one decides in its own list).
    mutating func emitExcludedReset(_ domain: String) {
        guard
            Host.suffixes(of: domain).dropFirst().contains(where: { tds.trackers[$0] != nil && !excluded.contains($0) })
        else { return }
        emitReset(domain)
    }

    /// The longest tracker host wins: ignore-previous-rules for a tracker's hosts, so that what a parent tracker's
    /// rules decided does not hold for them.
    mutating func emitReset(_ domain: String) {
        sink.emit(
            ContentRule(
                trigger: Trigger(urlFilter: HostScope.domain(domain).hostFilter, loadTypes: LoadTypes.thirdParty),
                action: .ignorePreviousRules),
            RuleProvenance(source: .tds, tracker: domain, part: .default, role: .reset))
    }

    /// The attributed variant's first rule of `tracker` for each conversion host in scope: block the host (and
    /// its subdomains, any port), then let it load on the vendor's site. Emitted after the TDS rules, so it wins
    /// over them; the same-entity exemption and the exceptions still follow. True when it emitted a block.
    mutating func emitAttributedRules(_ tracker: Tracker, scope: HostScope, load: [String]?) -> Bool {
        guard let a = attribution, let hosts = a.hosts[tracker.domain] else { return false }
        var emitted = false
        for host in hosts {
            let filter: String
            switch scope {
            case .domain: filter = HostScope.domain(host).hostFilter
            case .alias(_, let target):
                guard Host.isSameOrSubdomain(target, of: host) else { continue }
                filter = scope.hostFilter
            }
            let origin = { (role: Role) in
                RuleProvenance(
                    source: .adClickAttribution, tracker: tracker.domain, role: role, cnameAlias: scope.alias,
                    allowlistRule: host)
            }
            sink.emit(
                ContentRule(trigger: Trigger(urlFilter: filter, loadTypes: load), action: .block), origin(.block))
            sink.emit(
                ContentRule(
                    trigger: Trigger(
                        urlFilter: filter, loadTypes: load, condition: .init(.ifDomain, [a.vendor].wildcards)),
                    action: .ignorePreviousRules), origin(.vendor))
            emitted = true
        }
        return emitted
    }
}

extension HostScope {
    /// The CNAME alias of an alias scope.
    var alias: String? {
        if case .alias(let a, _) = self { return a }
        return nil
    }
}
