// Why a load got its answer: which rules matched (url-filter, trigger flags, condition), which of them
// decided the reported actions, and which were cancelled by ignore-previous-rules or cut off by
// ignore-following-rules. It works from the rules themselves (the source kept in the compiled list)
// with the reference pattern matcher, so it is also an independent check of the automata.

import ContentRules
import RuleCompiler
import StrictJSON

public struct RuleMatch: Sendable {
    /// Index among the compiled rules, and in the JSON array.
    public var ruleIndex: Int
    public var sourceIndex: Int
    public var rule: ParsedRule
    public var actionLocation: UInt32
}

public struct ListExplanation: Sendable {
    public var identifier: String
    /// Rules whose trigger matches the load, in rule order.
    public var matched: [RuleMatch]
    /// Locations of the reported actions, in order (what the engine must report).
    public var reportedLocations: [UInt32]
    public var sawIgnorePreviousRules: Bool
    public var stylesheet: String
}

public enum Explain {
    /// The reference answer for one list, computed rule by rule (no automata).
    /// - Parameter prefilter: examine only the rules whose url-filter the list's automaton reports for this URL
    ///   (or that match everything). Exact whenever the automaton is (the property tests and the WebKit
    ///   differential hold it to that), and far cheaper on large lists; `false` keeps Explain an independent
    ///   rule-by-rule check of the automata.
    public static func explain(_ list: LoadedRuleList, _ load: ResourceLoad, prefilter: Bool = false) throws
        -> ListExplanation
    {
        let compiled = list.compiled
        let parsed = try list.parsedSource()
        guard parsed.rules.count == compiled.rules.count else {
            throw RuleEngineError(
                "\(compiled.identifier): the embedded source has \(parsed.rules.count) rules, the compiled list "
                    + "\(compiled.rules.count)"
            )
        }
        var explanation = ListExplanation(
            identifier: compiled.identifier, matched: [], reportedLocations: [],
            sawIgnorePreviousRules: false, stylesheet: compiled.stylesheet)
        guard let url = load.url, !load.isData else { return explanation }
        let flags = load.flags | ConditionFlags.mask
        // Parsed patterns are kept with the list: conditions repeat long domain lists across rules and loads.
        func filter(_ p: String, _ cs: Bool) -> URLFilter {
            let key = (cs ? "1" : "0") + p
            if let f = list.explainFilters[key] { return f }
            let f = URLFilter.parse(p, caseSensitive: cs)
            list.explainFilters[key] = f
            return f
        }
        let universal = Set(compiled.universalActions)
        let examined =
            prefilter
            ? reportedRules(list, url, flags: flags, ruleCount: parsed.rules.count) : Array(parsed.rules.indices)
        var locations: [UInt32] = []
        for i in examined {
            let rule = parsed.rules[i]
            let info = compiled.rules[i]
            let trigger = rule.trigger
            let f = filter(trigger.urlFilter, trigger.urlFilterIsCaseSensitive)
            guard f.matches(url.bytes) else { continue }
            // Universal flag-free actions come from the list's universal set (or its stylesheet), never the automaton.
            let flagFreeUniversal = f.status == .matchesEverything && info.flags == 0
            if !flagFreeUniversal {
                guard matcherFlagsTestPasses(ruleFlags: info.flags, requestFlags: flags) else { continue }
                if let c = trigger.condition {
                    let target = c.kind.isFrameURL ? load.frameURL : load.mainDocumentURL
                    let cs =
                        c.kind.isFrameURL ? trigger.frameURLFilterIsCaseSensitive : trigger.topURLFilterIsCaseSensitive
                    // The condition automata run with AllResourceFlags, so method-restricted rules never match them.
                    let conditionMatches =
                        matcherFlagsTestPasses(ruleFlags: info.flags, requestFlags: allResourceFlags)
                        && c.regexes.contains { filter($0, cs).matches(target) }
                    guard conditionMatches == c.kind.isInclusive else { continue }
                }
                locations.append(info.actionLocation)
            } else if !universal.contains(info.actionLocation) {
                // In the stylesheet: matches, but is not reported per load.
                explanation.matched.append(
                    RuleMatch(
                        ruleIndex: i, sourceIndex: rule.sourceIndex, rule: rule, actionLocation: info.actionLocation))
                continue
            }
            explanation.matched.append(
                RuleMatch(ruleIndex: i, sourceIndex: rule.sourceIndex, rule: rule, actionLocation: info.actionLocation))
        }
        reportLocations(of: &explanation, in: list, filter: filter)
        return explanation
    }

