// The two url-filter forms that apply a TDS rule regex (or an allowlist entry) to the hosts in scope
// (HostFilters.swift), held as their pieces. The builder makes them, the provenance carries them, and the optimizer
// (RuleListOptimizer.swift) joins a host form and an in-URL form by their pieces, never by reading filter text.

import ContentRules
import TrackerData

/// X, an optional port (TDSConventions.optionalPort) and the path P, or X then TriggerCondition.hostEnd when the
/// rule has no path: X ends at the request host.
struct HostForm: Hashable, Sendable {
    /// Scheme, subdomains and host, up to the end of the request host.
    var hostPrefix: String
    /// The rule's path P (rendered; it starts with "/"), or nil when the rule has none.
    var path: String?

    init(_ hostPrefix: String, path: String?) {
        self.hostPrefix = hostPrefix
        self.path = path
    }

    /// X with the rule's path terms (none: the rule has no path).
    init(_ hostPrefix: String, path: [WKTerm]) {
        self.init(hostPrefix, path: path.isEmpty ? nil : RegexTranslator.render(path))
    }

    var filter: String {
        guard let path else { return hostPrefix + TriggerCondition.hostEnd }
        return hostPrefix + TDSConventions.optionalPort + path
    }
}

/// `X[:/]GHP`: the rule regex (host part H, path P) anywhere after the request host, G being the gap before it.
struct InURLForm: Hashable, Sendable {
    enum Gap: Hashable, Sendable {
        /// TDS rules: anything (`.*`).
        case any
        /// Allowlist entries, matched against the URL cut at its query (TDSConventions.beforeQuery).
        case beforeQuery

        var regex: String {
            switch self {
            case .any: return ".*"
            case .beforeQuery: return TDSConventions.beforeQuery
            }
        }
    }

    /// Scheme, subdomains and host, up to the end of the request host (`HostScope.hostPrefix`).
    var hostPrefix: String
    var gap: Gap
    /// The regex's leading plain host part H (rendered), nil when it does not start with one.
    var hostPart: String?
    /// The rest of the regex: its path P after H, or the whole regex when `hostPart` is nil.
    var path: String

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

/// Which form a rule's url-filter has: its role in the provenance names it ("block host", "exception in-url").
enum FilterForm: Hashable, Sendable {
    case host(HostForm)
    case inURL(InURLForm)
    /// The optimizer's union of a host form and the in-URL form right after it (`InURLUnion`).
    case hostAndInURL(HostForm, InURLForm)

    /// The role's form word: "host", "in-url" or "host+in-url".
    var name: String {
        switch self {
        case .host: return "host"
        case .inURL: return "in-url"
        case .hostAndInURL: return "host+in-url"
        }
    }

    var filter: String {
        switch self {
        case .host(let h): return h.filter
        case .inURL(let u): return u.filter
        case .hostAndInURL(let h, let u): return InURLUnion.filter(h, u)
        }
    }
}
