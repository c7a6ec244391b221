// faithful mode: WebKit rules whose last-match semantics reproduce the TDS's first-match semantics (README.md,
// Conversion modes).
//
// WebKit applies a list in order and the last matching block / ignore-previous-rules decides. So, per tracker
// (parents before subdomain trackers, so the longest tracker host wins):
//   1. the default: block{host in scope}; for a non-blocking tracker nested in a parent tracker,
//      ignore-previous{host in scope} resets the parent's verdict;
//   2. the TDS rules in REVERSE order, so the first TDS rule is emitted last and wins:
//      action ignore -> ignore-previous{R, options};
//      otherwise     -> block{R, options}, then ignore-previous{R, options ∩ exceptions} for the exceptions.
//      Rules whose options do not match simply do not fire, so evaluation falls through to the later TDS rules
//      (emitted earlier), exactly like the TDS. Exceptions apply only together with their own rule's options.
//   3. the same-entity exemption: ignore-previous{host in scope, if-domain *entity domains}, less the entity's sites
//      that are the tracker's own site (load-type third-party already exempts those). One entity, the one whose
//      exemptions would cost the most, shares a single exemption instead (SharedEntityExemption.swift): its
//      trackers and their CNAME copies come first in the list, followed by ignore-previous{.*, if-domain *entity
//      domains}, so that its size grows with trackers + aliases + sites rather than their product.
// Every tracker rule carries load-type third-party (the TDS only judges third-party requests). CNAME aliases follow
// the trackers: exact alias host, evaluated with the cloaked target's tracker, its rules rewritten to match the
// alias URL (HostFilters.swift), any load type (a cloaked tracker is usually first party by its URL). An alias that
// is itself under a tracker is judged as that tracker (the TDS never uncloaks it), so it gets no rules.
// At the end, all overriding everything before: temp list, user-unprotected sites, the tracker allowlist, and
// the rule that never blocks a top-level document or a popup. Site conditions are written as domain lists here
// and stated as anchored top-URL regexes on the way out (TopSiteConditions.swift).

import ContentRules
import Domains
import Provenance
import StrictJSON
import TrackerData

struct FaithfulBuilder {
    let tds: TrackerDataSet
    let exceptions: ExceptionInputs
    var sink = RuleSink()
    /// Trackers that live in another list (the ad-click attribution list): left out here, with their CNAME aliases.
    var excluded: Set<String> = []
    /// The attributed variant's first rules: for a vendor site, the conversion hosts per tracker
    /// (AdClickAttributionRules.swift).
    var attribution: AttributedHosts? = nil
    private var translations: [String: Result<RegexTranslation, Unexpressible>] = [:]
    let entityDomains: [String: [String]]
    var sameEntity: SameEntityEncoding = .shared

    init(tds: TrackerDataSet, exceptions: ExceptionInputs) {
        self.tds = tds
        self.exceptions = exceptions
        // Same-entity sites: the entity's domain list plus every `domains` entry naming the entity.
        var inverse: [String: [String]] = [:]
        for (domain, name) in tds.domains { inverse[name, default: []].append(domain) }
        var all: [String: [String]] = [:]
        for name in Set(inverse.keys).union(tds.entities.keys) {
            var seen = Set<String>()
            var list: [String] = []
            for d in (tds.entities[name]?.domains ?? []) + (inverse[name] ?? []).sorted(by: byteOrder)
            where seen.insert(d).inserted {
                list.append(d)
            }
            all[name] = list
        }
        entityDomains = all
    }