    /// The rules the list's url automaton reports for `url` (they report rule indices), in order: with the
    /// prefilter, only those are examined.
    static func reportedRules(_ list: LoadedRuleList, _ url: CanonicalURL, flags: UInt32, ruleCount: Int) -> [Int] {
        let ids = list.url.match(url.bytes, requestFlags: flags) + list.url.universalFlagFree
        return Set(ids.map { Int(UInt32(truncatingIfNeeded: $0)) }).filter { $0 < ruleCount }.sorted()
    }

    /// What WebKit reports of the matched rules: a set of ids (each location once per flags word) plus the
    /// universal list (duplicates kept), in location order, cut at an ignore-following-rules and after the last
    /// ignore-previous-rules.
    static func reportLocations(
        of explanation: inout ListExplanation, in list: LoadedRuleList,
        filter: (String, Bool) -> URLFilter
    ) {
        let compiled = list.compiled
        var seen = Set<UInt64>()
        var all: [UInt32] = []
        for m in explanation.matched {
            let info = compiled.rules[m.ruleIndex]
            let f = filter(m.rule.trigger.urlFilter, m.rule.trigger.urlFilterIsCaseSensitive)
            if f.status == .matchesEverything && info.flags == 0 { continue }
            if seen.insert(info.actionID).inserted { all.append(info.actionLocation) }
        }
        all.append(contentsOf: compiled.universalActions)
        all.sort()
        var reported: [UInt32] = []
        for loc in all {
            if list.kinds[Int(list.actionAt[Int(loc)])] == .ignoreFollowingRules { break }
            reported.append(loc)
        }
        if let last = reported.lastIndex(where: { list.kinds[Int(list.actionAt[Int($0)])] == .ignorePreviousRules }) {
            reported.removeSubrange(0...last)
            explanation.sawIgnorePreviousRules = true
        }
        explanation.reportedLocations = reported
    }

    /// The deciding rule by the definition of MatchResult.decidedBy, worked out from explanations (one per
    /// list, in order) instead of the automata: the cross-check of the engine's answer.
    public static func decidingRule(_ lists: [LoadedRuleList], _ explanations: [ListExplanation]) -> DecidingRule? {
        var lastBlock: DecidingRule? = nil, lastIgnorePrevious: DecidingRule? = nil
        for (li, (list, e)) in zip(lists, explanations).enumerated() {
            func kind(_ loc: UInt32) -> ActionKind { list.kinds[Int(list.actionAt[Int(loc)])] }
            let reported = Set(e.reportedLocations)
            // An ignore-following-rules cuts off everything after it (its location and later).
            let counted = e.matched
            let cut =
                counted.filter { kind($0.actionLocation) == .ignoreFollowingRules }.map(\.actionLocation).min()
                ?? UInt32.max
            if let b = counted.last(where: { kind($0.actionLocation) == .block && reported.contains($0.actionLocation) }
            ) {
                lastBlock = DecidingRule(list: li, rule: b.ruleIndex)
            }
            if let p = counted.last(where: {
                kind($0.actionLocation) == .ignorePreviousRules && $0.actionLocation < cut
            }) {
                lastIgnorePrevious = lastIgnorePrevious ?? DecidingRule(list: li, rule: p.ruleIndex)
            }
        }
        return lastBlock ?? lastIgnorePrevious
    }

    /// What `match --url --explain` shows of `request`, as values (the CLI renders them): the load, each list's
    /// reported actions with the rules they come from, the matched rules that were not reported and why, and
    /// the engine's answer.
    public static func report(engine: RuleEngine, request: MatchRequest) throws -> LoadExplanation {
        let load = try engine.resolve(request)
        guard let url = load.url else { return .invalidURL(request.url) }
        if load.isData { return .dataURL(url.string) }
        let result = engine.match(load)
        let m = load.flags & RequestMethodName.mask
        var out = ExplainedLoad(
            url: url.string,
            resourceType: ResourceTypeMapping.webKitTypes.first(where: {
                $0.value == load.flags & ResourceTypeName.mask
            }
            )?.key, thirdParty: load.flags & LoadTypeName.thirdParty != 0,
            topFrame: load.flags & LoadContextName.topFrame != 0,
            method: m == 0 ? nil : RequestMethodName.all[Int(m >> 21) - 1],
            topURL: String(decoding: load.mainDocumentURL, as: UTF8.self),
            frameURL: String(decoding: load.frameURL, as: UTF8.self), lists: [], answer: result)
        for (li, list) in engine.lists.enumerated() {
            let reported = result.entries.filter { $0.list == Int32(li) }.map { list.actions[Int($0.action)] }
            out.lists.append(
                list.compiled.hasSource
                    ? try explainedList(list, index: li, load: load, reported: reported)
                    : explainedWithoutSource(list, index: li, result: result, reported: reported))
        }
        return .load(out)
    }

