// The part of the TDS and config that the page-side matcher needs, as JSON data (never code).
//
// Subset (scope .surrogateTrackers), smallest that keeps every "redirect" decision of the full TDS:
// - trackers with at least one rule whose surrogate is in the bundle: all their rules (first match wins, so
//   a rule before the surrogate rule can shadow it), default, owner entity and registrable domain;
// - "shadow" trackers: trackers under a surrogate tracker, or related to an included CNAME alias. A request
//   to them resolves to them (longest suffix) and so never gets a surrogate; without them the page would
//   fall back to the shorter surrogate tracker. They are carried as `{}`;
// - the owner entities' domain lists (first party);
// - CNAME aliases whose target resolves (longest suffix) to a surrogate tracker;
// - temp-unprotected and user-unprotected sites, and the tracker-allowlist entries whose host is related
//   to an included tracker or alias (as the rule list's regex).
// Scope .allTrackers carries every tracker, entity and alias (for testing the matcher on the reference suite).
// With `report` (tracker detection, which needs every tracker) it adds what the radarblock:tracker event
// names: each tracker's `category`, the entities' display names, and the request blocklist's rules.
//
// Dataset-keyed maps are arrays of [key, value] pairs: an object literal would give a key such as
// "__proto__" a meaning. This is what the page reads; PageTable lays its trackers, aliases, entities and
// allowlist out as the lookup tables the bundle carries, and JSONWriter writes it with .scriptSafe and sorted keys.

import Domains
import StrictJSON
import TrackerData

public enum PageDataScope: Sendable {
    case surrogateTrackers
    case allTrackers
}

struct PageData {
    var json: JSONValue
    var trackerCount: Int
    var surrogateTrackerCount: Int
    var cnameCount: Int
    var entityCount: Int
    var allowlistCount: Int

    /// `available`: surrogate names present in the bundle; rules naming any other surrogate are carried
    /// without `surrogate` (a plain block), which the caller has already reported.
    static func build(
        tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
        available: Set<String>, scope: PageDataScope, report: Bool = false,
        psl: PublicSuffixList = .shared
    ) -> PageData {
        let selection = PageDataSelection(tds: tds, available: available, all: scope == .allTrackers)
        var (trackerPairs, entityNames) = trackersJSON(
            selection, tds: tds, available: available, report: report, psl: psl)
        // Click-to-load entities: their sites are first party for their rule actions.
        for (_, entity) in config?.clickToLoad.supportedRuleActions ?? [] where tds.entities[entity] != nil {
            entityNames.insert(entity)
        }
        if selection.all { entityNames = Set(tds.entities.keys) }
        let entityPairs: [JSONValue] = entityNames.sorted(by: byteOrder).compactMap { name in
            guard let e = tds.entities[name] else { return nil }
            return [.string(name), .array(e.domains.map { .string($0) })]
        }
        let aliases = selection.aliases
        let cnamePairs: [JSONValue] = aliases.keys.sorted(by: byteOrder).map { [.string($0), .string(aliases[$0]!)] }

        var root = JSONObject()
        root["trackers"] = .array(trackerPairs)
        root["entities"] = .array(entityPairs)
        root["cnames"] = .array(cnamePairs)
        root["subdomainPrefix"] = .string(TDSConventions.subdomainPrefix)
        if report {
            root["report"] = true
            root["displayNames"] = .array(
                entityNames.sorted(by: byteOrder).compactMap { name -> JSONValue? in
                    guard let shown = tds.entities[name]?.displayName else { return nil }
                    return [.string(name), .string(shown)]
                })
        }
        let allowCount = config.map { addConfig($0, selection, to: &root) } ?? 0
        if let attribution = adClickAttributionJSON(config, tds: tds, carried: selection.full) {
            root["adClickAttribution"] = attribution
        }
        if report, let blocklist = config?.requestBlocklist, blocklist.enabled, !blocklist.rules.isEmpty {
            root["requestBlocklist"] = .array(blocklist.rules.map(blocklistJSON(exceptions: blocklist.exceptions)))
        }
        if let unprotected, !unprotected.hosts.isEmpty {
            root["unprotectedSites"] = .array(unprotected.hosts.map { .string($0) })
        }
        root["surrogates"] = .array(available.sorted(by: byteOrder).map { .string($0) })

        return PageData(
            json: .object(root), trackerCount: trackerPairs.count,
            surrogateTrackerCount: selection.surrogateTrackers.count, cnameCount: cnamePairs.count,
            entityCount: entityPairs.count, allowlistCount: allowCount)
    }

    /// The carried trackers as [domain, tracker] pairs in byte order (shadows as `{}`), with the entities
    /// that own them.
    private static func trackersJSON(
        _ selection: PageDataSelection, tds: TrackerDataSet, available: Set<String>,
        report: Bool, psl: PublicSuffixList
    ) -> ([JSONValue], Set<String>) {
        var trackerPairs: [JSONValue] = []
        var entityNames: Set<String> = []
        for domain in (selection.full.union(selection.shadows)).sorted(by: byteOrder) {
            guard let t = tds.trackers[domain] else { continue }
            if selection.shadows.contains(domain) {
                trackerPairs.append([.string(domain), .object(JSONObject())])
                continue
            }
            var o = JSONObject()
            if let name = t.owner?.name, tds.entities[name] != nil {
                o["owner"] = .string(name)
                entityNames.insert(name)
            }
            if let d = t.defaultAction { o["default"] = .string(d.rawValue) }
            if let site = Host.isIPAddress(domain) ? domain : psl.registrableDomain(domain) {
                if site != domain { o["site"] = .string(site) }
            } else {
                o["publicSuffix"] = true
            }
            o["rules"] = .array(t.rules.map { rule in ruleJSON(rule, available: available) })
            if report, let category = category(of: t) { o["category"] = .string(category) }
            trackerPairs.append([.string(domain), .object(o)])
        }
        return (trackerPairs, entityNames)
    }