    func build() -> RuleBuildResult {
        var b = self
        let leading = leadingEntities()
        for shared in leading { b.emitSharedEntity(shared, endsSegment: sameEntity == .entityLists) }
        let moved = Set(leading.flatMap(\.trackers))
        for domain in sortedTrackerDomains(tds) where !moved.contains(domain) {
            if excluded.contains(domain) {
                b.emitExcludedReset(domain)
                continue
            }
            b.emitTracker(tds.trackers[domain]!, scope: .domain(domain), alias: nil)
        }
        let movedAliases = Set(leading.flatMap(\.aliases))
        for alias in tds.cnames.keys.sorted(by: byteOrder) where !movedAliases.contains(alias) {
            let target = tds.cnames[alias]!
            if let own = tds.findTracker(forHost: alias) {
                b.sink.issues.append(
                    ConversionIssue(
                        kind: .neverApplies, location: .tds(JSONPath.root / "cnames" / alias),
                        message:
                            "alias is itself under tracker \(own.domain), whose rules decide for it; the TDS never "
                            + "uncloaks it to \(target)"
                    ))
                continue
            }
            guard let tracker = cloakedTracker(alias) else { continue }
            b.emitTracker(tracker, scope: .alias(alias, target: target), alias: alias)
        }
        if let blocklist = exceptions.requestBlocklist { RequestBlocklistRules.emit(blocklist, into: &b.sink) }
        b.emitExceptions()
        return TopSiteConditions.anchored(b.sink.result)
    }

    /// The click-to-load list of one rule action: blocks what the TDS decides with a rule of that action (the
    /// first matching rule of the request's tracker), except on the entity's own sites, the feature's exception
    /// sites and wherever the main list's exceptions apply.
    func buildClickToLoad(ruleAction: String, entity: String) -> RuleBuildResult {
        var b = self
        let hasAction = { (t: Tracker) in t.rules.contains { $0.action?.rawValue == ruleAction } }
        let withAction = Set(tds.trackers.values.filter(hasAction).map(\.domain))
        for domain in sortedTrackerDomains(tds) {
            let tracker = tds.trackers[domain]!
            if withAction.contains(domain) {
                b.emitClickToLoadTracker(tracker, scope: .domain(domain), alias: nil, ruleAction: ruleAction)
            } else if Host.suffixes(of: domain).dropFirst().contains(where: withAction.contains) {
                // A nested tracker's requests are not its parent's to block.
                b.emitReset(domain)
            }
        }
        for alias in tds.cnames.keys.sorted(by: byteOrder) where tds.findTracker(forHost: alias) == nil {
            guard let tracker = tds.findTracker(forHost: tds.cnames[alias]!), withAction.contains(tracker.domain) else {
                continue
            }
            b.emitClickToLoadTracker(
                tracker, scope: .alias(alias, target: tds.cnames[alias]!), alias: alias, ruleAction: ruleAction)
        }
        let own = entityDomains[entity] ?? []
        if !own.isEmpty {
            b.sink.emit(
                ContentRule(
                    trigger: Trigger(urlFilter: ".*", condition: .init(.ifDomain, own.wildcards)),
                    action: .ignorePreviousRules),
                RuleProvenance(source: .clickToLoad, tracker: entity, role: .firstParty))
        }
        if !exceptions.clickToLoadExceptions.isEmpty {
            b.sink.emit(
                ContentRule(
                    trigger: Trigger(
                        urlFilter: ".*", condition: .init(.ifDomain, unique(exceptions.clickToLoadExceptions).wildcards)
                    ),
                    action: .ignorePreviousRules), RuleProvenance(source: .clickToLoad, role: .exception))
        }
        b.emitExceptions()
        return TopSiteConditions.anchored(b.sink.result)
    }