    /// A list compiled with its source: each reported action with the rules it comes from.
    static func explainedList(_ list: LoadedRuleList, index li: Int, load: ResourceLoad, reported: [StoredAction])
        throws -> ExplainedList
    {
        let e = try explain(list, load)
        var out = ExplainedList(
            index: li, identifier: e.identifier, hasSource: true, reportsNothing: reported.isEmpty,
            stylesheet: list.stylesheet, stylesheetWithheld: e.sawIgnorePreviousRules)
        for loc in e.reportedLocations {
            out.actions.append(
                ExplainedAction(
                    action: list.actions[Int(list.actionAt[Int(loc)])].jsonValue,
                    rules: e.matched.filter { $0.actionLocation == loc }.map {
                        ExplainedRule(sourceIndex: $0.sourceIndex, rule: ruleValue($0.rule))
                    }))
        }
        out.notReported = notReported(e, list)
        out.automatonDiffers =
            reported.map(\.jsonValue)
            != e.reportedLocations.map({ list.actions[Int(list.actionAt[Int($0)])].jsonValue })
        return out
    }

    /// A list compiled without its source: its actions, each with the rules that share it (by index only).
    static func explainedWithoutSource(
        _ list: LoadedRuleList, index li: Int, result: MatchResult, reported: [StoredAction]
    ) -> ExplainedList {
        var out = ExplainedList(
            index: li, identifier: list.identifier, hasSource: false, reportsNothing: reported.isEmpty,
            stylesheet: list.stylesheet, stylesheetWithheld: !result.stylesheetLists.contains(li))
        var seen = Set<Int32>()
        for entry in result.entries where entry.list == Int32(li) && seen.insert(entry.action).inserted {
            let location = list.compiled.rules.first { list.actionAt[Int($0.actionLocation)] == entry.action }?
                .actionLocation
            out.actions.append(
                ExplainedAction(
                    action: list.actions[Int(entry.action)].jsonValue, rules: [],
                    sharing: list.compiled.rules.filter { $0.actionLocation == location }.map { Int($0.sourceIndex) }))
        }
        return out
    }

    /// The matched rules whose actions were not reported, each with why.
    static func notReported(_ e: ListExplanation, _ list: LoadedRuleList) -> [UnreportedRule] {
        let reportedSet = Set(e.reportedLocations)
        let cancelled = e.matched.filter { !reportedSet.contains($0.actionLocation) }
        let inStylesheet = Set(list.compiled.universalActions)
        return cancelled.map { m in
            let kind = list.kinds[Int(list.actionAt[Int(m.actionLocation)])]
            let info = list.compiled.rules[m.ruleIndex]
            let isStylesheetRule =
                kind == .cssDisplayNone && info.flags == 0 && !inStylesheet.contains(m.actionLocation)
                && URLFilter.parse(m.rule.trigger.urlFilter, caseSensitive: m.rule.trigger.urlFilterIsCaseSensitive)
                    .status == .matchesEverything
            let why: UnreportedRule.Why =
                isStylesheetRule
                ? .inStylesheet
                : kind == .ignorePreviousRules
                    ? .ignorePreviousRules : kind == .ignoreFollowingRules ? .ignoreFollowingRules : .cancelled
            return UnreportedRule(rule: ExplainedRule(sourceIndex: m.sourceIndex, rule: ruleValue(m.rule)), why: why)
        }
    }

    static func ruleValue(_ rule: ParsedRule) -> JSONValue {
        switch rule.kind {
        case .content(let r): return r.jsonValue
        case .reportIdentifier(let t, let id, let rs):
            return .object(
                JSONObject([
                    ("trigger", t.jsonValue), ("_identifier", .number(id)), ("_rulesetIdentifier", .string(rs)),
                ]))
        }
    }
}
