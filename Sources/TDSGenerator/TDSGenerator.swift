// TDSGenerator: Tracker Radar domain and entity files + policy + surrogate mapping + overrides -> a TDS v5.
//
// Order of work (each step is a pure function of the inputs):
//  1. classify every radar domain with the policy (Classifier.swift);
//  2. apply the overrides' forced `default` / `remove` (so that a domain forced to `ignore` gets its rules);
//  3. rules of `default: ignore` trackers from their tracking resources, checked against WebKit's regex subset;
//  4. surrogate / click-to-load rules from mapping.json;
//  5. the overrides' rule edits (drop, add, exceptions, options);
//  6. rules sorted most specific first (RuleRegex.moreSpecific); owners, entities, the `domains` map, `cnames`.
// Everything dropped or not applied is reported in `issues` (problems) or `notes` (expected, by design).

import Domains
import Foundation
import StrictJSON
import TrackerData

public struct TDSGeneratorInput: Sendable {
    public var radar: RadarData
    public var policy: TDSPolicy
    public var mapping: SurrogateMapping?
    public var overrides: TDSOverrides?
    /// Names used in messages for the mapping and overrides files.
    public var mappingSource: String
    public var overridesSource: String
    /// WebKit's verdict on a url-filter (RuleRegex.webKit in ReleaseBuild): every rule written must compile there.
    public var webKit: RuleRegex.FilterCheck

    public init(
        radar: RadarData, policy: TDSPolicy = .default, mapping: SurrogateMapping? = nil,
        overrides: TDSOverrides? = nil,
        mappingSource: String = "mapping.json", overridesSource: String = "overrides.json",
        webKit: @escaping RuleRegex.FilterCheck
    ) {
        self.radar = radar
        self.webKit = webKit
        self.policy = policy
        self.mapping = mapping
        self.overrides = overrides
        self.mappingSource = mappingSource
        self.overridesSource = overridesSource
    }
}

/// A rule of the output and where it came from.
public struct GeneratedRule: Sendable, Hashable {
    public var rule: TrackerRule
    /// One line per contribution, e.g. "radar resource (Image, XHR) on 733 sites, cookies 0.00456, fingerprinting 0".
    public var provenance: [String]
}

/// Everything the generator decided about one domain (radar domain or override-only domain).
public struct DomainDecision: Sendable, Hashable {
    public var domain: String
    /// nil for a domain that only an override mentions.
    public var radar: RadarDomain?
    public var classification: Classification?
    /// After overrides. nil: not a tracker.
    public var defaultAction: DefaultAction?
    public var overrides: [String]
    public var rules: [GeneratedRule]
    /// Resources of a `default: ignore` tracker that did not become rules, with the reason.
    public var resourcesNotRules: [String]
}

public struct TDSGeneration: Sendable {
    public var tds: TrackerDataSet
    /// Sorted by domain.
    public var decisions: [DomainDecision]
    /// Problems in the inputs: radar decode issues, rejected regexes, overrides that did not apply, conflicts.
    public var issues: [DecodeIssue]
    /// Expected omissions worth knowing (mapping entries for domains that are not trackers, cnames into non-trackers).
    public var notes: [String]

    public func decision(for domain: String) -> DomainDecision? {
        var lo = 0, hi = decisions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if byteOrder(decisions[mid].domain, domain) { lo = mid + 1 } else { hi = mid }
        }
        return lo < decisions.count && decisions[lo].domain == domain ? decisions[lo] : nil
    }
}

public struct TDSGeneratorError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

public enum TDSGenerator {
    /// The steps listed at the top of this file, in order; each step's function names it.
    public static func generate(_ input: TDSGeneratorInput) throws -> TDSGeneration {
        var issues = input.radar.issues
        var notes: [String] = []
        let entities = TrackerClassifier.entitiesByName(input.radar.entities)
        var decisions = classify(input, entities: entities, issues: &issues)
        applySurrogateMapping(input, to: &decisions, issues: &issues, notes: &notes)
        try applyOverrideRuleEdits(input, to: &decisions, issues: &issues)
        let (tds, sorted) = assemble(input, entities: entities, decisions: &decisions, issues: &issues, notes: &notes)
        return TDSGeneration(tds: tds, decisions: sorted.map { decisions[$0]! }, issues: issues, notes: notes)
    }

