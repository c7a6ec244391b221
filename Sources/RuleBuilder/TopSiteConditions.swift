// Faithful mode states every site condition ("the top site is d, or under d") as a top-URL regex anchored at the
// start of the URL (`if-top-url` / `unless-top-url`), never as `if-domain` / `unless-domain`.
//
// Why: WebKit turns a domain entry `*d` into the unanchored regex `[a-z][a-z+.-]*:\/\/([^/]*\.)*d[:/]`
// (ContentExtensionParser.cpp), so a top URL that names d anywhere later, `https://news.example/?next=https://d/`,
// counts as a site of d: an entity's first-party exemption, a rule's exception or the temp list would then hold on a
// page that is not d's. The TDS and the config mean the page's own host, which is the anchored regex. It is also
// cheaper for WebKit: the unanchored `.*` makes the top-URL automaton follow every position of the URL, and the
// anchored one only the host (figures in docs/compile-cost.md). ddg mode keeps TrackerRadarKit's `if-domain` /
// `unless-domain`.

import ContentRules

enum TopSiteConditions {
    /// The rules with each domain-list condition replaced by its anchored top-URL form; nothing else changes, so
    /// provenance stays parallel.
    static func anchored(_ result: RuleBuildResult) -> RuleBuildResult {
        var out = result
        for i in out.rules.indices {
            guard let c = out.rules[i].trigger.condition, c.kind.isDomainList else { continue }
            out.rules[i].trigger.condition = anchored(c)
        }
        return out
    }

    static func anchored(_ c: TriggerCondition) -> TriggerCondition {
        TriggerCondition(
            c.kind.isInclusive ? .ifTopURL : .unlessTopURL, c.values.map(TriggerCondition.anchoredDomainRegex))
    }
}
