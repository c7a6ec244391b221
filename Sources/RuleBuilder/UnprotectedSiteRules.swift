// The rules that switch a list off on the sites the user or the config leaves unprotected: one
// ignore-previous-rules rule for the config's temporarily unprotected sites (its `unprotectedTemporary` and
// contentBlocking exceptions) and one for the user's unprotected sites (`--unprotected`), each site with its
// subdomains, at the end of the list. The faithful builder ends the TDS list with them, and the filter lists'
// lists (Conversion) end each of their parts with them: one home for "this list is off on those sites".

import ContentRules
import Provenance
import TrackerData

public enum UnprotectedSiteRules {
    /// The rules for the config's temporarily unprotected sites and the user's unprotected sites (none for a list
    /// that is empty), in that order.
    public static func rules(config: PrivacyConfig?, unprotected: UnprotectedSites?) -> RuleBuildResult {
        rules(tempList: config?.tempUnprotected ?? [], userUnprotected: unprotected?.hosts ?? [])
    }

    static func rules(tempList: [String], userUnprotected: [String]) -> RuleBuildResult {
        var sink = RuleSink()
        for (sites, source) in [(tempList, RuleProvenance.Source.tempList), (userUnprotected, .userUnprotected)]
        where !sites.isEmpty {
            sink.emit(
                ContentRule(
                    trigger: Trigger(urlFilter: ".*", condition: .init(.ifDomain, unique(sites).wildcards)),
                    action: .ignorePreviousRules), RuleProvenance(source: source))
        }
        return sink.result
    }
}