    /// Steps 1-3: classification, forced defaults, resource rules.
    static func classify(_ input: TDSGeneratorInput, entities: [String: RadarEntity], issues: inout [DecodeIssue])
        -> [String: DomainDecision]
    {
        let policy = input.policy
        let overrides = Dictionary(
            (input.overrides?.entries ?? []).map { ($0.domain, $0) }, uniquingKeysWith: { _, b in b })
        var decisions: [String: DomainDecision] = [:]
        for d in input.radar.domains {
            let c = TrackerClassifier.classify(d, entities: entities, policy: policy)
            var decision = DomainDecision(
                domain: d.domain, radar: d, classification: c, defaultAction: c.defaultAction,
                overrides: [], rules: [], resourcesNotRules: [])
            if let o = overrides[d.domain] { applyDefault(o, to: &decision) }
            if decision.defaultAction == .ignore {
                deriveRules(d, policy: policy, webKit: input.webKit, into: &decision, issues: &issues)
            }
            decisions[d.domain] = decision
        }
        for o in input.overrides?.entries ?? [] where decisions[o.domain] == nil {
            var decision = DomainDecision(
                domain: o.domain, radar: nil, classification: nil, defaultAction: nil,
                overrides: [], rules: [], resourcesNotRules: [])
            applyDefault(o, to: &decision)
            if o.forceDefault == nil {
                issues.append(
                    DecodeIssue(
                        source: input.overridesSource, path: o.path,
                        message:
                            "\(o.domain) is not in the radar data and the override does not list it (no \"default\"); "
                            + "override not applied"
                    ))
                continue
            }
            decisions[o.domain] = decision
        }

        return decisions
    }

    /// Step 4: surrogates and click-to-load actions.
    static func applySurrogateMapping(
        _ input: TDSGeneratorInput, to decisions: inout [String: DomainDecision],
        issues: inout [DecodeIssue], notes: inout [String]
    ) {
        let trackerDomains = Set(decisions.values.filter { $0.defaultAction != nil }.map(\.domain))
        for e in input.mapping?.entries ?? [] {
            guard let tracker = Host.suffixes(of: e.domain).first(where: { trackerDomains.contains($0) }) else {
                notes.append(
                    "\(input.mappingSource): \(e.path): \(e.domain) is not a tracker; surrogate \(e.surrogate) for "
                        + "\(e.regexRule) not applied"
                )
                continue
            }
            let provenance =
                "\(input.mappingSource) \(e.path): surrogate \(e.surrogate)" + (e.action.map { ", action \($0)" } ?? "")
            var rule = TrackerRule(
                rule: e.regexRule, surrogate: e.surrogate, action: e.action.flatMap(RuleAction.init(rawValue:)))
            switch RuleRegex.check(e.regexRule, domain: tracker, webKit: input.webKit) {
            case .ok: break
            case .rewritten(let rewrites, let reason) where rewrites.count == 1:
                rule.rule = rewrites[0]
                notes.append(
                    "\(input.mappingSource): \(e.path): \(e.regexRule) rewritten as \(rewrites[0]) (\(reason))")
            case .rewritten(_, let reason), .rejected(let reason):
                issues.append(
                    DecodeIssue(
                        source: input.mappingSource, path: e.path / "regexRule",
                        message: "\(e.regexRule): \(reason); surrogate rule dropped"))
                continue
            }
            var decision = decisions[tracker]!
            if let i = decision.rules.firstIndex(where: { $0.rule.rule == rule.rule }) {
                decision.rules[i].rule.surrogate = rule.surrogate
                if rule.action != nil { decision.rules[i].rule.action = rule.action }
                decision.rules[i].provenance.append(provenance)
            } else {
                decision.rules.append(GeneratedRule(rule: rule, provenance: [provenance]))
            }
            decisions[tracker] = decision
        }
    }

