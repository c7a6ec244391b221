// ddg mode: DuckDuckGo's TrackerRadarKit converter (its ContentBlockerRulesBuilder.swift), rule for rule,
// including its known semantic gaps. Differences from TrackerRadarKit, all deliberate:
// - trackers and cname keys are iterated in a sorted order (TrackerRadarKit: random dictionary order);
// - rules WebKit would reject (empty condition lists, url-filters outside WebKit's regex subset) are repaired when
//   that is exact (an empty unless-domain means "no exemption") or left out, and reported (OutputValidator);
// - everything TrackerRadarKit drops silently (unknown actions, unmapped resource types) is reported.

import ContentRules
import Domains
import Provenance
import StrictJSON
import TrackerData

struct DDGBuilder {

    /// TrackerRadarKit's resource map; every other type is dropped.
    static let resourceMap: [String: String] = [
        "script": "script", "xmlhttprequest": "raw", "subdocument": "document", "image": "image",
        "stylesheet": "style-sheet",
    ]

    let tds: TrackerDataSet
    let exceptions: ExceptionInputs
    var sink = RuleSink()
    /// Rules put before a tracker's TDS rules (the attributed variant of the ad-click attribution list).
    var firstRules: [String: [TrackerRule]] = [:]

    init(tds: TrackerDataSet, exceptions: ExceptionInputs) {
        self.tds = tds
        self.exceptions = exceptions
    }

    func build() -> RuleBuildResult {
        var builder = self
        for domain in sortedTrackerDomains(tds) {
            builder.trackerRules(tds.trackers[domain]!, domain: domain, loadTypes: LoadTypes.thirdParty, alias: nil)
        }
        for alias in tds.cnames.keys.sorted(by: byteOrder) {
            let target = tds.cnames[alias]!
            guard let tracker = Self.findTracker(byCname: target, in: tds) else { continue }
            builder.trackerRules(tracker, domain: alias, loadTypes: LoadTypes.anyParty, alias: alias)
        }
        if let blocklist = exceptions.requestBlocklist {
            RequestBlocklistRules.emit(blocklist, guardTopLevel: true, into: &builder.sink)
        }
        builder.exceptionRules()
        return builder.sink.result
    }

    /// TrackerRadarKit's lookup: the target and its parents while they contain a dot.
    static func findTracker(byCname target: String, in tds: TrackerDataSet) -> Tracker? {
        var current = Substring(target)
        while current.contains(".") {
            if let t = tds.trackers[String(current)] { return t }
            current = current[current.index(after: current.firstIndex(of: ".")!)...]
        }
        return nil
    }

    // MARK: per tracker

    mutating func trackerRules(_ tracker: Tracker, domain: String, loadTypes: [String], alias: String?) {
        let related = tracker.owner?.name.flatMap { tds.entities[$0] }?.domains.wildcards
        let first = firstRules[tracker.domain] ?? []
        func origin(_ part: RuleProvenance.TrackerPart) -> RuleProvenance {
            guard case .rule(let i) = part, !first.isEmpty else {
                return RuleProvenance(source: .tds, tracker: tracker.domain, part: part, cnameAlias: alias)
            }
            return i < first.count
                ? RuleProvenance(
                    source: .adClickAttribution, tracker: tracker.domain, cnameAlias: alias,
                    allowlistRule: first[i].rule)
                : RuleProvenance(source: .tds, tracker: tracker.domain, part: .rule(i - first.count), cnameAlias: alias)
        }

        if tracker.defaultAction == .block {
            let filter =
                TDSConventions.subdomainPrefix + TDSConventions.escapedDomain(domain) + TriggerCondition.hostEnd
            sink.emit(
                ContentRule(
                    trigger: Trigger(
                        urlFilter: filter, loadTypes: loadTypes, condition: related.map { .init(.unlessDomain, $0) }),
                    action: .block), origin(.default))
            sink.emit(
                ContentRule(
                    trigger: Trigger(
                        urlFilter: filter, resourceTypes: ["popup"], loadTypes: loadTypes, loadContexts: ["top-frame"]),
                    action: .ignorePreviousRules), origin(.popup))
        }

        var groups: [[(ContentRule, Int)]] = []
        let splitOff = Set(exceptions.clickToLoadActions.map(\.ruleAction))
        for (index, rule) in (first + tracker.rules).enumerated() {
            // TrackerRadarKit's click-to-load split: a supported action's rules live in its own list only.
            if let a = rule.action, splitOff.contains(a.rawValue) { continue }
            if case .blockCTL(let name)? = rule.action, name != "fb" {
                if alias == nil {
                    sink.issues.append(
                        .tdsRule(
                            .ignoredInput, tracker: tracker.domain, index: index - first.count, field: "action",
                            "action \"\(rule.action!.rawValue)\" is unknown to TrackerRadarKit, which drops the rule"))
                }
                continue
            }
            if alias == nil { reportUnmappedTypes(rule, tracker: tracker.domain, index: index - first.count) }
            groups.append(ruleGroup(rule, tracker: tracker, related: related, loadTypes: loadTypes).map { ($0, index) })
        }
        // Larger groups first; Swift's sort is stable, so equal sizes keep TDS order (as in TrackerRadarKit).
        let sorted = groups.enumerated().sorted {
            $0.element.count != $1.element.count ? $0.element.count > $1.element.count : $0.offset < $1.offset
        }
        var seen = Set<ContentRule>()
        for (rule, index) in sorted.flatMap(\.element) where seen.insert(rule).inserted {
            sink.emit(rule, origin(.rule(index)))
        }
    }

