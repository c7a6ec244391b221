// The last gate before output: no rule WebKit would reject is ever written. Each rule is checked the way
// WebKit's parser and compiler check it (url-filter regex subset via URLFilter.parse, condition lists non-empty,
// lowercase ASCII domains, one condition). A rule that fails is repaired when the repair is exact (an empty
// unless-domain excludes nothing, so the key can go) or dropped, and either way reported with its provenance.

import ContentRules
import Provenance
import StrictJSON

enum OutputValidator {
    static func validate(_ result: inout RuleBuildResult, mode: RuleBuildMode) {
        var rules: [ContentRule] = []
        var provenance: [RuleProvenance] = []
        rules.reserveCapacity(result.rules.count)
        provenance.reserveCapacity(result.rules.count)
        var filterStatus: [String: URLFilterStatus] = [:]
        var validEntries = Set<String>()

        for (rule, origin) in zip(result.rules, result.provenance) {
            var rule = rule
            let status: URLFilterStatus
            if let s = filterStatus[rule.trigger.urlFilter] {
                status = s
            } else {
                status =
                    URLFilter.parse(rule.trigger.urlFilter, caseSensitive: rule.trigger.urlFilterIsCaseSensitive).status
                filterStatus[rule.trigger.urlFilter] = status
            }
            guard status.isSupported else {
                result.issues.append(
                    issue(
                        origin, mode,
                        "url-filter \(JSONWriter.string(.string(rule.trigger.urlFilter))) is rejected by WebKit "
                            + "(\(status.message)); rule left out"
                    ))
                continue
            }
            // Only the site-wide exceptions are meant to match every URL; a tracker or allowlist rule that does is a
            // dataset error that would block (or allow) everything.
            if status == .matchesEverything, origin.source == .tds || origin.source == .allowlist,
                !origin.isSharedEntityExemption
            {
                result.issues.append(
                    issue(
                        origin, mode,
                        "url-filter \(JSONWriter.string(.string(rule.trigger.urlFilter))) matches every URL; rule left "
                            + "out"
                    ))
                continue
            }
            guard keepsCondition(&rule, origin, mode, validEntries: &validEntries, issues: &result.issues) else {
                continue
            }
            for name in (rule.trigger.resourceTypes ?? []) where ResourceTypeName.flags(of: name) == nil {
                preconditionFailure("RuleBuilder produced an unknown resource type \(name)")
            }
            rules.append(rule)
            provenance.append(origin)
        }
        result.rules = rules
        result.provenance = provenance
        if rules.isEmpty {
            result.issues.append(
                ConversionIssue(
                    kind: .output, location: .output,
                    message: "the rule list is empty, and WebKit rejects an empty list (\"Empty extension.\")"))
        }
        if rules.count > RuleBuilder.maximumRuleCount {
            result.issues.append(
                ConversionIssue(
                    kind: .output, location: .output,
                    message: "\(rules.count) rules; WebKit accepts at most \(RuleBuilder.maximumRuleCount) per list"))
        }
    }

    /// Whether the rule stays, its condition as WebKit accepts it: an empty exclusion list is removed (reported);
    /// an empty inclusion list or an entry WebKit rejects leaves the rule out (reported).
    private static func keepsCondition(
        _ rule: inout ContentRule, _ origin: RuleProvenance, _ mode: RuleBuildMode, validEntries: inout Set<String>,
        issues: inout [ConversionIssue]
    ) -> Bool {
        guard let c = rule.trigger.condition else { return true }
        if c.values.isEmpty {
            if c.kind.isInclusive {
                issues.append(
                    issue(
                        origin, mode,
                        "empty \(c.kind.rawValue) list (WebKit rejects it, and it would match no site); rule "
                            + "left out"
                    ))
                return false
            }
            issues.append(
                issue(
                    origin, mode,
                    "empty \(c.kind.rawValue) list (WebKit rejects it; it excludes nothing, so it is omitted)"))
            rule.trigger.condition = nil
        } else if let bad = c.values.first(where: { v in
            if validEntries.contains(v) { return false }
            guard isValidConditionEntry(v, domain: c.kind.isDomainList) else { return true }
            validEntries.insert(v)
            return false
        }) {
            issues.append(
                issue(
                    origin, mode,
                    "\(c.kind.rawValue) entry \(JSONWriter.string(.string(bad))) is rejected by WebKit; rule "
                        + "left out"
                ))
            return false
        }
        return true
    }

    /// Domains: non-empty lowercase ASCII (WebKit's JSONDomainNotLowerCaseASCII); top-URL conditions: a valid regex.
    static func isValidConditionEntry(_ s: String, domain: Bool) -> Bool {
        guard !s.isEmpty else { return false }
        if domain {
            guard s.utf8.allSatisfy({ $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }) else {
                return false
            }
            return URLFilter.parse(TriggerCondition.domainRegex(s), caseSensitive: false).status.isSupported
        }
        return URLFilter.parse(s, caseSensitive: false).status.isSupported
    }

    static func issue(_ origin: RuleProvenance, _ mode: RuleBuildMode, _ message: String) -> ConversionIssue {
        let location: ConversionIssue.Location
        var index: Int? = nil
        switch origin.source {
        case .tds:
            var path = JSONPath.root / "trackers" / (origin.tracker ?? "")
            if case .rule(let i)? = origin.part { path = path / "rules" / i; index = i }
            if let alias = origin.cnameAlias {
                location = .tds(JSONPath.root / "cnames" / alias)
            } else {
                location = .tds(path)
            }
        case .allowlist:
            location = .config(
                JSONPath.root / "features" / "trackerAllowlist" / "settings" / "allowlistedTrackers"
                    / (origin.tracker ?? "") / "rules" / (origin.allowlistIndex ?? 0))
            index = origin.allowlistIndex
        case .tempList:
            location = .config(JSONPath.root / "features" / "contentBlocking" / "exceptions")
        case .userUnprotected:
            location = .unprotected
        case .requestBlocklist:
            location = .config(
                JSONPath.root / "features" / "requestBlocklist" / "settings" / "blockedRequests"
                    / (origin.tracker ?? "") / "rules" / (origin.allowlistIndex ?? 0))
            index = origin.allowlistIndex
        case .clickToLoad:
            location = .config(JSONPath.root / "features" / "clickToLoad")
        case .adClickAttribution:
            location = .config(JSONPath.root / "features" / "adClickAttribution")
        case .cookiePopups:
            location = .tds(JSONPath.root / "cpm" / "filterList")
        case .topLevel, .featureState, .filterList:
            location = .output
        }
        let kind: ConversionIssue.Kind = mode == .ddg ? .ddgDeviation : .unexpressibleRegex
        return ConversionIssue(
            kind: kind, location: location, message: message, tracker: origin.tracker, ruleIndex: index)
    }
}
