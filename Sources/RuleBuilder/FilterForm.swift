// The url-filter forms (Provenance's FilterForm.swift) made from a TDS rule's terms and rendered as filters: the
// builder makes them, the provenance carries their pieces, and the optimizer (RuleListOptimizer.swift) joins a host
// form and an in-URL form by their pieces, never by reading filter text.

import ContentRules
import Provenance
import TrackerData

extension HostForm {
    /// X with the rule's path terms (none: the rule has no path).
    init(_ hostPrefix: String, path: [WKTerm]) {
        self.init(hostPrefix, path: path.isEmpty ? nil : RegexTranslator.render(path))
    }

    /// X, an optional port (TDSConventions.optionalPort) and the path P, or X then TriggerCondition.hostEnd when
    /// the rule has no path: X ends at the request host.
    var filter: String {
        guard let path else { return hostPrefix + TriggerCondition.hostEnd }
        return hostPrefix + TDSConventions.optionalPort + path
    }
}

extension InURLForm.Gap {
    var regex: String {
        switch self {
        case .any: return ".*"
        case .beforeQuery: return TDSConventions.beforeQuery
        }
    }
}

extension InURLForm {
    var filter: String { hostPrefix + TriggerCondition.hostEnd + gap.regex + (hostPart ?? "") + path }

    /// The in-URL form of `terms`, split at its host part as `HostSplit.split` splits it.
    static func make(hostPrefix: String, gap: Gap, terms: [WKTerm]) -> InURLForm {
        guard let (_, rest) = HostSplit.split(terms) else {
            return InURLForm(hostPrefix: hostPrefix, gap: gap, path: RegexTranslator.render(terms))
        }
        return InURLForm(
            hostPrefix: hostPrefix, gap: gap, hostPart: RegexTranslator.render(Array(terms.dropLast(rest.count))),
            path: RegexTranslator.render(rest))
    }
}

extension FilterForm {
    var filter: String {
        switch self {
        case .host(let h): return h.filter
        case .inURL(let u): return u.filter
        case .hostAndInURL(let h, let u): return InURLUnion.filter(h, u)
        }
    }
}