    /// TrackerRadarKit's table: each TDS rule becomes 1...3 WebKit rules.
    func ruleGroup(_ r: TrackerRule, tracker: Tracker, related: [String]?, loadTypes: [String]) -> [ContentRule] {
        let u = r.rule.hasPrefix("http") ? r.rule : TDSConventions.subdomainPrefix + r.rule
        let o = r.options, x = r.exceptions
        let isIgnore = r.action == .ignore

        func blockAll() -> ContentRule {
            ContentRule(
                trigger: Trigger(
                    urlFilter: u, loadTypes: loadTypes, condition: related.map { .init(.unlessDomain, $0) }),
                action: .block)
        }
        func block(_ m: RuleMatcher) -> ContentRule {
            // TrackerRadarKit hard-codes third-party here, even for CNAME copies.
            ContentRule(
                trigger: Trigger(
                    urlFilter: u, resourceTypes: m.types.map(Self.mapResources), loadTypes: LoadTypes.thirdParty,
                    condition: m.domains.map { .init(.ifDomain, $0.wildcards) }), action: .block)
        }
        func ignore(_ m: RuleMatcher?) -> ContentRule {
            ContentRule(
                trigger: Trigger(
                    urlFilter: u, resourceTypes: m?.types.map(Self.mapResources), loadTypes: loadTypes,
                    condition: m?.domains.map { .init(.ifDomain, $0.wildcards) }), action: .ignorePreviousRules)
        }
        let ignorePopup = ContentRule(
            trigger: Trigger(urlFilter: u, resourceTypes: ["popup"], loadTypes: loadTypes, loadContexts: ["top-frame"]),
            action: .ignorePreviousRules)

        if tracker.defaultAction == .block {
            if let o, let x { return [ignore(nil), block(o), ignore(x)] }
            if isIgnore { return [ignore(o)] }
            if let o { return [ignore(nil), block(o)] }
            if let x { return [ignore(x)] }
            return [blockAll()]
        } else {
            if isIgnore { return [blockAll(), ignore(o)] }
            if o == nil && x == nil { return [blockAll(), ignorePopup] }
            if let o, let x { return [block(o), ignore(x)] }
            if let o { return [block(o)] }
            if let x { return [blockAll(), ignore(x)] }
            return []
        }
    }

    static func mapResources(_ types: [String]) -> [String] { types.compactMap { resourceMap[$0] } }

    mutating func reportUnmappedTypes(_ r: TrackerRule, tracker: String, index: Int) {
        for (field, matcher) in [("options", r.options), ("exceptions", r.exceptions)] {
            guard let types = matcher?.types else { continue }
            let dropped = types.filter { Self.resourceMap[$0] == nil }
            guard !dropped.isEmpty else { continue }
            let consequence =
                dropped.count == types.count
                ? "no type is left, and resource-type [] means every type in WebKit"
                : "the rule applies to the remaining types only"
            sink.issues.append(
                .tdsRule(
                    .ddgDeviation, tracker: tracker, index: index, field: field,
                    "types \(dropped.map { "\"\($0)\"" }.joined(separator: ", ")) have no TrackerRadarKit mapping and "
                        + "are dropped; \(consequence)"
                ))
        }
    }

    // MARK: exceptions

    mutating func exceptionRules() {
        // User-unprotected sites cover their subdomains (the reference tests), unlike TrackerRadarKit's exact hosts.
        let domains = exceptions.userUnprotected.wildcards + exceptions.tempList.wildcards
        if !domains.isEmpty {
            let origin = RuleProvenance(
                source: exceptions.tempList.isEmpty ? .userUnprotected : .tempList,
                role: !exceptions.tempList.isEmpty && !exceptions.userUnprotected.isEmpty
                    ? .tempListAndUserUnprotected : nil)
            sink.emit(
                ContentRule(
                    trigger: Trigger(
                        urlFilter: ".*", loadTypes: LoadTypes.anyParty, condition: .init(.ifDomain, domains)),
                    action: .ignorePreviousRules), origin)
        }
        for (entry, index) in exceptions.allowlist {
            let filter = TDSConventions.allowlistFilter(entry.rule)
            let condition: TriggerCondition?
            switch entry.sites {
            case .all: condition = nil
            case .domains(let d): condition = .init(.ifDomain, d.wildcards)
            }
            sink.emit(
                ContentRule(
                    trigger: Trigger(urlFilter: filter, loadTypes: LoadTypes.anyParty, condition: condition),
                    action: .ignorePreviousRules),
                RuleProvenance(
                    source: .allowlist, tracker: entry.trackerDomain, allowlistIndex: index, allowlistRule: entry.rule))
        }
    }

}
