// The shared same-entity exemption: one rule for an entity's trackers instead of one per tracker.
//
// Each tracker's own exemption names every site of its entity, so an entity whose many domains are all trackers
// and all sites (an ad network that rotates domains) costs WebKit trackers x sites top-URL conditions, in the JSON
// WebKit stores and in the automata it builds (docs/compile-cost.md, "Same-entity exemptions").
//
// WebKit's ignore-previous-rules cancels every rule before it in its list, whatever that rule's url-filter. So when
// an entity's trackers are the first rules of the list, `ignore-previous{.*, if-domain *entity sites}` right after
// them exempts all of them on the entity's sites and touches nothing else, since no other rule precedes it. Its
// size is the entity's sites, once. Only one entity per list can be first: a second `.*` exemption would also
// cancel the first entity's blocks on the second entity's sites. The entity chosen is the one whose per-tracker
// exemptions would name the most sites.
//
// Moving trackers to the front keeps every decision as long as no rule that used to come before them can match
// their requests. The rules that match a request to host h are those of the trackers whose scope holds h (its
// parent-domain chain), the CNAME copies of exact alias hosts (never under a tracker), the request blocklist and
// the global exceptions; the last two follow every tracker anyway. So a tracker moves only when each tracker above
// it moves too; the others stay in place with their own exemptions. The moved trackers keep their order (parents
// first), and a tracker of another entity nested under a moved one still follows it.
//
// The per-tracker exemption is third-party only, like every rule it cancels: on a first-party load there is nothing
// to cancel, so the shared one needs no load type.
//
// The CNAME copies of the moved trackers move with them, before the exemption, which then covers them too: a copy
// matches only its exact alias host, which no tracker's scope holds, so the only rules before it that can match its
// requests are its own, wherever it stands. Its own exemption names the entity's sites whatever the load type, as
// the shared one does. An entity with many cloaked customer hosts (a tag manager's CNAME aliases) is then linear in
// aliases + sites as well.
//
// Every large entity linear (`entityLists`): WebKit evaluates each list on its own, and a load is blocked when any
// list blocks it, so a second entity can lead a list of its own. The builder then writes one segment per leading
// entity, its trackers followed by its exemption, and the release splits the list at those exemptions
// (RuleListSplitter): such a rule sequence is not one list. An entity gets a list of its own only when what it saves
// outweighs what another list costs WebKit: the global exceptions repeated in it (and the tracker allowlist's rules
// for its own trackers) plus a list's fixed cost, counted in top-URL conditions (docs/compile-cost.md, "Every entity
// linear"); and only when none of its trackers shares a registrable domain with another leading entity's, the unit
// the splitter keeps together.

import ContentRules
import Domains
import Provenance
import TrackerData

/// How faithful mode writes same-entity exemptions. `shared` is the single-list form (one entity leads);
/// `entityLists` lets every large entity lead a list of its own, and its rules are only correct split at the shared
/// exemptions (a release's lists). `perTracker` is the encoding before the shared exemption, kept for equivalence
/// checks (`convert --per-tracker-exemptions`).
public enum SameEntityEncoding: String, Sendable, CaseIterable {
    case shared
    case entityLists = "entity-lists"
    case perTracker = "per-tracker"
}

/// The entity whose trackers lead the list, with one exemption for all of them.
struct SharedEntity: Equatable {
    let name: String
    /// In emission order: parents before subdomain trackers, then byte order.
    let trackers: [String]
    /// The CNAME aliases cloaking those trackers, in byte order: their copies follow the trackers.
    let aliases: [String]
    let sites: [String]

    init(name: String, trackers: [String], aliases: [String] = [], sites: [String]) {
        self.name = name
        self.trackers = trackers
        self.aliases = aliases
        self.sites = sites
    }
}

extension FaithfulBuilder {
    /// What another list costs WebKit besides the exceptions repeated in it, in top-URL conditions: a one-rule list
    /// compiles to about 20 KB, what about 1,000 conditions take (docs/compile-cost.md, "Every entity linear").
    static let listCostInConditions = 1_000
    /// What one repeated exception rule costs besides its conditions (its url-filter, its action), in conditions.
    static let repeatedRuleInConditions = 30

    /// The entities that lead a list segment of their own, the one that saves most first.
    func leadingEntities() -> [SharedEntity] {
        switch sameEntity {
        case .perTracker: return []
        case .shared: return Array(rankedEntities().prefix(1).map(\.entity))
        case .entityLists:
            let ranked = rankedEntities()
            guard let first = ranked.first else { return [] }
            let repeated = repeatedExceptionConditions()
            // The dataset's scopes: units apart under them stay apart in the list (ListUnit.Grouping).
            let grouping = ListUnit.Grouping(scopes: ListUnit.Scopes(Array(tds.trackers.keys) + Array(tds.cnames.keys)))
            func units(_ e: SharedEntity) -> Set<String> {
                Set((e.trackers + e.aliases).map(grouping.unit(ofScope:)))
            }
            var chosen = [first.entity]
            var taken = units(first.entity)
            for candidate in ranked.dropFirst() {
                let own = units(candidate.entity)
                let scopes = ListUnit.Scopes(candidate.entity.trackers + candidate.entity.aliases)
                let allowlisted = repeated.allowlisted.filter { scopes.nestsWithAny($0.key) }
                let listCost = repeated.everyList + allowlisted.values.reduce(0, +) + Self.listCostInConditions
                guard candidate.saved > listCost, own.isDisjoint(with: taken) else { continue }
                chosen.append(candidate.entity)
                taken.formUnion(own)
            }
            return chosen
        }
    }