    /// Step 5: the overrides' rule edits.
    static func applyOverrideRuleEdits(
        _ input: TDSGeneratorInput, to decisions: inout [String: DomainDecision],
        issues: inout [DecodeIssue]
    ) throws {
        for o in input.overrides?.entries ?? [] {
            guard var decision = decisions[o.domain] else { continue }
            if decision.defaultAction == nil {
                if !o.addRules.isEmpty || !o.dropRules.isEmpty || !o.exceptions.isEmpty || !o.options.isEmpty {
                    issues.append(
                        DecodeIssue(
                            source: input.overridesSource, path: o.path,
                            message: "\(o.domain) is not a tracker; its rule edits were not applied"))
                }
                decisions[o.domain] = decision
                continue
            }
            try applyRuleEdits(o, to: &decision, source: input.overridesSource, webKit: input.webKit, issues: &issues)
            decisions[o.domain] = decision
        }
    }

    /// The TDS's entities (from the entity files) and its domains (each entity's properties; a property claimed by two
    /// entities stays with the first in byte order, reported).
    static func entitiesAndDomains(_ entities: [String: RadarEntity], issues: inout [DecodeIssue]) -> TrackerDataSet {
        var tds = TrackerDataSet()
        for name in entities.keys.sorted(by: byteOrder) {
            let e = entities[name]!
            tds.entities[name] = Entity(
                displayName: e.displayName, domains: sortedUnique(e.properties),
                prevalence: roundSignificant(e.prevalence.total * 100, 3))
        }
        for name in tds.entities.keys.sorted(by: byteOrder) {
            for d in tds.entities[name]!.domains {
                if let other = tds.domains[d] {
                    issues.append(
                        DecodeIssue(
                            source: "entities", path: .root / name / "properties",
                            message: "\(d) is also a property of \(other); kept with \(other)"))
                    continue
                }
                tds.domains[d] = name
            }
        }
        return tds
    }

    /// The owner of tracker `key`: the radar's (its entity created when there is no entity file), else the entity
    /// listing the domain, else the domain itself, as the TDS names unknown owners (e.g. admaster.cc).
    static func trackerOwner(_ key: String, radar d: RadarDomain?, tds: inout TrackerDataSet, notes: inout [String])
        -> Owner
    {
        if let o = d?.owner {
            if tds.entities[o.name] == nil {
                tds.entities[o.name] = Entity(displayName: o.displayName, domains: [key], prevalence: 0)
                notes.append("\(key): owner \(o.name) has no entity file; entity created with this domain only")
            }
            return Owner(name: o.name, displayName: o.displayName, privacyPolicy: o.privacyPolicy, url: o.url)
        }
        if let name = tds.domains[key] {
            return Owner(name: name, displayName: tds.entities[name]?.displayName ?? name)
        }
        if tds.entities[key] == nil { tds.entities[key] = Entity(displayName: key, domains: [key], prevalence: 0) }
        return Owner(name: key, displayName: key)
    }