    /// A tracker in a click-to-load list: its rules up to the last one with the action, in reverse (first TDS
    /// rule wins); rules with the action block, every other rule resets (it decides, and not for this list).
    private mutating func emitClickToLoadTracker(
        _ tracker: Tracker, scope: HostScope, alias: String?, ruleAction: String
    ) {
        guard let last = tracker.rules.lastIndex(where: { $0.action?.rawValue == ruleAction }) else { return }
        let load: [String]? = alias == nil ? LoadTypes.thirdParty : nil
        func origin(_ index: Int, _ role: Role) -> RuleProvenance {
            RuleProvenance(source: .tds, tracker: tracker.domain, part: .rule(index), role: role, cnameAlias: alias)
        }
        for index in (0...last).reversed() {
            let rule = tracker.rules[index]
            let filters = ruleFilters(rule.rule, scope: scope, tracker: tracker.domain, index: index, report: false)
            guard !filters.isEmpty,
                let options = condition(
                    rule.options, field: "options", tracker: tracker.domain, index: index, report: false)
            else { continue }
            let decides = rule.action?.rawValue == ruleAction
            for form in filters {
                sink.emit(
                    ContentRule(
                        trigger: trigger(form.filter, options, load), action: decides ? .block : .ignorePreviousRules),
                    origin(index, decides ? .block : .otherRule).with(form))
            }
            guard decides, let x = rule.exceptions,
                let xc = condition(x, field: "exceptions", tracker: tracker.domain, index: index, report: false),
                let both = options.intersection(xc)
            else { continue }
            for form in filters {
                sink.emit(
                    ContentRule(trigger: trigger(form.filter, both, load), action: .ignorePreviousRules),
                    origin(index, .exception).with(form))
            }
        }
        if let name = tracker.owner?.name, let domains = entitySites(name, tracker: tracker.domain, alias: alias),
            !domains.isEmpty
        {
            sink.emit(
                ContentRule(
                    trigger: Trigger(
                        urlFilter: scope.hostFilter, loadTypes: load, condition: .init(.ifDomain, domains.wildcards)),
                    action: .ignorePreviousRules),
                RuleProvenance(
                    source: .tds, tracker: tracker.domain, part: .entity, role: .sameEntity, cnameAlias: alias))
        }
    }

    // MARK: trackers

    /// Emits the tracker's rules; `exemption` false leaves out its same-entity exemption (a shared one follows).
    /// Returns whether any of its rules blocks.
    @discardableResult
    mutating func emitTracker(_ tracker: Tracker, scope: HostScope, alias: String?, exemption: Bool = true) -> Bool {
        let load: [String]? = alias == nil ? LoadTypes.thirdParty : nil
        let domainFilter = scope.hostFilter
        let report = alias == nil
        func origin(_ part: RuleProvenance.TrackerPart, _ role: Role) -> RuleProvenance {
            RuleProvenance(source: .tds, tracker: tracker.domain, part: part, role: role, cnameAlias: alias)
        }
        var blocking = false

        if tracker.defaultAction == .block {
            sink.emit(
                ContentRule(trigger: Trigger(urlFilter: domainFilter, loadTypes: load), action: .block),
                origin(.default, .block))
            blocking = true
        } else if alias == nil, hasParentTracker(tracker.domain) {
            emitReset(tracker.domain)
        }

        for index in tracker.rules.indices.reversed() {
            let rule = tracker.rules[index]
            let filters = ruleFilters(rule.rule, scope: scope, tracker: tracker.domain, index: index, report: report)
            if filters.isEmpty { continue }
            guard
                let options = condition(
                    rule.options, field: "options", tracker: tracker.domain, index: index, report: report)
            else {
                if report {
                    sink.issues.append(
                        .tdsRule(
                            .neverApplies, tracker: tracker.domain, index: index, field: "options",
                            "no WebKit resource type is left in options.types, so the rule can never match; left out"))
                }
                continue
            }
            // A click-to-load rule never blocks in the main list: its own list (when the action is supported)
            // does, and an unsupported action blocks nothing.
            if rule.action == .ignore || rule.action?.isBlockCTL == true {
                for form in filters {
                    sink.emit(
                        ContentRule(trigger: trigger(form.filter, options, load), action: .ignorePreviousRules),
                        origin(.rule(index), .ignore).with(form))
                }
                continue
            }
            // No action, a surrogate, or block-ctl-*: all block (surrogates are served by the JS bundle).
            for form in filters {
                sink.emit(
                    ContentRule(trigger: trigger(form.filter, options, load), action: .block),
                    origin(.rule(index), .block).with(form))
            }
            blocking = true
            guard let x = rule.exceptions else { continue }
            emitRuleExceptions(
                x, of: (tracker.domain, index), options: options, filters: filters, load: load, report: report,
                origin: origin(.rule(index), .exception))
        }

        if emitAttributedRules(tracker, scope: scope, load: load) { blocking = true }

        if blocking, exemption, let name = tracker.owner?.name,
            let domains = entitySites(name, tracker: tracker.domain, alias: alias), !domains.isEmpty
        {
            sink.emit(
                ContentRule(
                    trigger: Trigger(
                        urlFilter: domainFilter, loadTypes: load, condition: .init(.ifDomain, domains.wildcards)),
                    action: .ignorePreviousRules), origin(.entity, .sameEntity))
        }
        return blocking
    }