    /// The config's part: content blocking off, click-to-load, temp-unprotected sites and the allowlist;
    /// returns the number of allowlist entries carried.
    private static func addConfig(
        _ config: PrivacyConfig, _ selection: PageDataSelection,
        to root: inout JSONObject
    ) -> Int {
        // The rule list blocks nothing then; the page must not run surrogates for unblocked scripts either.
        if !config.contentBlockingEnabled { root["contentBlockingDisabled"] = true }
        let supported = config.clickToLoad.supportedRuleActions
        if !supported.isEmpty || !config.clickToLoad.exceptions.isEmpty {
            var ctl = JSONObject()
            ctl["supported"] = .array(supported.map { [.string($0.ruleAction), .string($0.entity)] })
            ctl["exceptions"] = .array(config.clickToLoad.exceptions.map { .string($0) })
            root["clickToLoad"] = .object(ctl)
        }
        root["tempUnprotected"] = .array(config.tempUnprotected.map { .string($0) })
        guard config.trackerAllowlist.enabled else { return 0 }
        let entries = allowlistJSON(config.trackerAllowlist, selection)
        root["allowlist"] = .array(entries)
        return entries.count
    }

    /// The allowlist entries whose host is related to a carried tracker or alias (all with .allTrackers).
    private static func allowlistJSON(_ allowlist: TrackerAllowlist, _ selection: PageDataSelection) -> [JSONValue] {
        let anchors = Array(selection.full) + Array(selection.aliases.keys)
        var entries: [JSONValue] = []
        for e in allowlist.entries {
            let host = allowlistHost(e.rule)
            guard
                selection.all
                    || anchors.contains(where: { a in
                        Host.isSameOrSubdomain(host, of: a) || Host.isSameOrSubdomain(a, of: host)
                    })
            else { continue }
            var o = JSONObject()
            o["regex"] = .string(TDSConventions.allowlistFilter(e.rule))
            if case .domains(let sites) = e.sites { o["domains"] = .array(sites.map { .string($0) }) }
            entries.append(.object(o))
        }
        return entries
    }

    /// The category a report names: the first of the tracker's categories (TDS order), nil when it has none.
    static func category(of t: Tracker) -> String? { t.categories?.first }

    /// One request-blocklist rule as the page checks it: the rule list's url-filter (case-sensitive), its
    /// sites (absent = every site) and the feature's exception sites.
    static func blocklistJSON(exceptions: [String]) -> (RequestBlockRule) -> JSONValue {
        { r in
            var o = JSONObject()
            o["regex"] = .string(r.urlFilter)
            if case .domains(let sites) = r.sites { o["domains"] = .array(sites.map { .string($0) }) }
            if !exceptions.isEmpty { o["exceptions"] = .array(exceptions.map { .string($0) }) }
            return .object(o)
        }
    }

    static func ruleJSON(_ r: TrackerRule, available: Set<String>) -> JSONValue {
        var o = JSONObject()
        o["rule"] = .string(r.rule)
        if let s = r.surrogate, available.contains(s) { o["surrogate"] = .string(s) }
        if let a = r.action { o["action"] = .string(a.rawValue) }
        if let m = r.options { o["options"] = matcherJSON(m) }
        if let m = r.exceptions { o["exceptions"] = matcherJSON(m) }
        return .object(o)
    }

    static func matcherJSON(_ m: RuleMatcher) -> JSONValue {
        var o = JSONObject()
        if let d = m.domains { o["domains"] = .array(d.map { .string($0) }) }
        if let t = m.types { o["types"] = .array(t.map { .string($0) }) }
        return .object(o)
    }

    /// The host part of an allowlist rule (`host[:port][/path]`), lowercased.
    static func allowlistHost(_ rule: String) -> String {
        var host = Substring(rule)
        if let slash = host.firstIndex(of: "/") { host = host[..<slash] }
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        return host.lowercased()
    }

}

/// Which trackers and aliases the page data carries (see the top of this file).
private struct PageDataSelection {
    /// Scope .allTrackers.
    let all: Bool
    /// Trackers with a rule whose surrogate is in the bundle.
    let surrogateTrackers: Set<String>
    /// CNAME aliases whose target belongs to an included tracker.
    let aliases: [String: String]
    /// Trackers carried whole.
    let full: Set<String>
    /// Trackers carried as `{}`.
    let shadows: Set<String>

    init(tds: TrackerDataSet, available: Set<String>, all: Bool) {
        self.all = all
        let surrogateTrackers = Set(
            tds.trackers.values.filter { t in
                t.rules.contains { r in r.surrogate.map(available.contains) ?? false }
            }.map(\.domain))
        var aliases: [String: String] = [:]
        for (alias, target) in tds.cnames {
            guard let t = tds.findTracker(forHost: target) else { continue }
            if all || surrogateTrackers.contains(t.domain) { aliases[alias] = target }
        }
        var full: Set<String> = all ? Set(tds.trackers.keys) : surrogateTrackers
        var shadows: Set<String> = []
        if !all {
            let anchors = Array(surrogateTrackers) + Array(aliases.keys)
            for domain in tds.trackers.keys where !full.contains(domain) {
                let related = anchors.contains { a in
                    Host.isSameOrSubdomain(domain, of: a)
                        || (aliases[a] != nil && Host.isSameOrSubdomain(a, of: domain))
                }
                if related { shadows.insert(domain) }
            }
            full.subtract(shadows)
        }
        self.surrogateTrackers = surrogateTrackers
        self.aliases = aliases
        self.full = full
        self.shadows = shadows
    }
}