    /// Step 6: the TDS itself. Returns it with the decision keys in output order.
    static func assemble(
        _ input: TDSGeneratorInput, entities: [String: RadarEntity], decisions: inout [String: DomainDecision],
        issues: inout [DecodeIssue], notes: inout [String]
    ) -> (TrackerDataSet, [String]) {
        let policy = input.policy
        var tds = entitiesAndDomains(entities, issues: &issues)
        var cnames: [String: (resolved: String, tracker: String)] = [:]
        var addedProperties: [String: [String]] = [:]
        let sorted = decisions.keys.sorted(by: byteOrder)
        for key in sorted {
            var decision = decisions[key]!
            decision.rules.sort { RuleRegex.moreSpecific($0.rule.rule, $1.rule.rule) }
            decisions[key] = decision
            guard let action = decision.defaultAction else {
                if let d = decision.radar, !d.cnames.isEmpty {
                    notes.append(
                        "\(key) is not a tracker: its \(d.cnames.count) cname(s) "
                            + "(\(d.cnames.map(\.original).sorted(by: byteOrder).joined(separator: ", "))) not listed"
                    )
                }
                continue
            }
            let d = decision.radar
            let owner = trackerOwner(key, radar: d, tds: &tds, notes: &notes)
            if tds.domains[key] == nil, let name = owner.name {
                // The owner's entity file does not list this domain: add it (once per entity, below).
                tds.domains[key] = name
                if tds.entities[name] != nil { addedProperties[name, default: []].append(key) }
            }
            let categories = d.map { sortedUnique($0.categories.map { policy.categoryNames[$0] ?? $0 }) } ?? []
            tds.trackers[key] = Tracker(
                domain: key, owner: owner, prevalence: d?.prevalence ?? 0,
                fingerprinting: d?.fingerprinting ?? 0, cookies: d?.cookies ?? 0,
                categories: categories, defaultAction: action, rules: decision.rules.map(\.rule))
            for c in d?.cnames ?? [] where c.original != c.resolved {
                if let existing = cnames[c.original], existing.resolved != c.resolved {
                    let keep: (resolved: String, tracker: String) =
                        byteOrder(existing.resolved, c.resolved) ? existing : (c.resolved, key)
                    issues.append(
                        DecodeIssue(
                            source: "radar \(key)", path: .root / "cnames",
                            message:
                                "\(c.original) resolves to both \(existing.resolved) (\(existing.tracker)) and "
                                + "\(c.resolved) (\(key)); kept \(keep.resolved)"
                        ))
                    cnames[c.original] = keep
                } else {
                    cnames[c.original] = (c.resolved, key)
                }
            }
        }
        for (name, added) in addedProperties {
            tds.entities[name]!.domains = sortedUnique(tds.entities[name]!.domains + added)
        }
        tds.cnames = cnames.mapValues(\.resolved)
        return (tds, sorted)
    }

    // MARK: - Steps

    static func applyDefault(_ o: TDSOverrides.Entry, to decision: inout DomainDecision) {
        let before = decision.defaultAction.map { "default \($0.rawValue)" } ?? "not a tracker"
        if o.remove {
            decision.defaultAction = nil
            decision.overrides.append("removed (policy said: \(before)); reason: \(o.reason)")
        } else if let forced = o.forceDefault {
            decision.defaultAction = forced
            decision.overrides.append(
                "default forced to \(forced.rawValue) (policy said: \(before)); reason: \(o.reason)")
        }
    }

    /// Rules of a `default: ignore` tracker: its resources with tracking evidence on enough sites. Resources that
    /// share a regex (one per request type in the radar) become one rule.
    static func deriveRules(
        _ d: RadarDomain, policy: TDSPolicy, webKit: RuleRegex.FilterCheck, into decision: inout DomainDecision,
        issues: inout [DecodeIssue]
    ) {
        struct Group { var types: [String] = []; var sites = 0; var cookies = 0.0; var fingerprinting = 0 }
        var groups: [String: Group] = [:]
        for r in d.resources {
            var g = groups[r.rule] ?? Group()
            if let t = r.type { g.types.append(t) }
            g.sites = max(g.sites, r.sites)
            g.cookies = max(g.cookies, r.cookies)
            g.fingerprinting = max(g.fingerprinting, r.fingerprinting)
            groups[r.rule] = g
        }
        for rule in groups.keys.sorted(by: byteOrder) {
            let g = groups[rule]!
            let what =
                "\(rule) (\(sortedUnique(g.types).joined(separator: ", ")); \(g.sites) sites, cookies "
                + "\(fmt(g.cookies)), fingerprinting \(g.fingerprinting))"
            if g.sites < policy.ruleMinSites {
                decision.resourcesNotRules.append("\(what): \(g.sites) sites < ruleMinSites \(policy.ruleMinSites)")
                continue
            }
            if !(g.cookies > 0 || (g.fingerprinting > 0 && g.fingerprinting >= policy.ruleMinFingerprinting)) {
                decision.resourcesNotRules.append(
                    "\(what): no cookies and fingerprinting < ruleMinFingerprinting \(policy.ruleMinFingerprinting)")
                continue
            }
            let provenance = "radar resource \(what)"
            var rules: [String]
            switch RuleRegex.check(rule, domain: d.domain, webKit: webKit) {
            case .ok:
                rules = [rule]
            case .rewritten(let rewrites, let reason):
                rules = rewrites
                issues.append(
                    DecodeIssue(
                        source: "radar \(d.domain)", path: .root / "resources",
                        message: "rule \(rule): \(reason); rewritten as \(rewrites.joined(separator: " + "))"))
            case .rejected(let reason):
                issues.append(
                    DecodeIssue(
                        source: "radar \(d.domain)", path: .root / "resources",
                        message: "rule \(rule): \(reason); resource not made a rule"))
                decision.resourcesNotRules.append("\(what): rejected: \(reason)")
                continue
            }
            for r in rules where !decision.rules.contains(where: { $0.rule.rule == r }) {
                decision.rules.append(
                    GeneratedRule(
                        rule: TrackerRule(rule: r, fingerprinting: g.fingerprinting, cookies: g.cookies),
                        provenance: [provenance + (r == rule ? "" : " (rewritten)")]))
            }
        }
    }