    /// A blocking TDS rule's exceptions: ignore-previous-rules on the same filters where both its options and its
    /// exceptions hold. `origin` names the TDS rule (role "exception").
    private mutating func emitRuleExceptions(
        _ x: RuleMatcher, of rule: (tracker: String, index: Int), options: MatchCondition,
        filters: [FilterForm], load: [String]?, report: Bool, origin: RuleProvenance
    ) {
        let (tracker, index) = rule
        guard let xc = condition(x, field: "exceptions", tracker: tracker, index: index, report: report) else {
            if report {
                sink.issues.append(
                    .tdsRule(
                        .neverApplies, tracker: tracker, index: index, field: "exceptions",
                        "no WebKit resource type is left in exceptions.types, so the exception can never apply; left "
                            + "out"
                    ))
            }
            return
        }
        guard let both = options.intersection(xc) else {
            if report {
                sink.issues.append(
                    .tdsRule(
                        .neverApplies, tracker: tracker, index: index, field: "exceptions",
                        "the exceptions can never hold where the options hold; left out"))
            }
            return
        }
        for form in filters {
            sink.emit(
                ContentRule(trigger: trigger(form.filter, both, load), action: .ignorePreviousRules), origin.with(form))
        }
    }

    /// The sites the same-entity exemption of `tracker` must name: the entity's, less those whose pages are always
    /// the same site as the tracker's requests (same registrable domain, and no public suffix at or under either,
    /// so that WebKit's third-party test can never tell them apart). The exemption, like every rule of a tracker,
    /// carries load-type third-party, so on those pages it could never fire: naming them only costs WebKit an
    /// ignore-previous-rules rule with its own condition (what that cost is measured in docs/compile-cost.md). A CNAME
    /// alias's rules match any load type, so its list stays whole.
    func entitySites(_ entity: String, tracker: String, alias: String?) -> [String]? {
        guard let domains = entityDomains[entity] else { return nil }
        let psl = PublicSuffixList.shared
        guard alias == nil, psl.isSiteStable(tracker), let site = psl.registrableDomain(tracker) else { return domains }
        return domains.filter { d in !(psl.isSiteStable(d) && psl.registrableDomain(d) == site) }
    }

    func hasParentTracker(_ domain: String) -> Bool {
        Host.suffixes(of: domain).dropFirst().contains { tds.trackers[$0] != nil }
    }

    func trigger(_ filter: String, _ c: MatchCondition, _ load: [String]?) -> Trigger {
        Trigger(
            urlFilter: filter, resourceTypes: c.types.map(TDSResourceTypes.names), loadTypes: load,
            condition: c.domains.map { .init(.ifDomain, $0.wildcards) })
    }

    // MARK: rule regexes

    private mutating func translation(_ pattern: String) -> Result<RegexTranslation, Unexpressible> {
        if let t = translations[pattern] { return t }
        let t: Result<RegexTranslation, Unexpressible>
        do { t = .success(try RegexTranslator.translate(pattern)) } catch let e as Unexpressible {
            t = .failure(e)
        } catch {
            t = .failure(Unexpressible(reason: "\(error)"))
        }
        translations[pattern] = t
        return t
    }