    /// Entities that save conditions by sharing their exemption, by the conditions saved (most first, then name).
    private func rankedEntities() -> [(saved: Int, entity: SharedEntity)] {
        let movable = movableTrackers()
        let aliases = cloakingAliases(of: Set(movable.values.joined()))
        var ranked: [(saved: Int, entity: SharedEntity)] = []
        for name in movable.keys.sorted(by: byteOrder) {
            guard let sites = entityDomains[name], !sites.isEmpty else { continue }
            let trackers = movable[name]!
            let own = trackers.flatMap { aliases[$0] ?? [] }.sorted(by: byteOrder)
            // A CNAME copy blocks where the tracker it copies does.
            let blockingTrackers = trackers.filter { blocks(tds.trackers[$0]!) }
            let blocking = blockingTrackers.reduce(0) { $0 + 1 + (aliases[$1]?.count ?? 0) }
            let saved = blocking * sites.count - sites.count
            if saved > 0 {
                ranked.append((saved, SharedEntity(name: name, trackers: trackers, aliases: own, sites: sites)))
            }
        }
        // Stable: equal savings keep byte order of the names.
        return ranked.enumerated().sorted { ($0.element.saved, $1.offset) > ($1.element.saved, $0.offset) }
            .map(\.element)
    }

    /// What the exceptions a further list repeats cost, in conditions: those every list repeats (temp list,
    /// unprotected sites, ...), and per allowlisted tracker domain the tracker allowlist's rules, which go only to
    /// the lists that can block under it (RuleListSplitter).
    private func repeatedExceptionConditions() -> (everyList: Int, allowlisted: [String: Int]) {
        var probe = self
        probe.sink = RuleSink()
        probe.emitExceptions()
        var everyList = 0
        var allowlisted: [String: Int] = [:]
        for (rule, origin) in zip(probe.sink.rules, probe.sink.provenance) {
            let cost = (rule.trigger.condition?.values.count ?? 0) + Self.repeatedRuleInConditions
            if let domain = ListUnit.allowlisted(origin) {
                allowlisted[domain, default: 0] += cost
            } else {
                everyList += cost
            }
        }
        return (everyList, allowlisted)
    }

    /// Per entity, its trackers that can move to the front of the list: every tracker above one (a parent domain)
    /// is the same entity's and can move too.
    private func movableTrackers() -> [String: [String]] {
        var owner: [String: String] = [:]
        var movable: [String: [String]] = [:]
        // A tracker of the ad-click attribution list is not in this one (nor, then, is any tracker under it).
        for domain in sortedTrackerDomains(tds) where !excluded.contains(domain) {
            guard let name = tds.trackers[domain]!.owner?.name else { continue }
            let parents = Host.suffixes(of: domain).dropFirst().filter { tds.trackers[$0] != nil }
            guard parents.allSatisfy({ owner[$0] == name }) else { continue }
            owner[domain] = name
            movable[name, default: []].append(domain)
        }
        return movable
    }

    /// The tracker whose rules a CNAME alias gets (`build` emits a copy of them for it): the one its target falls
    /// under, unless the alias is itself under a tracker or the tracker lives in another list.
    func cloakedTracker(_ alias: String) -> Tracker? {
        guard tds.findTracker(forHost: alias) == nil, let target = tds.cnames[alias],
            let tracker = tds.findTracker(forHost: target), !excluded.contains(tracker.domain)
        else { return nil }
        return tracker
    }

    /// Per tracker among `trackers`, the CNAME aliases that cloak it.
    private func cloakingAliases(of trackers: Set<String>) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for alias in tds.cnames.keys {
            guard let tracker = cloakedTracker(alias), trackers.contains(tracker.domain) else { continue }
            out[tracker.domain, default: []].append(alias)
        }
        return out
    }

    /// Whether some rule of the tracker blocks: the same test `emitTracker` applies, before regexes are translated.
    private func blocks(_ tracker: Tracker) -> Bool {
        tracker.defaultAction == .block
            || tracker.rules.contains { !($0.action == .ignore || $0.action?.isBlockCTL == true) }
    }

    /// The entity's trackers and their CNAME copies, then its one exemption: when any of them blocks, or always when
    /// it ends a segment of `entityLists` (the splitter cuts the list there).
    mutating func emitSharedEntity(_ shared: SharedEntity, endsSegment: Bool) {
        var blocking = false
        for domain in shared.trackers {
            let blocks = emitTracker(tds.trackers[domain]!, scope: .domain(domain), alias: nil, exemption: false)
            blocking = blocking || blocks
        }
        for alias in shared.aliases {
            let tracker = cloakedTracker(alias)!
            let blocks = emitTracker(
                tracker, scope: .alias(alias, target: tds.cnames[alias]!), alias: alias, exemption: false)
            blocking = blocking || blocks
        }
        guard blocking || endsSegment else { return }
        sink.emit(
            ContentRule(
                trigger: Trigger(urlFilter: ".*", condition: .init(.ifDomain, shared.sites.wildcards)),
                action: .ignorePreviousRules),
            RuleProvenance(source: .tds, part: .entity, role: .sameEntity, entity: shared.name))
    }
}
