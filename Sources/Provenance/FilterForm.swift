// The url-filter forms a TDS rule regex (or an allowlist entry) takes for the hosts in scope, held as their pieces.
// The builder makes them (RuleBuilder's FilterForm.swift renders their filters), the provenance carries them, and
// the optimizer joins a host form and an in-URL form by their pieces, never by reading filter text. A provenance
// file records only the form's kind, as the last word of the rule's role.

/// X, an optional port and the path P, or X then the host's end when the rule has no path: X ends at the
/// request host.
public struct HostForm: Hashable, Sendable {
    /// Scheme, subdomains and host, up to the end of the request host.
    public var hostPrefix: String
    /// The rule's path P (rendered; it starts with "/"), or nil when the rule has none.
    public var path: String?

    public init(_ hostPrefix: String, path: String?) {
        self.hostPrefix = hostPrefix
        self.path = path
    }
}

/// `X[:/]GHP`: the rule regex (host part H, path P) anywhere after the request host, G being the gap before it.
public struct InURLForm: Hashable, Sendable {
    public enum Gap: Hashable, Sendable {
        /// TDS rules: anything (`.*`).
        case any
        /// Allowlist entries, matched against the URL cut at its query.
        case beforeQuery
    }

    /// Scheme, subdomains and host, up to the end of the request host.
    public var hostPrefix: String
    public var gap: Gap
    /// The regex's leading plain host part H (rendered), nil when it does not start with one.
    public var hostPart: String?
    /// The rest of the regex: its path P after H, or the whole regex when `hostPart` is nil.
    public var path: String

    public init(hostPrefix: String, gap: Gap, hostPart: String? = nil, path: String) {
        self.hostPrefix = hostPrefix
        self.gap = gap
        self.hostPart = hostPart
        self.path = path
    }
}

/// Which form a rule's url-filter has, with its pieces.
public enum FilterForm: Hashable, Sendable {
    case host(HostForm)
    case inURL(InURLForm)
    /// The optimizer's union of a host form and the in-URL form right after it.
    case hostAndInURL(HostForm, InURLForm)

    /// The form as a provenance file records it: the role's last word.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case host
        case inURL = "in-url"
        case hostAndInURL = "host+in-url"
    }

    public var kind: Kind {
        switch self {
        case .host: return .host
        case .inURL: return .inURL
        case .hostAndInURL: return .hostAndInURL
        }
    }
}

/// A rule's form as its provenance holds it: the kind, which the file records, and the pieces while the builder
/// has them (a provenance read back from a file has none).
public struct RecordedFilterForm: Hashable, Sendable {
    public let kind: FilterForm.Kind
    public let pieces: FilterForm?

    public init(_ pieces: FilterForm) {
        kind = pieces.kind
        self.pieces = pieces
    }

    public init(kind: FilterForm.Kind) {
        self.kind = kind
        pieces = nil
    }
}