    /// The url-filters (host and in-URL forms) that together match where the TDS rule regex matches, restricted to
    /// the hosts in scope.
    private mutating func ruleFilters(_ pattern: String, scope: HostScope, tracker: String, index: Int, report: Bool)
        -> [FilterForm]
    {
        let t: RegexTranslation
        switch translation(pattern) {
        case .failure(let e):
            if report {
                sink.issues.append(
                    .tdsRule(
                        .unexpressibleRegex, tracker: tracker, index: index, field: "rule", "\(e.reason); rule left out"
                    ))
            }
            return []
        case .success(let s): t = s
        }
        if report, !t.rewritten.isEmpty, !t.alternatives.isEmpty {
            sink.issues.append(
                .tdsRule(
                    .rewrittenRegex, tracker: tracker, index: index, field: "rule",
                    "rewritten into WebKit's regex subset with the same meaning: " + t.rewritten.joined(separator: "; ")
                ))
        }
        if t.alternatives.isEmpty {
            if report {
                sink.issues.append(
                    .tdsRule(
                        .neverApplies, tracker: tracker, index: index, field: "rule",
                        "the regex can never match a URL; rule left out"))
            }
            return []
        }
        var out: [FilterForm] = []
        var seen = Set<String>()
        func add(_ form: FilterForm) { if seen.insert(form.filter).inserted { out.append(form) } }
        for alt in t.alternatives {
            if alt.first == .start {
                if report {
                    sink.issues.append(
                        .tdsRule(
                            .unexpressibleRegex, tracker: tracker, index: index, field: "rule",
                            "an alternative anchored with ^ cannot be limited to the tracker's hosts; alternative left "
                                + "out"
                        ))
                }
                continue
            }
            if let (host, rest) = HostSplit.split(alt) {
                if let x = HostSplit.hostFormPrefix(host, scope: scope) { add(.host(HostForm(x, path: rest))) }
            } else if report {
                sink.issues.append(
                    .tdsRule(
                        .unexpressibleRegex, tracker: tracker, index: index, field: "rule",
                        "the regex does not start with a plain host name, so it is only matched after the tracker host,"
                            + " not inside it"
                    ))
            }
            add(.inURL(.make(hostPrefix: scope.hostPrefix, gap: .any, terms: alt)))
        }
        return out
    }

    // MARK: options / exceptions

    /// nil: the condition can never hold (no WebKit type left).
    private mutating func condition(_ m: RuleMatcher?, field: String, tracker: String, index: Int, report: Bool)
        -> MatchCondition?
    {
        guard let m else { return MatchCondition() }
        var c = MatchCondition()
        if let d = m.domains, !d.isEmpty {
            var seen = Set<String>()
            c.domains = d.filter { seen.insert($0).inserted }
        }
        if let types = m.types, !types.isEmpty {
            var bits: UInt32 = 0
            for type in types {
                switch TDSResourceTypes.map(type) {
                case .exact(let b): bits |= b
                case .approximate(let b, let why):
                    bits |= b
                    if report {
                        sink.issues.append(
                            .tdsRule(
                                .resourceType, tracker: tracker, index: index, field: field + ".types",
                                "type \"\(type)\": \(why)"))
                    }
                case .none(let why):
                    if report {
                        sink.issues.append(
                            .tdsRule(
                                .resourceType, tracker: tracker, index: index, field: field + ".types",
                                "type \"\(type)\" dropped: \(why)"))
                    }
                }
            }
            if bits == 0 { return nil }
            c.types = bits
        }
        return c
    }

    // MARK: exceptions