    static func applyRuleEdits(
        _ o: TDSOverrides.Entry, to decision: inout DomainDecision, source: String, webKit: RuleRegex.FilterCheck,
        issues: inout [DecodeIssue]
    ) throws {
        for (i, drop) in o.dropRules.enumerated() {
            let before = decision.rules.count
            decision.rules.removeAll { $0.rule.rule == drop }
            if decision.rules.count == before {
                issues.append(
                    DecodeIssue(
                        source: source, path: o.path / "dropRules" / i,
                        message: "\(o.domain) has no rule \(drop); nothing dropped (stale override?)"))
            } else {
                decision.overrides.append("rule \(drop) dropped; reason: \(o.reason)")
            }
        }
        for (i, add) in o.addRules.enumerated() {
            switch RuleRegex.check(add.rule, domain: o.domain, webKit: webKit) {
            case .ok: break
            case .rewritten(_, let reason), .rejected(let reason):
                throw TDSGeneratorError(
                    description: "\(source): \(o.path / "addRules" / i / "rule"): \(add.rule): \(reason)")
            }
            if let j = decision.rules.firstIndex(where: { $0.rule.rule == add.rule }) {
                decision.rules[j] = GeneratedRule(
                    rule: add,
                    provenance: decision.rules[j].provenance + ["override (replaces the rule above): \(o.reason)"])
            } else {
                decision.rules.append(GeneratedRule(rule: add, provenance: ["override: \(o.reason)"]))
            }
            decision.overrides.append("rule \(add.rule) added; reason: \(o.reason)")
        }
        for (kind, list) in [("exceptions", o.exceptions), ("options", o.options)] {
            for (rule, matcher) in list {
                guard let j = decision.rules.firstIndex(where: { $0.rule.rule == rule }) else {
                    issues.append(
                        DecodeIssue(
                            source: source, path: o.path / kind / rule,
                            message: "\(o.domain) has no rule \(rule); \(kind) not applied"))
                    continue
                }
                var existing =
                    (kind == "exceptions" ? decision.rules[j].rule.exceptions : decision.rules[j].rule.options)
                    ?? RuleMatcher()
                if let d = matcher.domains { existing.domains = sortedUnique((existing.domains ?? []) + d) }
                if let t = matcher.types { existing.types = sortedUnique((existing.types ?? []) + t) }
                if kind == "exceptions" {
                    decision.rules[j].rule.exceptions = existing
                } else {
                    decision.rules[j].rule.options = existing
                }
                decision.rules[j].provenance.append("override \(kind): \(o.reason)")
                decision.overrides.append("\(kind) added to rule \(rule); reason: \(o.reason)")
            }
        }
    }
}

func sortedUnique(_ list: [String]) -> [String] { Set(list).sorted(by: byteOrder) }

func roundSignificant(_ x: Double, _ digits: Int) -> Double {
    guard x != 0, x.isFinite else { return x }
    let scale = pow(10, Double(digits) - ceil(log10(abs(x))))
    return (x * scale).rounded() / scale
}