    mutating func emitExceptions() {
        let offSites = UnprotectedSiteRules.rules(
            tempList: exceptions.tempList, userUnprotected: exceptions.userUnprotected)
        for (rule, origin) in zip(offSites.rules, offSites.provenance) { sink.emit(rule, origin) }
        for (entry, index) in exceptions.allowlist {
            guard let site = SiteCondition.make(entry.sites, except: exceptions.allowlistExceptions) else {
                sink.issues.append(
                    .allowlist(
                        .neverApplies, tracker: entry.trackerDomain, index: index,
                        "every site of the entry is under a trackerAllowlist exception; left out"))
                continue
            }
            if !site.unexpressed.isEmpty {
                sink.issues.append(
                    .allowlist(
                        .configNote, tracker: entry.trackerDomain, index: index,
                        "trackerAllowlist exceptions \(site.unexpressed.joined(separator: ", ")) lie under a site of "
                            + "the entry; WebKit has one site condition per rule, so the entry still applies there"
                    ))
            }
            let condition = site.condition
            for form in allowlistFilters(entry, index: index) {
                sink.emit(
                    ContentRule(
                        trigger: Trigger(urlFilter: form.filter, condition: condition), action: .ignorePreviousRules),
                    RuleProvenance(
                        source: .allowlist, tracker: entry.trackerDomain, allowlistIndex: index,
                        allowlistRule: entry.rule
                    ).with(form))
            }
        }
        // The TDS judges subresources only: never block a top-level document or a popup (window.open).
        sink.emit(
            ContentRule(
                trigger: Trigger(urlFilter: ".*", resourceTypes: ["top-document", "popup"]),
                action: .ignorePreviousRules),
            RuleProvenance(source: .topLevel))
    }

    /// Allowlist entries are JavaScript regexes matched against the request URL without its port, query (`?`) and
    /// parameters (`;`), for requests whose host is under the entry's tracker key (the reference tests'
    /// semantics: tracker_allowlist_matching_tests.json). Host form and in-URL form as for TDS rules.
    private mutating func allowlistFilters(_ entry: AllowlistEntry, index: Int) -> [FilterForm] {
        let t: RegexTranslation
        switch translation(entry.rule) {
        case .failure(let e):
            sink.issues.append(
                .allowlist(
                    .unexpressibleRegex, tracker: entry.trackerDomain, index: index, "\(e.reason); entry left out"))
            return []
        case .success(let s): t = s
        }
        let key = HostScope.domain(entry.trackerDomain)
        var out: [FilterForm] = []
        var seen = Set<String>()
        func add(_ form: FilterForm) { if seen.insert(form.filter).inserted { out.append(form) } }
        var matchedSomewhere = false
        for var alt in t.alternatives {
            var schemeText: String? = nil
            if let (scheme, rest) = AllowlistPattern.splitScheme(alt) { schemeText = scheme; alt = rest }
            if alt.first == .start {
                sink.issues.append(
                    .allowlist(
                        .unexpressibleRegex, tracker: entry.trackerDomain, index: index,
                        "an alternative anchored with ^ cannot be limited to the tracker's hosts; alternative left out")
                )
                continue
            }
            // The URL is cut at its query before matching: nothing after the host may consume "?", ";" or "#".
            guard let pathAlt = AllowlistPattern.withoutQuery(alt) else { continue }
            if let (host, rawRest) = HostSplit.split(alt), let rest = AllowlistPattern.withoutQuery(rawRest) {
                let x: String?
                if let schemeText {
                    x = AllowlistPattern.exactHostPrefix(scheme: schemeText, host: host, key: entry.trackerDomain)
                } else {
                    x = HostSplit.hostFormPrefix(host, scope: key)
                }
                if let x {
                    matchedSomewhere = true
                    add(.host(HostForm(x, path: rest)))
                }
            }
            if schemeText == nil { add(.inURL(.make(hostPrefix: key.hostPrefix, gap: .beforeQuery, terms: pathAlt))) }
        }
        if !matchedSomewhere, out.isEmpty {
            sink.issues.append(
                .allowlist(
                    .neverApplies, tracker: entry.trackerDomain, index: index,
                    "the rule names no host under the allowlisted tracker \(entry.trackerDomain), so it can never "
                        + "apply; left out"
                ))
        } else if !matchedSomewhere {
            sink.issues.append(
                .allowlist(
                    .neverApplies, tracker: entry.trackerDomain, index: index,
                    "the rule does not start with a plain host under the allowlisted tracker \(entry.trackerDomain), "
                        + "so it is only matched later in the URL"
                ))
        }
        return out
    }
}

/// A site/type condition: nil members mean "any".
struct MatchCondition: Equatable {
    var domains: [String]?
    var types: UInt32?

    /// Both conditions; nil when they can never hold together. Domain lists use subdomain semantics: of two
    /// comparable domains the more specific one is kept.
    func intersection(_ o: MatchCondition) -> MatchCondition? {
        var c = MatchCondition()
        switch (domains, o.domains) {
        case (nil, let d), (let d, nil): c.domains = d
        case (let a?, let b?):
            var out: [String] = []
            var seen = Set<String>()
            for x in a {
                for y in b {
                    let pick: String?
                    if Host.isSameOrSubdomain(y, of: x) {
                        pick = y
                    } else if Host.isSameOrSubdomain(x, of: y) {
                        pick = x
                    } else {
                        pick = nil
                    }
                    if let pick, seen.insert(pick).inserted { out.append(pick) }
                }
            }
            if out.isEmpty { return nil }
            c.domains = out
        }
        switch (types, o.types) {
        case (nil, let t), (let t, nil): c.types = t
        case (let a?, let b?):
            guard a & b != 0 else { return nil }
            c.types = a & b
        }
        return c
    }
}

enum AllowlistPattern {
    /// Characters the reference implementation cuts the URL at before matching (query, parameters, fragment).
    static let cut = ASCIISet([UInt8(ascii: "?"), UInt8(ascii: ";"), UInt8(ascii: "#")])

    /// A leading literal scheme "xyz://" (some entries are written as full URLs).
    static func splitScheme(_ alt: [WKTerm]) -> (String, [WKTerm])? {
        var scheme = ""
        var i = 0
        while i < alt.count, case .set(let s, .one) = alt[i], s.count <= 2, let b = s.members.first,
            (lower(b) >= UInt8(ascii: "a") && lower(b) <= UInt8(ascii: "z"))
        {
            scheme.append(Character(Unicode.Scalar(lower(b))))
            i += 1
        }
        guard !scheme.isEmpty, i + 2 < alt.count,
            alt[i] == .set(ASCIISet([UInt8(ascii: ":")]), .one),
            alt[i + 1] == .set(ASCIISet([UInt8(ascii: "/")]), .one),
            alt[i + 2] == .set(ASCIISet([UInt8(ascii: "/")]), .one)
        else { return nil }
        return (scheme, Array(alt[(i + 3)...]))
    }

    /// The alternative restricted to URLs cut at the query: no set may consume `?`, `;` or `#`, and `$` means
    /// "end of the URL or start of its query". nil when the alternative cannot match such a URL.
    static func withoutQuery(_ alt: [WKTerm]) -> [WKTerm]? {
        var out: [WKTerm] = []
        for t in alt {
            switch t {
            case .set(let s, let q):
                let r = s.subtracting(cut)
                if r.isEmpty {
                    if q == .one || q == .plus { return nil }
                    continue
                }
                out.append(.set(r, q))
            case .group(let inner, let q):
                if let g = withoutQuery(inner) {
                    out.append(.group(g, q))
                } else if q == .one || q == .plus {
                    return nil
                }
            case .start: out.append(.start)
            case .end:
                out.append(.group([.set(cut, .one), .set(.all, .star)], .optional))
                out.append(.end)
            }
        }
        return out
    }

    /// `^scheme://host`, the host form's X for an entry written as a full URL: exactly that host, which must be
    /// under `key`.
    static func exactHostPrefix(scheme: String, host: [HostAtom], key: String) -> String? {
        let k = Array(key.utf8)
        let n = host.count, m = k.count
        guard n >= m, HostSplit.matches(host[(n - m)...], k[...]) else { return nil }
        if n > m { guard host[n - m - 1].matches(UInt8(ascii: ".")) else { return nil } }
        let prefix = n > m ? HostSplit.render(host[..<(n - m - 1)]) + "\\." : ""
        return "^" + scheme + ":\\/\\/" + prefix + RegexText.escapeHost(key)
    }
}
